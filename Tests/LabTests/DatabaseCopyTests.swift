import AirPlay
import Compatibility
import Foundation
import SeamcheckTestSupport
@testable import Store
import XCTest
@testable import LabCore
@testable import Matrix

/// `seamcheck db copy` of a station's whole history, written by the stores' own writers (a lab
/// serve with its requests and receivers, verdicts, a lab run with its cells, a matrix run with its
/// cases, cells and findings), into a new SQLite file and into PostgreSQL: every table arrives with
/// every row, value for value.
final class DatabaseCopyTests: XCTestCase {
    var folder = ""

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("copy-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    override func tearDown() { try? FileManager.default.removeItem(atPath: folder) }

    /// A station's history: every table `db copy` moves has rows.
    func filledSource() throws -> String {
        let path = folder + "/station.sqlite"
        let lab = try LabStore(path: path, station: "den")
        let serve = try lab.beginServe(bind: "0.0.0.0", port: 8080, streams: "/lab", manifest: LabTestData.manifest)
        try lab.append(LabTestData.midRoll("10.0.0.2") + LabTestData.midRoll("10.0.0.3", case: "control", from: 20), serveId: serve)
        try lab.upsert(LabReceiverRecord(address: "10.0.0.2", name: "Den TV", deviceId: "AA:BB", deviceClass: "smart-tv-low-end",
                                         reason: "model", source: .avahi, declaredCodecs: ["hvc1"], supportsInterstitials: true))
        try lab.markGone(addresses: ["10.0.0.2"])
        _ = try lab.record(LabVerdictRecord(receiver: "Den TV", caseId: "control", verdict: .glitch, seconds: 0.4, note: "ü ad",
                                            source: .operator, via: "page"))
        try lab.endServe(serve)
        for run in ["20261125-193000-1f2e", "20261125-200000-0a0b"] {
            try lab.beginRun(LabRunSummary(id: run, startedAt: LabTestData.start, state: .running, server: "http://10.0.0.1:8080",
                                           receivers: ["Den TV"], cases: ["control", "video-codec-hevc"], pollIntervalMs: 250, cellsTotal: 2),
                             leaseSeconds: 30)
            for (offset, caseId) in ["control", "video-codec-hevc"].enumerated() {
                let at = LabTestData.start.addingTimeInterval(Double(offset) * 20)
                let series = PlaybackSeries(playSentAt: at, pollIntervalMs: 250,
                                            samples: [PlaybackSample(atMs: 250, info: .at(0.1)), PlaybackSample(atMs: 500, info: .at(1e308))],
                                            commands: [SentCommand(kind: .play, atMs: 0, value: 0)])
                try lab.record(LabRunCell(runId: run, receiver: "Den TV", deviceId: "AA:BB", deviceClass: "smart-tv-low-end",
                                          address: "10.0.0.2", caseId: caseId, attempt: 1, startedAt: at, finishedAt: at.addingTimeInterval(12),
                                          url: "http://10.0.0.1:8080/cases/\(caseId)/master.m3u8", series: series,
                                          requests: LabTestData.midRoll("10.0.0.2", case: caseId, from: Double(offset) * 20),
                                          measurement: CellMeasurement(playToFirstFrameMs: 900, outcome: .seamless, reason: "seamless")),
                               done: offset == 0)
            }
            try lab.finishRun(run, state: .finished)
        }
        lab.executor.close()

        let matrix = try ResultStore(path: path)
        let runId = try matrix.beginRun(RunStart(matrixName: "m", matrixFile: "/lab/m.yaml", failOn: .error, jobs: 2, caseTimeout: 60,
                                                 profiles: [], plannedCases: ["a", "b"], expectedIssues: []))
        for caseId in ["a", "b"] {
            let finding = Finding(rule: "video-codec-mismatch", severity: .error, deviceClass: "smart-tv-low-end", subject: "ad 1",
                                  expected: "h264", actual: "hevc", message: "the ad changes codec", remediation: "-c:v libx264")
            _ = try matrix.record(CaseResult(caseId: caseId, kind: "explicit", primary: "/m/p.mp4", interstitials: ["/m/ad.mp4"], tags: ["t"],
                                             startedAt: LabTestData.start, seconds: 0.5, failure: nil, assets: [], placements: [],
                                             cells: [CellResult(deviceClass: "smart-tv-low-end", status: .fail,
                                                                findings: [MatrixFinding(finding: finding)])]),
                                  runId: runId)
        }
        try matrix.finishRun(runId, status: .completed, probesPerformed: 2, distinctInputs: 2)
        // A run shared by workers: its queue, one case claimed and done, one waiting.
        let shared = try matrix.joinRun(RunStart(matrixName: "m", matrixFile: "/lab/m.yaml", failOn: .error, jobs: 1, caseTimeout: 60,
                                                 profiles: [], plannedCases: ["a", "b"], expectedIssues: []),
                                        name: "ci-42", matrixHash: "abc", lease: RunLease(seconds: 30))
        let claimed = try matrix.claim(runId: shared.id, worker: "w1", count: 1, lease: RunLease(seconds: 30))
        _ = try matrix.complete(CaseResult(caseId: claimed[0], kind: "explicit", primary: "/m/p.mp4", interstitials: [], tags: [],
                                           startedAt: LabTestData.start, seconds: 0.5, failure: nil, assets: [], placements: [], cells: []),
                                runId: shared.id, worker: "w1")
        matrix.executor.close()
        return path
    }

    /// Every row of every table, by key, as `[column: value]` (columns named as the source has them).
    func contents(_ db: any SQLExecutor, columns: [String: [String]]) throws -> [String: [[String: SQLValue]]] {
        var tables: [String: [[String: SQLValue]]] = [:]
        for (table, key) in Schema.tables {
            let list = columns[table] ?? []
            tables[table] = try db.read { c in
                try c.query("SELECT \(list.joined(separator: ", ")) FROM \(table) ORDER BY \(key)").map { row in
                    Dictionary(uniqueKeysWithValues: list.map { ($0, row.value($0)) })
                }
            }
        }
        return tables
    }

    func testACopyOfAStationWithLabRunsMatrixRunsAndVerdictsArrivesWholeInSQLiteAndPostgreSQL() throws {
        let source = try ResultsDatabaseOpener.open(try filledSource(), create: false, migrate: false)
        defer { source.close() }
        var columns: [String: [String]] = [:]
        for (table, _) in Schema.tables { columns[table] = try DatabaseCopy.columns(table, source) }
        let expected = try contents(source, columns: columns)
        for (table, rows) in expected { XCTAssertFalse(rows.isEmpty, "the source has rows in \(table)") }

        for target in [folder + "/copy.sqlite", try TestPostgres.shared().makeDatabase("copy")] {
            let db = try ResultsDatabaseOpener.open(target, create: true)
            defer { db.close() }
            let counts = try DatabaseCopy.copy(from: source, to: db)
            let copied = try contents(db, columns: columns)
            for (table, _) in Schema.tables {
                let count = counts.first { $0.table == table }
                XCTAssertEqual(count?.read, expected[table]?.count, "\(target) \(table)")
                XCTAssertEqual(count?.copied, expected[table]?.count, "\(target) \(table)")
                XCTAssertEqual(copied[table], expected[table], "\(target): \(table) arrives value for value")
            }
            print("db copy into \(db.location): " + counts.map { "\($0.table) \($0.copied)/\($0.read)" }.joined(separator: ", "))
            XCTAssertEqual(try DatabaseCopy.copy(from: source, to: db).map(\.copied).reduce(0, +), 0, "a second copy adds nothing")
            // What the stores read back from the copy: the runs and their cells.
            let lab = LabStore(executor: db, station: "den")
            XCTAssertEqual(try lab.runs().map(\.id).sorted(), ["20261125-193000-1f2e", "20261125-200000-0a0b"])
            XCTAssertEqual(try lab.cells(runId: "20261125-193000-1f2e").count, 2)
        }
    }

    /// A table a migration makes and `db copy` does not know would be left behind without a word.
    func testDbCopyKnowsEveryTableTheSchemaMakes() throws {
        let db = try ResultsDatabaseOpener.open(folder + "/schema.sqlite", create: true)
        defer { db.close() }
        let made = try db.read { c in
            try c.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> ?", [Schema.table])
                .map { $0[0] as String }
        }
        XCTAssertEqual(Set(made), Set(Schema.tables.map(\.name)))
    }
}
