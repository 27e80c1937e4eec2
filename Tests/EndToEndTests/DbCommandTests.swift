import Foundation
import LabCore
import LabRun
import LabServer
import SeamcheckTestSupport
import XCTest

/// `seamcheck db check | migrate | copy` and `--db postgres://...` against the real PostgreSQL of
/// `scripts/services.sh postgres-start`.
final class DbCommandTests: XCTestCase {
    var dir: URL!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("db-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: dir)
    }

    func json(_ text: String) throws -> [String: Any] {
        try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], text)
    }

    func testCheckTellsAnUnreachableServerAWrongPasswordAndANewerSchemaApart() throws {
        let postgres = try TestPostgres.shared()
        let url = try postgres.makeDatabase("check")
        let fresh = try SeamcheckBinary.run(["db", "check", "--db", url, "--format", "json"])
        XCTAssertEqual(fresh.status, 0, fresh.stderr)
        XCTAssertEqual(try json(fresh.stdout)["version"] as? Int, 0)
        XCTAssertEqual((try json(fresh.stdout)["pending"] as? [String])?.first, "v1-runs-cases-cells-findings")
        XCTAssertFalse(fresh.stdout.contains(postgres.password), "the password is never printed")

        let migrated = try SeamcheckBinary.run(["db", "migrate"], environment: ["SEAMCHECK_DB": url])
        XCTAssertEqual(migrated.status, 0, migrated.stderr)
        XCTAssertTrue(migrated.stderr.contains("schema version 0 -> "), migrated.stderr)
        XCTAssertFalse(migrated.stderr.contains(postgres.password))
        let checked = try json(try SeamcheckBinary.run(["db", "check", "--db", url, "--format", "json"]).stdout)
        XCTAssertEqual(checked["version"] as? Int, checked["latest"] as? Int)
        XCTAssertEqual(checked["pending"] as? [String], [])

        let closed = try LoopbackPorts.closed()
        for arguments in [["db", "check"], ["matrix", "history"], ["lab", "runs"]] {
            let unreachable = try SeamcheckBinary.run(arguments + ["--db", "postgres://seamcheck:secret1@127.0.0.1:\(closed)/x?sslmode=disable"])
            XCTAssertEqual(unreachable.status, 3, "\(arguments): a needed service is missing. \(unreachable.stderr)")
            XCTAssertTrue(unreachable.stderr.contains("cannot reach the PostgreSQL server"), unreachable.stderr)
            XCTAssertFalse(unreachable.stderr.contains("secret1"), unreachable.stderr)
        }
        let wrong = try SeamcheckBinary.run(["matrix", "history", "--db", postgres.url(database: TestPostgres.databaseName(url), password: "secret2")])
        XCTAssertEqual(wrong.status, 2, wrong.stderr)
        XCTAssertTrue(wrong.stderr.contains("password authentication failed") && wrong.stderr.contains("check the user, password"), wrong.stderr)
        XCTAssertFalse(wrong.stderr.contains("secret2"), wrong.stderr)

        try postgres.psql(TestPostgres.databaseName(url), "INSERT INTO grdb_migrations VALUES ('v9-from-a-newer-seamcheck')")
        for arguments in [["db", "check"], ["db", "migrate"], ["matrix", "history"]] {
            let newer = try SeamcheckBinary.run(arguments + ["--db", url])
            XCTAssertEqual(newer.status, 2, "\(arguments): \(newer.stderr)")
            XCTAssertTrue(newer.stderr.contains("migrated by a newer Seamcheck") && newer.stderr.contains("v9-from-a-newer-seamcheck"), newer.stderr)
        }
    }

    /// Before: a results file this user may read but not write (an archived run, another user's
    /// station) refused even `lab report`, with advice about permissions. Now the commands that
    /// only read work, and a command that writes says it is read-only and what to do.
    /// Before: a results file this user may read but not write (an archived run, another user's
    /// station) refused even `matrix history`, as "cannot open". Now the commands that only read
    /// work, and one that writes says the file is not writable for this user and what to do.
    func testAResultsFileThisUserMayOnlyReadServesTheCommandsThatRead() throws {
        guard getuid() == 0 else { throw XCTSkip("needs root, to run seamcheck as another user (nobody)") }
        let folder = dir.appendingPathComponent("archive"), path = folder.appendingPathComponent("results.sqlite").path
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let primary = try Fixtures.primary.path()
        let matrix = dir.appendingPathComponent("m.yaml").path
        try """
            name: archived
            defaults: {jobs: 1, timeout: 60}
            deviceClasses: [apple-tv-4k]
            cases:
              - {id: a, primary: "\(primary)", interstitials: ["\(primary)"]}
            """.write(toFile: matrix, atomically: true, encoding: .utf8)
        let run = try SeamcheckBinary.run(["matrix", "run", matrix, "--db", path, "--output", dir.appendingPathComponent("r").path, "--format", "json"])
        XCTAssertEqual(run.status, 0, run.stderr)
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: path)
        for folder in [folder, dir!] { try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: folder.path) }
        defer { for folder in [folder, dir!] { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.path) } }
        func asNobody(_ arguments: [String]) throws -> CommandResult {
            try Command.run("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", SeamcheckBinary.path] + arguments,
                            environment: ["NO_COLOR": "1", "HOME": "/tmp"], currentDirectory: URL(fileURLWithPath: "/"))
        }
        let history = try asNobody(["matrix", "history", "--db", path, "--format", "json"])
        XCTAssertEqual(history.status, 0, history.stderr)
        let runs = try XCTUnwrap(try json(history.stdout)["runs"] as? [[String: Any]])
        XCTAssertEqual(runs.first?["finishedCases"] as? Int, 1, history.stdout)
        let check = try asNobody(["db", "check", "--db", path])
        XCTAssertEqual(check.status, 0, check.stderr)
        let write = try asNobody(["lab", "runs", "--db", path, "--format", "json"])
        XCTAssertEqual(write.status, 0, write.stderr)
        let again = try asNobody(["matrix", "run", matrix, "--db", path, "--output", "/tmp/seamcheck-never-written", "--format", "json"])
        XCTAssertEqual(again.status, 2, again.stderr)
        XCTAssertTrue(again.stderr.contains(path) && again.stderr.contains("writable"), again.stderr)
        XCTAssertFalse(again.stderr.contains("disk"), again.stderr)
    }

    func testCopyBringsAStationsSQLiteHistoryInOnce() throws {
        let postgres = try TestPostgres.shared()
        let sqlite = dir.appendingPathComponent("station.sqlite").path
        let primary = try Fixtures.primary.path(), fps25 = try Fixtures.fps25.path()
        let yaml = """
            name: station
            defaults: {jobs: 1, timeout: 60}
            deviceClasses: [apple-tv-4k, smart-tv-low-end]
            cases:
              - {id: a, primary: "\(primary)", interstitials: ["\(fps25)"]}
              - {id: b, primary: "\(primary)", interstitials: ["\(primary)"]}
            """
        let matrix = dir.appendingPathComponent("m.yaml").path
        try yaml.write(toFile: matrix, atomically: true, encoding: .utf8)
        let run = try SeamcheckBinary.run(["matrix", "run", matrix, "--db", sqlite, "--output", dir.appendingPathComponent("r").path,
                                           "--format", "json"])
        XCTAssertEqual(run.status, 1, "the 25 fps ad fails a class. \(run.stderr)")
        let lab = try LabStore(path: sqlite)
        try lab.record(LabVerdictRecord(receiver: "Den", caseId: "control", verdict: .glitch, source: .operator, via: "cli"))
        try lab.append([LabRequestRecord(at: Date(), client: "10.0.0.2", method: "GET", path: "/cases/control/master.m3u8",
                                         status: 200, bytes: 10, durationMs: 1)], serveId: 1)

        let url = try postgres.makeDatabase("copy")
        let first = try SeamcheckBinary.run(["db", "copy", "--from", sqlite, "--to", url])
        XCTAssertEqual(first.status, 0, first.stderr)
        let rows = Dictionary(uniqueKeysWithValues: first.stdout.split(separator: "\n").dropFirst().map { line in
            let parts = line.split(separator: "\t").map(String.init)
            return (parts[0], (Int(parts[1]) ?? -1, Int(parts[2]) ?? -1))
        })
        XCTAssertEqual(rows["run"]?.1, 1)
        XCTAssertEqual(rows["matrixCase"]?.1, 2)
        XCTAssertEqual(rows["cell"]?.1, 4)
        XCTAssertEqual(rows["labVerdict"]?.1, 1)
        XCTAssertEqual(rows["labRequest"]?.1, 1)
        XCTAssertGreaterThan(rows["finding"]?.1 ?? 0, 0)
        XCTAssertFalse(first.stdout.contains(postgres.password) || first.stderr.contains(postgres.password))

        let again = try SeamcheckBinary.run(["db", "copy", "--from", sqlite, "--to", url])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertTrue(again.stderr.contains(": 0 row(s) copied"), "a second copy adds nothing: \(again.stdout)")

        let local = try json(try SeamcheckBinary.run(["matrix", "history", "--db", sqlite, "--format", "json"]).stdout)
        let shared = try json(try SeamcheckBinary.run(["matrix", "history", "--db", url, "--format", "json"]).stdout)
        let localRun = try XCTUnwrap((local["runs"] as? [[String: Any]])?.first), sharedRun = try XCTUnwrap((shared["runs"] as? [[String: Any]])?.first)
        XCTAssertEqual(sharedRun["cells"] as? [String: Int], localRun["cells"] as? [String: Int])
        XCTAssertEqual(sharedRun["finishedCases"] as? Int, 2)
        XCTAssertEqual(try LabStore(path: url).verdicts().map(\.verdict), [.glitch])

        // New rows after the copy get new ids, not the copied ones.
        let second = try SeamcheckBinary.run(["matrix", "run", matrix, "--db", url, "--output", dir.appendingPathComponent("r2").path, "--format", "json"])
        XCTAssertEqual(second.status, 1, second.stderr)
        let diff = try SeamcheckBinary.run(["matrix", "diff", "--db", url, "--format", "json"])
        XCTAssertEqual(diff.status, 0, diff.stderr)
        XCTAssertEqual(try postgres.psql(TestPostgres.databaseName(url), "SELECT string_agg(id::text, ',' ORDER BY id) FROM run"), "1,2")

        // Another station's file does not go into a database holding this history under the same ids.
        let other = dir.appendingPathComponent("other.sqlite").path
        XCTAssertEqual(try SeamcheckBinary.run(["matrix", "run", matrix, "--db", other, "--output", dir.appendingPathComponent("r3").path,
                                                "--format", "json"]).status, 1)
        let clash = try SeamcheckBinary.run(["db", "copy", "--from", other, "--to", url])
        XCTAssertEqual(clash.status, 2, clash.stderr)
        XCTAssertTrue(clash.stderr.contains("holds another history"), clash.stderr)
    }
}
