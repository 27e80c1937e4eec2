import Foundation
import Processes
import SeamcheckTestSupport
import XCTest

/// The dashboard in a real browser (Debian's Chromium through Selenium, Tests/Server/dashboard_check.py)
/// against `lab serve` on 127.0.0.1, while the built binary's `lab run` plays two cases on a stand-in
/// AirPlay receiver (Tests/Server/behaviour_receiver.py at 3x real time): the browser sees the cells
/// arrive live; then the stand-in is switched from conforming to ignoring CUE, a second run with
/// `--fail-on regression` exits 1 with JUnit naming the receiver and the case, and the compare view
/// shows that regression. About 40 s.
final class LabDashboardBrowserTests: XCTestCase {
    static let cases = ["control", "behaviour-cue-pre"]

    /// The small suite with the two cases (cached; behaviour cases encode nothing of their own).
    static func suite() throws -> String {
        let output = MediaFixture.cacheDirectory + "/lab-small-dashboard"
        let result = try SeamcheckBinary.run(["lab", "streams", "--scale", "small", "--output", output] + cases.flatMap { ["--case", $0] })
        guard result.status == 0 else { throw CommandError.failed("seamcheck lab streams", result) }
        return output
    }

    /// The stand-in on `host:port`, ready.
    func standIn(_ host: String, port: Int, behaviour: String) throws -> RunningProcess {
        let process = try RunningProcess("/usr/bin/env", ["python3", LabEnvironment.script("behaviour_receiver.py"), "--host", host,
                                                          "--port", String(port), "--behaviour", behaviour, "--speed", "3", "--lifetime", "300"])
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline, !process.stdout.contains("READY"), process.exitCode == nil { Thread.sleep(forTimeInterval: 0.1) }
        guard process.stdout.contains("READY") else {
            process.terminate()
            throw CommandError.didNotStart("behaviour_receiver.py on \(host):\(port) did not start: \(process.output)")
        }
        return process
    }

    func testABrowserSeesCellsArriveLiveAndTheCompareViewShowsARegression() throws {
        let python = try LabEnvironment.seleniumPython()
        let chromium = try TestEnvironment.require("chromium")
        let chromedriver = try TestEnvironment.require("chromedriver")
        let suite = try Self.suite()
        let folder = try LabEnvironment.temporaryFolder("lab-dashboard")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let database = folder + "/lab.sqlite"
        let host = "127.0.0.93", port = Int.random(in: 20_000...40_000)
        let shots = MediaFixture.packageRoot + "/.build"
        try LabServerProcess.with(suite: suite, database: database, inventory: nil, browse: false) { server in
            func run(_ extra: [String]) throws -> ProcessResult {
                try Command.run(SeamcheckBinary.path, ["lab", "run", "--db", database, "--server", server.origin, "--streams", suite,
                                                       "--receiver", "\(host):\(port)", "--poll-interval", "100", "--format", "json"]
                                + Self.cases.flatMap { ["--case", $0] } + extra, environment: ["NO_COLOR": "1"], timeout: 180)
            }
            // 1. Live: the browser has the dashboard open before the run starts.
            var receiver = try standIn(host, port: port, behaviour: "conforming")
            defer { receiver.terminate() }
            let watcher = try RunningProcess(python, [LabEnvironment.script("dashboard_check.py"), "live", server.url("/dashboard"),
                                                      "--cells", "2", "--chromium", chromium, "--chromedriver", chromedriver,
                                                      "--screenshot", shots + "/lab-dashboard-live.png"])
            let loaded = Date().addingTimeInterval(60)
            while Date() < loaded, !watcher.stdout.contains("LOADED"), watcher.exitCode == nil { Thread.sleep(forTimeInterval: 0.1) }
            XCTAssertTrue(watcher.stdout.contains("LOADED"), watcher.output)
            let first = try run([])
            XCTAssertEqual(first.status, 0, first.stderr)
            XCTAssertEqual(watcher.wait(timeout: 120), 0, watcher.output)
            let live = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(watcher.stdout.split(separator: "\n").drop { !$0.hasPrefix("{") }
                .joined(separator: "\n").utf8)) as? [String: Any], watcher.stdout)
            XCTAssertEqual(live["cellsBefore"] as? Int, 0, "the grid was empty when the run started: \(live)")
            let painted = live["live"] as? [String: String] ?? [:]
            XCTAssertNotNil(painted.first { $0.key.hasPrefix("\(host):\(port) / control:") }, "\(live)")
            XCTAssertEqual(painted.first { $0.key.contains("behaviour-cue-pre") }?.value, "conforms", "\(live)")
            XCTAssertEqual(live["runsListed"] as? Int, 1, "the new run joined the history: \(live)")
            XCTAssertTrue((live["progress"] as? String ?? "").contains("2 / 2"), "the receiver's progress: \(live)")

            // 2. The stand-in now ignores CUE (it plays the pre-roll as a mid-roll): a regression, which the gate fails on.
            receiver.terminate()
            receiver = try standIn(host, port: port, behaviour: "ignore-cue")
            let junit = folder + "/gate.xml"
            let second = try run(["--fail-on", "regression", "--baseline", "latest", "--junit", junit])
            XCTAssertEqual(second.status, 1, "a regression fails the build: \(second.stderr)")
            // The receiver is named with its station (the host's name here): a nightly job may gate several.
            XCTAssertNotNil(second.stderr.range(of: "lab-regression \(host):\(port) @ [^ ]+ / behaviour-cue-pre: conforms -> deviates",
                                                options: .regularExpression), second.stderr)
            let xml = try String(contentsOfFile: junit, encoding: .utf8)
            XCTAssertNotNil(xml.range(of: "<failure type=\"lab-regression\" message=\"regression on \(host):\(port) @ [^:]+: behaviour-cue-pre\">",
                                      options: .regularExpression), xml)
            XCTAssertTrue(xml.contains("evidence: conforms -&gt; deviates"), xml)

            // 3. The compare view of the two runs shows it.
            let compare = try Command.run(python, [LabEnvironment.script("dashboard_check.py"), "compare", server.url("/dashboard"),
                                                   "--case", "behaviour-cue-pre", "--chromium", chromium, "--chromedriver", chromedriver,
                                                   "--screenshot", shots + "/lab-dashboard-compare.png"], timeout: 120)
            XCTAssertEqual(compare.status, 0, compare.stdout + compare.stderr)
            let view = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(compare.stdout.utf8)) as? [String: Any], compare.stdout)
            let row = try XCTUnwrap(view["row"] as? [String: Any], "\(view)")
            XCTAssertEqual(row["class"] as? String, "worse", "\(view)")
            XCTAssertEqual((row["cells"] as? [String])?[4], "conforms -> deviates", "\(view)")
            XCTAssertTrue((view["summary"] as? String ?? "").hasPrefix("1 worse"), "\(view)")
        }
    }
}
