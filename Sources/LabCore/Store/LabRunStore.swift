import Foundation
import Store

/// A cell of a run as stored: the cell, and whether it counts as done for `--resume`.
public struct LabRunCellKey: Hashable, Sendable {
    public var receiver: String
    public var caseId: String
    public init(receiver: String, caseId: String) {
        self.receiver = receiver
        self.caseId = caseId
    }
}

/// Unattended runs: `labRun` (one row a run, with a heartbeat whose lease says whether its owner
/// still lives: PIDs are reused in containers) and `labCell` (one row a played cell, its series,
/// requests and measurement as JSON text). A cell and its `measured` verdict are written in one
/// transaction as the cell finishes, so a killed run keeps every finished cell.
extension LabStore {
    /// Records a new run as `running`, its heartbeat now.
    public func beginRun(_ run: LabRunSummary, leaseSeconds: Double) throws(LabStoreError) {
        let receivers = try json(run.receivers), cases = try json(run.cases)
        try write("record the run start") { db in
            try db.execute("""
                INSERT INTO labRun (id, startedAt, state, heartbeatAt, leaseSeconds, server, receivers, cases, pollIntervalMs,
                                    cellsTotal, host, station) VALUES (?, ?, 'running', ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, [run.id, run.startedAt.timeIntervalSince1970, Date().timeIntervalSince1970, leaseSeconds,
                                 run.server, receivers, cases, run.pollIntervalMs, run.cellsTotal, ProcessInfo.processInfo.hostName,
                                 station])
        }
    }

    /// Takes over an interrupted run of this station for `--resume`: running again, heartbeat now.
    /// Fails when another process still holds it (a heartbeat within its lease), it is finished, or
    /// another station ran it (its receivers are that station's).
    public func resumeRun(_ id: String, server: String, leaseSeconds: Double) throws(LabStoreError) -> LabRunSummary {
        guard let run = try run(id) else { throw .failed(path: path, operation: "resume run \(id)", reason: "no such run; `seamcheck lab runs` lists them") }
        guard (run.station ?? LabStation.unknown) == station else {
            throw .failed(path: path, operation: "resume run \(id)",
                          reason: "station \(run.station ?? "(unknown)") ran it and this is station \(station); resume it there, or give --station \(run.station ?? "''")")
        }
        guard run.state == .interrupted else {
            throw .failed(path: path, operation: "resume run \(id)",
                          reason: run.state == .running ? "it is still running (its heartbeat is within its lease)" : "it is finished")
        }
        try write("resume run \(id)") { db in
            try db.execute("UPDATE labRun SET state = 'running', finishedAt = NULL, heartbeatAt = ?, leaseSeconds = ?, server = ? WHERE id = ?",
                           [Date().timeIntervalSince1970, leaseSeconds, server, id])
        }
        return try self.run(id) ?? run
    }

    /// The owner is alive: moves the heartbeat to now.
    public func heartbeat(_ runId: String) throws(LabStoreError) {
        try write("record the run's heartbeat") { db in
            try db.execute("UPDATE labRun SET heartbeatAt = ? WHERE id = ? AND state = 'running'",
                           [Date().timeIntervalSince1970, runId])
        }
    }

    public func finishRun(_ runId: String, state: LabRunSummary.State) throws(LabStoreError) {
        try write("record the run's end") { db in
            try db.execute("UPDATE labRun SET state = ?, finishedAt = ?, heartbeatAt = ? WHERE id = ?",
                           [state.rawValue, Date().timeIntervalSince1970, Date().timeIntervalSince1970, runId])
        }
    }

    /// Stores one cell and, when it was played (`done`), its automatic verdict (`source: measured`),
    /// in one transaction. A cell not run (`done` false) is kept for the record and run again by `--resume`.
    /// Recording the same cell again (a retry after `outcomeUnknown`) stores nothing twice (`LabWriteKey`).
    public func record(_ cell: LabRunCell, done: Bool) throws(LabStoreError) {
        let series = try json(cell.series), requests = try json(cell.requests), measurement = try json(StoredMeasurement(measurement: cell.measurement, behaviour: cell.behaviour))
        let software = try cell.software.map { value throws(LabStoreError) in try json(value) }
        try write("record cell \(cell.caseId) on \(cell.receiver)") { db in
            let inserted = try db.insertIfAbsent("""
                INSERT INTO labCell (runId, receiver, deviceId, deviceClass, address, caseId, attempt, startedAt, finishedAt, url,
                                     outcome, done, series, requests, measurement, station, software, writeKey)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, [cell.runId, cell.receiver, cell.deviceId, cell.deviceClass, cell.address, cell.caseId, cell.attempt,
                                 cell.startedAt.timeIntervalSince1970, cell.finishedAt.timeIntervalSince1970, cell.url,
                                 cell.measurement.outcome.rawValue, done, series, requests, measurement, station, software,
                                 LabWriteKey.cell(cell)])
            // Already stored (a retry after an unknown outcome): its verdict went with it.
            guard done, inserted != nil else { return }
            _ = try LabVerdictRecord.insert(LabVerdictRecord.measured(for: cell), station: station, db)
        }
    }

    /// Every run (of `station`, or of every station), newest first. A `running` run whose heartbeat
    /// is older than its lease is shown `interrupted` (its owner died without saying so).
    public func runs(station: String? = nil) throws(LabStoreError) -> [LabRunSummary] {
        let filter = Self.stationClause(station, column: "r.station", joiner: "WHERE")
        return try read("read the runs") { db in
            try db.query(Self.runSelect + filter.sql + " ORDER BY r.startedAt DESC, r.id DESC", filter.arguments)
        }.map(Self.summary)
    }

    public func run(_ id: String) throws(LabStoreError) -> LabRunSummary? {
        try read("read run \(id)") { db in try db.queryOne(Self.runSelect + " WHERE r.id = ?", [id]) }
            .map(Self.summary)
    }

    /// This station's newest interrupted run, for `--resume` without an id.
    public func latestInterruptedRun() throws(LabStoreError) -> LabRunSummary? {
        try runs(station: station).first { $0.state == .interrupted }
    }

    /// The cells of a run, in the order they finished.
    public func cells(runId: String) throws(LabStoreError) -> [LabRunCell] {
        try cells(where: "runId = ?", [runId])
    }

    /// The newest played cell per station x receiver x case, across runs (of `station`, or of every station).
    public func latestCells(station: String? = nil) throws(LabStoreError) -> [LabRunCell] {
        let filter = Self.stationClause(station)
        return try cells(where: """
            id IN (SELECT id FROM labCell c WHERE done = 1 AND finishedAt = (SELECT max(finishedAt) FROM labCell d
                   WHERE d.station = c.station AND d.receiver = c.receiver AND d.caseId = c.caseId AND d.done = 1))
            """ + filter.sql, filter.arguments)
    }

    /// The receiver x case cells of a run that `--resume` does not play again.
    public func doneCells(runId: String) throws(LabStoreError) -> Set<LabRunCellKey> {
        Set(try read("read run \(runId)'s cells") { db in
            try db.query("SELECT DISTINCT receiver, caseId FROM labCell WHERE runId = ? AND done = 1", [runId])
                .map { LabRunCellKey(receiver: $0["receiver"], caseId: $0["caseId"]) }
        })
    }

    /// The requests one client of this station made between two times, in time order (what a
    /// cell's receiver fetched: the same address at another station is another receiver).
    public func requests(client: String, from: Date, to: Date) throws(LabStoreError) -> [LabRequestRecord] {
        try read("read the request log") { db in
            try db.query(Self.requestSelect + " WHERE station = ? AND client = ? AND at >= ? AND at <= ? ORDER BY at, id LIMIT 20000",
                         [station, client, from.timeIntervalSince1970, to.timeIntervalSince1970]).map(Self.request)
        }
    }

    private static let runSelect = """
        SELECT r.*, (SELECT count(*) FROM (SELECT DISTINCT receiver, caseId FROM labCell c WHERE c.runId = r.id AND c.done = 1) AS d)
               AS cellsDone FROM labRun r
        """

    private static func summary(_ row: SQLRow) -> LabRunSummary {
        var state = LabRunSummary.State(rawValue: row["state"]) ?? .interrupted
        let heartbeat: Double = row["heartbeatAt"], lease: Double = row["leaseSeconds"]
        if state == .running, Date().timeIntervalSince1970 - heartbeat > lease { state = .interrupted }
        let decoder = Self.decoder()
        let list = { (text: String) in (try? decoder.decode([String].self, from: Data(text.utf8))) ?? [] }
        var summary = LabRunSummary(id: row["id"], startedAt: Date(timeIntervalSince1970: row["startedAt"]),
                                    finishedAt: (row["finishedAt"] as Double?).map(Date.init(timeIntervalSince1970:)), state: state,
                                    server: row["server"], receivers: list(row["receivers"]), cases: list(row["cases"]),
                                    pollIntervalMs: row["pollIntervalMs"], cellsDone: row["cellsDone"], cellsTotal: row["cellsTotal"])
        summary.station = LabStation.read(row["station"])
        return summary
    }

    func cells(where condition: String, _ arguments: [any SQLBindable]) throws(LabStoreError) -> [LabRunCell] {
        let rows = try read("read cells") { db in
            try db.query("SELECT * FROM labCell WHERE \(condition) ORDER BY finishedAt, id", arguments)
        }
        let decoder = Self.decoder()
        var cells: [LabRunCell] = []
        for row in rows {
            do {
                var cell = LabRunCell(
                    runId: row["runId"], receiver: row["receiver"], deviceId: row["deviceId"], deviceClass: row["deviceClass"],
                    address: row["address"], caseId: row["caseId"], attempt: row["attempt"],
                    startedAt: Date(timeIntervalSince1970: row["startedAt"]), finishedAt: Date(timeIntervalSince1970: row["finishedAt"]),
                    url: row["url"], series: try decoder.decode(PlaybackSeries.self, from: Data((row["series"] as String).utf8)),
                    requests: try decoder.decode([LabRequestRecord].self, from: Data((row["requests"] as String).utf8)),
                    measurement: CellMeasurement.notRun(""))
                let stored = try decoder.decode(StoredMeasurement.self, from: Data((row["measurement"] as String).utf8))
                cell.measurement = stored.measurement
                cell.behaviour = stored.behaviour
                cell.station = LabStation.read(row["station"])
                cell.software = Self.software(row)
                cells.append(cell)
            } catch {
                throw .failed(path: path, operation: "read cell \(row["id"] as Int64? ?? 0)", reason: "\(error)")
            }
        }
        return cells
    }

    /// A row's `software` column (nil: not recorded, or unreadable: it is evidence, not the cell).
    static func software(_ row: SQLRow) -> LabReceiverSoftware? {
        guard row.hasColumn("software"), let text: String = row["software"] else { return nil }
        return try? JSONDecoder().decode(LabReceiverSoftware.self, from: Data(text.utf8))
    }

    func json<T: Encodable>(_ value: T) throws(LabStoreError) -> String {
        // A receiver's NaN position is kept as text, not a failed write.
        let encoder = JSONEncoder()
        encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "Infinity", negativeInfinity: "-Infinity", nan: "NaN")
        do { return String(decoding: try encoder.encode(value), as: UTF8.self) } catch {
            throw .failed(path: path, operation: "encode \(T.self)", reason: "\(error)")
        }
    }

    static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(positiveInfinity: "Infinity", negativeInfinity: "-Infinity", nan: "NaN")
        return decoder
    }
}
