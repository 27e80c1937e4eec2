import Foundation
import HLS
import Hummingbird
import LabCore
import NIOCore
import ServiceLifecycle

/// Renders one stored cell as an HTML fragment (its timeline, filmstrip, and whatever lanes the lab
/// report draws for a cell): given by the command, which has ResultsReporting's renderers, so the
/// server does not depend on the reports (nor, through them, on the matrix). Everything in it is escaped.
public typealias DashboardCellRenderer = @Sendable (LabRunCell, LabCase?) -> String

/// The dashboard (read-only): `/dashboard` and its JSON under `/api/dashboard/`. Nothing here writes.
struct DashboardAPI: Sendable {
    let store: LabStore
    let manifest: LabManifest
    let feed: DashboardFeed
    let renderCell: DashboardCellRenderer?

    /// Why a dashboard request cannot be answered: 400 for a bad parameter, 404 for what the store does not have.
    struct Refusal: Error {
        var status: HTTPResponse.Status
        var message: String
        static func bad(_ message: String) -> Refusal { Refusal(status: .badRequest, message: message) }
        static func missing(_ message: String) -> Refusal { Refusal(status: .notFound, message: message) }
    }

    func register(on router: Router<LabRequestContext>) {
        router.get("/dashboard") { _, _ in
            var headers = HTTPFields()
            headers[.contentType] = "text/html; charset=utf-8"
            headers[.cacheControl] = "no-store"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: DashboardPage.html)))
        }
        router.get("/api/dashboard/runs") { request, _ in
            try answer {
                let query = try Query(request, allowed: ["station", "receiver", "class", "case", "from", "to", "limit"])
                let filter = LabRunFilter(station: try station(query), receiver: query["receiver"], deviceClass: query["class"],
                                          caseGlob: query["case"], from: try query.date("from"), to: try query.date("to", endOfDay: true),
                                          limit: try query.integer("limit", in: 1...1000) ?? 100)
                return try LabAPI.json(RunsDocument(runs: try store.runs(matching: filter), stations: try store.stations()))
            }
        }
        router.get("/api/dashboard/grid") { request, _ in
            try answer { try LabAPI.json(try grid(Query(request, allowed: ["run", "station"]))) }
        }
        router.get("/api/dashboard/cell") { request, _ in
            try answer { try cell(Query(request, allowed: ["run", "receiver", "case", "station"])) }
        }
        router.get("/api/dashboard/compare") { request, _ in
            try answer {
                let query = try Query(request, allowed: ["a", "b", "stallChangeMs"])
                let a = try run(query.required("a")), b = try run(query.required("b"))
                let threshold = try query.number("stallChangeMs", in: 0...600_000) ?? ComparisonThresholds.defaults.stallChangeMs
                return try LabAPI.json(RunComparer(thresholds: ComparisonThresholds(stallChangeMs: threshold))
                    .compare(before: a.id, try store.briefCells(runId: a.id), after: b.id, try store.briefCells(runId: b.id)))
            }
        }
        router.get("/api/dashboard/events") { request, _ in
            try answer {
                _ = try Query(request, allowed: [])
                var headers = HTTPFields()
                headers[.contentType] = "text/event-stream; charset=utf-8"
                headers[.cacheControl] = "no-store"
                let events = feed.subscribe()
                // Ends with the feed: at shutdown every viewer's stream finishes, so no open feed holds the server.
                return Response(status: .ok, headers: headers, body: ResponseBody { writer in
                    try await withGracefulShutdownHandler {
                        for await event in events { try await writer.write(ByteBuffer(string: event)) }
                    } onGracefulShutdown: {
                        feed.stop()
                    }
                    try await writer.finish(nil)
                })
            }
        }
    }

    /// The handler's answer, or its refusal as JSON `{"error": ...}` with its status.
    private func answer(_ body: () throws -> Response) throws -> Response {
        do { return try body() } catch let refusal as Refusal {
            return try LabAPI.json(LabAPI.ErrorDocument(error: refusal.message), status: refusal.status)
        } catch let error as LabStoreError {
            return try LabAPI.json(LabAPI.ErrorDocument(error: error.description), status: .internalServerError)
        }
    }

    /// `station=NAME` (the unknown station is `station=`): 404 when the store has no such station.
    private func station(_ query: Query) throws -> String? {
        guard let name = query["station"] else { return nil }
        let known = try store.stations()
        guard known.contains(name) else {
            throw Refusal.missing("no station '\(name.prefix(64))' in the lab's database; it has: "
                                  + known.map { $0.isEmpty ? "'' (unknown)" : $0 }.joined(separator: ", "))
        }
        return name
    }

    private func run(_ id: String) throws -> LabRunSummary {
        guard let run = try store.run(id) else {
            throw Refusal.missing("no lab run '\(id.prefix(128))'; /api/dashboard/runs lists them")
        }
        return run
    }

    func grid(_ query: Query) throws -> DashboardGrid {
        let station = try station(query)
        let order = manifest.cases.map(\.id)
        let verdicts = try store.latestOperatorVerdicts(station: station)
        guard let id = query["run"], id != "latest" else {
            return DashboardGridBuilder.build(run: nil, cells: try store.latestBriefCells(station: station), operatorVerdicts: verdicts,
                                              caseOrder: order)
        }
        let run = try run(id)
        var cells = try store.briefCells(runId: run.id)
        if let station { cells = cells.filter { $0.station == station } }
        // What each receiver ran in the run before this one (of its station): the firmware-changed mark.
        var previous: [String: LabReceiverSoftware] = [:]
        if let earlier = try store.runs(station: run.station ?? LabStation.unknown).first(where: { $0.startedAt < run.startedAt }) {
            for cell in try store.briefCells(runId: earlier.id) {
                if let software = cell.software { previous[DashboardGridBuilder.receiverKey(cell.station, cell.receiver)] = software }
            }
        }
        return DashboardGridBuilder.build(run: run, cells: cells, operatorVerdicts: verdicts, caseOrder: order, previousSoftware: previous)
    }

    func cell(_ query: Query) throws -> Response {
        let run = try run(try query.required("run"))
        let receiver = try query.required("receiver"), caseId = try query.required("case")
        guard let cell = try store.cell(runId: run.id, receiver: receiver, caseId: caseId, station: query["station"]) else {
            throw Refusal.missing("run \(run.id) has no cell of case '\(caseId.prefix(128))' on receiver '\(receiver.prefix(128))'")
        }
        let html = renderCell?(cell, manifest.case(cell.caseId))
            ?? "<p>This server draws no timelines; <code>seamcheck lab report --format html</code> does.</p>"
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.cacheControl] = "no-cache"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: html)))
    }

    struct RunsDocument: Encodable {
        var schemaVersion = 1
        var runs: [LabRunSummary]
        var stations: [String]
    }
}

/// A dashboard request's query: only the parameters it knows (anything else is a 400 naming them).
struct Query {
    private var values: [String: String] = [:]

    init(_ request: Request, allowed: [String]) throws {
        for (key, value) in request.uri.queryParameters {
            let name = String(key)
            guard allowed.contains(name) else {
                throw DashboardAPI.Refusal.bad("unknown parameter '\(name.prefix(64))'"
                    + (allowed.isEmpty ? ": this takes none" : "; it takes: " + allowed.joined(separator: ", ")))
            }
            guard value.count <= 512 else { throw DashboardAPI.Refusal.bad("parameter \(name) is longer than 512 characters") }
            values[name] = String(value)
        }
    }

    subscript(_ name: String) -> String? { values[name].flatMap { $0.isEmpty && name != "station" ? nil : $0 } }

    func required(_ name: String) throws -> String {
        guard let value = self[name] else { throw DashboardAPI.Refusal.bad("give \(name)=...") }
        return value
    }

    func integer(_ name: String, in range: ClosedRange<Int>) throws -> Int? {
        guard let text = self[name] else { return nil }
        guard let value = Int(text), range.contains(value) else {
            throw DashboardAPI.Refusal.bad("\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound), not '\(text.prefix(32))'")
        }
        return value
    }

    func number(_ name: String, in range: ClosedRange<Double>) throws -> Double? {
        guard let text = self[name] else { return nil }
        guard let value = Double(text), value.isFinite, range.contains(value) else {
            throw DashboardAPI.Refusal.bad("\(name) must be a number from \(range.lowerBound) to \(range.upperBound), not '\(text.prefix(32))'")
        }
        return value
    }

    /// `2026-11-28` (UTC; with `endOfDay` the day after it) or an ISO 8601 time.
    func date(_ name: String, endOfDay: Bool = false) throws -> Date? {
        guard let text = self[name] else { return nil }
        let day = DateFormatter()
        day.locale = Locale(identifier: "en_US_POSIX")
        day.timeZone = TimeZone(identifier: "UTC")
        day.dateFormat = "yyyy-MM-dd"
        if text.count == 10, let date = day.date(from: text) { return endOfDay ? date.addingTimeInterval(86_400) : date }
        let full = ISO8601DateFormatter()
        if let date = full.date(from: text) { return date }
        full.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = full.date(from: text) { return date }
        throw DashboardAPI.Refusal.bad("\(name) must be a date, 2026-11-28, or an ISO 8601 time, 2026-11-28T21:00:00Z; not '\(text.prefix(40))'")
    }
}
