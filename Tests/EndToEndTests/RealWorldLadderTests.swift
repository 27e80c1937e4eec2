import Foundation
import SeamcheckTestSupport
import XCTest

/// A CMAF title built like a catalog's (three video tiers, an AAC group in two languages and an
/// E-AC-3 5.1 group, WebVTT subtitles, I-frame playlists over the real segments), with a
/// matching AAC ad, inspected, linted and audited through the binary over HTTP.
final class RealWorldLadderTests: ServedStreamTestCase {
    var path = ""

    static let ad = InterstitialStream.Ad(id: "ad-aac", source: Fixtures.matching, multivariantCodecs: "avc1.64000d,mp4a.40.2", boundary: 1)

    func writeLadder(dateRangesInIFramePlaylists: Bool = true) throws {
        path = try CMAFLadder(ads: [Self.ad], dateRangesInIFramePlaylists: dateRangesInIFramePlaylists).write(into: root, port: server.port)
    }

    func testInspectShowsTheLadderItsAudioGroupsSubtitlesAndIFramePlaylists() throws {
        try writeLadder()
        let inspect = try run("inspect", [server.url(path)])
        XCTAssertEqual(inspect.status, 0, inspect.stderr)
        XCTAssertEqual((inspect.document["variants"] as? [[String: Any]])?.count, 6)
        XCTAssertEqual((inspect.document["renditions"] as? [[String: Any]])?.compactMap { $0["groupID"] as? String },
                       ["aac", "aac", "ec3", "subs"])
        XCTAssertEqual((inspect.document["iFrameStreams"] as? [[String: Any]])?.count, 3)
        let media = try XCTUnwrap(inspect.document["mediaPlaylists"] as? [[String: Any]])
        let iFrames = media.filter { $0["kind"] as? String == "i-frame" }
        XCTAssertEqual(iFrames.compactMap { $0["uri"] as? String },
                       ["video-360p/iframes.m3u8", "video-270p/iframes.m3u8", "video-180p/iframes.m3u8"])
        XCTAssertTrue(iFrames.allSatisfy { $0["iFramesOnly"] as? Bool == true && $0["segmentCount"] as? Int == 2 }, "\(iFrames)")
        XCTAssertEqual(media.filter { $0["kind"] as? String == "rendition" }.count, 4, "three audio renditions and the subtitles")
        XCTAssertEqual(inspect.document["primary"] as? String, "video-360p/index.m3u8", "the timeline is a variant's, never an I-frame playlist's")
        XCTAssertEqual((inspect.document["unreachable"] as? [Any])?.count, 0)

        let table = try SeamcheckBinary.run(["inspect", server.url(path), "--format", "table"])
        XCTAssertTrue(table.stdout.contains("video-180p/iframes.m3u8: I-frame playlist, 2 I-frame(s)"), table.stdout)
        XCTAssertTrue(table.stdout.contains("SUBTITLES  group subs"), table.stdout)
    }

    func testLintReadsEveryMediaPlaylistIFramePlaylistsIncludedAndFindsNothingWrong() throws {
        try writeLadder()
        let lint = try run("lint", [server.url(path)])
        XCTAssertEqual(lint.status, 0, "\(lint.findings)")
        // The ad (muxed, untagged AAC, no subtitles) leaves French listeners and subtitle viewers
        // without theirs: warnings, read from the playlists alone. Nothing else is wrong.
        XCTAssertEqual(lint.fired, ["audio-language-missing@*", "subtitles-missing@*"], "\(lint.findings)")
        let playlists = (lint.document["playlists"] as? [String]) ?? []
        XCTAssertEqual(playlists.count, 10, "\(playlists)")
        XCTAssertTrue(playlists.contains(server.url("/files/ladder/video-270p/iframes.m3u8")), "\(playlists)")
        XCTAssertTrue(playlists.contains(server.url("/files/ladder/subs-en/index.m3u8")), "\(playlists)")
    }

    func testEachClassSelectsItsTierAndAudioGroupAndNeverAnIFramePlaylist() throws {
        try writeLadder()
        let audit = try run("audit", [server.url(path)])
        XCTAssertEqual(audit.status, 0, "E-AC-3 to AAC is a warning at most: \(audit.findings)")
        let primary = audit.selections("primary").mapValues { $0.map(\.lastPathComponents2) }
        for deviceClass in Classes.eac3 {
            XCTAssertEqual(primary[deviceClass], ["video-360p/index.m3u8", "audio-ec3-en/index.m3u8"], deviceClass)
        }
        XCTAssertEqual(primary["smart-tv-low-end"], ["video-360p/index.m3u8", "audio-aac-en/index.m3u8"], "stereo AAC only: the AAC group")
        XCTAssertEqual(primary["speaker-audio-only"], ["video-180p/index.m3u8", "audio-aac-en/index.m3u8"], "the lowest variant with audio it plays")
        XCTAssertFalse(audit.assets.flatMap { ($0["selections"] as? [[String: Any]]) ?? [] }
            .contains { ($0["rendition"] as? String ?? "").contains("iframes") })

        // The AAC stereo ad against the E-AC-3 5.1 that these classes play; the AAC classes switch no
        // audio. Every video class plays the 640x360 tier and the ad's 320x180: a coded-size change
        // (catalog v3); the speaker plays no video.
        let expected = Set(["audio-codec-mismatch", "channel-layout-mismatch"].flatMap { rule in Classes.eac3.map { "\(rule)@\($0)" } })
            .union(Classes.video.map { "resolution-change@\($0)" })
            // Localization: the ad has no subtitles (every screen), and no French for the classes
            // whose AAC group offers en and fr; the E-AC-3 group is English only.
            .union(Classes.video.map { "subtitles-missing@\($0)" })
            .union(["smart-tv-low-end", "speaker-audio-only"].map { "audio-language-missing@\($0)" })
        XCTAssertEqual(audit.fired, expected, "\(audit.findings.map { $0["message"] ?? "" })")
        let strict = try run("audit", [server.url(path), "--fail-on", "warning"])
        XCTAssertEqual(strict.status, 1)
    }

    func testAnAdPackagedLikeThePrimaryIsPlayedFromTheSameTierAndAudioGroup() throws {
        path = try CMAFLadder(ads: [.init(id: "ad-ladder", source: nil, rawPath: "/files/ad-ladder/main.m3u8", boundary: 1)])
            .write(into: root, port: server.port)
        try CMAFLadder(folder: "ad-ladder", ads: []).write(into: root, port: server.port)
        let audit = try run("audit", [server.url(path)])
        let ad = audit.selections("interstitial 1").mapValues { $0.map { $0.split(separator: "/").suffix(3).joined(separator: "/") } }
        for deviceClass in Classes.eac3 {
            XCTAssertEqual(ad[deviceClass], ["ad-ladder/video-360p/index.m3u8", "ad-ladder/audio-ec3-en/index.m3u8"], deviceClass)
        }
        XCTAssertEqual(ad["smart-tv-low-end"], ["ad-ladder/video-360p/index.m3u8", "ad-ladder/audio-aac-en/index.m3u8"])
        XCTAssertEqual(ad["speaker-audio-only"], ["ad-ladder/video-180p/index.m3u8", "ad-ladder/audio-aac-en/index.m3u8"])
        // Separate renditions from x264: audio starts 66 ms before video in the ad as in the primary (the B-frame delay).
        XCTAssertEqual(audit.fired, [], "same tiers, same audio groups, same packaging: nothing switches (\(audit.findings.map { $0["message"] ?? "" }))")
        XCTAssertEqual(audit.status, 0)
    }

    func testIFramePlaylistsMayLeaveTheDateRangesOutButNoPlayedPlaylistMay() throws {
        try writeLadder(dateRangesInIFramePlaylists: false)
        let lint = try run("lint", [server.url(path)])
        XCTAssertEqual(lint.status, 0, "\(lint.findings)")
        XCTAssertEqual(lint.findings("daterange-inconsistent-across-renditions").count, 0, "\(lint.findings)")

        // The French audio rendition without the date range: players switching to it lose the ad.
        let french = "ladder/audio-aac-fr/index.m3u8"
        try write(try read(french).components(separatedBy: "\n").filter { !$0.hasPrefix("#EXT-X-DATERANGE") }.joined(separator: "\n"), to: french)
        let broken = try run("lint", [server.url(path)])
        XCTAssertEqual(broken.status, 1)
        let missing = broken.findings("daterange-inconsistent-across-renditions")
        XCTAssertEqual(missing.count, 1, "\(broken.findings)")
        XCTAssertTrue(broken.string(missing[0], "subject").contains("audio-aac-fr/index.m3u8"), "\(missing)")
    }

    func testTheTagNamingAPlaylistDecidesWhetherItMustBeIFramesOnly() throws {
        try writeLadder()
        // A packager that wrote the tier's playlist where the I-frame playlist belongs, and the reverse.
        try write(try read("ladder/video-180p/index.m3u8"), to: "ladder/video-180p/iframes.m3u8")
        let main = try read("ladder/main.m3u8")
        try write(main.replacingOccurrences(of: "\nvideo-270p/index.m3u8\n", with: "\nvideo-270p/iframes.m3u8\n"), to: "ladder/main.m3u8")
        let lint = try run("lint", [server.url(path)])
        XCTAssertEqual(lint.status, 1)
        let syntax = lint.findings("playlist-syntax")
        XCTAssertEqual(syntax.count, 2, "\(syntax)")
        XCTAssertTrue(syntax.contains { lint.string($0, "subject").contains("video-180p/iframes.m3u8")
                          && lint.string($0, "message").contains("EXT-X-I-FRAME-STREAM-INF names this playlist") }, "\(syntax)")
        XCTAssertTrue(syntax.contains { lint.string($0, "subject").contains("video-270p/iframes.m3u8")
                          && lint.string($0, "message").contains("players would play its I-frames only") }, "\(syntax)")
    }
}
