import Foundation

/// The natural keys of the lab's append-only rows (the `writeKey` column, unique): made only from
/// what the writer fixed when the fact happened, so writing the same record again (a retry after
/// `StoreFailure.outcomeUnknown`, a request log batch kept for the next flush) gives the same key
/// and `ON CONFLICT DO NOTHING` keeps one row. Times go in as their exact bit patterns.
enum LabWriteKey {
    /// A request: its serve run, the client's address and port, when it started, what it asked for.
    static func request(_ r: LabRequestRecord, serveId: Int64) -> String {
        join(["r", String(serveId), r.client, r.clientPort.map(String.init) ?? "", bits(r.at), r.method, r.path, r.query ?? "",
              r.range ?? ""])
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
