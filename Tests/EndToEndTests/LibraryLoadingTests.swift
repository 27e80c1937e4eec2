import Foundation
import SeamcheckTestSupport
import XCTest

/// FFmpeg (with the ~130 libraries it pulls in) and libcurl are loaded by the commands that use
/// them, on first use, not by every process: discover, lint and inspect of local playlists
/// start without them. The dynamic loader's own trace (LD_DEBUG=files) says what was opened.
final class LibraryLoadingTests: XCTestCase {
    private func loadedLibraries(_ arguments: [String]) throws -> (status: Int32, libraries: Set<String>) {
        let result = try SeamcheckBinary.run(arguments, environment: ["LD_DEBUG": "files"])
        var names = Set<String>()
        for line in result.stderr.split(separator: "\n") where line.contains("file=") {
            guard let range = line.range(of: "file=") else { continue }
            let name = line[range.upperBound...].prefix { !$0.isWhitespace && $0 != ";" }
            names.insert(String(name))
        }
        return (result.status, names)
    }

    private func has(_ libraries: Set<String>, _ prefix: String) -> Bool {
        libraries.contains { $0.hasPrefix(prefix) || $0.contains("/" + prefix) }
    }

    func testAPlaylistLintLoadsNeitherFFmpegNorCurl() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("seamcheck-libs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let playlist = dir.appendingPathComponent("main.m3u8")
        try "#EXTM3U\n#EXT-X-TARGETDURATION:6\n#EXT-X-VERSION:7\n#EXTINF:6,\na.ts\n#EXT-X-ENDLIST\n"
            .write(to: playlist, atomically: true, encoding: .utf8)
        let (status, libraries) = try loadedLibraries(["lint", playlist.path])
        XCTAssertEqual(status, 0)
        XCTAssertTrue(has(libraries, "libFoundation"), "the trace must list what was loaded: \(libraries.sorted())")
        XCTAssertFalse(has(libraries, "libavformat"), libraries.sorted().description)
        XCTAssertFalse(has(libraries, "libcurl"), libraries.sorted().description)
    }

    func testAProbeLoadsFFmpegOnlyThen() throws {
        let (status, libraries) = try loadedLibraries(["probe", try Fixtures.primary.path()])
        XCTAssertEqual(status, 0)
        XCTAssertTrue(has(libraries, "libavformat"), libraries.sorted().description)
        XCTAssertTrue(has(libraries, "libavcodec"), libraries.sorted().description)
        XCTAssertFalse(has(libraries, "libcurl"), "a local file needs no http client")
    }

    func testAnHTTPPlaylistLoadsCurlButNotFFmpeg() throws {
        let server = try TestHTTPServer(root: NSTemporaryDirectory(), lifetime: 60)
        defer { server.stop() }
        let (_, libraries) = try loadedLibraries(["lint", server.url("/status/404")])
        XCTAssertTrue(has(libraries, "libcurl"), libraries.sorted().description)
        XCTAssertFalse(has(libraries, "libavformat"), libraries.sorted().description)
    }
}
