import Compatibility
import Foundation
import LabCore
import LabRun
import LabServer
import Reporting
import ResultsReporting
import SeamcheckTestSupport
import XCTest

/// The HTML report's timelines in a real browser: measured cells (series in Kodi's shape, polled
/// every 250 ms) rendered by the report code, opened in Debian's Chromium through Selenium and
/// Debian's chromedriver (Tests/Server/lab_report_check.py), which reads back what it laid out.
final class LabReportTimelineTests: XCTestCase {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    /// A stitched case (ad at 6 s for 2 s in 12 s of primary) and its interstitial twin.
    static var stitched: LabCase { MeasurementExample.stitchedCase }
    static var manifest: LabManifest {
        var interstitial = stitched
        interstitial.id = "frame-rate"
        interstitial.delivery = .interstitial
        interstitial.stitchedFrom = nil
        interstitial.playlist = "cases/frame-rate/master.m3u8"
        interstitial.interstitialPrefix = "cases/frame-rate/ad/"
        return LabManifest(generator: "test", primaryTimeline: [], cases: [stitched, interstitial])
    }

    /// What a receiver fetches: the playlists, then a 2 s segment every 2 s ahead of the playhead, reloads.
    static func fetching(_ sketch: PlaybackSketch, caseId: String) -> PlaybackSketch {
        var sketch = sketch
        let folder = "/cases/" + caseId
        var requests: [(ms: Double, path: String)] = [(18, folder + "/master.m3u8"), (31, folder + "/v.m3u8"),
                                                      (44, folder + "/primary/init.mp4")]
        for index in 0..<7 {
            requests.append((Double(60 + index * 1400), folder + "/primary/seg_" + String(format: "%03d", index) + ".m4s"))
        }
        requests.append((6_100, folder + "/ad/ad.m3u8"))
        requests.append((6_140, folder + "/ad/seg_000.m4s"))
        sketch.requests = requests
        return sketch
    }

    static func cell(_ receiver: String, caseId: String, _ sketch: PlaybackSketch, deviceClass: String? = "smart-tv-low-end") -> LabRunCell {
        let labCase = manifest.case(caseId)!
        let series = sketch.series(playSentAt: start)
        let requests = sketch.requestRecords(playSentAt: start)
        return LabRunCell(runId: "run-7", receiver: receiver, deviceId: nil, deviceClass: deviceClass, address: "127.0.0.9",
                          caseId: caseId, attempt: 1, startedAt: start, finishedAt: start.addingTimeInterval(16),
                          url: "http://127.0.0.1:8080/" + labCase.playlist, series: series, requests: requests,
                          measurement: CellMeasurer().measure(series: series, requests: requests, labCase: labCase, failure: nil))
    }

    func testTheHTMLReportDrawsATimelinePerMeasuredCellThatChromiumLaysOut() throws {
        let python = try LabEnvironment.seleniumPython()
        let chromium = try TestEnvironment.require("chromium")
        let chromedriver = try TestEnvironment.require("chromedriver")
        let kodi = PlaybackSketch(duration: 14)
        let cells = [
            Self.cell("Kodi", caseId: "frame-rate-stitched", Self.fetching(kodi.loads(740).plays(6).freezes(1200).plays(8).ended(600),
                                                                         caseId: "frame-rate-stitched")),
            Self.cell("Den <script>alert(1)</script>", caseId: "frame-rate",
                      Self.fetching(PlaybackSketch(duration: 12).loads(520).plays(5).gone(260).plays(7).ended(600), caseId: "frame-rate")),
        ]
        let profiles = try ProfileLoader.loadDirectory(MediaFixture.packageRoot + "/DeviceProfiles")
        let report = LabReportBuilder(manifest: Self.manifest, profiles: profiles).report(verdicts: [], sessions: [], cells: cells)
        let html = LabReportFormat.html.render(report)
        XCTAssertFalse(html.contains("<script>alert"), "receiver names are escaped")

        let folder = try LabEnvironment.temporaryFolder("lab-report")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let page = folder + "/report.html"
        try html.write(toFile: page, atomically: true, encoding: .utf8)
        let screenshot = MediaFixture.packageRoot + "/.build/lab-report-timeline.png"
        try? FileManager.default.removeItem(atPath: screenshot)
        let run = try Command.run(python, [LabEnvironment.script("lab_report_check.py"), "file://" + page, "--screenshot", screenshot,
                                           "--chromium", chromium, "--chromedriver", chromedriver], timeout: 90)
        XCTAssertEqual(run.status, 0, "\(run.stdout) \(run.stderr)")
        let seen = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any], run.stdout)
        XCTAssertNil(seen["failed"], "\(seen)")
        XCTAssertEqual(seen["scripts"] as? Int, 0, "no script element: the name with <script> stayed text")
        XCTAssertEqual((seen["headings"] as? [String])?.count, 2)
        XCTAssertTrue((seen["headings"] as? [String] ?? []).contains { $0.contains("Den <script>alert(1)</script>") }, "\(seen["headings"] ?? "")")
        let timelines = seen["timelines"] as? [[String: Any]] ?? []
        XCTAssertEqual(timelines.count, 2, "one timeline per measured cell")
        for timeline in timelines {
            let label = timeline["label"] as? String ?? "?"
            XCTAssertGreaterThan(timeline["width"] as? Double ?? 0, 300, label)
            let window = (timeline["adWindow"] as? [[String: Double]])?.first ?? [:]
            XCTAssertGreaterThan(window["height"] ?? 0, 10, "the ad window is shaded: \(label)")
            XCTAssertGreaterThan(window["width"] ?? 0, 300, label)
            XCTAssertEqual(timeline["segments"] as? Int, 8, "seven primary segments and one ad segment: \(label)")
            XCTAssertEqual(timeline["playlists"] as? Int, 3, label)
            XCTAssertEqual(timeline["firstFrame"] as? Int, 1, label)
            XCTAssertEqual((timeline["playhead"] as? [[String: Double]])?.isEmpty, false, label)
            XCTAssertEqual(timeline["legend"] as? [String],
                           ["playhead", "stitched ad", "stall", "first frame", "segment request", "playlist request"].map {
                               $0 == "stitched ad" && label.contains("frame-rate on") ? "interstitial" : $0 }, label)
            XCTAssertTrue((timeline["axis"] as? [String] ?? []).contains("0 s"), label)
        }
        let kodiTimeline = try XCTUnwrap(timelines.first { ($0["label"] as? String ?? "").contains("on Kodi") })
        let stalls = kodiTimeline["stalls"] as? [[String: Double]] ?? []
        XCTAssertEqual(stalls.count, 1, "the 1.2 s freeze at the ad is one red band")
        // 1.2 s of the 20 s axis (the cell lasts 17.7 s) over 688 px is about 41 px.
        XCTAssertEqual(stalls.first?["width"] ?? 0, 1.2 / 20 * 688, accuracy: 3)
        let den = try XCTUnwrap(timelines.first { ($0["label"] as? String ?? "").contains("on Den") })
        XCTAssertEqual((den["stalls"] as? [Any])?.count, 0, "a failed poll is not a stall")
        XCTAssertEqual(den["noAnswer"] as? Int, 1, "the failed poll is marked")
        XCTAssertTrue(FileManager.default.fileExists(atPath: screenshot))
    }

    /// Cells stored the way `lab run` stores them, read back by the built binary: every format
    /// carries the measured columns, and the HTML its timelines.
    func testLabReportReadsTheStoredCellsInEveryFormat() throws {
        let folder = try LabEnvironment.temporaryFolder("lab-report-store")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let database = folder + "/lab.sqlite"
        let store = try LabStore(path: database)
        _ = try store.beginServe(bind: "127.0.0.1", port: 8080, streams: folder, manifest: Self.manifest)
        try store.beginRun(LabRunSummary(id: "run-7", startedAt: Self.start, state: .running, server: "http://127.0.0.1:8080",
                                         receivers: ["Kodi"], cases: ["frame-rate-stitched"], pollIntervalMs: 250), leaseSeconds: 60)
        let kodi = PlaybackSketch(duration: 14)
        let cell = Self.cell("Kodi", caseId: "frame-rate-stitched",
                             Self.fetching(kodi.loads(740).plays(6).freezes(1200).plays(8).ended(600), caseId: "frame-rate-stitched"))
        try store.record(cell, done: true)
        XCTAssertEqual(try store.verdicts().map(\.source), [.measured], "the run loop's store records the measured verdict with the cell")
        try store.finishRun("run-7", state: .finished)
        let profiles = MediaFixture.packageRoot + "/DeviceProfiles"

        func report(_ format: String, _ extra: [String] = []) throws -> String {
            let run = try SeamcheckBinary.run(["lab", "report", "--db", database, "--format", format, "--profiles-dir", profiles] + extra)
            XCTAssertEqual(run.status, 0, run.stderr)
            return run.stdout
        }
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(try report("json").utf8)) as? [String: Any])
        let cells = json["cells"] as? [[String: Any]] ?? []
        let stored = try XCTUnwrap(cells.first { $0["receiver"] as? String == "Kodi" }, "\(json)")
        XCTAssertEqual(stored["observed"] as? String, "stall")
        XCTAssertEqual(stored["source"] as? String, "measured")
        XCTAssertEqual(stored["measuredVerdict"] as? String, "stall")
        let measured = try XCTUnwrap(stored["measured"] as? [String: Any])
        XCTAssertEqual(measured["firstFrameMs"] as? Double ?? 0, 740, accuracy: 1)
        XCTAssertEqual(measured["transitionStallMs"] as? Double ?? 0, 1200, accuracy: 1)
        XCTAssertEqual(measured["level"] as? String, "error")
        XCTAssertEqual((json["summary"] as? [String: Any])?["measured"] as? Int, 1)

        let lenient = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(try report("json", ["--threshold", "grades.errorMs=1500"]).utf8))
                                    as? [String: Any])
        let graded = (lenient["cells"] as? [[String: Any]])?.first?["measured"] as? [String: Any]
        XCTAssertEqual(graded?["level"] as? String, "warning", "--threshold changes the grade")
        let bad = try SeamcheckBinary.run(["lab", "report", "--db", database, "--format", "json", "--profiles-dir", profiles,
                                           "--threshold", "grades.errrorMs=1"])
        XCTAssertEqual(bad.status, 2)
        XCTAssertTrue(bad.stderr.contains("did you mean 'grades.errorMs'?"), bad.stderr)

        // The lab documents write dates as ISO 8601, like `lab sessions` (not seconds since 2001).
        for arguments in [["lab", "runs"], ["lab", "runs", "run-7"]] {
            let listed = try SeamcheckBinary.run(arguments + ["--db", database, "--format", "json"])
            XCTAssertEqual(listed.status, 0, listed.stderr)
            XCTAssertTrue(listed.stdout.contains("\"startedAt\" : \"2027-01-15T08:00:00.000Z\""), listed.stdout)
            XCTAssertNil(listed.stdout.range(of: #""(started|finished)At" : [0-9]"#, options: .regularExpression), listed.stdout)
        }

        let table = try report("table")
        for text in ["SOURCE", "FIRST FRAME", "STALL PER TRANSITION", "ad start 6 s: 1200 ms, ad end 8 s: 0 ms", "740 ms", "measured"] {
            XCTAssertTrue(table.contains(text), "table: \(text)\n\(table)")
        }
        let markdown = try report("markdown")
        XCTAssertTrue(markdown.contains("| stall | measured | stall 1200 ms | 740 ms | ad start 6 s: 1200 ms, ad end 8 s: 0 ms |"), markdown)
        let junit = try report("junit")
        XCTAssertTrue(junit.contains("<system-out>measured stall 1200 ms; first frame 740 ms"), junit)
        let html = try report("html")
        XCTAssertEqual(html.components(separatedBy: "<svg ").count - 1, 1, "one timeline")
        for part in ["class=\"ad-window\"", "class=\"stall\"", "class=\"request segment\"", "class=\"request playlist\"",
                     "first frame 740 ms", "stall 1200 ms (measured)"] {
            XCTAssertTrue(html.contains(part), part)
        }

        let calibrate = try SeamcheckBinary.run(["profiles", "calibrate", "--db", database, "--min-observations", "1",
                                                 "--profiles-dir", profiles, "--format", "json"])
        XCTAssertEqual(calibrate.status, 0, calibrate.stderr)
        let document = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(calibrate.stdout.utf8)) as? [String: Any])
        XCTAssertEqual((document["thresholds"] as? [String: Any]).flatMap { ($0["grades"] as? [String: Any])?["errorMs"] as? Double }, 1000)
        // smart-tv-low-end already grades frame-rate-mismatch error, and 1200 ms is an error: nothing to change.
        XCTAssertEqual((document["proposals"] as? [Any])?.count, 0, calibrate.stdout)
        // With errors from 1500 ms, the measured 1200 ms is a warning: the class's error is proposed down.
        let lenientCalibration = try SeamcheckBinary.run(["profiles", "calibrate", "--db", database, "--min-observations", "1",
                                                          "--profiles-dir", profiles, "--threshold", "grades.errorMs=1500", "--format", "table"])
        XCTAssertEqual(lenientCalibration.status, 0, lenientCalibration.stderr)
        XCTAssertTrue(lenientCalibration.stdout.contains("smart-tv-low-end: frame-rate-mismatch error -> warning (1 observations: "
                                                         + "1 stall on frame-rate-stitched (Kodi); measured transition stalls 1200 ms)"),
                      lenientCalibration.stdout)
        XCTAssertTrue(lenientCalibration.stdout.contains("+  frame-rate-mismatch: warning"), lenientCalibration.stdout)
    }

    /// The whole path with the built binary: `lab run` plays a case on a receiver on its own loopback
    /// address (Tests/Server/lab_run_receiver.py: real AirPlay HTTP, a real fetch from the lab
    /// server), then `lab report` draws that cell's series.
    func testALabRunsCellComesOutOfTheReportAsATimeline() throws {
        let folder = try LabEnvironment.temporaryFolder("lab-report-run")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let database = folder + "/lab.sqlite"
        let tv = try LoopbackReceiver(host: "127.0.0.16", options: ["--duration", "3"])
        defer { tv.stop() }
        try LoopbackReceiver.requireSender(tv)
        let run = try SeamcheckBinary.run(["lab", "run", "--db", database, "--streams", try LabSuiteFixture.small(), "--bind", "127.0.0.1",
                                           "--poll-interval", "100", "--receiver", tv.address, "--case", "frame-rate-25", "--format", "json"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertNotNil(run.stdout.range(of: #""startedAt" : "20[0-9]{2}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z""#, options: .regularExpression), run.stdout)
        XCTAssertNil(run.stdout.range(of: #""(started|finished)At" : [0-9]"#, options: .regularExpression), run.stdout)
        let report = try SeamcheckBinary.run(["lab", "report", "--db", database, "--format", "json",
                                              "--profiles-dir", MediaFixture.packageRoot + "/DeviceProfiles"])
        XCTAssertEqual(report.status, 0, report.stderr)
        let document = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(report.stdout.utf8)) as? [String: Any])
        let cells = document["cells"] as? [[String: Any]] ?? []
        XCTAssertEqual(cells.count, 1, "the run's cell and the receiver's session are one row: \(cells)")
        let cell = try XCTUnwrap(cells.first)
        XCTAssertEqual(cell["receiver"] as? String, tv.address)
        XCTAssertEqual(cell["source"] as? String, "measured")
        XCTAssertEqual(cell["observed"] as? String, "seamless", "\(cell)")
        let measured = try XCTUnwrap(cell["measured"] as? [String: Any])
        // The stand-in starts moving 0.3 s after /play.
        XCTAssertEqual(measured["firstFrameMs"] as? Double ?? 0, 300, accuracy: 120)
        XCTAssertNotNil(measured["firstRequestMs"] as? Double, "its fetch of the playlist was logged")

        let html = try SeamcheckBinary.run(["lab", "report", "--db", database, "--format", "html",
                                            "--profiles-dir", MediaFixture.packageRoot + "/DeviceProfiles"])
        XCTAssertEqual(html.status, 0, html.stderr)
        XCTAssertEqual(html.stdout.components(separatedBy: "<svg ").count - 1, 1)
        // The stand-in fetches the playlist but none of the interstitial: its window is greyed, no transition.
        for part in ["class=\"ad-window not-played\"", "class=\"playhead\"", "class=\"first-frame\"", "class=\"request playlist\"",
                     "seamless (measured)", "interstitial not played (the receiver fetched none of it)"] {
            XCTAssertTrue(html.stdout.contains(part), part)
        }
    }
}
