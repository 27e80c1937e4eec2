import Foundation
import Store
import Matrix
import Processes
import SeamcheckTestSupport
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// A dead run is known to be dead (issue 20, item 6): `matrix run` in its own PID namespace
/// (`unshare --pid --fork`, as in a container) records PID 1, which this namespace's init answers
/// to forever. Killed with SIGKILL, the run must read `interrupted` once its heartbeat lease lapses.
final class MatrixRunLeaseTests: XCTestCase {
    var dir: URL!
    var server: TestHTTPServer!
    var db: String { dir.appendingPathComponent("results.sqlite").path }

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("matrix-lease-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        server = try TestHTTPServer(root: MediaFixture.cacheDirectory)
    }

    override func tearDownWithError() throws {
        server.stop()
        try? FileManager.default.removeItem(at: dir)
    }

    func query(_ sql: String) throws -> String {
        let script = "import sqlite3,sys\nc=sqlite3.connect(sys.argv[1])\nprint('|'.join(str(r[0]) for r in c.execute(sys.argv[2])))"
        let result = try Command.run("python3", ["-c", script, db, sql])
        guard result.status == 0 else { throw CommandError.failed("sqlite3 query", result) }
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func historyStatus() throws -> String? {
        let history = try SeamcheckBinary.run(["matrix", "history", "--db", db, "--format", "json"])
        XCTAssertEqual(history.status, 0, history.stderr)
        let runs = (try JSONSerialization.jsonObject(with: Data(history.stdout.utf8)) as? [String: Any])?["runs"] as? [[String: Any]]
        return runs?.first?["status"] as? String
    }

    func testARunKilledInItsOwnPIDNamespaceReadsInterruptedOnceItsLeaseLapses() throws {
        let unshare = try TestEnvironment.require("unshare")
        guard (try Command.run(unshare, ["--pid", "--fork", "true"], timeout: 10)).status == 0 else {
            throw XCTSkip("unshare --pid needs CAP_SYS_ADMIN here")
        }
        let primary = try Fixtures.primary.path()
        let name = (try Fixtures.matching.path() as NSString).lastPathComponent
        var yaml = "name: lease\ndefaults: {jobs: 1, timeout: 120}\ndeviceClasses: [apple-tv-4k]\ncases:\n"
        for n in 0..<2 { yaml += "  - {id: case-\(n), primary: \"\(primary)\", interstitials: [\"\(server.url("/slow/60/\(name)?n=\(n)"))\"]}\n" }
        let matrix = dir.appendingPathComponent("lease.yaml").path
        try yaml.write(toFile: matrix, atomically: true, encoding: .utf8)
        let lease = 1.5
        let child = try RunningProcess(
            unshare,
            ["--pid", "--fork", "--kill-child", SeamcheckBinary.path, "matrix", "run", matrix, "--db", db,
                        "--output", dir.appendingPathComponent("reports").path, "--format", "json",
                        "--profiles-dir", MediaFixture.packageRoot + "/DeviceProfiles"],
            environment: ProcessInfo.processInfo.environment.merging([RunLease.environmentVariable: String(lease)]) { _, new in new })
        defer { if child.exitCode == nil { kill(child.pid, SIGKILL) } }
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline, child.exitCode == nil, (try? query("SELECT status FROM run")) != "running" {
            Thread.sleep(forTimeInterval: 0.1)
        }
        XCTAssertEqual(try query("SELECT pid FROM run"), "1", "the PID it recorded is its namespace's: meaningless here. \(child.output)")
        Thread.sleep(forTimeInterval: lease * 2)
        XCTAssertEqual(try historyStatus(), "running", "alive past two leases: its heartbeat keeps it. \(child.output)")

        kill(child.pid, SIGKILL)  // --kill-child takes the namespace down with it
        _ = child.wait(timeout: 10)
        Thread.sleep(forTimeInterval: lease + 0.5)
        XCTAssertEqual(try historyStatus(), "interrupted", "dead, and known to be: its lease lapsed")
    }
}
