import Foundation
import SeamcheckTestSupport
import XCTest

/// A matrix case given as a primary playlist over HTTP on 127.0.0.1: audited per class like
/// `seamcheck audit PLAYLIST`, interstitials placed at their scheduled offsets.
final class MatrixPlaylistCaseTests: XCTestCase {
    func testPlaylistCaseRunsPerClassWithScheduledOffsets() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("matrix-playlist-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let server = try TestHTTPServer(root: dir.path)
        defer { server.stop() }
        let stream = InterstitialStream(primary: Fixtures.primaryWithSegments, primaryCodecs: "avc1.64000d,mp4a.40.2", ads: [
            .init(id: "ad-match", source: Fixtures.matching, boundary: 1),
            .init(id: "ad-25fps", source: Fixtures.fps25, boundary: 3),
        ])
        let playlist = server.url(try stream.write(into: dir, port: server.port))
        let matrix = dir.appendingPathComponent("matrix.yaml").path
        try """
        name: playlist-case
        deviceClasses: [apple-tv-4k, smart-tv-low-end]
        cases:
          - {id: title-1, playlist: "\(playlist)"}
        """.write(toFile: matrix, atomically: true, encoding: .utf8)

        let result = try SeamcheckBinary.run(["matrix", "run", matrix, "--db", dir.appendingPathComponent("r.sqlite").path,
                                              "--output", dir.appendingPathComponent("reports").path, "--format", "json"])
        XCTAssertEqual(result.status, 1, "the 25 fps ad fails on the low-end TV: \(result.stderr)")
        let doc = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let matrixCase = try XCTUnwrap((doc["cases"] as? [[String: Any]])?.first)
        XCTAssertEqual(matrixCase["kind"] as? String, "playlist")
        let cells = try XCTUnwrap(matrixCase["cells"] as? [[String: Any]])
        let status = Dictionary(uniqueKeysWithValues: cells.map { ($0["deviceClass"] as! String, $0["status"] as! String) })
        XCTAssertEqual(status, ["apple-tv-4k": "pass", "smart-tv-low-end": "fail"])
        let placements = try XCTUnwrap(matrixCase["placements"] as? [[String: Any]])
        XCTAssertEqual(placements.map { $0["basis"] as? String }, ["schedule", "schedule"])
        let offsets = placements.compactMap { $0["offset"] as? Double }
        XCTAssertEqual(offsets.count, 2)
        XCTAssertEqual(offsets[0], 1.0, accuracy: 0.1, "ad-match after the first 1 s segment")
        XCTAssertEqual(offsets[1], 3.0, accuracy: 0.1, "ad-25fps after the third")
    }
}
