import Reporting
import Compatibility
import Foundation
import Matrix

/// report.md: the run, the case x device class grid, what changed since the previous run,
/// Must fix / Should fix with fixes, known issues, errors and the encoder settings.
/// Each line's control characters are made visible (`VisibleText`): the values come from inputs.
public struct MatrixMarkdownReporter: MatrixReporter {
    public init() {}

    public func render(_ report: MatrixReport) -> String {
        var md: [String] = []
        let s = report.run.summary
        md.append("# Seamcheck matrix: \(escape(s.matrixName))")
        md.append("")
        md.append("Run \(s.id), **\(s.status.rawValue)**, started \(ISO8601DateFormatter().string(from: s.startedAt)); "
            + "fail-on `\(s.failOn.rawValue)`; \(report.run.cases.count) of \(s.plannedCases) case(s) x \(s.deviceClasses.count) device class(es)"
            + (s.probesPerformed.map { "; \($0) probe(s) for \(s.distinctInputs ?? $0) distinct input(s)" } ?? "") + ".  ")
        md.append("**\(report.countsText)**")
        if !report.unfinishedCases.isEmpty {
            md.append("")
            md.append("Not finished: " + report.unfinishedCases.map { "`\($0)`" }.joined(separator: ", "))
        }
        md.append("")
        md.append("## Grid")
        md.append("")
        md.append("| case | " + report.deviceClasses.joined(separator: " | ") + " |")
        md.append("|---|" + report.deviceClasses.map { _ in "---" }.joined(separator: "|") + "|")
        for result in report.run.cases {
            let cells = report.deviceClasses.map { result.cell($0).map { cell($0.status) } ?? "-" }
            md.append("| `\(escape(result.caseId))` | " + cells.joined(separator: " | ") + " |")
        }
        md += changes(report)
        for (title, severity) in [("Must fix", Severity.error), ("Should fix", .warning)] {
            let groups = report.openFindings(severity)
            guard !groups.isEmpty else { continue }
            md.append("")
            md.append("## \(title)")
            for group in groups {
                md.append("")
                md.append("### `\(group.rule)`")
                md.append("")
                for o in group.occurrences {
                    md.append("- `\(escape(o.caseId))` \(escape(o.subject)) on \(escape(o.deviceClasses.joined(separator: ", "))): \(escape(o.message))"
                        + (o.remediation.map { " Fix: `\($0)`" } ?? ""))
                }
            }
        }
        let known = report.knownFindings
        if !known.isEmpty {
            md.append("")
            md.append("## Known issues")
            md.append("")
            md.append("| case | class | rule | reason |")
            md.append("|---|---|---|---|")
            for k in known { md.append("| `\(escape(k.caseId))` | \(escape(k.deviceClass ?? "all")) | `\(k.rule)` | \(escape(k.reason)) |") }
        }
        if !report.unusedExpectedIssues.isEmpty {
            md.append("")
            md.append("Expected issues that matched nothing (remove them?): "
                + report.unusedExpectedIssues.map { "`\($0.caseId) / \($0.rule) / \($0.deviceClass)`" }.joined(separator: ", "))
        }
        let errors = report.run.cases.filter { $0.failure != nil }
        if !errors.isEmpty {
            md.append("")
            md.append("## Errors")
            md.append("")
            for result in errors { md.append("- `\(escape(result.caseId))`: \(escape(result.failure?.reason ?? ""))") }
        }
        md.append("")
        md.append("## Encoder settings for interstitials")
        md.append("")
        md += MatrixEncoderReporter.lines(report.encoder, markdown: true)
        return VisibleText.escape(lines: md).joined(separator: "\n") + "\n"
    }

    private func changes(_ report: MatrixReport) -> [String] {
        var md = ["", "## Since the previous run", ""]
        guard let diff = report.changes else { return md + ["First run of this matrix in the database."] }
        md.append("Compared with run \(diff.from.id): \(diff.newFindings.count) new finding(s), \(diff.fixedFindings.count) fixed, "
            + "\(diff.statusChanges.count) cell(s) changed status.")
        for change in diff.statusChanges {
            md.append("- `\(escape(change.caseId))` on \(change.deviceClass): \(change.from.rawValue) -> **\(change.to.rawValue)**")
        }
        for (label, list) in [("new", diff.newFindings), ("fixed", diff.fixedFindings)] {
            for f in list {
                md.append("- \(label): `\(escape(f.caseId))` `\(f.rule)` on \(f.deviceClass ?? "all") (\(f.severity.rawValue)): \(escape(f.message))")
            }
        }
        return md
    }

    private func cell(_ status: CellStatus) -> String {
        switch status {
        case .fail, .error: return "**\(status.label)**"
        default: return status.label
        }
    }

    private func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "|", with: "\\|").replacingOccurrences(of: "\n", with: " ")
    }
}
