import Foundation
import Store

/// One request the lab server answered, as it went: what a receiver fetched, and how far.
public struct LabRequestRecord: Codable, Sendable, Equatable {
    public var at: Date
    public var client: String
    public var clientPort: Int?
    public var method: String
    public var path: String
    public var query: String?
    public var range: String?
    public var status: Int
    /// Body bytes actually written to the client.
    public var bytes: Int
    /// The body's length as announced (Content-Length), when known.
    public var expectedBytes: Int?
    public var durationMs: Double
    public var userAgent: String?
    /// The lab case the path belongs to (`cases/<id>/...`), if any.
    public var caseId: String?
    /// False when the client went away before the whole body was written.
    public var completed: Bool
    /// The station whose server answered (`LabStation`); nil for the unknown station, and in
    /// records not yet written (the store writes its own station).
    public var station: String?

    public init(at: Date, client: String, clientPort: Int? = nil, method: String, path: String, query: String? = nil,
                range: String? = nil, status: Int, bytes: Int, expectedBytes: Int? = nil, durationMs: Double,
                userAgent: String? = nil, caseId: String? = nil, completed: Bool = true, station: String? = nil) {
        self.station = station
        self.at = at
        self.client = client
        self.clientPort = clientPort
        self.method = method
        self.path = path
        self.query = query
        self.range = range
        self.status = status
        self.bytes = bytes
        self.expectedBytes = expectedBytes
        self.durationMs = durationMs
        self.userAgent = userAgent
        self.caseId = caseId
        self.completed = completed
    }
}

/// A receiver the lab knows by address: from Avahi (with its class) or pinned in the inventory.
public struct LabReceiverRecord: Codable, Sendable, Equatable {
    public enum Source: String, Codable, Sendable { case avahi, inventory }

    public var address: String
    public var name: String
    public var deviceId: String?
    public var model: String?
    public var deviceClass: String?
    public var classifiedBy: String?
    /// Why the receiver has its class (or none), in discover's words.
    public var reason: String
    public var source: Source
    public var seenAt: Date
    /// What the receiver's `/info` declares (nil when it was not asked or did not answer).
    public var declaredHDRFormats: [String]?
    public var declaredCodecs: [String]?
    public var supportsInterstitials: Bool?
    /// When Avahi removed the receiver (nil: still announced, or pinned by the inventory).
    public var goneAt: Date?
    /// The station that knows the receiver at `address` (nil: unknown, or not yet written).
    public var station: String?

    public init(address: String, name: String, deviceId: String? = nil, model: String? = nil, deviceClass: String? = nil,
                classifiedBy: String? = nil, reason: String, source: Source, seenAt: Date = Date(),
                declaredHDRFormats: [String]? = nil, declaredCodecs: [String]? = nil, supportsInterstitials: Bool? = nil,
                station: String? = nil) {
        self.station = station
        self.declaredHDRFormats = declaredHDRFormats
        self.declaredCodecs = declaredCodecs
        self.supportsInterstitials = supportsInterstitials
        self.address = address
        self.name = name
        self.deviceId = deviceId
        self.model = model
        self.deviceClass = deviceClass
        self.classifiedBy = classifiedBy
        self.reason = reason
        self.source = source
        self.seenAt = seenAt
    }
}

/// What the operator saw when a case played on a receiver (docs/interface.md, verdicts).
public enum LabVerdict: String, Codable, Sendable, CaseIterable {
    case seamless, glitch, stall, black, skipped, failed
}

/// Who gave a verdict (docs/interface.md): an `operator` (the lab page, `lab record`) or the lab itself,
/// `measured` (`lab run`). Both are kept; in reports the operator's wins.
public enum LabVerdictSource: String, Codable, Sendable, CaseIterable {
    case `operator`, measured

    /// Reads the stored text, including what rows written before sources were typed hold: "page" and "cli".
    public init(stored: String) {
        self = stored == Self.measured.rawValue || stored == "lab run" ? .measured : .operator
    }

    public init(from decoder: any Decoder) throws {
        self.init(stored: try decoder.singleValueContainer().decode(String.self))
    }
}

/// One recorded verdict. A Codable record: its coding keys are the `labVerdict` table's columns,
/// and its JSON (`lab record --format json`, `/api/verdicts`) carries the same names.
public struct LabVerdictRecord: Codable, Sendable, Equatable {
    public var id: Int64?
    public var recordedAt: Date
    /// The receiver's name as the lab knows it.
    public var receiver: String
    public var deviceId: String?
    public var deviceClass: String?
    public var client: String?
    public var caseId: String
    public var verdict: LabVerdict
    /// How long the disruption lasted, when the operator timed it or the lab measured it.
    public var seconds: Double?
    public var note: String?
    public var source: LabVerdictSource
    /// Where it was given: "page", "cli" (operator) or "lab run" (measured).
    public var via: String?
    /// The unattended run a measured verdict comes from.
    public var runId: String?
    /// The station it was given at (nil: unknown, or not yet written: the store writes its own).
    public var station: String?

    public init(id: Int64? = nil, recordedAt: Date = Date(), receiver: String, deviceId: String? = nil, deviceClass: String? = nil,
                client: String? = nil, caseId: String, verdict: LabVerdict, seconds: Double? = nil, note: String? = nil,
                source: LabVerdictSource, via: String? = nil, runId: String? = nil, station: String? = nil) {
        self.station = station
        self.id = id
        self.recordedAt = recordedAt
        self.receiver = receiver
        self.deviceId = deviceId
        self.deviceClass = deviceClass
        self.client = client
        self.caseId = caseId
        self.verdict = verdict
        self.seconds = seconds
        self.note = note
        self.source = source
        self.via = via
        self.runId = runId
    }

    /// An operator's verdict given where `via` says ("page", "cli"), as callers wrote it before sources were typed.
    public init(id: Int64? = nil, recordedAt: Date = Date(), receiver: String, deviceId: String? = nil, deviceClass: String? = nil,
                client: String? = nil, caseId: String, verdict: LabVerdict, seconds: Double? = nil, note: String? = nil,
                source via: String) {
        self.init(id: id, recordedAt: recordedAt, receiver: receiver, deviceId: deviceId, deviceClass: deviceClass, client: client,
                  caseId: caseId, verdict: verdict, seconds: seconds, note: note, source: LabVerdictSource(stored: via),
                  via: via == LabVerdictSource.operator.rawValue || via == LabVerdictSource.measured.rawValue ? nil : via)
    }

    private enum CodingKeys: String, CodingKey {
        case id, recordedAt, receiver, deviceId, deviceClass, client, caseId, verdict, seconds, note, source, via, runId, station
    }

    /// Old rows and JSON hold "page" or "cli" in `source` and no `via`: the old text becomes `via`.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let stored = try c.decode(String.self, forKey: .source)
        self.init(id: try c.decodeIfPresent(Int64.self, forKey: .id), recordedAt: try c.decode(Date.self, forKey: .recordedAt),
                  receiver: try c.decode(String.self, forKey: .receiver), deviceId: try c.decodeIfPresent(String.self, forKey: .deviceId),
                  deviceClass: try c.decodeIfPresent(String.self, forKey: .deviceClass),
                  client: try c.decodeIfPresent(String.self, forKey: .client), caseId: try c.decode(String.self, forKey: .caseId),
                  verdict: try c.decode(LabVerdict.self, forKey: .verdict), seconds: try c.decodeIfPresent(Double.self, forKey: .seconds),
                  note: try c.decodeIfPresent(String.self, forKey: .note), source: LabVerdictSource(stored: stored),
                  via: try c.decodeIfPresent(String.self, forKey: .via)
                    ?? (LabVerdictSource.allCases.map(\.rawValue).contains(stored) ? nil : stored),
                  runId: try c.decodeIfPresent(String.self, forKey: .runId),
                  station: try c.decodeIfPresent(String.self, forKey: .station))
    }

    /// Inserts the verdict (its `id` ignored) as given at `station`, and returns its row's id: the
    /// row already there when the same verdict was written before (`LabWriteKey`). `recordedAt` is
    /// seconds since 1970.
    static func insert(_ verdict: LabVerdictRecord, station: String, _ db: any SQLConnection) throws -> Int64 {
        let key = LabWriteKey.verdict(verdict, station: station)
        if let id = try db.insertIfAbsent("""
            INSERT INTO labVerdict (recordedAt, receiver, deviceId, deviceClass, client, caseId, verdict, seconds, note, source, via, runId,
                                    station, writeKey)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, [verdict.recordedAt.timeIntervalSince1970, verdict.receiver, verdict.deviceId, verdict.deviceClass, verdict.client,
                  verdict.caseId, verdict.verdict.rawValue, verdict.seconds, verdict.note, verdict.source.rawValue, verdict.via,
                  verdict.runId, station, key]) {
            return id
        }
        guard let id: Int64 = try db.scalar("SELECT id FROM labVerdict WHERE writeKey = ?", [key]) else {
            throw StoreFailure.failed(location: "", reason: "a verdict's insert was skipped and no row has its key")
        }
        return id
    }

    /// A `labVerdict` row; nil when its verdict is one this version does not know. Rows written
    /// before sources were typed hold "page" or "cli" in `source` and no `via`: the old text becomes `via`.
    static func from(_ row: SQLRow) -> LabVerdictRecord? {
        guard let verdict = LabVerdict(rawValue: row["verdict"]) else { return nil }
        let stored: String = row["source"]
        return LabVerdictRecord(id: row["id"], recordedAt: Date(timeIntervalSince1970: row["recordedAt"]), receiver: row["receiver"],
                                deviceId: row["deviceId"], deviceClass: row["deviceClass"], client: row["client"], caseId: row["caseId"],
                                verdict: verdict, seconds: row["seconds"], note: row["note"], source: LabVerdictSource(stored: stored),
                                via: row["via"] ?? (LabVerdictSource.allCases.map(\.rawValue).contains(stored) ? nil : stored),
                                runId: row["runId"], station: LabStation.read(row["station"]))
    }
}

extension LabStore {
    /// Records the start of a serve run with the suite it serves; returns its id.
    public func beginServe(bind: String, port: Int, streams: String, manifest: LabManifest) throws(LabStoreError) -> Int64 {
        let text: String
        do { text = String(decoding: try JSONEncoder().encode(manifest), as: UTF8.self) } catch {
            throw .failed(path: path, operation: "record the suite", reason: "\(error)")
        }
        return try write("record the serve start") { db in
            try db.insert("""
                INSERT INTO labServe (startedAt, bind, port, streams, manifest, pid, host, station) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """, [Date().timeIntervalSince1970.description, bind, port, streams, text, Int(getpid()),
                      ProcessInfo.processInfo.hostName, station])
        }
    }

    public func endServe(_ id: Int64) throws(LabStoreError) {
        try write("record the serve end") { db in
            try db.execute("UPDATE labServe SET stoppedAt = ? WHERE id = ?", [Date().timeIntervalSince1970.description, id])
        }
    }

    /// The manifest of the suite the latest serve run (of `station`, or of any) served, if any.
    public func latestManifest(station: String? = nil) throws(LabStoreError) -> LabManifest? {
        let filter = Self.stationClause(station, joiner: "WHERE")
        let text = try read("read the suite") { db in
            try db.scalar("SELECT manifest FROM labServe\(filter.sql) ORDER BY id DESC LIMIT 1", filter.arguments) as String?
        }
        guard let text else { return nil }
        do { return try JSONDecoder().decode(LabManifest.self, from: Data(text.utf8)) } catch {
            throw .failed(path: path, operation: "read the suite", reason: "\(error)")
        }
    }

    /// Appends requests, as this store's station's, in one transaction, up to 64 rows a statement (one
    /// round trip each to PostgreSQL). Appending the same records again adds nothing (`LabWriteKey`).
    public func append(_ requests: [LabRequestRecord], serveId: Int64) throws(LabStoreError) {
        guard !requests.isEmpty else { return }
        try write("record \(requests.count) requests") { db in
            if db.dialect == .sqlite { try appendBound(requests, serveId: serveId, db) } else { try appendChunked(requests, serveId: serveId, db) }
        }
    }

    /// SQLite: one prepared row statement, each record's fields bound in place (the request log's
    /// rate: no argument array or boxed value a row; one round trip is no cost in process).
    func appendBound(_ requests: [LabRequestRecord], serveId: Int64, _ db: any SQLConnection) throws {
        try db.executeRows(Self.requestInsertOne, count: requests.count) { i, row in
            let r = requests[i]
            row.bind(serveId); row.bind(r.at.timeIntervalSince1970); row.bind(r.client); row.bind(r.clientPort)
            row.bind(r.method); row.bind(r.path); row.bind(r.query); row.bind(r.range); row.bind(r.status)
            row.bind(r.bytes); row.bind(r.expectedBytes); row.bind(r.durationMs); row.bind(r.userAgent)
            row.bind(r.caseId); row.bind(r.completed); row.bind(station)
            row.bind(LabWriteKey.request(r, serveId: serveId))
        }
    }

    /// Up to 64 rows a statement: one round trip each to PostgreSQL.
    func appendChunked(_ requests: [LabRequestRecord], serveId: Int64, _ db: any SQLConnection) throws {
        var start = 0
        while start < requests.count {
            let chunk = requests[start..<min(start + 64, requests.count)]
            start += chunk.count
            let rows = chunk.count == 64 ? Self.requestRows64 : Self.requestRows(chunk.count)
            var values: [any SQLBindable] = []
            values.reserveCapacity(chunk.count * 17)
            for r in chunk {
                values += [serveId, r.at.timeIntervalSince1970, r.client, r.clientPort, r.method, r.path, r.query, r.range,
                           r.status, r.bytes, r.expectedBytes, r.durationMs, r.userAgent, r.caseId, r.completed, station,
                           LabWriteKey.request(r, serveId: serveId)] as [any SQLBindable]
            }
            // Keyed: a batch written again after an unknown outcome adds only what is missing.
            try db.execute("""
                INSERT INTO labRequest (serveId, at, client, clientPort, method, path, query, range, status, bytes,
                                        expectedBytes, durationMs, userAgent, caseId, completed, station, writeKey) VALUES \(rows)
                ON CONFLICT DO NOTHING
                """, values)
        }
    }

    static let requestInsertOne = """
        INSERT INTO labRequest (serveId, at, client, clientPort, method, path, query, range, status, bytes,
                                expectedBytes, durationMs, userAgent, caseId, completed, station, writeKey) VALUES \(requestRows(1))
        ON CONFLICT DO NOTHING
        """

    /// The `VALUES` placeholders of `count` request rows (a full chunk's made once: the request log
    /// writes many).
    static func requestRows(_ count: Int) -> String {
        Array(repeating: "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", count: count).joined(separator: ", ")
    }
    static let requestRows64 = requestRows(64)

    /// Every logged request (of `station`, or of every station), per station and client in time order.
    public func requests(station: String? = nil) throws(LabStoreError) -> [LabRequestRecord] {
        let filter = Self.stationClause(station, joiner: "WHERE")
        return try read("read the request log") { db in
            try db.query(Self.requestSelect + "\(filter.sql) ORDER BY station, client, at, id", filter.arguments).map(Self.request)
        }
    }

    static let requestSelect = """
        SELECT at, client, clientPort, method, path, query, range, status, bytes, expectedBytes, durationMs,
               userAgent, caseId, completed, station FROM labRequest
        """

    static func request(_ row: SQLRow) -> LabRequestRecord {
        LabRequestRecord(at: Date(timeIntervalSince1970: row["at"]), client: row["client"], clientPort: row["clientPort"],
                         method: row["method"], path: row["path"], query: row["query"], range: row["range"],
                         status: row["status"], bytes: row["bytes"], expectedBytes: row["expectedBytes"],
                         durationMs: row["durationMs"], userAgent: row["userAgent"], caseId: row["caseId"],
                         completed: row["completed"], station: LabStation.read(row["station"]))
    }

    public func requestCount(station: String? = nil) throws(LabStoreError) -> Int {
        let filter = Self.stationClause(station, joiner: "WHERE")
        return try read("count requests") { db in try db.scalar("SELECT count(*) FROM labRequest" + filter.sql, filter.arguments) ?? 0 }
    }

    /// Adds or refreshes what this station knows of the receiver at `record.address`.
    public func upsert(_ record: LabReceiverRecord) throws(LabStoreError) {
        try write("record receiver \(record.name)") { db in
            try db.execute("""
                INSERT INTO labReceiver (station, address, name, deviceId, model, deviceClass, classifiedBy, reason, source, seenAt,
                                         declaredHDRFormats, declaredCodecs, supportsInterstitials)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT(station, address) DO UPDATE SET name = excluded.name, deviceId = excluded.deviceId, model = excluded.model,
                  deviceClass = excluded.deviceClass, classifiedBy = excluded.classifiedBy, reason = excluded.reason,
                  source = excluded.source, seenAt = excluded.seenAt, declaredHDRFormats = excluded.declaredHDRFormats,
                  declaredCodecs = excluded.declaredCodecs, supportsInterstitials = excluded.supportsInterstitials, goneAt = NULL
                """, [station, record.address, record.name, record.deviceId, record.model, record.deviceClass,
                                 record.classifiedBy, record.reason, record.source.rawValue, record.seenAt.timeIntervalSince1970,
                                 record.declaredHDRFormats?.joined(separator: ","), record.declaredCodecs?.joined(separator: ","),
                                 record.supportsInterstitials])
            try Self.appendHistory(db, record, station: station)
        }
    }

    /// The receivers `station` knows (every station's when nil).
    public func receivers(station: String? = nil) throws(LabStoreError) -> [LabReceiverRecord] {
        let filter = Self.stationClause(station, joiner: "WHERE")
        return try read("read receivers") { db in
            try db.query("SELECT * FROM labReceiver\(filter.sql) ORDER BY name, station, address", filter.arguments).map(Self.receiver)
        }
    }

    static func list(_ text: String) -> [String] {
        text.split(separator: ",").map(String.init)
    }

    /// Records a verdict at once (its own transaction), as given at this store's station: a verdict
    /// is never lost to a later crash.
    @discardableResult
    public func record(_ verdict: LabVerdictRecord) throws(LabStoreError) -> Int64 {
        try write("record the verdict") { db in try LabVerdictRecord.insert(verdict, station: station, db) }
    }

    /// Every verdict (of `station`, or of every station), oldest first; a row whose verdict this
    /// version does not know is left out.
    public func verdicts(station: String? = nil) throws(LabStoreError) -> [LabVerdictRecord] {
        let filter = Self.stationClause(station, joiner: "WHERE")
        return try read("read verdicts") { db in
            try db.query("SELECT * FROM labVerdict\(filter.sql) ORDER BY recordedAt, id", filter.arguments).compactMap(LabVerdictRecord.from)
        }
    }
}
