import Reporting
import Foundation
import HLS
import LabCore

/// `seamcheck lab report --behaviour` formats.
public enum BehaviourReportFormat: String, CaseIterable, Sendable {
    case table, json, markdown, html

    public func render(_ report: BehaviourReport) -> String {
        switch self {
        case .table: BehaviourReportText.table(report)
        case .json: BehaviourReportText.json(report)
        case .markdown: BehaviourReportText.markdown(report)
        case .html: BehaviourReportText.html(report)
        }
    }
}

/// Text is escaped for each format: receiver names come from the network, request paths from receivers.
enum BehaviourReportText {
    static let legend = "conforms: every expectation that could be judged held; ignores: no request for any interstitial "
        + "(the feature had no effect); deviates: an expectation failed (what was expected and what happened); "
        + "not judged: the session ended before what the case needs; not applicable: the class cannot show it (no video)."

    static func headline(_ report: BehaviourReport) -> String {
        let counts = BehaviourReportBuilder.summary(report.summary)
        return "behaviour: \(report.receivers.count) receiver(s) x \(report.features.count) feature(s), "
            + "\(report.cells.count) judged" + (counts.isEmpty ? "" : ": " + counts)
    }

    /// "conforms", "conforms (2/3)" when earlier judgements disagreed.
    static func mark(_ cell: BehaviourReportCell?) -> String {
        guard let cell else { return "-" }
        return cell.outcome.rawValue + (cell.agreeing < cell.judgements ? " (\(cell.agreeing)/\(cell.judgements))" : "")
    }

    /// One line: the outcome's reason, where it came from.
    static func detail(_ cell: BehaviourReportCell) -> String {
        "\(cell.source)\(cell.runId.map { " \($0)" } ?? ""), \(cell.agreeing) of \(cell.judgements) judgement(s) agree"
            + (cell.why.map { ": \($0)" } ?? "")
    }

    static func table(_ report: BehaviourReport) -> String {
        var out = headline(report) + "\n\n"
        guard !report.cells.isEmpty else {
            return out + "no behaviour case played yet: `seamcheck lab run --case 'behaviour-*'`, or play them from the lab page\n"
        }
        var rows = [["RECEIVER", "CLASS"] + report.features.map(\.feature)]
        for row in report.receivers {
            rows.append([row.receiver, row.deviceClass ?? "-"] + report.features.map { mark(report.cell(row.receiver, $0.feature)) })
        }
        out += ResultsReporting.table(transpose(rows))
        let notable = report.cells.filter { $0.outcome != .conforms }
        if !notable.isEmpty {
            out += "\nwhy:\n" + notable.map { "  \(VisibleText.escape($0.receiver)) / \($0.feature): \($0.outcome.rawValue) (\(VisibleText.escape(detail($0))))" }
                .joined(separator: "\n") + "\n"
        }
        if !report.classes.isEmpty {
            var classRows = [["FEATURE"] + Array(Set(report.classes.map(\.deviceClass))).sorted()]
            for feature in report.features {
                classRows.append([feature.feature] + classRows[0].dropFirst().map { deviceClass in
                    report.classes.first { $0.deviceClass == deviceClass && $0.feature == feature.feature }?.summary ?? "-"
                })
            }
            out += "\nper device class:\n" + ResultsReporting.table(classRows)
        }
        return out
    }

    /// Features run down the page (19 of them would not fit across a terminal); receivers across.
    static func transpose(_ rows: [[String]]) -> [[String]] {
        guard let width = rows.first?.count else { return rows }
        return (0..<width).map { column in rows.map { $0[column] } }
    }

    static func json(_ report: BehaviourReport) -> String {
        String(decoding: try! JSONDocument.encoder(dates: .iso8601Milliseconds).encode(report), as: UTF8.self) + "\n"
    }

    static func markdown(_ report: BehaviourReport) -> String {
        var md = ["# Seamcheck behaviour report", "", headline(report) + ".", "", legend, ""]
        guard !report.cells.isEmpty else { return (md + ["No behaviour case played yet."]).joined(separator: "\n") + "\n" }
        md.append("| receiver | class | " + report.features.map { "`\($0.feature)`" }.joined(separator: " | ") + " |")
        md.append("|---|---|" + report.features.map { _ in "---|" }.joined())
        for row in report.receivers {
            md.append("| \(markdownCell(row.receiver)) | \(markdownCell(row.deviceClass ?? "-")) | "
                      + report.features.map { feature in
                          let cell = report.cell(row.receiver, feature.feature)
                          return cell?.outcome == .deviates ? "**\(mark(cell))**" : mark(cell)
                      }.joined(separator: " | ") + " |")
        }
        md += ["", "## Why", ""]
        for cell in report.cells where cell.outcome != .conforms {
            md.append("- \(markdownCell(cell.receiver)), `\(cell.feature)`: **\(cell.outcome.rawValue)**: \(markdownCell(detail(cell)))")
            for check in cell.checks where check.outcome != .conforms {
                md.append("  - \(check.kind.rawValue) \(check.outcome.rawValue): expected \(markdownCell(check.expected)); observed \(markdownCell(check.observed))")
            }
        }
        if !report.classes.isEmpty {
            let classes = Array(Set(report.classes.map(\.deviceClass))).sorted()
            md += ["", "## Per device class", "", "| feature | " + classes.map(markdownCell).joined(separator: " | ") + " |",
                   "|---|" + classes.map { _ in "---|" }.joined()]
            for feature in report.features {
                md.append("| `\(feature.feature)` | " + classes.map { deviceClass in
                    markdownCell(report.classes.first { $0.deviceClass == deviceClass && $0.feature == feature.feature }?.summary ?? "-")
                }.joined(separator: " | ") + " |")
            }
        }
        return md.joined(separator: "\n") + "\n"
    }
}
