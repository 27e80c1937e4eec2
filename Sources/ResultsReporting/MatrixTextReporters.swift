import Reporting
import Compatibility
import Foundation
import Matrix

/// The terminal summary of a run: the grid, the counts, and what to fix first. Values from the
/// inputs have their control characters made visible (`VisibleText`), grid cells before their
/// widths are measured.
public struct MatrixTableReporter: MatrixReporter {
    public init() {}

    public func render(_ report: MatrixReport) -> String {
        var out = [report.headline, ""]
        let classes = report.deviceClasses.map(VisibleText.escape)
        let idWidth = max(4, report.run.cases.map { VisibleText.escape($0.caseId).count }.max() ?? 0)
        let widths = classes.map { max($0.count, 5) }
        out.append(pad("case", idWidth) + "  " + zip(classes, widths).map { pad($0, $1) }.joined(separator: "  "))
        for result in report.run.cases {
            let cells = zip(report.deviceClasses, widths).map { pad(result.cell($0)?.status.label ?? "-", $1) }
            out.append((pad(VisibleText.escape(result.caseId), idWidth) + "  " + cells.joined(separator: "  "))
                .trimmingCharacters(in: .whitespaces))
        }
        out.append("")
        out.append("cells: " + report.countsText)
        for (title, severity) in [("must fix", Severity.error), ("should fix", .warning)] {
            let groups = report.openFindings(severity)
            guard !groups.isEmpty else { continue }
            out.append("\(title): " + groups.map { "\($0.rule) (\($0.occurrences.count))" }.joined(separator: ", "))
        }
        for result in report.run.cases where result.failure != nil {
            out.append("error: \(result.caseId): \(result.failure?.reason ?? "")")
        }
        if let diff = report.changes {
            out.append("since run \(diff.from.id): \(diff.newFindings.count) new finding(s), \(diff.fixedFindings.count) fixed, "
                + "\(diff.statusChanges.count) cell(s) changed")
        }
        return VisibleText.escape(lines: out).joined(separator: "\n") + "\n"
    }
}

/// The one-line progress bar of `matrix run` on a terminal.
public enum MatrixProgressLine {
    public static func render(_ progress: MatrixProgress, elapsed: Double, width: Int = 24) -> String {
        let done = progress.total == 0 ? width : progress.finished * width / progress.total
        let bar = String(repeating: "#", count: done) + String(repeating: "-", count: width - done)
        let counts = CellStatus.allCases.map { "\($0.rawValue) \(progress.cells[$0] ?? 0)" }.joined(separator: " ")
        return "[\(bar)] \(progress.finished)/\(progress.total) cases, \(progress.running) running | \(counts) | "
            + "\(progress.probesPerformed) probes | \(String(format: "%.1f", elapsed)) s"
    }
}

/// `seamcheck matrix history` as a table.
public enum MatrixHistoryTable {
    public static func render(_ runs: [RunSummary]) -> String {
        guard !runs.isEmpty else { return "no runs recorded\n" }
        var rows = [["RUN", "STARTED", "MATRIX", "STATUS", "CASES"] + CellStatus.allCases.map { $0.rawValue.uppercased() } + ["PROBES"]]
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        for run in runs {
            rows.append([String(run.id), formatter.string(from: run.startedAt), run.matrixName, run.status.rawValue,
                         "\(run.finishedCases)/\(run.plannedCases)"]
                + CellStatus.allCases.map { String(run.cells[$0.rawValue] ?? 0) } + [run.probesPerformed.map(String.init) ?? "-"])
        }
        return table(rows)
    }
}

/// `seamcheck matrix diff` as text.
public enum MatrixDiffTable {
    public static func render(_ diff: RunDiff) -> String {
        var out = ["run \(diff.from.id) -> run \(diff.to.id) (\(diff.to.matrixName)): \(diff.newFindings.count) new, "
            + "\(diff.fixedFindings.count) fixed, \(diff.statusChanges.count) cell(s) changed status"]
        if !diff.statusChanges.isEmpty {
            out.append("")
            out.append(contentsOf: table([["CASE", "CLASS", "WAS", "NOW"]]
                + diff.statusChanges.map { [$0.caseId, $0.deviceClass, $0.from.rawValue, $0.to.rawValue] }).split(separator: "\n").map(String.init))
        }
        for (title, list) in [("new findings", diff.newFindings), ("fixed findings", diff.fixedFindings)] where !list.isEmpty {
            out.append("")
            out.append("\(title):")
            out.append(contentsOf: table([["CASE", "CLASS", "RULE", "SEVERITY", "SUBJECT"]]
                + list.map { [$0.caseId, $0.deviceClass ?? "all", $0.rule, $0.severity.rawValue + ($0.known ? " (known)" : ""), $0.subject] })
                .split(separator: "\n").map(String.init))
        }
        let skipped = diff.casesOnlyInFrom.count + diff.casesOnlyInTo.count
        if skipped > 0 {
            out.append("")
            out.append("not compared (finished in one run only): " + (diff.casesOnlyInFrom + diff.casesOnlyInTo).joined(separator: ", "))
        }
        return VisibleText.escape(lines: out).joined(separator: "\n") + "\n"
    }
}

/// Columns padded to their widest cell; cells are values, made visible (`VisibleText`) first.
func table(_ rows: [[String]]) -> String {
    let rows = rows.map { $0.map(VisibleText.escape) }
    let widths = rows[0].indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
    return rows.map { row in
        zip(row, widths).map { pad($0, $1) }.joined(separator: "  ").trimmingCharacters(in: .whitespaces)
    }.joined(separator: "\n") + "\n"
}

func pad(_ text: String, _ width: Int) -> String {
    text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
}
