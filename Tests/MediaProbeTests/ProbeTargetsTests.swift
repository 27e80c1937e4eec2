import Foundation
import HLS
@testable import MediaProbe
import XCTest

final class ProbeTargetsTests: XCTestCase {
    func testAMultivariantPlaylistBecomesItsVariantsAndAudioButNotSubtitles() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("seamcheck-targets-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let master = dir.appendingPathComponent("master.m3u8")
        try """
        #EXTM3U
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="a",NAME="en",DEFAULT=YES,URI="audio/en.m3u8"
        #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="s",NAME="en",DEFAULT=YES,URI="subs/en.m3u8"
        #EXT-X-STREAM-INF:BANDWIDTH=1000000,AUDIO="a",SUBTITLES="s"
        video/720p.m3u8
        #EXT-X-STREAM-INF:BANDWIDTH=2000000,AUDIO="a",SUBTITLES="s"
        video/1080p.m3u8
        """.write(to: master, atomically: true, encoding: .utf8)
        let targets = try await ProbeTargets.expand([.file(path: master.path)])
        XCTAssertEqual(targets.map { ($0.description as NSString).lastPathComponent }, ["720p.m3u8", "1080p.m3u8", "en.m3u8"])
        XCTAssertFalse(targets.contains { $0.description.contains("/subs/") }, "WebVTT subtitles are not media to probe")
        let loaded = try await ProbeTargets.expandLoaded([.file(path: master.path)])
        XCTAssertEqual(loaded.map(\.location), targets)
        XCTAssertTrue(loaded.allSatisfy { $0.loaded == nil }, "variants are loaded by their probes, once each")
    }

    func testAMediaPlaylistInputKeepsThePlaylistItWasReadAs() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("seamcheck-targets-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let playlist = dir.appendingPathComponent("index.m3u8")
        try "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:5\n#EXTINF:2,\nseg5.ts\n".write(to: playlist, atomically: true, encoding: .utf8)
        let targets = try await ProbeTargets.expandLoaded([.file(path: playlist.path), .file(path: dir.appendingPathComponent("clip.mp4").path)])
        XCTAssertEqual(targets.count, 2)
        XCTAssertEqual(targets[0].loaded?.playlist.mediaSequence, 5)
        XCTAssertEqual(targets[0].loaded?.location, .file(path: playlist.path))
        XCTAssertNil(targets[1].loaded, "not a playlist: probed as a file")
    }
}
