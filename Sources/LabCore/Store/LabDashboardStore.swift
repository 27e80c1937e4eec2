import Compatibility
import Foundation
import Store

/// Which runs the dashboard's history lists: every field optional, all given must hold.
public struct LabRunFilter: Sendable, Equatable {
    public var station: String?
    /// A receiver name: runs with a cell on it.
    public var receiver: String?
    /// A device class: runs with a cell of that class.
    public var deviceClass: String?
    /// A case id or `*` glob: runs that played a matching case.
    public var caseGlob: String?
    /// Runs started at or after `from` and before `to`.
    public var from: Date?
    public var to: Date?
    public var limit: Int = 100

    public init(station: String? = nil, receiver: String? = nil, deviceClass: String? = nil, caseGlob: String? = nil,
                from: Date? = nil, to: Date? = nil, limit: Int = 100) {
        self.station = station
        self.receiver = receiver
        self.deviceClass = deviceClass
        self.caseGlob = caseGlob
        self.from = from
        self.to = to
        self.limit = limit
    }
}

/// A cell as the dashboard's grid shows it: no series, no requests (a grid of 24 x 60 cells stays
/// small), the measured verdict and its numbers, the behaviour outcome, what the receiver ran.
public struct LabCellBrief: Codable, Sendable, Equatable {
    public var id: Int64
    public var runId: String
    public var station: String?
    public var receiver: String
    public var deviceClass: String?
    public var caseId: String
    public var attempt: Int
    public var startedAt: Date
    public var finishedAt: Date
    /// Played (true) or stored as not run (false: `--resume` plays it).
    public var done: Bool
    /// The measured verdict on the operator's scale (`seamless`, `glitch`, `stall`, `failed`, `skipped`).
    public var verdict: String
    public var stallMs: Double?
    public var transitionStallMs: Double?
    public var firstFrameMs: Double?
    public var reason: String
    /// A behaviour cell's outcome (`conforms`, `deviates`...), nil for other cases.
    public var behaviour: String?
    public var software: LabReceiverSoftware?

    public init(id: Int64, runId: String, station: String?, receiver: String, deviceClass: String?, caseId: String, attempt: Int,
                startedAt: Date, finishedAt: Date, done: Bool, measurement: CellMeasurement, behaviour: BehaviourJudgement? = nil, software: LabReceiverSoftware?) {
        self.id = id
        self.runId = runId
        self.station = station
        self.receiver = receiver
        self.deviceClass = deviceClass
        self.caseId = caseId
        self.attempt = attempt
        self.startedAt = startedAt
        self.finishedAt = finishedAt
        self.done = done
        verdict = measurement.labVerdict.rawValue
        stallMs = measurement.verdictStallMs
        transitionStallMs = measurement.transitionStallMs
        firstFrameMs = measurement.playToFirstFrameMs
        reason = measurement.reason
        self.behaviour = behaviour?.outcome.rawValue
        self.software = software
    }
}

/// The dashboard's reads: light rows (no series or requests), one query each, for SQLite and
/// PostgreSQL alike.
extension LabStore {
    static let briefColumns = "id, runId, station, receiver, deviceClass, caseId, attempt, startedAt, finishedAt, done, measurement, software"

    /// Runs matching `filter`, newest first.
    public func runs(matching filter: LabRunFilter) throws(LabStoreError) -> [LabRunSummary] {
        var conditions: [String] = [], arguments: [any SQLBindable] = []
        if let station = filter.station { conditions.append("r.station = ?"); arguments.append(station) }
        if let from = filter.from { conditions.append("r.startedAt >= ?"); arguments.append(from.timeIntervalSince1970) }
        if let to = filter.to { conditions.append("r.startedAt < ?"); arguments.append(to.timeIntervalSince1970) }
        if let receiver = filter.receiver {
            conditions.append("EXISTS (SELECT 1 FROM labCell c WHERE c.runId = r.id AND c.receiver = ?)")
            arguments.append(receiver)
        }
        if let deviceClass = filter.deviceClass {
            conditions.append("EXISTS (SELECT 1 FROM labCell c WHERE c.runId = r.id AND c.deviceClass = ?)")
            arguments.append(deviceClass)
        }
        let ids: [String] = try read("read the runs") { db in
            try db.query("SELECT r.id FROM labRun r" + (conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND "))
                         + " ORDER BY r.startedAt DESC, r.id DESC", arguments).map { $0["id"] as String }
        }
        let wanted = Set(ids)
        var chosen = try runs(station: filter.station).filter { wanted.contains($0.id) }
        if let glob = filter.caseGlob { chosen = chosen.filter { $0.cases.contains { Glob.matches(glob, $0) } } }
        return Array(chosen.prefix(max(filter.limit, 0)))
    }

    /// A run's cells, light, in the order they finished.
    public func briefCells(runId: String) throws(LabStoreError) -> [LabCellBrief] {
        try briefs("SELECT \(Self.briefColumns) FROM labCell WHERE runId = ? ORDER BY finishedAt, id", [runId])
    }

    /// The newest played cell per station x receiver x case across runs (of `station`, or of every station).
    public func latestBriefCells(station: String? = nil) throws(LabStoreError) -> [LabCellBrief] {
        let filter = Self.stationClause(station, column: "c.station")
        return try briefs("""
            SELECT \(Self.briefColumns.split(separator: ",").map { "c." + $0.trimmingCharacters(in: .whitespaces) }.joined(separator: ", "))
            FROM labCell c JOIN (SELECT station, receiver, caseId, max(finishedAt) AS newest FROM labCell WHERE done = 1
                                 GROUP BY station, receiver, caseId) m
              ON c.station = m.station AND c.receiver = m.receiver AND c.caseId = m.caseId AND c.finishedAt = m.newest
            WHERE c.done = 1\(filter.sql) ORDER BY c.finishedAt, c.id
            """, filter.arguments)
    }

    /// Cells stored after cell `id` (any run, any station), oldest first, at most `limit`: what the live feed sends.
    public func briefCells(after id: Int64, limit: Int = 500) throws(LabStoreError) -> [LabCellBrief] {
        try briefs("SELECT \(Self.briefColumns) FROM labCell WHERE id > ? ORDER BY id LIMIT \(max(1, limit))", [id])
    }

    /// The highest cell id stored (0 when none): where the live feed starts.
    public func newestCellId() throws(LabStoreError) -> Int64 {
        try read("read the newest cell") { db in try db.scalar("SELECT max(id) FROM labCell") ?? 0 }
    }

    /// One stored cell in full (series and requests: the timeline), the newest attempt; nil when there is none.
    public func cell(runId: String, receiver: String, caseId: String, station: String?) throws(LabStoreError) -> LabRunCell? {
        var condition = "runId = ? AND receiver = ? AND caseId = ?"
        var arguments: [any SQLBindable] = [runId, receiver, caseId]
        if let station { condition += " AND station = ?"; arguments.append(station) }
        return try cells(where: condition, arguments).last
    }

    /// The newest operator verdict per station x receiver x case (of `station`, or of every station).
    public func latestOperatorVerdicts(station: String? = nil) throws(LabStoreError) -> [LabVerdictRecord] {
        let filter = Self.stationClause(station)
        let rows = try read("read verdicts") { db in
            try db.query("SELECT * FROM labVerdict WHERE source NOT IN ('measured', 'lab run')\(filter.sql) ORDER BY recordedAt, id",
                         filter.arguments).compactMap(LabVerdictRecord.from)
        }
        struct Key: Hashable { var station: String?; var receiver: String; var caseId: String }
        var newest: [Key: LabVerdictRecord] = [:]
        for verdict in rows { newest[Key(station: verdict.station, receiver: verdict.receiver, caseId: verdict.caseId)] = verdict }
        return newest.values.sorted { ($0.recordedAt, $0.id ?? 0) < ($1.recordedAt, $1.id ?? 0) }
    }

    private func briefs(_ sql: String, _ arguments: [any SQLBindable]) throws(LabStoreError) -> [LabCellBrief] {
        let rows = try read("read cells") { db in try db.query(sql, arguments) }
        let decoder = Self.decoder()
        var briefs: [LabCellBrief] = []
        briefs.reserveCapacity(rows.count)
        for row in rows {
            let id: Int64 = row["id"]
            let stored: StoredMeasurement
            do { stored = try decoder.decode(StoredMeasurement.self, from: Data((row["measurement"] as String).utf8)) } catch {
                throw .failed(path: path, operation: "read cell \(id)", reason: "\(error)")
            }
            briefs.append(LabCellBrief(id: id, runId: row["runId"], station: LabStation.read(row["station"]), receiver: row["receiver"],
                                       deviceClass: row["deviceClass"], caseId: row["caseId"], attempt: row["attempt"],
                                       startedAt: Date(timeIntervalSince1970: row["startedAt"]),
                                       finishedAt: Date(timeIntervalSince1970: row["finishedAt"]), done: row["done"],
                                       measurement: stored.measurement, behaviour: stored.behaviour, software: Self.software(row)))
        }
        return briefs
    }
}
