import Foundation
import SeamcheckTestSupport
import XCTest

/// Catalog v3's playlist rules through `seamcheck audit` over HTTP: a break off the primary's
/// segment boundaries (with and without X-SNAP) and an ad cut into longer segments than the
/// primary's target duration.
final class CatalogV3AuditTests: ServedStreamTestCase {
    /// A 6 s primary in 1 s segments with the matching ad at the boundary after the second segment.
    func writeStream(ads: [InterstitialStream.Ad] = [.init(id: "ad-match", source: Fixtures.matching, boundary: 2)]) throws -> String {
        let stream = InterstitialStream(primary: Fixtures.primaryWithSegments, primaryCodecs: "avc1.64000d,mp4a.40.2", ads: ads)
        return try stream.write(into: root, port: server.port)
    }

    /// Moves the break's START-DATE `seconds` later, and adds `attributes` to its tag.
    func moveBreak(by seconds: Double, attributes: String = "") throws -> Double {
        let playlist = try read("primary/index.m3u8")
        let boundary = try InterstitialStream.segmentBoundaries(root.appendingPathComponent("primary/index.m3u8"))[2]
        let old = "START-DATE=\"\(InterstitialStream.date(offset: boundary))\""
        XCTAssertTrue(playlist.contains(old), playlist)
        try write(playlist.replacingOccurrences(of: old, with: "START-DATE=\"\(InterstitialStream.date(offset: boundary + seconds))\"\(attributes)"),
                  to: "primary/index.m3u8")
        return boundary
    }

    func testABreakInsideASegmentIsFoundOnceWithTheNearestBoundaryAndItsDate() throws {
        let path = try writeStream()
        let boundary = try moveBreak(by: 0.3)
        let audit = try run("audit", [server.url(path), "--no-loudness"])
        let found = audit.findings("break-off-segment-boundary")
        XCTAssertEqual(found.count, 1, "one finding per break, graded by the profiles: \(audit.findings)")
        let finding = try XCTUnwrap(found.first)
        XCTAssertTrue(finding["deviceClass"] is NSNull)
        XCTAssertEqual(finding["severity"] as? String, "warning", "the highest grade among the profiles (the TVs')")
        XCTAssertEqual(finding["subject"] as? String, "EXT-X-DATERANGE ID=\"ad-match\"")
        let message = audit.string(finding, "message")
        let nearest = String(format: "%.3f", boundary).replacingOccurrences(of: #"\.?0+$"#, with: "", options: .regularExpression)
        XCTAssertTrue(message.contains("nearest boundary is \(nearest) s (0.3 s earlier)"), message)
        XCTAssertTrue(message.contains(InterstitialStream.date(offset: boundary)), "the boundary's date for START-DATE: \(message)")
        XCTAssertTrue(message.contains("X-SNAP is meant for live streams"), "VOD: move the date: \(message)")
        XCTAssertEqual((finding["location"] as? [String: Any])?["line"] as? Int != nil, true, "\(finding)")
        // Only the boundary changed: the ad itself still matches.
        XCTAssertEqual(Set(audit.findings.compactMap { $0["rule"] as? String }), ["break-off-segment-boundary"], "\(audit.findings)")
        // lint needs only the playlist to see it: the same finding, at the rule's own severity.
        let lint = try run("lint", [server.url(path)])
        let linted = lint.findings("break-off-segment-boundary")
        XCTAssertEqual(linted.count, 1, "\(lint.findings)")
        XCTAssertEqual(linted.first?["severity"] as? String, "info")
        XCTAssertEqual(linted.first.map { lint.string($0, "message") }, message)
    }

    func testABreakThatSnapsOutOrSitsOnABoundaryIsNotFound() throws {
        let path = try writeStream()
        XCTAssertEqual(try run("audit", [server.url(path), "--no-loudness"]).findings("break-off-segment-boundary").count, 0)
        _ = try moveBreak(by: 0.3, attributes: ",X-SNAP=\"OUT,IN\"")
        let audit = try run("audit", [server.url(path), "--no-loudness"])
        XCTAssertEqual(audit.findings("break-off-segment-boundary").count, 0, "\(audit.findings)")
        XCTAssertEqual(try run("lint", [server.url(path)]).findings("break-off-segment-boundary").count, 0)
    }

    func testAnAdCutIntoLongerSegmentsThanThePrimarysTargetIsASegmentDurationChange() throws {
        let path = try writeStream(ads: [.init(id: "ad-2s", source: nil, rawPath: "/files/ad-2s/index.m3u8", boundary: 2)])
        try InterstitialStream.copyRendition(HLSFixture(name: "ad-2s", source: Fixtures.matching, segmentType: .fmp4, segmentSeconds: 2),
                                             to: root.appendingPathComponent("ad-2s"))
        XCTAssertTrue(try read("ad-2s/index.m3u8").contains("#EXT-X-TARGETDURATION:2"))
        let audit = try run("audit", [server.url(path), "--no-loudness"])
        XCTAssertEqual(audit.fired, Set(Classes.all.map { "segment-duration-change@\($0)" }), "\(audit.findings)")
        let lowEnd = try XCTUnwrap(audit.findings.first { $0["deviceClass"] as? String == "smart-tv-low-end" })
        XCTAssertEqual(lowEnd["severity"] as? String, "warning")
        XCTAssertEqual(lowEnd["expected"] as? String, "segments of at most 1 s (EXT-X-TARGETDURATION:1)")
        XCTAssertTrue(audit.string(lowEnd, "actual").hasSuffix("(EXT-X-TARGETDURATION:2)"), "\(lowEnd)")
        XCTAssertTrue(audit.string(lowEnd, "message").contains("-hls_time 1"), "\(lowEnd)")
        let probe = ((audit.assets.last?["media"] as? [String: Any])?["playlist"] as? [String: Any])
        XCTAssertEqual(probe?["targetDuration"] as? Int, 2, "the probe JSON's playlist facts: \(String(describing: probe))")
        XCTAssertEqual(probe?["version"] as? Int, 7)

        // The printed fix, run as printed in a served folder: keyframes every second, cut into 1 s
        // segments. With the break pointed at its output, the audit finds nothing.
        let fixes = (audit.assets.last?["fixes"] as? [[String: Any]]) ?? []
        XCTAssertEqual(fixes.count, 1, "one encode serves every class: \(fixes)")
        let command = try XCTUnwrap(fixes.first?["command"] as? String)
        XCTAssertTrue(command.contains("-force_key_frames 'expr:gte(t,n_forced*1)' -f hls -hls_segment_type fmp4 -hls_time 1"), command)
        let argv = try ShellWords.split(command)
        XCTAssertEqual(argv.last, "./ad-2s-matched.m3u8")
        let fixed = root.appendingPathComponent("fixed")
        try FileManager.default.createDirectory(at: fixed, withIntermediateDirectories: true)
        let result = try Command.run("ffmpeg", ["-nostdin", "-v", "error", "-y"] + argv.dropFirst(), currentDirectory: fixed)
        XCTAssertEqual(result.status, 0, "\(command)\n\(result.stderr)")
        let playlist = try read("primary/index.m3u8")
        try write(playlist.replacingOccurrences(of: server.url("/files/ad-2s/index.m3u8"), with: server.url("/files/fixed/ad-2s-matched.m3u8")),
                  to: "primary/index.m3u8")
        let after = try run("audit", [server.url(path), "--no-loudness"])
        XCTAssertEqual(after.fired, [], "\(after.findings.map { $0["message"] ?? "" })")
        XCTAssertTrue(after.assets.last?["input"] as? String == server.url("/files/fixed/ad-2s-matched.m3u8"), "\(after.assets)")
    }
}
