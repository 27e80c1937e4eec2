import Foundation
import SeamcheckTestSupport
import XCTest

/// The CMAF ladder with its faults injected per path, as CDNs and ad servers produce them: 404,
/// 500, a slow answer, a redirect, redirect loops, an HTML asset list. Each fault is a finding
/// on that part with its URL and status or reason; the rest is inspected, linted and audited,
/// and the exit code is docs/interface.md's.
final class FaultInjectionTests: ServedStreamTestCase {
    var path = ""

    override func setUpWithError() throws {
        try super.setUpWithError()
        let ads: [InterstitialStream.Ad] = [
            .init(id: "ad-aac", source: Fixtures.matching, multivariantCodecs: "avc1.64000d,mp4a.40.2", boundary: 1),
            .assetList(id: "ad-list", path: "/files/lists/ad.json", boundary: 2),
        ]
        path = try CMAFLadder(ads: ads).write(into: root, port: server.port)
        try write("{\"ASSETS\": [{\"URI\": \"\(server.url("/files/ad-aac/main.m3u8"))\", \"DURATION\": 2.002}]}", to: "lists/ad.json")
    }

    func url(_ ladderPath: String) -> String { server.url("/files/ladder/" + ladderPath) }

    func testUnloadableVariantRenditionAndIFramePlaylistsAreFindingsAndPlayersFailOver() throws {
        try server.inject(.status(404), at: "/files/ladder/video-360p/index.m3u8")
        try server.inject(.status(500), at: "/files/ladder/audio-ec3-en/index.m3u8")
        try server.inject(.status(404), at: "/files/ladder/video-180p/iframes.m3u8")

        let lint = try run("lint", [server.url(path)])
        XCTAssertEqual(lint.status, 1, "an unloadable variant is an error")
        let unreachable = lint.findings("media-playlist-unreachable")
        XCTAssertEqual(unreachable.map { lint.string($0, "actual") },
                       [url("video-360p/index.m3u8") + ": HTTP 404", url("audio-ec3-en/index.m3u8") + ": HTTP 500",
                        url("video-180p/iframes.m3u8") + ": HTTP 404"])
        XCTAssertEqual(unreachable.map { lint.string($0, "severity") }, ["error", "error", "warning"], "trick play only: a warning")
        XCTAssertTrue(lint.string(unreachable[2], "subject").hasPrefix("EXT-X-I-FRAME-STREAM-INF video-180p/iframes.m3u8 (line "))
        XCTAssertEqual((lint.document["playlists"] as? [String])?.count, 7, "the other seven were linted")

        let inspect = try run("inspect", [server.url(path)])
        XCTAssertEqual(inspect.status, 0, inspect.stderr)
        let marked = (inspect.document["unreachable"] as? [[String: Any]]) ?? []
        XCTAssertEqual(marked.compactMap { $0["kind"] as? String }, ["variant", "rendition", "i-frame"])
        XCTAssertEqual(marked.compactMap { $0["status"] as? Int }, [404, 500, 404])

        let audit = try run("audit", [server.url(path)])
        XCTAssertEqual(audit.status, 1, "\(audit.findings)")
        let primary = audit.selections("primary").mapValues { $0.map(\.lastPathComponents2) }
        for deviceClass in Classes.video {
            XCTAssertEqual(primary[deviceClass], ["video-270p/index.m3u8", "audio-aac-en/index.m3u8"],
                           "\(deviceClass): the next variant whose playlists load")
        }
        let failovers = audit.findings("media-not-probed")
        XCTAssertEqual(Set(failovers.compactMap { $0["deviceClass"] as? String }), Set(Classes.video), "\(failovers)")
        for finding in failovers where Classes.eac3.contains(finding["deviceClass"] as? String ?? "") {
            let message = audit.string(finding, "message")
            XCTAssertTrue(message.contains(url("audio-ec3-en/index.m3u8") + " (HTTP 500)") && message.contains(url("video-360p/index.m3u8") + " (HTTP 404)")
                          && message.contains("fail over to \(url("video-270p/index.m3u8")) with \(url("audio-aac-en/index.m3u8"))"), message)
            XCTAssertFalse(message.contains(url("video-270p/index.m3u8") + " (HTTP"), "the audio rendition failed, not the 270p variant: \(message)")
        }
        // On AAC now, these classes switch no audio codec for the AAC ads.
        XCTAssertEqual(audit.findings("audio-codec-mismatch").count, 0, "\(audit.findings)")
    }

    func testAFaultOnTheInputItselfIsExitTwoNamingItsURL() throws {
        for (fault, words) in [(TestHTTPServer.Fault.status(500), "HTTP 500"), (.html, "HTML"), (.redirect("/files/ladder/main.m3u8"), "redirect loop")] {
            try server.clearFaults()
            try server.inject(fault, at: "/files/ladder/main.m3u8")
            for command in ["inspect", "lint", "audit"] {
                let result = try SeamcheckBinary.run([command, server.url(path), "--format", "json"])
                XCTAssertEqual(result.status, 2, "\(command), \(words): \(result.stderr)")
                XCTAssertTrue(result.stderr.contains(server.url(path)) && result.stderr.contains(words), "\(command): \(result.stderr)")
                XCTAssertEqual(result.stdout, "", command)
            }
        }
    }

    func testASlowVariantIsWaitedForWithinTheTimeoutAndIsAFindingPastIt() throws {
        try server.inject(.delay(2.5), at: "/files/ladder/video-270p/index.m3u8")
        let hurried = try run("lint", [server.url(path), "--timeout", "1"])
        XCTAssertEqual(hurried.status, 1)
        let slow = hurried.findings("media-playlist-unreachable")
        XCTAssertEqual(slow.count, 1, "\(hurried.findings)")
        XCTAssertTrue(hurried.string(slow[0], "actual").hasPrefix(url("video-270p/index.m3u8") + ": no response within 1 s"), "\(slow)")

        let patient = try run("lint", [server.url(path)])
        XCTAssertEqual(patient.status, 0, "\(patient.findings)")
        XCTAssertEqual(patient.nonLocalization.count, 0, "\(patient.findings)")
    }

    func testARedirectedVariantIsReadWhereItWasRedirectedTo() throws {
        // The CDN moved the tier: the old URL redirects, and the segments only exist beside the new one.
        try FileManager.default.createDirectory(at: root.appendingPathComponent("edge"), withIntermediateDirectories: true)
        try FileManager.default.moveItem(at: root.appendingPathComponent("ladder/video-360p"), to: root.appendingPathComponent("edge/video-360p"))
        for playlist in ["index.m3u8", "iframes.m3u8"] {
            try server.inject(.redirect(server.url("/files/edge/video-360p/" + playlist)), at: "/files/ladder/video-360p/" + playlist)
        }
        let audit = try run("audit", [server.url(path), "--profile", "smart-tv-low-end"])
        XCTAssertEqual(audit.status, 0, "\(audit.findings)")
        // Only the 320x180 ad against the 640x360 tier read through the redirect (catalog v3).
        XCTAssertEqual(audit.firedApartFromLocalization, ["resolution-change@smart-tv-low-end"], "\(audit.findings)")
        let primary = audit.assets.first { $0["role"] as? String == "primary" }
        let video = ((primary?["media"] as? [String: Any])?["video"] as? [[String: Any]])?.first
        XCTAssertEqual(video?["width"] as? Int, 640, "the 360p tier was probed through the redirect")
        let log = try requested()
        XCTAssertTrue(log.contains("/files/edge/video-360p/init.mp4"), "relative URIs resolve against the redirect target: \(log)")
        XCTAssertFalse(log.contains("/files/ladder/video-360p/init.mp4"), "\(log)")
    }

    func testRedirectLoopsOnAVariantAndOnAnAssetListAreFindingsOnThem() throws {
        try server.inject(.redirect("/files/ladder/video-360p/index.m3u8"), at: "/files/ladder/video-360p/index.m3u8")
        try server.inject(.redirect("/files/lists/ad.json"), at: "/files/lists/ad.json")
        let lint = try run("lint", [server.url(path)])
        XCTAssertEqual(lint.status, 1)
        let variant = lint.findings("media-playlist-unreachable")
        XCTAssertEqual(variant.count, 1, "\(lint.findings)")
        XCTAssertTrue(lint.string(variant[0], "actual").hasPrefix(url("video-360p/index.m3u8") + ": redirect loop"), "\(variant)")
        let list = lint.findings("asset-unreachable")
        XCTAssertEqual(list.count, 1, "\(lint.findings)")
        XCTAssertTrue(lint.string(list[0], "subject").hasPrefix("EXT-X-DATERANGE ID=\"ad-list\""), "\(list)")
        XCTAssertTrue(lint.string(list[0], "actual").hasPrefix(server.url("/files/lists/ad.json") + ": redirect loop"), "\(list)")

        let audit = try run("audit", [server.url(path)])
        XCTAssertEqual(audit.status, 1)
        XCTAssertEqual(audit.assets.compactMap { ($0["placement"] as? [String: Any])?["id"] as? String }, ["ad-aac"],
                       "the ad named directly is audited; the list's ad is skipped, as players skip it")
        XCTAssertEqual(audit.findings("audio-codec-mismatch").count, Classes.eac3.count, "\(audit.fired)")
    }

    func testAnAssetListThatIsAnHTMLPageIsAFindingOnIt() throws {
        try server.inject(.html, at: "/files/lists/ad.json")
        let lint = try run("lint", [server.url(path)])
        XCTAssertEqual(lint.status, 1)
        let invalid = lint.findings("asset-list-invalid")
        XCTAssertEqual(invalid.count, 1, "\(lint.findings)")
        XCTAssertTrue(lint.string(invalid[0], "message").contains(server.url("/files/lists/ad.json")), "\(invalid)")
        XCTAssertTrue(lint.string(invalid[0], "message").contains("HTML"), "\(invalid)")
        XCTAssertEqual(lint.nonLocalization.count, 1, "\(lint.findings)")
    }

    func testAnAdWithOneBrokenVariantIsAuditedOnTheVariantsThatLoad() throws {
        // The list's ad is a CMAF ladder too; its top tier answers 404, and so does its English AAC.
        try write("{\"ASSETS\": [{\"URI\": \"\(server.url("/files/ad-ladder/main.m3u8"))\", \"DURATION\": 2.002}]}", to: "lists/ad.json")
        try CMAFLadder(folder: "ad-ladder", ads: []).write(into: root, port: server.port)
        try server.inject(.status(404), at: "/files/ad-ladder/video-360p/index.m3u8")
        try server.inject(.status(404), at: "/files/ad-ladder/audio-aac-en/index.m3u8")
        let lint = try run("lint", [server.url(path)])
        XCTAssertEqual(lint.status, 0, "players fail over inside the ad: a warning, \(lint.findings)")
        let partial = lint.findings("asset-unreachable")
        XCTAssertEqual(partial.count, 1, "\(lint.findings)")
        XCTAssertTrue(lint.string(partial[0], "message").hasPrefix("a variant of the asset \(server.url("/files/ad-ladder/main.m3u8")) cannot be loaded: "
                                                                   + server.url("/files/ad-ladder/video-360p/index.m3u8") + ": the server answered HTTP 404"),
                      "\(partial)")
        XCTAssertFalse(lint.string(partial[0], "message").contains("skips the interstitial"), "\(partial)")

        let audit = try run("audit", [server.url(path)])
        let ad = audit.selections("interstitial 2").mapValues { $0.map(\.lastPathComponents2) }
        for deviceClass in Classes.eac3 {
            XCTAssertEqual(ad[deviceClass], ["video-270p/index.m3u8", "audio-ec3-en/index.m3u8"], "\(deviceClass) fails over inside the ad")
        }
        // The AAC classes have no English AAC to fail over to: they skip the ad, and the finding lists each try once.
        let skipped = audit.findings("asset-unreachable").filter { $0["deviceClass"] as? String == "smart-tv-low-end" }
        XCTAssertEqual(skipped.count, 1, "\(audit.findings)")
        XCTAssertEqual(audit.string(skipped[0], "actual"),
                       server.url("/files/ad-ladder/video-360p/index.m3u8") + " (HTTP 404); " + server.url("/files/ad-ladder/audio-aac-en/index.m3u8") + " (HTTP 404)")
    }

    func testAFailingSegmentOfAnAdIsAFindingOnThatAdAndTheOtherAdsAreAudited() throws {
        try write("{\"ASSETS\": [{\"URI\": \"\(server.url("/files/ad-list/index.m3u8"))\", \"DURATION\": 2.002}]}", to: "lists/ad.json")
        try InterstitialStream.copyRendition(HLSFixture(name: "ad-list", source: Fixtures.fourByThree, segmentType: .fmp4),
                                             to: root.appendingPathComponent("ad-list"))
        try server.inject(.status(500), at: "/files/ad-aac/init.mp4")
        let audit = try run("audit", [server.url(path), "--profile", "smart-tv-low-end"])
        XCTAssertEqual(audit.status, 1, "nothing of the ad could be read: an error (NothingReadTests): \(audit.findings)")
        let notProbed = audit.findings("media-not-probed").filter { !($0["deviceClass"] is NSNull) }
        XCTAssertEqual(notProbed.count, 1, "\(audit.findings)")
        XCTAssertTrue(audit.string(notProbed[0], "subject").hasPrefix("interstitial 1 "), "\(notProbed)")
        XCTAssertTrue(audit.string(notProbed[0], "actual").contains(server.url("/files/ad-aac/")), "\(notProbed)")
        XCTAssertTrue(audit.string(notProbed[0], "actual").contains("init.mp4: cannot open (the server answered 500 Internal Server Error)"),
                      "the server's status, not FFmpeg's 5XX: \(notProbed)")
        XCTAssertEqual(audit.findings("aspect-ratio-mismatch").compactMap { $0["subject"] as? String }.map { $0.prefix(15) },
                       ["interstitial 2 "], "the list's ad is still audited")
    }
}
