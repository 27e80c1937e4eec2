import Reporting
import Compatibility
import Foundation
import Matrix

/// JUnit XML for CI: a testsuite per device class, a testcase per case. `fail` cells are
/// failures, `error` cells errors, `known` cells skipped with the expected issue's reason; cases
/// an interrupted run never finished are skipped as not run. Warnings go to system-out.
public struct MatrixJUnitReporter: MatrixReporter {
    public init() {}

    public func render(_ report: MatrixReport) -> String {
        let cases = report.run.cases
        let unfinished = report.unfinishedCases
        var xml = ["<?xml version=\"1.0\" encoding=\"UTF-8\"?>"]
        let total = (cases.count + unfinished.count) * report.deviceClasses.count
        let c = report.counts
        xml.append("<testsuites name=\"\(xmlEscape("seamcheck matrix " + report.run.summary.matrixName))\" tests=\"\(total)\" "
            + "failures=\"\(c[.fail] ?? 0)\" errors=\"\(c[.error] ?? 0)\" skipped=\"\((c[.known] ?? 0) + unfinished.count * report.deviceClasses.count)\">")
        for deviceClass in report.deviceClasses {
            let cells = cases.compactMap { result in result.cell(deviceClass).map { (result, $0) } }
            let count = { (status: CellStatus) in cells.filter { $0.1.status == status }.count }
            xml.append("  <testsuite name=\"\(xmlEscape(deviceClass))\" tests=\"\(cells.count + unfinished.count)\" failures=\"\(count(.fail))\" "
                + "errors=\"\(count(.error))\" skipped=\"\(count(.known) + unfinished.count)\">")
            for (result, cell) in cells {
                xml.append("    <testcase classname=\"\(xmlEscape(deviceClass))\" name=\"\(xmlEscape(result.caseId))\" "
                    + "time=\"\(String(format: "%.3f", result.seconds))\">")
                xml += body(result, cell, threshold: report.threshold)
                xml.append("    </testcase>")
            }
            for caseId in unfinished {
                xml.append("    <testcase classname=\"\(xmlEscape(deviceClass))\" name=\"\(xmlEscape(caseId))\">"
                    + "<skipped message=\"not run: the run was \(report.run.summary.status.rawValue)\"/></testcase>")
            }
            xml.append("  </testsuite>")
        }
        xml.append("</testsuites>")
        return xml.joined(separator: "\n") + "\n"
    }

    private func body(_ result: CaseResult, _ cell: CellResult, threshold: Severity?) -> [String] {
        var lines: [String] = []
        let open = cell.findings.filter { !$0.isKnown }
        switch cell.status {
        case .error:
            let failure = result.failure
            lines.append("      <error type=\"\(failure?.kind.rawValue ?? "error")\" message=\"\(xmlEscape(failure?.reason ?? "not audited"))\">"
                + xmlEscape("input: \(failure?.input ?? "-")") + "</error>")
        case .fail:
            for item in open where threshold.map({ item.finding.severity >= $0 }) == true {
                let f = item.finding
                lines.append("      <failure type=\"\(xmlEscape(f.rule))\" message=\"\(xmlEscape(f.message))\">"
                    + xmlEscape("\(f.subject): expected \(f.expected ?? "-"), actual \(f.actual ?? "-")"
                        + (f.remediation.map { "; fix: \($0)" } ?? ""))
                    + "</failure>")
            }
        case .known:
            let reasons = Array(Set(cell.findings.compactMap(\.knownReason))).sorted()
            lines.append("      <skipped message=\"\(xmlEscape("known: " + reasons.joined(separator: "; ")))\"/>")
        case .pass, .warn:
            break
        }
        let notes = cell.findings.filter { item in
            !(cell.status == .fail && !item.isKnown && threshold.map { item.finding.severity >= $0 } == true)
        }
        if !notes.isEmpty {
            let text = notes.map { "[\($0.isKnown ? "known" : $0.finding.severity.rawValue)] \($0.finding.rule): \($0.finding.subject): \($0.finding.message)" }
            lines.append("      <system-out>\(xmlEscape(text.joined(separator: "\n")))</system-out>")
        }
        return lines
    }
}
