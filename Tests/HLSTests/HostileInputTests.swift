@testable import HLS
import XCTest

/// Playlists written to hurt the reader: they must cost bounded memory and never crash.
final class HostileInputTests: XCTestCase {
    func testByteRangeThatOverflowsIsRefusedWithADiagnostic() throws {
        let text = """
        #EXTM3U
        #EXT-X-TARGETDURATION:1
        #EXT-X-BYTERANGE:9223372036854775807@9223372036854775807
        #EXTINF:1,
        media.mp4
        #EXT-X-ENDLIST
        """
        let parsed = try PlaylistParser.parse(text)
        let segment = try XCTUnwrap(parsed.playlist.media?.segments.first)
        XCTAssertNil(segment.byteRange)
        XCTAssertTrue(parsed.diagnostics.contains { $0.message.contains("past any possible file size") }, "\(parsed.diagnostics)")
    }

    func testNestedDefinitionsCannotExhaustMemory() throws {
        // Each level repeats the previous one eight times: 8^9 bytes (134 MB) per URI line unchecked.
        var lines = ["#EXTM3U", "#EXT-X-TARGETDURATION:1", "#EXT-X-DEFINE:NAME=\"v0\",VALUE=\"x\""]
        for level in 1...9 {
            let previous = String(repeating: "{$v\(level - 1)}", count: 8)
            lines.append("#EXT-X-DEFINE:NAME=\"v\(level)\",VALUE=\"\(previous)\"")
        }
        for _ in 0..<20 { lines += ["#EXTINF:1,", "{$v9}.ts"] }
        lines.append("#EXT-X-ENDLIST")
        let parsed = try PlaylistParser.parse(lines.joined(separator: "\n"))
        let segments = try XCTUnwrap(parsed.playlist.media?.segments)
        XCTAssertEqual(segments.count, 20)
        XCTAssertTrue(segments.allSatisfy { $0.uri.utf8.count <= VariableTable.maxExpansion + 16 }, "bounded expansion")
        XCTAssertTrue(parsed.diagnostics.contains { $0.message.contains("variable substitution grows past") }, "\(parsed.diagnostics.prefix(3))")
    }
}
