import Foundation
import Store
import Matrix
import Processes
import SeamcheckTestSupport
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// A run killed with SIGKILL, or stopped with SIGINT, keeps every case that finished.
final class MatrixFaultTests: XCTestCase {
    var dir: URL!
    var server: TestHTTPServer!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("matrix-fault-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        server = try TestHTTPServer(root: MediaFixture.cacheDirectory)
    }

    override func tearDownWithError() throws {
        server.stop()
        try? FileManager.default.removeItem(at: dir)
    }

    var db: String { dir.appendingPathComponent("results.sqlite").path }

    /// 16 cases whose interstitial is served slowly, each at its own URL (no sharing): the run
    /// takes many seconds, and cases finish one after another.
    func startSlowRun() throws -> RunningProcess {
        let primary = try Fixtures.primary.path()
        let name = (try Fixtures.matching.path() as NSString).lastPathComponent
        var yaml = "name: slow\ndefaults: {jobs: 2, timeout: 120}\ndeviceClasses: [smart-tv-low-end, apple-tv-4k, apple-tv-hd]\ncases:\n"
        for n in 0..<16 {
            yaml += "  - {id: case-\(n), primary: \"\(primary)\", interstitials: [\"\(server.url("/slow/0.6/\(name)?n=\(n)"))\"]}\n"
        }
        let path = dir.appendingPathComponent("slow.yaml").path
        try yaml.write(toFile: path, atomically: true, encoding: .utf8)
        return try RunningProcess(SeamcheckBinary.path, ["matrix", "run", path, "--db", db, "--output", dir.appendingPathComponent("reports").path,
                                                         "--format", "json", "--profiles-dir", MediaFixture.packageRoot + "/DeviceProfiles"],
                                  environment: ProcessInfo.processInfo.environment.merging([RunLease.environmentVariable: "1"]) { _, new in new })
    }

    /// Runs a query on the database with Python's sqlite3 module: a reader that is not seamcheck.
    func query(_ sql: String) throws -> String {
        let script = "import sqlite3,sys\nc=sqlite3.connect(sys.argv[1])\nprint('|'.join(str(r[0]) for r in c.execute(sys.argv[2])))"
        let result = try Command.run("python3", ["-c", script, db, sql])
        guard result.status == 0 else { throw CommandError.failed("sqlite3 query", result) }
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func waitForCommittedCases(_ count: Int, _ child: RunningProcess) throws -> Int {
        let deadline = Date().addingTimeInterval(90)
        while Date() < deadline, child.exitCode == nil {
            if FileManager.default.fileExists(atPath: db), let n = Int((try? query("SELECT COUNT(*) FROM matrixCase")) ?? ""), n >= count {
                return n
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        XCTFail("no \(count) committed cases in time; output: \(child.output)")
        return 0
    }

    func testKillNineKeepsEveryFinishedCaseInADatabaseThatOpens() throws {
        let child = try startSlowRun()
        let seen = try waitForCommittedCases(3, child)
        kill(child.pid, SIGKILL)
        XCTAssertEqual(child.wait(timeout: 10), 128 + SIGKILL)
        XCTAssertEqual(try query("PRAGMA integrity_check"), "ok")
        let committed = Int(try query("SELECT COUNT(*) FROM matrixCase")) ?? 0
        XCTAssertGreaterThanOrEqual(committed, seen)
        XCTAssertLessThan(committed, 16, "killed before the end")
        XCTAssertEqual(Int(try query("SELECT COUNT(*) FROM cell")), committed * 3, "every committed case has all its cells")

        Thread.sleep(forTimeInterval: 1.5)  // the run's lease (1 s here) lapses
        let history = try SeamcheckBinary.run(["matrix", "history", "--db", db, "--format", "json"])
        XCTAssertEqual(history.status, 0, history.stderr)
        let runs = try XCTUnwrap((try JSONSerialization.jsonObject(with: Data(history.stdout.utf8)) as? [String: Any])?["runs"] as? [[String: Any]])
        XCTAssertEqual(runs.first?["status"] as? String, "interrupted")
        XCTAssertEqual(runs.first?["finishedCases"] as? Int, committed)
    }

    func testSIGINTStopsCleanlyMarksTheRunInterruptedAndKeepsFinishedCases() throws {
        let child = try startSlowRun()
        _ = try waitForCommittedCases(2, child)
        let signalled = Date()
        kill(child.pid, SIGINT)
        XCTAssertEqual(child.wait(timeout: 30), 130, child.output)
        XCTAssertLessThan(Date().timeIntervalSince(signalled), 10, "stops promptly")
        XCTAssertEqual(try query("SELECT status FROM run"), "interrupted")
        let committed = Int(try query("SELECT COUNT(*) FROM matrixCase")) ?? 0
        XCTAssertGreaterThanOrEqual(committed, 2)
        XCTAssertEqual(try query("SELECT COUNT(*) FROM matrixCase WHERE errorKind IS NOT NULL"), "0", "cases cut short are not errors")
        let report = try String(contentsOfFile: dir.appendingPathComponent("reports/report.json").path, encoding: .utf8)
        let doc = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(report.utf8)) as? [String: Any])
        XCTAssertEqual((doc["run"] as? [String: Any])?["status"] as? String, "interrupted")
        XCTAssertEqual((doc["cases"] as? [Any])?.count, committed)
        XCTAssertEqual((doc["unfinishedCases"] as? [Any])?.count, 16 - committed)
    }

    func testSIGINTDuringPlaylistFetchesRecordsNoCaseAsAnInputError() throws {
        // Every playlist is slower to answer than the run is allowed to live: SIGINT cancels the
        // fetches in flight, which is not a fault of those inputs.
        var yaml = "name: fetching\ndefaults: {jobs: 2, timeout: 120}\ndeviceClasses: [smart-tv-low-end]\ncases:\n"
        for n in 0..<4 { yaml += "  - {id: title-\(n), playlist: \"\(server.url("/slow/30/master-\(n).m3u8"))\"}\n" }
        let path = dir.appendingPathComponent("fetching.yaml").path
        try yaml.write(toFile: path, atomically: true, encoding: .utf8)
        let child = try RunningProcess(SeamcheckBinary.path, ["matrix", "run", path, "--db", db, "--output", dir.appendingPathComponent("reports").path,
                                                              "--format", "json", "--profiles-dir", MediaFixture.packageRoot + "/DeviceProfiles"])
        // The run's row first (a starved binary may take more than a fixed wait to write it), then
        // a moment for the fetches (30 s each) to be in flight.
        defer { if child.exitCode == nil { kill(child.pid, SIGKILL) } }
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline, child.exitCode == nil, (try? query("SELECT status FROM run")) != "running" {
            Thread.sleep(forTimeInterval: 0.1)
        }
        Thread.sleep(forTimeInterval: 0.5)
        kill(child.pid, SIGINT)
        XCTAssertEqual(child.wait(timeout: 30), 130, child.output)
        XCTAssertEqual(try query("SELECT status FROM run"), "interrupted")
        XCTAssertEqual(try query("SELECT COUNT(*) FROM matrixCase"), "0", "no case finished, none is recorded as failed: \(child.output)")
    }
}
