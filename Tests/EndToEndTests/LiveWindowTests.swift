import Foundation
import SeamcheckTestSupport
import XCTest

/// A live primary served as a sliding window (the test server's /live and /tick routes), with
/// two variants refreshed one segment apart: date ranges that have left one window or not yet
/// entered it are allowed (RFC 8216bis 6.2.1); one missing inside a window is not.
final class LiveWindowTests: ServedStreamTestCase {
    func testDateRangesEnteringAndLeavingTheWindowsAreNotInconsistent() throws {
        let stream = LiveWindowStream()
        let path = try stream.write(into: root, port: server.port)
        let inspect = try run("inspect", [server.url(path)])
        XCTAssertEqual(inspect.status, 0, inspect.stderr)
        let media = try XCTUnwrap(inspect.document["mediaPlaylists"] as? [[String: Any]])
        XCTAssertEqual(media.compactMap { $0["mediaSequence"] as? Int }, [2, 3])
        XCTAssertEqual(media.compactMap { $0["endList"] as? Bool }, [false, false])
        XCTAssertEqual(media.compactMap { $0["dateRangeCount"] as? Int }, [2, 2], "left+both in A, both+entering in B")
        let ids = ((inspect.document["dateRanges"] as? [[String: Any]]) ?? []).compactMap { $0["id"] as? String }
        XCTAssertEqual(ids, ["left", "both"], "the schedule is variant A's window")

        let lint = try run("lint", [server.url(path)])
        XCTAssertEqual(lint.status, 0, "\(lint.findings)")
        XCTAssertEqual(lint.findings.count, 0, "\(lint.findings)")
    }

    func testADateRangeMissingInsideAWindowIsStillAnError() throws {
        let stream = LiveWindowStream(droppedFromB: ["both"])
        let path = try stream.write(into: root, port: server.port)
        let lint = try run("lint", [server.url(path)])
        XCTAssertEqual(lint.status, 1)
        let missing = lint.findings("daterange-inconsistent-across-renditions")
        XCTAssertEqual(missing.count, 1, "\(lint.findings)")
        XCTAssertTrue(lint.string(missing[0], "subject").hasPrefix("EXT-X-DATERANGE ID=\"both\""), "\(missing)")
        XCTAssertTrue(lint.string(missing[0], "subject").contains(stream.variantB), "\(missing)")
    }

    func testAWindowThatAdvancesBetweenFetchesIsReadAsFetched() throws {
        try LiveWindowStream().write(into: root, port: server.port)
        let url = server.url("/tick/3/live/index.m3u8")
        var sequences: [Int] = []
        var ranges: [[String]] = []
        for _ in 0..<3 {
            let inspect = try run("inspect", [url])
            XCTAssertEqual(inspect.status, 0, inspect.stderr)
            sequences += ((inspect.document["mediaPlaylists"] as? [[String: Any]]) ?? []).compactMap { $0["mediaSequence"] as? Int }
            ranges.append(((inspect.document["dateRanges"] as? [[String: Any]]) ?? []).compactMap { $0["id"] as? String })
        }
        XCTAssertEqual(sequences, [0, 1, 2], "one fetch per run, each a newer window")
        XCTAssertEqual(ranges, [["left"], ["left", "both"], ["left", "both"]])
    }

    func testALivePrimaryIsAuditedAgainstItsInterstitials() throws {
        let path = try LiveWindowStream().write(into: root, port: server.port)
        let audit = try run("audit", [server.url(path), "--profile", "smart-tv-low-end", "--profile", "apple-tv-4k"])
        XCTAssertEqual(audit.status, 0, "\(audit.findings)")
        XCTAssertEqual(audit.findings.count, 0, "the ad matches the primary: \(audit.findings)")
        let placements = audit.assets.compactMap { $0["placement"] as? [String: Any] }
        XCTAssertEqual(placements.compactMap { $0["id"] as? String }, ["left", "both"])
        XCTAssertEqual(audit.selections("primary")["smart-tv-low-end"]?.first, server.url(LiveWindowStream().variantA))
    }

    /// "left" starts at 1.5 s of the source; variant A's window starts at 2.002 s. Its break is
    /// said to start before the first segment listed, never at a negative time, in every report.
    func testABreakThatStartedBeforeTheWindowIsSaidToHaveStartedBeforeIt() throws {
        let path = try LiveWindowStream().write(into: root, port: server.port)
        let inspect = try SeamcheckBinary.run(["inspect", server.url(path), "--format", "table"])
        XCTAssertEqual(inspect.status, 0, inspect.stderr)
        XCTAssertTrue(inspect.stdout.contains("mid-roll  0.502 s before the first segment listed"), inspect.stdout)
        for format in ["table", "markdown", "html"] {
            let audit = try SeamcheckBinary.run(["audit", server.url(path), "--profile", "apple-tv-4k", "--format", format, "--fail-on", "never"])
            XCTAssertEqual(audit.status, 0, audit.stderr)
            XCTAssertTrue(audit.stdout.contains("mid-roll 0.502 s before the first segment listed"), "\(format): \(audit.stdout)")
            XCTAssertFalse(audit.stdout.contains(" -0."), "\(format): \(audit.stdout)")
        }
    }
}
