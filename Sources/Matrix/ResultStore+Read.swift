import Compatibility
import Foundation
import Store

/// One line of `seamcheck matrix history`.
public struct RunSummary: Codable, Sendable, Equatable {
    public var id: Int64
    public var matrixName: String
    public var matrixFile: String
    public var startedAt: Date
    public var finishedAt: Date?
    public var status: RunStatus
    public var failOn: FailThreshold
    public var deviceClasses: [String]
    public var plannedCases: Int
    public var finishedCases: Int
    /// Cells per status; every status is present.
    public var cells: [String: Int]
    public var probesPerformed: Int?
    public var distinctInputs: Int?

    public init(id: Int64, matrixName: String, matrixFile: String, startedAt: Date, finishedAt: Date?, status: RunStatus,
                failOn: FailThreshold, deviceClasses: [String], plannedCases: Int, finishedCases: Int, cells: [String: Int],
                probesPerformed: Int?, distinctInputs: Int?) {
        self.id = id
        self.matrixName = matrixName
        self.matrixFile = matrixFile
        self.startedAt = startedAt
        self.finishedAt = finishedAt
        self.status = status
        self.failOn = failOn
        self.deviceClasses = deviceClasses
        self.plannedCases = plannedCases
        self.finishedCases = finishedCases
        self.cells = cells
        self.probesPerformed = probesPerformed
        self.distinctInputs = distinctInputs
    }
}

/// Everything recorded about one run: what reports are made from.
public struct RunRecord: Sendable, Equatable {
    public var summary: RunSummary
    public var caseTimeout: Double
    public var jobs: Int
    public var plannedCases: [String]
    public var expectedIssues: [ExpectedIssue]
    /// The profiles as the run used them.
    public var profiles: [DeviceProfile]
    /// Finished cases, in the matrix file's order.
    public var cases: [CaseResult]

    public init(summary: RunSummary, caseTimeout: Double, jobs: Int, plannedCases: [String], expectedIssues: [ExpectedIssue],
                profiles: [DeviceProfile], cases: [CaseResult]) {
        self.summary = summary
        self.caseTimeout = caseTimeout
        self.jobs = jobs
        self.plannedCases = plannedCases
        self.expectedIssues = expectedIssues
        self.profiles = profiles
        self.cases = cases
    }
}

extension ResultStore {
    /// Runs, newest first.
    public func runs(limit: Int? = nil) throws(StoreError) -> [RunSummary] {
        try read("list runs") { db in
            let rows = try db.query("SELECT * FROM run ORDER BY id DESC" + (limit.map { " LIMIT \($0)" } ?? ""))
            return try rows.map { try summary(db, $0) }
        }
    }

    public func run(_ id: Int64) throws(StoreError) -> RunRecord {
        let path = self.path
        return try read("load run \(id)") { db in
            guard let row = try db.queryOne("SELECT * FROM run WHERE id = ?", [id]) else {
                let ids = try db.query("SELECT id FROM run ORDER BY id").map { $0[0] as Int64 }
                throw StoreError.noSuchRun(path: path, id: id, available: ids)
            }
            let planned = try JSONText.decode([String].self, row["plannedCases"])
            let classes = try JSONText.decode([String].self, row["deviceClasses"])
            let findings = try db.query("SELECT * FROM finding WHERE runId = ? ORDER BY id", [id])
            var byCase: [Int64: [SQLRow]] = [:]
            for finding in findings { byCase[finding["caseRowId"], default: []].append(finding) }
            let cellRows = try db.query("SELECT * FROM cell WHERE runId = ? ORDER BY id", [id])
            var statuses: [Int64: [String: CellStatus]] = [:]
            for cell in cellRows {
                statuses[cell["caseRowId"], default: [:]][cell["deviceClass"]] = CellStatus(rawValue: cell["status"]) ?? .error
            }
            var cases: [CaseResult] = []
            for caseRow in try db.query("SELECT * FROM matrixCase WHERE runId = ?", [id]) {
                let rowId: Int64 = caseRow["id"]
                let found = (byCase[rowId] ?? []).map(Self.finding)
                let cells = classes.map { deviceClass in
                    CellResult(deviceClass: deviceClass, status: statuses[rowId]?[deviceClass] ?? .error,
                               findings: found.filter { $0.finding.deviceClass == deviceClass || $0.finding.deviceClass == nil })
                }
                let failure: CaseFailure? = (caseRow["errorKind"] as String?).map {
                    CaseFailure(kind: CaseFailure.Kind(rawValue: $0) ?? .auditor, input: caseRow["errorInput"], reason: caseRow["errorReason"] ?? "")
                }
                cases.append(CaseResult(
                    caseId: caseRow["caseId"], kind: caseRow["kind"], primary: caseRow["primaryInput"],
                    interstitials: try JSONText.decode([String].self, caseRow["interstitials"]),
                    tags: try JSONText.decode([String].self, caseRow["tags"]),
                    startedAt: Timestamp.date(caseRow["startedAt"]) ?? Date(timeIntervalSince1970: 0), seconds: caseRow["seconds"],
                    failure: failure, assets: try JSONText.decode([AuditedAsset].self, caseRow["assets"]),
                    placements: try JSONText.decode([InterstitialPlacement].self, caseRow["placements"]), cells: cells))
            }
            let order = Dictionary(planned.enumerated().map { ($1, $0) }, uniquingKeysWith: { a, _ in a })
            cases.sort { (order[$0.caseId] ?? .max, $0.caseId) < (order[$1.caseId] ?? .max, $1.caseId) }
            return RunRecord(summary: try summary(db, row), caseTimeout: row["caseTimeout"], jobs: row["jobs"], plannedCases: planned,
                             expectedIssues: try JSONText.decode([ExpectedIssue].self, row["expectedIssues"]),
                             profiles: try JSONText.decode([DeviceProfile].self, row["profiles"]), cases: cases)
        }
    }

    /// The latest run before `id` of the same matrix name, if any.
    public func previousRun(before id: Int64, matrixName: String) throws(StoreError) -> Int64? {
        try read("find the previous run") { db in
            try db.scalar("SELECT id FROM run WHERE id < ? AND matrixName = ? ORDER BY id DESC LIMIT 1", [id, matrixName])
        }
    }

    /// The two runs `matrix diff` compares by default: the latest run and the one before it of
    /// the same matrix.
    public func lastTwoRuns() throws(StoreError) -> (Int64, Int64) {
        let latest = try runs(limit: 1).first
        guard let latest else { throw .notEnoughRuns(path: path, found: 0) }
        guard let previous = try previousRun(before: latest.id, matrixName: latest.matrixName) else {
            throw .notEnoughRuns(path: path, found: 1)
        }
        return (previous, latest.id)
    }

    private func summary(_ db: any SQLConnection, _ row: SQLRow) throws -> RunSummary {
        let id: Int64 = row["id"]
        var cells = Dictionary(uniqueKeysWithValues: CellStatus.allCases.map { ($0.rawValue, 0) })
        for count in try db.query("SELECT status, COUNT(*) AS n FROM cell WHERE runId = ? GROUP BY status", [id]) {
            cells[count["status"]] = count["n"]
        }
        let finished = try db.scalar("SELECT COUNT(*) FROM matrixCase WHERE runId = ?", [id]) ?? 0
        var status = RunStatus(rawValue: row["status"]) ?? .abandoned
        if status == .running {
            let heartbeat: Double? = row["heartbeatAt"], lease: Double? = row["leaseSeconds"]
            if let heartbeat, let lease {
                if !RunLease(seconds: lease).holds(heartbeat: Date(timeIntervalSince1970: heartbeat)) { status = .interrupted }
            } else if !Self.isAlive(pid: row["pid"], host: row["host"]) {
                status = .abandoned  // a run recorded before heartbeats: its PID is all there is
            }
        }
        return RunSummary(id: id, matrixName: row["matrixName"], matrixFile: row["matrixFile"],
                          startedAt: Timestamp.date(row["startedAt"]) ?? Date(timeIntervalSince1970: 0),
                          finishedAt: Timestamp.date(row["finishedAt"]), status: status,
                          failOn: FailThreshold(rawValue: row["failOn"]) ?? .error,
                          deviceClasses: try JSONText.decode([String].self, row["deviceClasses"]),
                          plannedCases: try JSONText.decode([String].self, row["plannedCases"]).count,
                          finishedCases: finished, cells: cells, probesPerformed: row["probesPerformed"],
                          distinctInputs: row["distinctInputs"])
    }

    /// Whether the process that recorded a run (before heartbeats) still runs (unknown on another
    /// host: assumed alive). Only for old rows: a PID from another namespace, or reused, misleads.
    private static func isAlive(pid: Int32, host: String) -> Bool {
        guard host == ProcessInfo.processInfo.hostName else { return true }
        return kill(pid, 0) == 0 || errno == EPERM
    }

    private static func finding(_ row: SQLRow) -> MatrixFinding {
        MatrixFinding(
            finding: Finding(rule: row["rule"], severity: Severity(rawValue: row["severity"]) ?? .error,
                             deviceClass: row["deviceClass"], subject: row["subject"], expected: row["expected"],
                             actual: row["actual"], message: row["message"], remediation: row["remediation"]),
            knownReason: row["knownReason"], expectedIssue: row["expectedIssue"])
    }
}
