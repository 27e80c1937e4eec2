import Foundation
import SeamcheckTestSupport
import XCTest

/// `av-start-misaligned` on a live primary: the primary's window starts at a segment cut in
/// mid-stream, where the TS audio leads the keyframe by two frames of B-frame delay (about 120 ms
/// at 15 fps). That is no start, so an ad is held to its own alignment only: a clean ad passes, an
/// ad whose audio really starts 200 ms late still fires, with words that match the sign.
final class LiveAVStartTests: XCTestCase {
    var root: URL!
    var server: TestHTTPServer!

    override func setUpWithError() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("seamcheck-liveprobe-live-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        server = try TestHTTPServer(root: root.path)
        for (folder, fixture) in [("primary", HLSFixture(name: "primary15-ts", source: Fixtures.fps15, segmentType: .mpegts)),
                                  ("ad-clean", HLSFixture(name: "ad-match", source: Fixtures.matching, segmentType: .fmp4)),
                                  ("ad-late", HLSFixture(name: "ad-late200", source: Fixtures.lateAudio, segmentType: .fmp4))] {
            try FileManager.default.copyItem(atPath: try fixture.directory(), toPath: root.appendingPathComponent(folder).path)
        }
        try writeLiveWindow()
    }

    override func tearDownWithError() throws {
        server.stop()
        try? FileManager.default.removeItem(at: root)
    }

    /// The VOD playlist ffmpeg wrote, as a live window one segment in: MEDIA-SEQUENCE 1, no
    /// EXT-X-ENDLIST, an interstitial on each of the next two boundaries.
    func writeLiveWindow() throws {
        let vod = try String(contentsOf: root.appendingPathComponent("primary/index.m3u8"), encoding: .utf8).components(separatedBy: "\n")
        var segments: [(duration: String, uri: String)] = []
        for (index, line) in vod.enumerated() where line.hasPrefix("#EXTINF:") {
            segments.append((String(line.dropFirst(8).prefix { $0 != "," }), vod[index + 1]))
        }
        XCTAssertGreaterThanOrEqual(segments.count, 5, "\(vod)")
        let window = segments.dropFirst()
        let first = Double(window.first!.duration)!
        func date(_ seconds: Double) -> String { String(format: "2026-01-01T00:00:%06.3fZ", seconds) }
        func interstitial(_ id: String, at seconds: Double) -> String {
            "#EXT-X-DATERANGE:ID=\"\(id)\",CLASS=\"com.apple.hls.interstitial\",START-DATE=\"\(date(seconds))\","
                + "X-ASSET-URI=\"\(server.url("/files/\(id)/index.m3u8"))\",X-RESUME-OFFSET=0"
        }
        // The window's first segment began 1.001 s into the stream.
        let start = Double(segments[0].duration)!
        let lines = ["#EXTM3U", "#EXT-X-VERSION:3", "#EXT-X-TARGETDURATION:1", "#EXT-X-MEDIA-SEQUENCE:1",
                     "#EXT-X-PROGRAM-DATE-TIME:\(date(start))",
                     interstitial("ad-clean", at: start + first), interstitial("ad-late", at: start + first + Double(window.dropFirst().first!.duration)!)]
            + window.flatMap { ["#EXTINF:\($0.duration),", $0.uri] }
        try (lines.joined(separator: "\n") + "\n").write(to: root.appendingPathComponent("primary/live.m3u8"), atomically: true, encoding: .utf8)
    }

    func json(_ result: CommandResult) throws -> [String: Any] {
        try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], result.stderr)
    }

    func testTheLiveWindowsFirstSegmentHasAudioLeadingItsKeyframe() throws {
        let probe = try json(try SeamcheckBinary.run(["probe", server.url("/files/primary/live.m3u8"), "--format", "json"]))
        let media = (probe["media"] as? [[String: Any]])?.first ?? probe
        XCTAssertEqual(media["liveWindow"] as? Bool, true, "\(media)")
        let video = try XCTUnwrap((media["video"] as? [[String: Any]])?.first?["startTime"] as? Double)
        let audio = try XCTUnwrap((media["audio"] as? [[String: Any]])?.first?["startTime"] as? Double)
        XCTAssertLessThan(audio - video, -0.1, "the cut this test is about: audio well ahead of the keyframe")

        let table = try SeamcheckBinary.run(["probe", server.url("/files/primary/live.m3u8"), "--format", "table"])
        XCTAssertTrue(table.stdout.contains("[mpegts, 5.000 s, live window]"), table.stdout)

        let vod = try json(try SeamcheckBinary.run(["probe", server.url("/files/primary/index.m3u8"), "--format", "json"]))
        XCTAssertEqual(((vod["media"] as? [[String: Any]])?.first ?? vod)["liveWindow"] as? Bool, false)
    }

    func testACleanAdPassesAndALateOneFiresWithWordsThatMatchTheSign() throws {
        let result = try SeamcheckBinary.run(["audit", server.url("/files/primary/live.m3u8"), "--format", "json"])
        XCTAssertNotEqual(result.status, 2, result.stderr)
        let findings = try XCTUnwrap(try json(result)["findings"] as? [[String: Any]], result.stderr)
        let avStart = findings.filter { $0["rule"] as? String == "av-start-misaligned" }
        func subjects(_ role: String) -> [[String: Any]] { avStart.filter { ($0["subject"] as? String ?? "").hasPrefix(role + " (") } }
        XCTAssertEqual(subjects("interstitial 1").count, 0, "the clean ad is not compared with the live cut: \(avStart)")
        let late = subjects("interstitial 2")
        XCTAssertFalse(late.isEmpty, "the ad whose audio starts 200 ms late still fires: \(findings.map { $0["rule"] ?? "" })")
        for finding in late {
            let message = finding["message"] as? String ?? ""
            XCTAssertNotNil(message.range(of: #"^the interstitial's audio starts 1[5-9]\d ms after its video$"#, options: .regularExpression), message)
            XCTAssertEqual(finding["expected"] as? String, "audio starts with video (within 50 ms)", "not the live cut's offset")
        }
        XCTAssertTrue(avStart.allSatisfy { !($0["message"] as? String ?? "").contains("-") }, "no negative number in words: \(avStart)")
    }
}
