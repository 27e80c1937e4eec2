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

    func testSubstitutionIsBoundedForTheWholePlaylistNotJustPerLine() throws {
        // 1,200 lines that each grow by 60 KiB stay under the per-line cap, but would add 72 MiB.
        let big = String(repeating: "x", count: 60 * 1024)
        var lines = ["#EXTM3U", "#EXT-X-TARGETDURATION:1", "#EXT-X-DEFINE:NAME=\"big\",VALUE=\"\(big)\""]
        for _ in 0..<1200 { lines += ["#EXTINF:1,", "{$big}.ts"] }
        lines.append("#EXT-X-ENDLIST")
        let parsed = try PlaylistParser.parse(lines.joined(separator: "\n"))
        let segments = try XCTUnwrap(parsed.playlist.media?.segments)
        XCTAssertEqual(segments.count, 1200)
        let total = segments.reduce(0) { $0 + $1.uri.utf8.count }
        XCTAssertLessThanOrEqual(total, VariableTable.maxTotalExpansion + 1200 * 16, "bounded for the whole parse")
        XCTAssertEqual(segments.last?.uri, "{$big}.ts", "references past the budget are left as written")
        XCTAssertEqual(parsed.diagnostics.filter { $0.message.contains("later references are left as written") }.count, 1, "one diagnostic, not one per line")
    }

    func testAHugeAttributeListIsCutNotQuadratic() throws {
        let attributes = (0..<200_000).map { "X-A\($0)=1" }.joined(separator: ",")
        let text = "#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXT-X-PROGRAM-DATE-TIME:2020-01-02T21:55:40Z\n"
            + "#EXT-X-DATERANGE:ID=\"a\",START-DATE=\"2020-01-02T21:55:40Z\",\(attributes)\n#EXTINF:1,\na.ts\n#EXT-X-ENDLIST\n"
        let parsed = try PlaylistParser.parse(text)
        let range = try XCTUnwrap(parsed.playlist.media?.dateRanges.first)
        XCTAssertEqual(range.attributes.items.count, AttributeListParser.maxAttributes)
        XCTAssertTrue(parsed.diagnostics.contains { $0.message.contains("more than \(AttributeListParser.maxAttributes) attributes") })
    }

    func testOutOfRangeNumbersAndDatesNeitherParseAsNumbersNorTrap() throws {
        XCTAssertNil(HLSNumber.parse("12345678901234567890e5"), "no exponents, however long the number")
        XCTAssertNil(HLSNumber.parse("1" + String(repeating: "0", count: 400)), "no infinity")
        XCTAssertEqual(HLSNumber.parse("123456789012345678901.5"), 123456789012345678901.5)
        // Segments long enough to push the start date past year 1 before the first PROGRAM-DATE-TIME.
        let text = "#EXTM3U\n#EXT-X-TARGETDURATION:1\n" + String(repeating: "#EXTINF:999999999999999,\na.ts\n", count: 10)
            + "#EXT-X-PROGRAM-DATE-TIME:2020-01-02T21:55:40Z\n#EXTINF:1,\nb.ts\n#EXT-X-ENDLIST\n"
        let start = try XCTUnwrap(try PlaylistParser.parse(text).playlist.media?.startDate)
        XCTAssertTrue(HLSDate.format(start).hasSuffix("s from 1970-01-01T00:00:00Z"), HLSDate.format(start))
    }
}
