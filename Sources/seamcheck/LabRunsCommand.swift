import ArgumentParser
import Compatibility
import Foundation
import HLS
import LabCore
import LabRun
import LabServer
import Reporting
import ResultsReporting

struct LabRunsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "runs",
        abstract: "History of unattended runs (`lab run`), newest first; with a run id, its cells.",
        discussion: """
        A run recorded as running whose heartbeat is older than its lease (30 s) is shown interrupted: its process \
        died without saying so. `seamcheck lab run --resume [RUN-ID]` completes an interrupted run.
        """)

    @Argument(help: "A run id: list its cells.")
    var runId: String?

    @Option(help: "table (default on a terminal) or json.")
    var format: ListFormat?

    @OptionGroup var database: LabDatabaseOption

    @OptionGroup var station: LabStationFilter

    func run() async throws {
        let store = try database.open(create: false)
        let only = try station.resolve(in: store)
        let format = ListFormat.resolve(format)
        if let runId {
            let document = try Self.document(runId, store: store)
            switch format {
            case .json: try Output.write(LabJSON.encode(document), to: nil)
            case .table: try Output.write(LabRunTable.render(document), to: nil)
            }
            return
        }
        let runs = try store.runs(station: only)
        switch format {
        case .json: try Output.write(LabJSON.encode(LabRunsDocument(runs: runs)), to: nil)
        case .table: try Output.write(LabRunTable.render(runs), to: nil)
        }
    }

    static func document(_ runId: String, store: LabStore) throws -> LabRunDocument {
        guard let run = try store.run(runId) else {
            let ids = try store.runs().map(\.id)
            throw CLIFailure.input("no lab run '\(runId)'\(Suggestion.text(for: runId, in: ids)); `seamcheck lab runs` lists them")
        }
        return LabRunDocument(run: run, cells: try store.cells(runId: runId), skipped: [], problems: [])
    }
}

/// The lab commands' JSON: dates as ISO 8601 with milliseconds (`2026-11-21T13:30:03.250Z`), as
/// `lab sessions` and the lab page's API write them (docs/interface.md), not Foundation's seconds since 2001.
enum LabJSON {
    static func encode<T: Encodable>(_ value: T) -> String {
        // Plain value types with non-finite numbers written as strings: encoding cannot fail.
        String(decoding: try! JSONDocument.encoder(dates: .iso8601Milliseconds).encode(value), as: UTF8.self) + "\n"
    }
}

/// `lab runs --format json`.
struct LabRunsDocument: Encodable {
    var schemaVersion = jsonSchemaVersion
    var runs: [LabRunSummary]
}

/// `lab run --format json` and `lab runs RUN-ID --format json`: the run, its cells, the receivers
/// left out and the per-receiver problems (a refusal, gone for good).
struct LabRunDocument: Encodable {
    struct Problem: Encodable {
        var receiver: String
        var problem: String
    }

    struct Cell: Encodable {
        var receiver: String
        var deviceId: String?
        var deviceClass: String?
        var address: String
        var `case`: String
        var attempt: Int
        var startedAt: Date
        var finishedAt: Date
        var url: String
        var verdict: String
        var failure: String?
        var reason: String
        var playToFirstRequestMs: Double?
        var playToFirstSegmentMs: Double?
        var firstFrameMs: Double?
        var stallMs: Double?
        var stalls: [MeasuredStall]
        var samples: Int
        var requests: Int
        var wallMs: Double
        /// What a capture of the receiver's picture showed (`--capture`), beside the protocol's measure.
        var picture: PictureMeasurement?
    }

    var schemaVersion = jsonSchemaVersion
    var run: LabRunSummary
    var cells: [Cell]
    var notRunnable: [SkippedReceiver]
    var problems: [Problem]

    init(run: LabRunSummary, cells: [LabRunCell], skipped: [SkippedReceiver], problems: [Problem]) {
        self.run = run
        self.cells = cells.map { cell in
            Cell(receiver: cell.receiver, deviceId: cell.deviceId, deviceClass: cell.deviceClass, address: cell.address,
                 case: cell.caseId, attempt: cell.attempt, startedAt: cell.startedAt, finishedAt: cell.finishedAt, url: cell.url,
                 verdict: cell.measurement.labVerdict.rawValue, failure: cell.measurement.failure?.rawValue, reason: cell.measurement.verdict().reason,
                 playToFirstRequestMs: cell.measurement.playToFirstRequestMs, playToFirstSegmentMs: cell.measurement.playToFirstSegmentMs,
                 firstFrameMs: cell.measurement.playToFirstFrameMs, stallMs: cell.measurement.transitionStallMs,
                 stalls: cell.measurement.stalls, samples: cell.series.samples.count, requests: cell.requests.count,
                 wallMs: (cell.finishedAt.timeIntervalSince(cell.startedAt) * 1000).rounded(), picture: cell.measurement.picture)
        }
        notRunnable = skipped
        self.problems = problems
    }
}

/// The tables of `lab run` and `lab runs`, and the progress line of one receiver.
enum LabRunTable {
    /// "1234 / 267", "no frame codes seen", "capture failed".
    static func pictureText(_ picture: PictureMeasurement?) -> String {
        guard let picture else { return "-" }
        switch picture.result {
        case "measured": return "\(number(picture.playToFirstFrameMs)) / \(number(picture.transitionStallMs))"
        case "noFrameCodes": return "no frame codes seen"
        default: return "capture failed"
        }
    }

    static func render(_ document: LabRunDocument) -> String {
        let run = document.run
        var text = "run \(run.id) \(run.state.rawValue): \(run.cellsDone) of \(run.cellsTotal) cell(s), server \(run.server)\n"
        let pictures = document.cells.contains { $0.picture != nil }
        let rows = document.cells.map { cell in
            [cell.receiver, cell.case + (cell.attempt > 1 ? " (attempt \(cell.attempt))" : ""), number(cell.firstFrameMs),
             number(cell.stallMs)] + (pictures ? [pictureText(cell.picture)] : []) + [cell.verdict, cell.reason]
        }
        text += columns(["RECEIVER", "CASE", "FIRST FRAME MS", "STALL MS"] + (pictures ? ["PICTURE (FIRST FRAME / STALL MS)"] : [])
                        + ["VERDICT", "REASON"], rows)
        for receiver in document.notRunnable {
            text += "not runnable: \(receiver.name) (\(receiver.address ?? "no address")): \(receiver.reason)\n"
        }
        for problem in document.problems { text += "\(problem.receiver): \(problem.problem)\n" }
        return visible(text)
    }

    static func render(_ runs: [LabRunSummary]) -> String {
        guard !runs.isEmpty else { return "no lab runs yet; start one with `seamcheck lab run`\n" }
        // The station column when the runs come from more than one station.
        let stations = Set(runs.map(\.station)).count > 1
        let rows = runs.map { run in
            [run.id] + (stations ? [run.station ?? "-"] : []) + [ISO8601DateFormatter().string(from: run.startedAt), run.state.rawValue,
             "\(run.cellsDone)/\(run.cellsTotal)", run.receivers.joined(separator: ", "), "\(run.cases.count)"]
        }
        return visible(columns(["RUN"] + (stations ? ["STATION"] : []) + ["STARTED", "STATE", "CELLS", "RECEIVERS", "CASES"], rows))
    }

    static func progressLine(_ progress: ReceiverProgress) -> String {
        var line = "\(progress.receiver): \(progress.done)/\(progress.total)"
        switch progress.phase {
        case .starting: break
        case .playing(let caseId, let position, let duration):
            line += " playing \(caseId)"
            if let position { line += String(format: " %.1f", position) + (duration.map { String(format: "/%.1f s", $0) } ?? " s") }
        case .waitingForReturn: line += " went away; waiting for it to answer again"
        case .finished: line += " done"
        }
        if let last = progress.last { line += " (last: \(last))" }
        return line
    }

    /// Names and reasons come from receivers: their control characters are made visible, line by line.
    private static func visible(_ text: String) -> String {
        VisibleText.escape(lines: text.components(separatedBy: "\n")).joined(separator: "\n")
    }

    private static func number(_ value: Double?) -> String { value.map { String(Int($0.rounded())) } ?? "-" }

    private static func columns(_ header: [String], _ rows: [[String]]) -> String {
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        return all.map { row in
            row.enumerated().map { index, cell in
                index == row.count - 1 ? cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
        }.joined(separator: "\n") + "\n"
    }
}
