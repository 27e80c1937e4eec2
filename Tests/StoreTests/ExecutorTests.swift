import Foundation
import SeamcheckTestSupport
@testable import Store
import XCTest

/// Both executors against real databases: a SQLite file, and the PostgreSQL of
/// `scripts/services.sh postgres-start`.
final class ExecutorTests: XCTestCase {
    var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("store-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    func backends() throws -> [String] {
        [directory.appendingPathComponent("r.sqlite").path, try TestPostgres.shared().makeDatabase("exec")]
    }

    func testValuesRoundTripAndTransactionsRollBackOnBothDatabases() throws {
        for location in try backends() {
            let db = try ResultsDatabaseOpener.open(location, create: true)
            defer { db.close() }
            let id = try db.write { c in
                try c.insert("INSERT INTO labServe (startedAt, bind, port, streams, manifest, pid, host) VALUES (?, ?, ?, ?, ?, ?, ?)",
                             ["1700000000.5", "0.0.0.0", 8080, "s", "{}", Int64(1) << 40, "h"])
            }
            try db.write { c in
                try c.execute("""
                    INSERT INTO labRequest (serveId, at, client, clientPort, method, path, query, range, status, bytes, expectedBytes,
                                            durationMs, userAgent, caseId, completed) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """, [id, 1_700_000_000.123456, "10.0.0.2", nil as Int?, "GET", "/a?b", nil as String?, "bytes=0-1", 206,
                          Int64(5_000_000_000), nil as Int?, 1.5, "ü-agent", "c", true])
            }
            XCTAssertThrowsError(try db.write { c in
                try c.execute("UPDATE labServe SET bind = ? WHERE id = ?", ["gone", id])
                try c.execute("INSERT INTO nosuchtable VALUES (1)")
            }, location)
            let row = try db.read { c in try c.queryOne("SELECT s.bind, s.pid, r.* FROM labServe s JOIN labRequest r ON r.serveId = s.id") }
            XCTAssertEqual(row?["bind"], "0.0.0.0", "\(location): the failed transaction left nothing")
            XCTAssertEqual(row?["pid"], Int64(1) << 40)
            XCTAssertEqual(row?["at"], 1_700_000_000.123456, "a REAL keeps its double precision")
            XCTAssertEqual(row?.value("clientPort"), .null)
            XCTAssertEqual(row?["userAgent"], "ü-agent")
            XCTAssertEqual(row?["bytes"], Int64(5_000_000_000))
            XCTAssertEqual(row?["completed"], true)
            XCTAssertEqual(try db.read { c in try c.scalar("SELECT count(*) FROM labRequest WHERE at >= ?", [1_700_000_000.0]) as Int? }, 1)
            let status = try Schema.status(db)
            XCTAssertEqual(status.version, Schema.migrations.count)
            XCTAssertEqual(status.pending, [])
        }
    }

    func testANewerSchemaIsRefusedAndLeftAsItIs() throws {
        for location in try backends() {
            let db = try ResultsDatabaseOpener.open(location, create: true)
            try db.write { c in try c.execute("INSERT INTO grdb_migrations (identifier) VALUES ('v99-from-the-future')") }
            db.close()
            XCTAssertThrowsError(try ResultsDatabaseOpener.open(location, create: false)) { error in
                XCTAssertEqual((error as? StoreFailure).map { if case .newerSchema = $0 { return true } else { return false } }, true, "\(error)")
                XCTAssertTrue("\(error)".contains("v99-from-the-future") && "\(error)".contains("newer Seamcheck"), "\(error)")
            }
        }
    }

    func testTwoProcessesMigratingAtOnceApplyEachStepOnce() throws {
        let url = try TestPostgres.shared().makeDatabase("race")
        let errors = ErrorList()
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            do { try ResultsDatabaseOpener.open(url, create: true).close() } catch { errors.add(error) }
        }
        XCTAssertEqual(errors.all.map { "\($0)" }, [])
        let count = try TestPostgres.shared().psql(TestPostgres.databaseName(url), "SELECT count(*) FROM grdb_migrations")
        XCTAssertEqual(Int(count), Schema.migrations.count)
    }

    /// Before: `sslmode=require` against a server without TLS said "cannot reach the PostgreSQL
    /// server (sslUnsupported)", exit 3, and sent people to check that it runs.
    func testTLSAskedOfAServerWithoutItIsASettingsMismatchNotAnUnreachableServer() throws {
        let postgres = try TestPostgres.shared()
        let url = postgres.url(database: "seamcheck").replacingOccurrences(of: "sslmode=disable", with: "sslmode=require")
        XCTAssertThrowsError(try ResultsDatabaseOpener.open(url, create: true)) { error in
            guard case .tlsRefused(let location, let reason) = error as? StoreFailure else { return XCTFail("\(error)") }
            XCTAssertEqual((error as? StoreFailure)?.serviceMissing, false, "exit 2, not 3: the server is there")
            XCTAssertTrue(reason.contains("does not offer TLS") && reason.contains("sslmode=require"), reason)
            XCTAssertTrue("\(error)".contains("sslmode=prefer"), "\(error)")
            XCTAssertFalse("\(error)".contains("cannot reach"), "\(error)")
            XCTAssertTrue(location.contains(":***@"), location)
        }
        let preferred = try ResultsDatabaseOpener.open(url.replacingOccurrences(of: "sslmode=require", with: "sslmode=prefer"), create: true)
        XCTAssertEqual(try preferred.read { c in try c.scalar("SELECT 1") as Int? }, 1, "prefer falls back to plain TCP")
        preferred.close()
    }

    func testAnUnreachableServerAndWrongCredentialsAreToldApart() throws {
        let postgres = try TestPostgres.shared()
        let closed = try LoopbackPorts.closed()
        XCTAssertThrowsError(try ResultsDatabaseOpener.open("postgres://seamcheck:pw@127.0.0.1:\(closed)/seamcheck?sslmode=disable", create: true)) { error in
            XCTAssertEqual((error as? StoreFailure)?.serviceMissing, true, "\(error)")
            XCTAssertTrue("\(error)".contains("cannot reach the PostgreSQL server"), "\(error)")
            XCTAssertFalse("\(error)".contains(":pw@"), "\(error)")
        }
        XCTAssertThrowsError(try ResultsDatabaseOpener.open(postgres.url(database: "seamcheck", password: "wrong-one"), create: true)) { error in
            guard case .rejected(let location, let reason) = error as? StoreFailure else { return XCTFail("\(error)") }
            XCTAssertTrue(reason.contains("28P01"), reason)
            XCTAssertTrue(location.contains(":***@"), location)
            XCTAssertFalse("\(error)".contains("wrong-one"), "\(error)")
        }
        XCTAssertThrowsError(try ResultsDatabaseOpener.open(postgres.url(database: "no_such_db"), create: true)) { error in
            guard case .rejected(_, let reason) = error as? StoreFailure else { return XCTFail("\(error)") }
            XCTAssertTrue(reason.contains("3D000"), reason)
        }
        let socket = try ResultsDatabaseOpener.open(postgres.socketURL, create: true)
        XCTAssertEqual(try socket.read { c in try c.scalar("SELECT 1") as Int? }, 1, "the Unix socket works too")
        socket.close()
    }
}

extension ExecutorTests {
    func testCopyPagesThroughALargeTableOnceAndOnlyOnce() throws {
        let source = try ResultsDatabaseOpener.open(directory.appendingPathComponent("big.sqlite").path, create: true)
        defer { source.close() }
        let rows = 2_345
        try source.write { c in
            for n in 0..<rows {
                try c.execute("""
                    INSERT INTO labRequest (serveId, at, client, method, path, status, bytes, durationMs, completed)
                    VALUES (1, ?, '10.0.0.2', 'GET', ?, 200, ?, 0.5, 1)
                    """, [1_800_000_000.0 + Double(n) / 7, "/p/\(n)", n])
            }
        }
        let target = try ResultsDatabaseOpener.open(try TestPostgres.shared().makeDatabase("bigcopy"), create: true)
        defer { target.close() }
        let first = try DatabaseCopy.copy(from: source, to: target)
        XCTAssertEqual(first.first { $0.table == "labRequest" }, DatabaseCopy.TableCount(table: "labRequest", read: rows, copied: rows))
        let again = try DatabaseCopy.copy(from: source, to: target)
        XCTAssertEqual(again.map(\.copied).reduce(0, +), 0, "a second copy adds nothing")
        let sums: SQLRow? = try target.read { c in try c.queryOne("SELECT count(*) AS n, sum(bytes) AS b, max(at) AS m FROM labRequest") }
        XCTAssertEqual(sums?["n"], rows)
        XCTAssertEqual(sums?["b"], Int64(rows * (rows - 1) / 2))
        XCTAssertEqual(sums?["m"], 1_800_000_000.0 + Double(rows - 1) / 7)
        let next = try target.write { c in
            try c.insert("INSERT INTO labRequest (serveId, at, client, method, path, status, bytes, durationMs, completed) VALUES (1, 0, 'x', 'GET', '/', 200, 0, 0, 1)", [])
        }
        XCTAssertEqual(next, Int64(rows + 1), "new rows get ids after the copied ones")
    }
}

final class ErrorList: @unchecked Sendable {
    private let lock = NSLock()
    private var errors: [any Error] = []
    func add(_ error: any Error) { lock.withLock { errors.append(error) } }
    var all: [any Error] { lock.withLock { errors } }
}
