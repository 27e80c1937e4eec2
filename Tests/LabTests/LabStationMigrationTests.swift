import Foundation
import XCTest
@testable import LabCore
@testable import LabRun
@testable import LabServer
@testable import Store

/// A SQLite file written before stations (the schema of every migration before `lab-stations`)
/// opens, takes the migration, and reads as the station its rows' host would have been by default.
final class LabStationMigrationTests: XCTestCase {
    var paths: [String] = []

    override func tearDown() {
        for path in paths { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
    }

    /// A file with the schema as it was before stations, and `rows` written in it with that schema's SQL.
    func oldFile(_ rows: String) throws -> String {
        let path = LabTestData.temporaryDatabase()
        paths.append(path)
        let executor = try SQLiteExecutor(path: path, create: true)
        defer { executor.close() }
        let before = Schema.migrations.prefix { $0.identifier != "lab-stations" }
        XCTAssertLessThan(before.count, Schema.migrations.count, "lab-stations is in the list (later migrations apply after it)")
        try executor.write { c in
            try c.execute("CREATE TABLE \(Schema.table) (identifier TEXT NOT NULL PRIMARY KEY)")
            for migration in before {
                for statement in Schema.statements(migration.sql) { try c.execute(statement) }
                try c.execute("INSERT INTO \(Schema.table) (identifier) VALUES (?)", [migration.identifier])
            }
            for statement in Schema.statements(rows) { try c.execute(statement) }
        }
        return path
    }

    func testAnOldFileOpensAndItsRowsReadAsTheHostsDefaultStation() throws {
        let host = LabStation.hostDefault
        let manifest = String(decoding: try JSONEncoder().encode(LabTestData.manifest), as: UTF8.self).replacingOccurrences(of: "'", with: "''")
        let at = LabTestData.start.timeIntervalSince1970
        let path = try oldFile("""
            INSERT INTO labServe (id, startedAt, bind, port, streams, manifest, pid, host) VALUES (1, '\(at)', '0.0.0.0', 8080, '/s', '\(manifest)', 1, '\(host)');
            INSERT INTO labRequest (serveId, at, client, method, path, status, bytes, durationMs, caseId, completed)
              VALUES (1, \(at), '10.0.0.5', 'GET', '/cases/control/master.m3u8', 200, 10, 1, 'control', 1);
            INSERT INTO labRequest (serveId, at, client, method, path, status, bytes, durationMs, caseId, completed)
              VALUES (1, \(at + 1), '10.0.0.5', 'GET', '/cases/control/media.m3u8', 200, 10, 1, 'control', 1);
            INSERT INTO labReceiver (address, name, deviceClass, reason, source, seenAt) VALUES ('10.0.0.5', 'Den', 'apple-tv-4k', 'pin', 'inventory', \(at - 5));
            INSERT INTO labReceiverHistory (address, name, deviceClass, reason, source, seenAt) VALUES ('10.0.0.5', 'Den', 'apple-tv-4k', 'pin', 'inventory', \(at - 5));
            INSERT INTO labVerdict (recordedAt, receiver, caseId, verdict, source) VALUES (\(at + 10), 'Den', 'control', 'glitch', 'page');
            INSERT INTO labRun (id, startedAt, state, heartbeatAt, leaseSeconds, server, receivers, cases, pollIntervalMs, cellsTotal, host)
              VALUES ('old-run', \(at), 'finished', \(at), 30, 'http://x', '["Den"]', '["control"]', 250, 1, 'another-host');
            INSERT INTO labVerdict (recordedAt, receiver, caseId, verdict, source, via, runId) VALUES (\(at + 20), 'Den', 'control', 'stall', 'measured', 'lab run', 'old-run')
            """)

        let store = try LabStore(path: path, create: false)
        XCTAssertEqual(store.station, host)
        XCTAssertEqual(try Schema.status(store.executor).pending, [], "the file took the stations migration")
        XCTAssertEqual(try store.requests().map(\.station), [host, host], "requests read as their serve's host: the default station")
        XCTAssertEqual(try store.requests(station: host).count, 2)
        XCTAssertEqual(try store.receivers().map(\.station), [host])
        XCTAssertEqual(try store.latestManifest(station: host), LabTestData.manifest)
        let verdicts = try store.verdicts()
        XCTAssertEqual(verdicts.map(\.station), [host, "another-host"], "a run's verdict reads as its run's host")
        XCTAssertEqual(try store.runs().map(\.station), ["another-host"])

        // The old session still maps its receiver, and this host's new requests join its station.
        let serve = try store.beginServe(bind: "0.0.0.0", port: 8080, streams: "/s", manifest: LabTestData.manifest)
        try store.append([LabTestData.request("10.0.0.5", "/cases/control/primary/seg_000.m4s", at: 2)], serveId: serve)
        let sessions = SessionBuilder(manifest: LabTestData.manifest, receivers: try store.receivers(), history: try store.receiverHistory())
            .sessions(from: try store.requests())
        XCTAssertEqual(sessions.map(\.receiver), ["Den"])
        XCTAssertEqual(sessions.map(\.requests), [3])
        XCTAssertEqual(sessions.map(\.station), [host])
        // A second receiver at the same address, at another station, is another row.
        try LabStore(path: path, create: false, station: "room-b")
            .upsert(LabReceiverRecord(address: "10.0.0.5", name: "Board Room", reason: "pin", source: .inventory))
        XCTAssertEqual(try store.receivers().map(\.name), ["Board Room", "Den"])
    }

    func testRowsNoHostRecordedReadAsTheUnknownStation() throws {
        let path = try oldFile("""
            INSERT INTO labVerdict (recordedAt, receiver, caseId, verdict, source) VALUES (1800000000, 'Den', 'control', 'glitch', 'cli');
            INSERT INTO labReceiver (address, name, reason, source, seenAt) VALUES ('10.0.0.5', 'Den', 'pin', 'inventory', 1800000000)
            """)
        let store = try LabStore(path: path, create: false, station: "room-a")
        XCTAssertEqual(try store.verdicts().map(\.station), [nil])
        XCTAssertEqual(try store.receivers().map(\.station), [nil])
        XCTAssertEqual(try store.stations(), [""])
        XCTAssertEqual(try store.verdicts(station: LabStation.unknown).count, 1, "the unknown station is ''")
    }
}
