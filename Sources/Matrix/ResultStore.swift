import Compatibility
import Foundation
import HLS
import Store

/// What a run is doing, or how it ended.
public enum RunStatus: String, Codable, Sendable {
    /// `running` whose heartbeat is older than its lease (killed, or the machine stopped) reads
    /// as `interrupted`, like a run stopped by a signal.
    case running, completed, interrupted
    /// Recorded as running before runs had heartbeats, and its process is gone.
    case abandoned
}

/// What is known about a run when it starts.
public struct RunStart: Sendable {
    public var matrixName: String
    public var matrixFile: String
    public var failOn: FailThreshold
    public var jobs: Int
    public var caseTimeout: Double
    public var profiles: [DeviceProfile]
    public var plannedCases: [String]
    public var expectedIssues: [ExpectedIssue]
    public var startedAt: Date

    public init(matrixName: String, matrixFile: String, failOn: FailThreshold, jobs: Int, caseTimeout: Double,
                profiles: [DeviceProfile], plannedCases: [String], expectedIssues: [ExpectedIssue], startedAt: Date = Date()) {
        self.matrixName = matrixName
        self.matrixFile = matrixFile
        self.failOn = failOn
        self.jobs = jobs
        self.caseTimeout = caseTimeout
        self.profiles = profiles
        self.plannedCases = plannedCases
        self.expectedIssues = expectedIssues
        self.startedAt = startedAt
    }
}

/// The results database, SQLite (one machine) or PostgreSQL (several workers; docs/postgres.md),
/// through one executor and one schema (Store's `Schema`): runs, their cases, a cell per case and
/// device class, and the findings. Each case is one transaction, committed as the case finishes,
/// so a killed run keeps every case that finished. Schema: docs/matrix.md.
public final class ResultStore: Sendable {
    /// The database as shown to users: a SQLite path, or a PostgreSQL URL without its password.
    public let path: String
    public let executor: any SQLExecutor

    /// Opens (and migrates) the database at `path` (a SQLite path or a `postgres://` URL); with
    /// `create` false a missing SQLite file is an error.
    public init(path: String, create: Bool = true) throws(StoreError) {
        do { executor = try ResultsDatabaseOpener.open(path, create: create) } catch { throw StoreError(error) }
        self.path = executor.location.description
    }

    /// A store on an executor already open and migrated.
    public init(executor: any SQLExecutor) {
        self.executor = executor
        path = executor.location.description
    }

    /// Records a new run as `running` under `lease` and returns its id. Keep the lease with
    /// `heartbeat(runId:lease:)` while the run goes on; a reader takes the run as interrupted
    /// once its heartbeat is older than the lease.
    public func beginRun(_ start: RunStart, lease: RunLease = .standard) throws(StoreError) -> Int64 {
        let values: [any SQLBindable] = try encoded("record the run start") { [start.matrixName, start.matrixFile, Timestamp.text(start.startedAt), start.failOn.rawValue,
                                 start.jobs, start.caseTimeout, try JSONText.encode(start.profiles.map(\.id)),
                                 try JSONText.encode(start.plannedCases), try JSONText.encode(start.expectedIssues),
                                 try JSONText.encode(start.profiles), Int(getpid()), ProcessInfo.processInfo.hostName,
                                 Date().timeIntervalSince1970, lease.seconds] }
        return try write("record the run start") { db in
            try db.insert("""
                INSERT INTO run (matrixName, matrixFile, startedAt, status, failOn, jobs, caseTimeout, deviceClasses,
                                 plannedCases, expectedIssues, profiles, pid, host, heartbeatAt, leaseSeconds)
                VALUES (?, ?, ?, 'running', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, values)
        }
    }

    /// Records that run `id` is alive at `date` (its heartbeat).
    public func beat(_ id: Int64, at date: Date = Date()) throws(StoreError) {
        try write("record the heartbeat of run \(id)") { db in
            try db.execute("UPDATE run SET heartbeatAt = ? WHERE id = ? AND status = 'running'", [date.timeIntervalSince1970, id])
        }
    }

    /// A started heartbeat for run `id`; stop it when the run ends (before `finishRun`).
    public func heartbeat(_ id: Int64, lease: RunLease, failed: @escaping @Sendable (StoreError) -> Void = { _ in }) -> RunHeartbeat {
        let heartbeat = RunHeartbeat(lease: lease, beat: { [self] date in try beat(id, at: date) },
                                     failed: { error in if let error = error as? StoreError { failed(error) } })
        heartbeat.start()
        return heartbeat
    }

    /// Commits one finished case (its row, cells and findings) in one transaction. A case already
    /// recorded in the run (a worker whose lease lapsed finished it too) is kept as it was: each
    /// case is in a run once. Returns false then.
    @discardableResult
    public func record(_ result: CaseResult, runId: Int64) throws(StoreError) -> Bool {
        try write("record case \(result.caseId)") { db in try Self.insert(result, runId: runId, db) }
    }

    /// The statements of `record`, inside a transaction the caller holds.
    static func insert(_ result: CaseResult, runId: Int64, _ db: any SQLConnection) throws -> Bool {
        let inserted: Int64? = try db.scalar("""
            INSERT INTO matrixCase (runId, caseId, kind, primaryInput, interstitials, tags, startedAt, seconds,
                                    errorKind, errorInput, errorReason, assets, placements)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (runId, caseId) DO NOTHING RETURNING id
            """, [runId, result.caseId, result.kind, result.primary, try JSONText.encode(result.interstitials),
                  try JSONText.encode(result.tags), Timestamp.text(result.startedAt), result.seconds,
                  result.failure?.kind.rawValue, result.failure?.input, result.failure?.reason,
                  try JSONText.encode(result.assets), try JSONText.encode(result.placements)])
        guard let caseRow = inserted else { return false }
        // One statement for the cells and one for the findings: a round trip each to PostgreSQL.
        var cells: [any SQLBindable] = [], findings: [any SQLBindable] = []
        var classless = Set<String>()
        for cell in result.cells {
            cells += [caseRow, runId, result.caseId, cell.deviceClass, cell.status.rawValue] as [any SQLBindable]
            for item in cell.findings {
                let f = item.finding
                let fingerprint = Fingerprint.of(caseId: result.caseId, f)
                // A finding of no class is in every cell: stored once.
                if f.deviceClass == nil, !classless.insert(fingerprint + f.message).inserted { continue }
                findings += [caseRow, runId, result.caseId, f.deviceClass, f.rule, f.severity.rawValue, f.subject, f.expected, f.actual,
                             f.message, f.remediation, item.knownReason, item.expectedIssue, fingerprint] as [any SQLBindable]
            }
        }
        try insertRows("INSERT INTO cell (caseRowId, runId, caseId, deviceClass, status)", columns: 5, cells, db)
        try insertRows("""
            INSERT INTO finding (caseRowId, runId, caseId, deviceClass, rule, severity, subject, expected, actual,
                                 message, remediation, knownReason, expectedIssue, fingerprint)
            """, columns: 14, findings, db)
        return true
    }

    /// `insert` followed by VALUES for `values` (rows of `columns` values), 64 rows a statement.
    static func insertRows(_ insert: String, columns: Int, _ values: [any SQLBindable], _ db: any SQLConnection) throws {
        let perStatement = 64 * columns
        var start = 0
        while start < values.count {
            let end = min(start + perStatement, values.count)
            let row = "(" + Array(repeating: "?", count: columns).joined(separator: ", ") + ")"
            try db.execute(insert + " VALUES " + Array(repeating: row, count: (end - start) / columns).joined(separator: ", "),
                           Array(values[start..<end]))
            start = end
        }
    }

    /// Marks the run completed or interrupted, with the probe counts.
    public func finishRun(_ id: Int64, status: RunStatus, probesPerformed: Int, distinctInputs: Int,
                          at date: Date = Date()) throws(StoreError) {
        try write("record the run end") { db in
            try db.execute("UPDATE run SET status = ?, finishedAt = ?, probesPerformed = ?, distinctInputs = ? WHERE id = ?",
                           [status.rawValue, Timestamp.text(date), probesPerformed, distinctInputs, id])
        }
    }

    func write<T>(_ operation: String, _ body: (any SQLConnection) throws -> T) throws(StoreError) -> T {
        do { return try executor.write(body) } catch { throw mapped(error, operation) }
    }

    func read<T>(_ operation: String, _ body: (any SQLConnection) throws -> T) throws(StoreError) -> T {
        do { return try executor.read(body) } catch { throw mapped(error, operation) }
    }

    private func encoded<T>(_ operation: String, _ body: () throws -> T) throws(StoreError) -> T {
        do { return try body() } catch { throw .failed(path: path, operation: operation, reason: "\(error)") }
    }

    private func mapped(_ error: any Error, _ operation: String) -> StoreError {
        StoreError(error, path: path, operation: operation)
    }
}

/// Records each finished case of a run in the store.
public struct StoreRecorder: CaseRecorder {
    public let store: ResultStore
    public let runId: Int64

    public init(store: ResultStore, runId: Int64) {
        self.store = store
        self.runId = runId
    }

    public func record(_ result: CaseResult) throws {
        try store.record(result, runId: runId)
    }
}

/// The identity of a finding across runs: case, class, rule and subject.
enum Fingerprint {
    static func of(caseId: String, _ finding: Finding) -> String {
        [caseId, finding.deviceClass ?? "*", finding.rule, finding.subject].joined(separator: "\u{1F}")
    }
}

enum Timestamp {
    static func text(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }

    static func date(_ text: String?) -> Date? {
        guard let text else { return nil }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text)
    }
}

enum JSONText {
    static func encode<T: Encodable>(_ value: T) throws -> String {
        String(decoding: try JSONDocument.encoder(pretty: false).encode(value), as: UTF8.self)
    }

    static func decode<T: Decodable>(_ type: T.Type, _ text: String?) throws -> T {
        try JSONDocument.decoder().decode(type, from: Data((text ?? "null").utf8))
    }
}
