import Foundation
import Store
import Matrix
import Processes
import SeamcheckTestSupport
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// Several `matrix run --worker` processes of the real binary draining one run through the real
/// PostgreSQL of `scripts/services.sh postgres-start` (issue 25).
final class MatrixWorkerTests: XCTestCase {
    var dir: URL!
    var server: TestHTTPServer!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("matrix-workers-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        server = try TestHTTPServer(root: MediaFixture.cacheDirectory)
    }

    override func tearDownWithError() throws {
        server.stop()
        try? FileManager.default.removeItem(at: dir)
    }

    /// `count` cases whose interstitial the test server serves after `delay` seconds a request.
    func matrix(count: Int, delay: Double) throws -> String {
        let primary = try Fixtures.primary.path()
        let name = (try Fixtures.matching.path() as NSString).lastPathComponent
        var yaml = "name: workers\ndefaults: {jobs: 2, timeout: 120}\ndeviceClasses: [apple-tv-4k, smart-tv-low-end]\ncases:\n"
        for n in 0..<count {
            yaml += "  - {id: case-\(n), primary: \"\(primary)\", interstitials: [\"\(server.url("/slow/\(delay)/\(name)?n=\(n)"))\"]}\n"
        }
        let path = dir.appendingPathComponent("workers.yaml").path
        try yaml.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func worker(_ matrix: String, db: String, name: String, output: String, lease: Double = 2,
                environment: [String: String] = [:]) throws -> RunningProcess {
        try RunningProcess(SeamcheckBinary.path,
                           ["matrix", "run", matrix, "--db", db, "--worker", "--run-name", name, "--jobs", "2", "--format", "json",
                            "--output", dir.appendingPathComponent(output).path, "--profiles-dir", MediaFixture.packageRoot + "/DeviceProfiles"],
                           environment: ProcessInfo.processInfo.environment.merging(
                            [RunLease.environmentVariable: String(lease), "NO_COLOR": "1"].merging(environment) { _, new in new }) { _, new in new })
    }

    func testAWorkerKilledMidRunLeavesEveryCaseDoneExactlyOnce() throws {
        let postgres = try TestPostgres.shared()
        let url = try postgres.makeDatabase("workers")
        let database = TestPostgres.databaseName(url)
        let cases = 24
        let matrix = try matrix(count: cases, delay: 0.3)
        let workers = try (0..<3).map { try worker(matrix, db: url, name: "nightly-1", output: "reports-\($0)") }
        defer { for child in workers where child.exitCode == nil { kill(child.pid, SIGKILL) } }
        let victim = workers[0]
        // Kill it once it has finished a case and holds others: its claims must go to the others.
        var held = ""
        let deadline = Date().addingTimeInterval(90)
        while Date() < deadline, victim.exitCode == nil {
            let done = (try? postgres.psql(database, "SELECT count(*) FROM runQueue WHERE worker LIKE '%:\(victim.pid):%' AND state = 'done'")) ?? ""
            held = (try? postgres.psql(database, "SELECT string_agg(caseId, ',') FROM runQueue WHERE worker LIKE '%:\(victim.pid):%' AND state = 'claimed'")) ?? ""
            if (Int(done) ?? 0) >= 1, !held.isEmpty { break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        XCTAssertNil(victim.exitCode, "the victim was still running. \(victim.output)")
        XCTAssertFalse(held.isEmpty, "the victim held cases when killed. \(victim.output)")
        kill(victim.pid, SIGKILL)
        _ = victim.wait(timeout: 10)

        for (n, child) in workers.enumerated().dropFirst() {
            XCTAssertEqual(child.wait(timeout: 180), 0, "worker \(n): \(child.output)")
            let report = try JSONSerialization.jsonObject(with: Data(child.stdout.utf8)) as? [String: Any]
            XCTAssertEqual((report?["cases"] as? [Any])?.count, cases, "each worker reports the whole run. \(child.stderr)")
        }
        XCTAssertEqual(try postgres.psql(database, "SELECT count(*) || ' ' || count(DISTINCT caseId) FROM matrixCase"), "\(cases) \(cases)",
                       "every case recorded exactly once")
        XCTAssertEqual(try postgres.psql(database, "SELECT count(*) FROM cell"), "\(cases * 2)")
        XCTAssertEqual(try postgres.psql(database, "SELECT count(*) FROM runQueue WHERE state <> 'done'"), "0")
        let heldCases = held.split(separator: ",").map { "'\($0)'" }.joined(separator: ",")
        XCTAssertEqual(try postgres.psql(database, "SELECT count(*) FROM runQueue WHERE caseId IN (\(heldCases)) AND attempts >= 2 AND worker NOT LIKE '%:\(victim.pid):%'"),
                       String(held.split(separator: ",").count), "the victim's cases were claimed again after its lease and done by others")
        XCTAssertEqual(try postgres.psql(database, "SELECT count(*) || ' ' || min(status) FROM run"), "1 completed", "one run, completed")

        let history = try SeamcheckBinary.run(["matrix", "history", "--db", url, "--format", "json"])
        let runs = (try JSONSerialization.jsonObject(with: Data(history.stdout.utf8)) as? [String: Any])?["runs"] as? [[String: Any]]
        XCTAssertEqual(runs?.first?["finishedCases"] as? Int, cases)
        XCTAssertEqual(runs?.first?["status"] as? String, "completed")

        // A late worker of the finished run has nothing to do and reports the whole run.
        let late = try worker(matrix, db: url, name: "nightly-1", output: "reports-late")
        XCTAssertEqual(late.wait(timeout: 60), 0, late.output)
        // The run's id, not 1: workers starting at once race to create the run, and PostgreSQL's
        // sequence spends a number on each insert that lost (a CI run read "joined run 2", the only run).
        let runId = try postgres.psql(database, "SELECT id FROM run")
        XCTAssertTrue(late.stderr.contains("joined run \(runId) "), late.stderr)
        // Another matrix file under the same name is refused.
        try "name: other\ndeviceClasses: [apple-tv-4k]\ncases:\n  - {id: x, primary: \"\(try Fixtures.primary.path())\", interstitials: [\"\(try Fixtures.primary.path())\"]}\n"
            .write(toFile: matrix, atomically: true, encoding: .utf8)
        let other = try worker(matrix, db: url, name: "nightly-1", output: "reports-other")
        XCTAssertEqual(other.wait(timeout: 60), 2, other.output)
        XCTAssertTrue(other.stderr.contains("different matrix file"), other.stderr)
    }

    func testAWorkerWhoseServerIsUnreachableExitsThreeAndWrongCredentialsTwo() throws {
        let postgres = try TestPostgres.shared()
        let matrix = try matrix(count: 2, delay: 0)
        let closed = try LoopbackPorts.closed()
        let unreachable = try worker(matrix, db: "postgres://seamcheck:pw@127.0.0.1:\(closed)/x?sslmode=disable", name: "n", output: "r")
        XCTAssertEqual(unreachable.wait(timeout: 60), 3, unreachable.output)
        let wrong = try worker(matrix, db: postgres.url(database: "seamcheck", password: "not-it"), name: "n", output: "r")
        XCTAssertEqual(wrong.wait(timeout: 60), 2, wrong.output)
        XCTAssertFalse(wrong.output.contains("not-it"), wrong.output)
        let usage = try SeamcheckBinary.run(["matrix", "run", matrix, "--worker"])
        XCTAssertEqual(usage.status, 2)
        XCTAssertTrue(usage.stderr.contains("--worker needs --run-name"), usage.stderr)
    }

    func testAWorkerRidesOutALostConnectionAndGivesUpAfterItsRetryTime() throws {
        let postgres = try TestPostgres.shared()
        let url = try postgres.makeDatabase("restart")
        let database = TestPostgres.databaseName(url)
        let cases = 12
        let matrix = try matrix(count: cases, delay: 0.3)
        let patient = try worker(matrix, db: url, name: "restart", output: "patient", environment: ["SEAMCHECK_DB_RETRY_SECONDS": "60"])
        defer { if patient.exitCode == nil { kill(patient.pid, SIGKILL) } }
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline, patient.exitCode == nil,
              Int((try? postgres.psql(database, "SELECT count(*) FROM runQueue WHERE state = 'done'")) ?? "") ?? 0 < 2 {
            Thread.sleep(forTimeInterval: 0.05)
        }
        try postgres.stopServer()
        Thread.sleep(forTimeInterval: 2)
        XCTAssertNil(patient.exitCode, "the worker waits for the database. \(patient.output)")
        try postgres.startServer()
        XCTAssertEqual(patient.wait(timeout: 120), 0, patient.output)
        XCTAssertEqual(try postgres.psql(database, "SELECT count(*) || ' ' || count(DISTINCT caseId) FROM matrixCase"), "\(cases) \(cases)")

        let url2 = try postgres.makeDatabase("giveup")
        let database2 = TestPostgres.databaseName(url2)
        let hasty = try worker(matrix, db: url2, name: "giveup", output: "hasty", environment: ["SEAMCHECK_DB_RETRY_SECONDS": "2"])
        defer { if hasty.exitCode == nil { kill(hasty.pid, SIGKILL) } }
        while Date() < deadline.addingTimeInterval(60), hasty.exitCode == nil,
              Int((try? postgres.psql(database2, "SELECT count(*) FROM runQueue WHERE state = 'done'")) ?? "") ?? 0 < 1 {
            Thread.sleep(forTimeInterval: 0.05)
        }
        try postgres.stopServer()
        let stopped = Date()
        let status = hasty.wait(timeout: 60)
        let waited = Date().timeIntervalSince(stopped)
        try postgres.startServer()
        XCTAssertEqual(status, 3, "gone for longer than its retry time: a needed service is missing. \(hasty.output)")
        XCTAssertLessThan(waited, 30, "it gave up within a bound")
        XCTAssertTrue(hasty.stderr.contains("gave up after 2 s of retries"), hasty.stderr)
        XCTAssertEqual(try postgres.psql(database2, "SELECT count(*) FROM matrixCase") , try postgres.psql(database2, "SELECT count(*) FROM runQueue WHERE state = 'done'"),
                       "never a half-written case: every recorded case is done, every done case recorded")
        // Its claims lapse with its lease: another worker finishes the run.
        let rescuer = try worker(matrix, db: url2, name: "giveup", output: "rescuer")
        XCTAssertEqual(rescuer.wait(timeout: 120), 0, rescuer.output)
        XCTAssertEqual(try postgres.psql(database2, "SELECT count(*) || ' ' || count(DISTINCT caseId) FROM matrixCase"), "\(cases) \(cases)")
    }

    func testAWorkerStoppedBySIGTERMGivesBackItsCasesAndAnotherFinishesTheRun() throws {
        let postgres = try TestPostgres.shared()
        let url = try postgres.makeDatabase("sigterm")
        let database = TestPostgres.databaseName(url)
        let cases = 6
        let matrix = try matrix(count: cases, delay: 2)
        // A long lease: only the explicit give-back can free its cases in time.
        let stopped = try worker(matrix, db: url, name: "term", output: "stopped", lease: 600)
        defer { if stopped.exitCode == nil { kill(stopped.pid, SIGKILL) } }
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline, stopped.exitCode == nil,
              (try? postgres.psql(database, "SELECT count(*) FROM runQueue WHERE state = 'claimed'")) != "2" {
            Thread.sleep(forTimeInterval: 0.05)
        }
        kill(stopped.pid, SIGTERM)
        XCTAssertEqual(stopped.wait(timeout: 60), 143, stopped.output)
        XCTAssertEqual(try postgres.psql(database, "SELECT count(*) FROM runQueue WHERE state = 'claimed'"), "0", "its cases were given back")
        let rescuer = try worker(matrix, db: url, name: "term", output: "rescuer", lease: 600)
        XCTAssertEqual(rescuer.wait(timeout: 120), 0, rescuer.output)
        XCTAssertEqual(try postgres.psql(database, "SELECT count(*) || ' ' || count(DISTINCT caseId) FROM matrixCase"), "\(cases) \(cases)")
    }
}
