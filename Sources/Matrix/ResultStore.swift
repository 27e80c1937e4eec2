import Compatibility
import Foundation
import HLS
import GRDB

/// Why the results database could not be used. Names the file and what to do.
public enum StoreError: Error, Sendable, Equatable, CustomStringConvertible {
    case missing(path: String)
    case cannotOpen(path: String, reason: String)
    case failed(path: String, operation: String, reason: String)
    case noSuchRun(path: String, id: Int64, available: [Int64])
    case notEnoughRuns(path: String, found: Int)

    public var description: String {
        switch self {
        case .missing(let path):
            return "\(path): no results database; run `seamcheck matrix run MATRIX.yaml` first, or pass --db PATH"
        case .cannotOpen(let path, let reason):
            return "\(path): cannot open the results database (\(reason)); check the path is a seamcheck SQLite file and writable"
        case .failed(let path, let operation, let reason):
            return "\(path): could not \(operation) (\(reason)); check free disk space and permissions"
        case .noSuchRun(let path, let id, let available):
            let shown = available.suffix(10).map(String.init).joined(separator: ", ")
            return "\(path): no run \(id); runs: \(shown.isEmpty ? "none" : shown) (see `seamcheck matrix history`)"
        case .notEnoughRuns(let path, let found):
            return "\(path): diff needs two runs of the matrix and found \(found); run the matrix again, or name two runs"
        }
    }
}

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

/// The results database (SQLite through GRDB): runs, their cases, a cell per case and device
/// class, and the findings. WAL mode; each case is one transaction, committed as the case
/// finishes, so a killed run keeps every case that finished. Schema: docs/matrix.md.
///
/// `synchronous=NORMAL`: a killed process loses nothing committed; a power cut may lose the
/// last cases (never corrupt the file).
public final class ResultStore: Sendable {
    public let path: String
    let pool: DatabasePool

    /// Opens (and migrates) the database at `path`; with `create` false a missing file is an error.
    public init(path: String, create: Bool = true) throws(StoreError) {
        self.path = path
        do { pool = try ResultsDatabase.open(path, create: create, migrator: Self.migrator) } catch {
            switch error {
            case .missing: throw .missing(path: path)
            case .cannotOpen(let reason): throw .cannotOpen(path: path, reason: reason)
            }
        }
    }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-runs-cases-cells-findings") { db in
            try db.execute(sql: """
                CREATE TABLE run (
                  id INTEGER PRIMARY KEY AUTOINCREMENT,
                  matrixName TEXT NOT NULL, matrixFile TEXT NOT NULL,
                  startedAt TEXT NOT NULL, finishedAt TEXT,
                  status TEXT NOT NULL, failOn TEXT NOT NULL, jobs INTEGER NOT NULL, caseTimeout REAL NOT NULL,
                  deviceClasses TEXT NOT NULL, plannedCases TEXT NOT NULL, expectedIssues TEXT NOT NULL,
                  profiles TEXT NOT NULL, probesPerformed INTEGER, distinctInputs INTEGER,
                  pid INTEGER NOT NULL, host TEXT NOT NULL);
                CREATE TABLE matrixCase (
                  id INTEGER PRIMARY KEY AUTOINCREMENT,
                  runId INTEGER NOT NULL REFERENCES run(id) ON DELETE CASCADE,
                  caseId TEXT NOT NULL, kind TEXT NOT NULL, primaryInput TEXT NOT NULL,
                  interstitials TEXT NOT NULL, tags TEXT NOT NULL, startedAt TEXT NOT NULL, seconds REAL NOT NULL,
                  errorKind TEXT, errorInput TEXT, errorReason TEXT,
                  assets TEXT NOT NULL, placements TEXT NOT NULL,
                  UNIQUE (runId, caseId));
                CREATE TABLE cell (
                  id INTEGER PRIMARY KEY AUTOINCREMENT,
                  caseRowId INTEGER NOT NULL REFERENCES matrixCase(id) ON DELETE CASCADE,
                  runId INTEGER NOT NULL, caseId TEXT NOT NULL, deviceClass TEXT NOT NULL, status TEXT NOT NULL,
                  UNIQUE (caseRowId, deviceClass));
                CREATE INDEX cellByRun ON cell(runId, status);
                CREATE TABLE finding (
                  id INTEGER PRIMARY KEY AUTOINCREMENT,
                  caseRowId INTEGER NOT NULL REFERENCES matrixCase(id) ON DELETE CASCADE,
                  runId INTEGER NOT NULL, caseId TEXT NOT NULL, deviceClass TEXT,
                  rule TEXT NOT NULL, severity TEXT NOT NULL, subject TEXT NOT NULL,
                  expected TEXT, actual TEXT, message TEXT NOT NULL, remediation TEXT,
                  knownReason TEXT, expectedIssue INTEGER, fingerprint TEXT NOT NULL);
                CREATE INDEX findingByRun ON finding(runId, fingerprint);
                CREATE INDEX findingByCase ON finding(caseRowId);
                """)
        }
        migrator.registerMigration("v2-run-heartbeat-lease") { db in
            // Runs from before have neither: their liveness is judged by PID, as it was.
            try db.execute(sql: """
                ALTER TABLE run ADD COLUMN heartbeatAt REAL;
                ALTER TABLE run ADD COLUMN leaseSeconds REAL;
                """)
        }
        return migrator
    }

    /// Records a new run as `running` under `lease` and returns its id. Keep the lease with
    /// `heartbeat(runId:lease:)` while the run goes on; a reader takes the run as interrupted
    /// once its heartbeat is older than the lease.
    public func beginRun(_ start: RunStart, lease: RunLease = .standard) throws(StoreError) -> Int64 {
        try write("record the run start") { db in
            try db.execute(sql: """
                INSERT INTO run (matrixName, matrixFile, startedAt, status, failOn, jobs, caseTimeout, deviceClasses,
                                 plannedCases, expectedIssues, profiles, pid, host, heartbeatAt, leaseSeconds)
                VALUES (?, ?, ?, 'running', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [start.matrixName, start.matrixFile, Timestamp.text(start.startedAt), start.failOn.rawValue,
                                 start.jobs, start.caseTimeout, try JSONText.encode(start.profiles.map(\.id)),
                                 try JSONText.encode(start.plannedCases), try JSONText.encode(start.expectedIssues),
                                 try JSONText.encode(start.profiles), Int(getpid()), ProcessInfo.processInfo.hostName,
                                 Date().timeIntervalSince1970, lease.seconds])
            return db.lastInsertedRowID
        }
    }

    /// Records that run `id` is alive at `date` (its heartbeat).
    public func beat(_ id: Int64, at date: Date = Date()) throws(StoreError) {
        try write("record the heartbeat of run \(id)") { db in
            try db.execute(sql: "UPDATE run SET heartbeatAt = ? WHERE id = ? AND status = 'running'",
                           arguments: [date.timeIntervalSince1970, id])
        }
    }

    /// A started heartbeat for run `id`; stop it when the run ends (before `finishRun`).
    public func heartbeat(_ id: Int64, lease: RunLease, failed: @escaping @Sendable (StoreError) -> Void = { _ in }) -> RunHeartbeat {
        let heartbeat = RunHeartbeat(lease: lease, beat: { [self] date in try beat(id, at: date) },
                                     failed: { error in if let error = error as? StoreError { failed(error) } })
        heartbeat.start()
        return heartbeat
    }

    /// Commits one finished case (its row, cells and findings) in one transaction.
    public func record(_ result: CaseResult, runId: Int64) throws(StoreError) {
        try write("record case \(result.caseId)") { db in
            try db.execute(sql: """
                INSERT INTO matrixCase (runId, caseId, kind, primaryInput, interstitials, tags, startedAt, seconds,
                                        errorKind, errorInput, errorReason, assets, placements)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [runId, result.caseId, result.kind, result.primary, try JSONText.encode(result.interstitials),
                                 try JSONText.encode(result.tags), Timestamp.text(result.startedAt), result.seconds,
                                 result.failure?.kind.rawValue, result.failure?.input, result.failure?.reason,
                                 try JSONText.encode(result.assets), try JSONText.encode(result.placements)])
            let caseRow = db.lastInsertedRowID
            var classless = Set<String>()
            for cell in result.cells {
                try db.execute(sql: "INSERT INTO cell (caseRowId, runId, caseId, deviceClass, status) VALUES (?, ?, ?, ?, ?)",
                               arguments: [caseRow, runId, result.caseId, cell.deviceClass, cell.status.rawValue])
                for item in cell.findings {
                    let f = item.finding
                    let fingerprint = Fingerprint.of(caseId: result.caseId, f)
                    // A finding of no class is in every cell: stored once.
                    if f.deviceClass == nil, !classless.insert(fingerprint + f.message).inserted { continue }
                    try db.execute(sql: """
                        INSERT INTO finding (caseRowId, runId, caseId, deviceClass, rule, severity, subject, expected, actual,
                                             message, remediation, knownReason, expectedIssue, fingerprint)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """, arguments: [caseRow, runId, result.caseId, f.deviceClass, f.rule, f.severity.rawValue, f.subject,
                                         f.expected, f.actual, f.message, f.remediation, item.knownReason, item.expectedIssue,
                                         fingerprint])
                }
            }
        }
    }

    /// Marks the run completed or interrupted, with the probe counts.
    public func finishRun(_ id: Int64, status: RunStatus, probesPerformed: Int, distinctInputs: Int,
                          at date: Date = Date()) throws(StoreError) {
        try write("record the run end") { db in
            try db.execute(sql: "UPDATE run SET status = ?, finishedAt = ?, probesPerformed = ?, distinctInputs = ? WHERE id = ?",
                           arguments: [status.rawValue, Timestamp.text(date), probesPerformed, distinctInputs, id])
        }
    }

    func write<T>(_ operation: String, _ body: (Database) throws -> T) throws(StoreError) -> T {
        do { return try pool.write(body) } catch {
            throw .failed(path: path, operation: operation, reason: Self.reason(error))
        }
    }

    func read<T>(_ operation: String, _ body: (Database) throws -> T) throws(StoreError) -> T {
        do { return try pool.read(body) } catch let error as StoreError {
            throw error
        } catch {
            throw .failed(path: path, operation: operation, reason: Self.reason(error))
        }
    }

    static func reason(_ error: Error) -> String { ResultsDatabase.reason(error) }
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
