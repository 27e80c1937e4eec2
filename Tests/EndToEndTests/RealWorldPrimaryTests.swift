import Foundation
import SeamcheckTestSupport
import XCTest

/// Primaries cut the other ways catalogs cut them: MPEG-TS segments, and a single file addressed
/// with EXT-X-BYTERANGE (fMP4 with an EXT-X-MAP BYTERANGE, and TS). The same two ads (one
/// matching, one at 25 fps), packaged as the primary is (as ad-insertion services transcode ads
/// into the content's container), must give the same findings whatever that packaging, and byte
/// ranges must be read as ranges. fMP4 ads after an MPEG-TS primary are a container change.
final class RealWorldPrimaryTests: ServedStreamTestCase {
    static let ads: [InterstitialStream.Ad] = [.init(id: "ad-match", source: Fixtures.matching, boundary: 1),
                                               .init(id: "ad-25fps", source: Fixtures.fps25, boundary: 3)]

    func audit(_ segmentType: HLSFixture.SegmentType, singleFile: Bool, _ extra: [String] = [],
               ads adSegmentType: HLSFixture.SegmentType? = nil) throws -> JSONRun {
        let stream = InterstitialStream(primary: Fixtures.primaryWithSegments, primaryCodecs: "avc1.64000d,mp4a.40.2", ads: Self.ads,
                                        segmentType: adSegmentType ?? segmentType, primarySegmentType: segmentType, primarySingleFile: singleFile)
        let path = try stream.write(into: root, port: server.port)
        return try run("audit", [server.url(path)] + extra)
    }

    func assertOnlyTheFrameRateChangeIsFound(_ audit: JSONRun, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(audit.status, 1, "a 25 fps ad is an error on the low-end TV", file: file, line: line)
        let frameRate = audit.findings("frame-rate-mismatch")
        XCTAssertEqual(Set(frameRate.compactMap { $0["deviceClass"] as? String }), Set(Classes.video), file: file, line: line)
        XCTAssertTrue(frameRate.allSatisfy { ($0["subject"] as? String ?? "").hasPrefix("interstitial 2 ") }, "\(frameRate)", file: file, line: line)
        XCTAssertEqual(audit.findings.count, frameRate.count, "nothing else: \(audit.findings.map { $0["message"] ?? "" })", file: file, line: line)
        let primary = audit.assets.first { $0["role"] as? String == "primary" }
        let video = ((primary?["media"] as? [String: Any])?["video"] as? [[String: Any]])?.first
        XCTAssertEqual(video?["codec"] as? String, "h264", file: file, line: line)
        XCTAssertEqual(video?["width"] as? Int, 320, file: file, line: line)
    }

    func testATransportStreamPrimaryIsAuditedLikeFMP4() throws {
        let audit = try audit(.mpegts, singleFile: false)
        XCTAssertTrue(try read("primary/index.m3u8").contains("seg0.ts"))
        assertOnlyTheFrameRateChangeIsFound(audit)
        XCTAssertEqual((audit.assets.first?["media"] as? [String: Any])?["container"] as? String, "mpegts")
    }

    /// The packaging the ads do not share: MPEG-TS (EXT-X-VERSION:3) against fMP4 (7, for EXT-X-MAP).
    func testFMP4AdsAfterATransportStreamPrimaryAreAContainerAndVersionChange() throws {
        let audit = try audit(.mpegts, singleFile: false, ["--no-loudness"], ads: .fmp4)
        for rule in ["container-change", "playlist-version-change"] {
            let found = audit.findings(rule)
            XCTAssertEqual(Set(found.map { "\($0["subject"] as? String ?? "")".components(separatedBy: " (")[0] + " " + ($0["deviceClass"] as? String ?? "") }),
                           Set(["interstitial 1", "interstitial 2"].flatMap { role in Classes.all.map { "\(role) \($0)" } }), rule)
        }
        let container = try XCTUnwrap(audit.findings("container-change").first { $0["deviceClass"] as? String == "smart-tv-low-end" })
        XCTAssertEqual(container["severity"] as? String, "error")
        XCTAssertEqual(container["expected"] as? String, "MPEG-TS")
        XCTAssertEqual(container["remediation"] as? String, "-f hls -hls_segment_type mpegts -hls_time 1 -hls_playlist_type vod -c:v copy -c:a copy",
                       "an HLS ad is packaged again as the primary is")
        let version = try XCTUnwrap(audit.findings("playlist-version-change").first)
        XCTAssertEqual(version["actual"] as? String, "EXT-X-VERSION:7")
        XCTAssertEqual(audit.findings.count, audit.findings("container-change").count + audit.findings("playlist-version-change").count
                       + audit.findings("frame-rate-mismatch").count, "nothing else: \(audit.findings.map { $0["message"] ?? "" })")

        // The matching ad's printed fix, run as printed in a served folder and scheduled instead:
        // MPEG-TS at version 3 like the primary, so neither change is left.
        let fixes = (audit.assets.first { $0["role"] as? String == "interstitial 1" }?["fixes"] as? [[String: Any]]) ?? []
        XCTAssertEqual(fixes.count, 1, "\(fixes)")
        let argv = try ShellWords.split(try XCTUnwrap(fixes.first?["command"] as? String))
        let fixed = root.appendingPathComponent("fixed")
        try FileManager.default.createDirectory(at: fixed, withIntermediateDirectories: true)
        let result = try Command.run("ffmpeg", ["-nostdin", "-v", "error", "-y"] + argv.dropFirst(), currentDirectory: fixed)
        XCTAssertEqual(result.status, 0, "\(argv)\n\(result.stderr)")
        let output = try XCTUnwrap(argv.last?.replacingOccurrences(of: "./", with: ""))
        try write(try read("primary/index.m3u8").replacingOccurrences(of: server.url("/files/ad-match/index.m3u8"),
                                                                       with: server.url("/files/fixed/" + output)), to: "primary/index.m3u8")
        let after = try run("audit", [server.url("/files/primary/main.m3u8"), "--no-loudness"])
        let first = after.findings.filter { ($0["subject"] as? String ?? "").hasPrefix("interstitial 1 ") }
        XCTAssertEqual(first.count, 0, "\(first.map { $0["message"] ?? "" })")
        XCTAssertEqual(after.findings("container-change").count, Classes.all.count, "the 25 fps ad, not fixed, still changes container")
    }

    func testAByteRangeFMP4PrimaryIsReadByRanges() throws {
        let audit = try audit(.fmp4, singleFile: true, ["--no-loudness"])
        let text = try read("primary/index.m3u8")
        XCTAssertTrue(text.contains("#EXT-X-MAP:URI=\"media.mp4\",BYTERANGE="), text)
        XCTAssertTrue(text.contains("#EXT-X-BYTERANGE:"), text)
        assertOnlyTheFrameRateChangeIsFound(audit)
        try assertReadByRanges("/files/primary/media.mp4")
    }

    func testAByteRangeTransportStreamPrimaryIsReadByRanges() throws {
        let audit = try audit(.mpegts, singleFile: true, ["--no-loudness"])
        XCTAssertTrue(try read("primary/index.m3u8").contains("#EXT-X-BYTERANGE:"))
        assertOnlyTheFrameRateChangeIsFound(audit)
        try assertReadByRanges("/files/primary/media.ts")
    }

    /// Every request of the single media file asked for a range, and together they read less than the file.
    func assertReadByRanges(_ path: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let requests = try server.log().filter { $0.path == path }
        XCTAssertFalse(requests.isEmpty, file: file, line: line)
        XCTAssertTrue(requests.allSatisfy { $0.range != nil && $0.status == 206 }, "\(requests)", file: file, line: line)
        let size = try XCTUnwrap(try FileManager.default.attributesOfItem(atPath: root.appendingPathComponent(String(path.dropFirst(7))).path)[.size] as? Int)
        XCTAssertLessThan(requests.map(\.bytes).reduce(0, +), size / 2, "only the init section and the first segment", file: file, line: line)
        // Loudness reads the programme around each break: by ranges too, never the whole file at once.
        try server.resetLog()
        let measured = try run("audit", [server.url("/files/primary/main.m3u8")])
        XCTAssertEqual(measured.status, 1, file: file, line: line)
        let loudnessRequests = try server.log().filter { $0.path == path }
        XCTAssertGreaterThan(loudnessRequests.count, requests.count, "the programme around the breaks is read", file: file, line: line)
        XCTAssertTrue(loudnessRequests.allSatisfy { $0.range != nil && $0.status == 206 }, "\(loudnessRequests)", file: file, line: line)
    }
}
