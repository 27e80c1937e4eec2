import Foundation

/// The natural keys of the lab's append-only rows (the `writeKey` column, unique): made only from
/// what the writer fixed when the fact happened, so writing the same record again (a retry after
/// `StoreFailure.outcomeUnknown`, a request log batch kept for the next flush) gives the same key
/// and `ON CONFLICT DO NOTHING` keeps one row. Times go in as their exact bit patterns.
enum LabWriteKey {
    /// A request: its serve run, the client's address and port, when it started, what it asked for.
    static func request(_ r: LabRequestRecord, serveId: Int64) -> String {
        // `join` of the same fields, without the array (the request log makes one a request).
        var key = "r"
        key.reserveCapacity(32 + r.client.utf8.count + r.method.utf8.count + r.path.utf8.count
                            + (r.query?.utf8.count ?? 0) + (r.range?.utf8.count ?? 0))
        key += "\u{1F}"; key += String(serveId)
        key += "\u{1F}"; key += r.client
        key += "\u{1F}"; if let port = r.clientPort { key += String(port) }
        key += "\u{1F}"; key += bits(r.at)
        key += "\u{1F}"; key += r.method
        key += "\u{1F}"; key += r.path
        key += "\u{1F}"; if let query = r.query { key += query }
        key += "\u{1F}"; if let range = r.range { key += range }
        return key
    }

    /// A verdict: where, on what, when it was given, and by whom (the run of a measured one).
    static func verdict(_ v: LabVerdictRecord, station: String) -> String {
        join(["v", station, v.receiver, v.caseId, bits(v.recordedAt), v.source.rawValue, v.via ?? "", v.runId ?? ""])
    }

    /// A cell: its run, receiver, case, attempt and when it started (a `--resume` replay starts later).
    static func cell(_ c: LabRunCell) -> String {
        join(["c", c.runId, c.receiver, c.caseId, String(c.attempt), bits(c.startedAt)])
    }

    private static func bits(_ date: Date) -> String { String(date.timeIntervalSince1970.bitPattern, radix: 16) }

    /// Fields joined by the unit separator (which no field holds), so no two field lists give one key.
    private static func join(_ fields: [String]) -> String { fields.joined(separator: "\u{1F}") }
}
