import Compatibility
import Foundation
import LabCore
import HLS
import Reporting

/// `lab report --compare RUN_A RUN_B`: what got worse, better, new and gone per receiver and
/// case, with the receiver's software on each side; table, JSON, Markdown or HTML.
public enum RunComparisonText {
    public static func render(_ comparison: RunComparison, format: LabReportFormat) -> String {
        switch format {
        case .json: return String(decoding: try! JSONDocument.encoder(dates: .iso8601Milliseconds).encode(comparison), as: UTF8.self) + "\n"
        case .markdown: return markdown(comparison)
        case .html: return html(comparison)
        case .table, .junit: return table(comparison)
        }
    }

    static func summary(_ c: RunComparison) -> String {
        "run \(c.after) against \(c.before): " + ["worse", "better", "new", "gone"].map { "\(c.counts[$0] ?? 0) \($0)" }.joined(separator: ", ")
            + " (a stall is worse when \(String(format: "%.0f", c.thresholds.stallChangeMs)) ms longer)"
    }

    static func label(_ station: String?, _ receiver: String) -> String { receiver + (station.map { " @ \($0)" } ?? "") }

    static func software(_ side: RunComparison.Side?) -> String { side.map { $0.software?.summary ?? "unknown" } ?? "-" }

    public static func table(_ c: RunComparison) -> String {
        var rows: [[String]] = [["CHANGE", "RECEIVER", "CASE", "WHAT", "FIRMWARE"]]
        for e in c.entries {
            rows.append([e.change.rawValue.uppercased(), label(e.station, e.receiver), e.caseId, e.what,
                         e.firmwareChanged ? "changed: \(software(e.before)) -> \(software(e.after))" : software(e.after)])
        }
        var text = summary(c) + "\n"
        for f in c.firmware { text += "firmware changed on \(label(f.station, f.receiver)): \(f.changes.joined(separator: ", "))\n" }
        if c.entries.isEmpty { return text + "no cell changed\n" }
        let widths = (0..<5).map { column in min(rows.map { $0[column].count }.max() ?? 0, 60) }
        for row in rows {
            text += row.enumerated().map { index, cell in
                index == 4 ? cell : cell.padding(toLength: max(widths[index], cell.count), withPad: " ", startingAt: 0)
            }.joined(separator: "  ") + "\n"
        }
        return VisibleText.escape(lines: text.components(separatedBy: "\n")).joined(separator: "\n")
    }

    static func markdown(_ c: RunComparison) -> String {
        func cell(_ text: String) -> String { text.replacingOccurrences(of: "|", with: "\\|").replacingOccurrences(of: "\n", with: " ") }
        var text = "# Lab runs compared\n\n" + cell(summary(c)) + "\n\n"
        for f in c.firmware { text += "- firmware changed on \(cell(label(f.station, f.receiver))): \(cell(f.changes.joined(separator: ", ")))\n" }
        text += "\n| change | receiver | case | what | software before | software after |\n|---|---|---|---|---|---|\n"
        for e in c.entries {
            text += "| \(e.change.rawValue) | \(cell(label(e.station, e.receiver))) | \(cell(e.caseId)) | \(cell(e.what)) | "
                + "\(cell(software(e.before))) | \(cell(software(e.after)))\(e.firmwareChanged ? " (changed)" : "") |\n"
        }
        return text
    }

    static func html(_ c: RunComparison) -> String {
        let rows = c.entries.map { e in
            "<tr class=\"\(e.change.rawValue)\"><td>\(e.change.rawValue)</td><td>\(xmlEscape(label(e.station, e.receiver)))</td>"
                + "<td><code>\(xmlEscape(e.caseId))</code></td><td>\(xmlEscape(e.what))</td><td>\(xmlEscape(software(e.before)))</td>"
                + "<td>\(xmlEscape(software(e.after)))\(e.firmwareChanged ? " <b class=\"fw\">firmware changed</b>" : "")</td></tr>"
        }.joined(separator: "\n")
        let firmware = c.firmware.map { "<p class=\"fw\">firmware changed on \(xmlEscape(label($0.station, $0.receiver))): \(xmlEscape($0.changes.joined(separator: ", ")))</p>" }
            .joined(separator: "\n")
        return """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><title>Seamcheck lab runs compared</title>
        <style>body{font:14px/1.4 system-ui,sans-serif;margin:1em auto;max-width:1200px;padding:0 1em}table{border-collapse:collapse;width:100%}
        td,th{border-bottom:1px solid #ccc;padding:4px 6px;text-align:left}tr.worse td{background:#fdecea}tr.better td{background:#edf7ed}.fw{color:#b26a00}</style>
        </head><body><h1>Lab runs compared</h1><p>\(xmlEscape(summary(c)))</p>
        \(firmware)
        <table><thead><tr><th>change</th><th>receiver</th><th>case</th><th>what</th><th>software before</th><th>software after</th></tr></thead><tbody>
        \(rows)
        </tbody></table></body></html>

        """
    }
}

/// `lab run --fail-on`: the gate's findings as JUnit (a testsuite per receiver, a testcase per
/// case; open findings fail, accepted ones are skipped with their reason) and as SARIF (through
/// Reporting's writer: one result per finding, accepted ones suppressed with their reason).
public enum LabGateReports {
    public static func junit(_ gate: LabGateResult, cells: [LabCellBrief]) -> String {
        let played = cells.filter(\.done)
        let byReceiver = Dictionary(grouping: played) { RunComparisonText.label($0.station, $0.receiver) }
        let open = gate.findings.filter(\.isOpen)
        var xml = ["<?xml version=\"1.0\" encoding=\"UTF-8\"?>",
                   "<testsuites name=\"\(xmlEscape("seamcheck lab run " + gate.runId))\" tests=\"\(played.count)\" failures=\"\(Set(open.map { "\($0.receiver)|\($0.station ?? "")|\($0.caseId)" }).count)\">"]
        for (receiver, cells) in byReceiver.sorted(by: { $0.key < $1.key }) {
            let findings = gate.findings.filter { RunComparisonText.label($0.station, $0.receiver) == receiver }
            let failing = Set(findings.filter(\.isOpen).map(\.caseId))
            xml.append("  <testsuite name=\"\(xmlEscape(receiver))\" tests=\"\(cells.count)\" failures=\"\(failing.count)\" errors=\"0\">")
            for cell in cells.sorted(by: { $0.caseId < $1.caseId }) {
                let mine = findings.filter { $0.caseId == cell.caseId }
                xml.append("    <testcase classname=\"\(xmlEscape(receiver))\" name=\"\(xmlEscape(cell.caseId))\" "
                           + "time=\"\(String(format: "%.3f", max(cell.finishedAt.timeIntervalSince(cell.startedAt), 0)))\">")
                for finding in mine where finding.isOpen {
                    xml.append("      <failure type=\"\(finding.rule)\" message=\"\(xmlEscape(message(finding)))\">" + xmlEscape(evidence(finding)) + "</failure>")
                }
                let accepted = mine.filter { !$0.isOpen }
                if !accepted.isEmpty, mine.allSatisfy({ !$0.isOpen }) {
                    xml.append("      <skipped message=\"\(xmlEscape("accepted: " + accepted.compactMap(\.accepted).joined(separator: "; ")))\"/>")
                }
                xml.append("      <system-out>\(xmlEscape("\(RunComparer.describe(cell)): \(cell.reason)"))</system-out>")
                xml.append("    </testcase>")
            }
            xml.append("  </testsuite>")
        }
        xml.append("</testsuites>")
        return xml.joined(separator: "\n") + "\n"
    }

    public static func sarif(_ gate: LabGateResult) -> String {
        SARIFReporter().render(gate.findings.map { finding in
            SARIFItem(finding: Finding(rule: finding.rule, severity: .error, deviceClass: finding.deviceClass,
                                       subject: "\(RunComparisonText.label(finding.station, finding.receiver)) / \(finding.caseId)",
                                       expected: finding.baseline ?? (finding.condition == .stall ? "seamless" : "played"),
                                       actual: finding.evidence, message: message(finding), remediation: finding.firmware.map { "receiver software: \($0)" },
                                       accepted: finding.accepted),
                      input: "lab-run:\(gate.runId)", caseId: finding.caseId)
        })
    }

    /// "regression on Den TV: control-stitched".
    static func message(_ f: LabGateFinding) -> String {
        let what = f.condition == .regression ? "regression" : f.condition == .stall ? "stall" : "failed"
        return "\(what) on \(RunComparisonText.label(f.station, f.receiver)): \(f.caseId)"
    }

    static func evidence(_ f: LabGateFinding) -> String {
        var lines = ["receiver: \(RunComparisonText.label(f.station, f.receiver))" + (f.deviceClass.map { " (\($0))" } ?? ""),
                     "case: \(f.caseId)", "run: \(f.runId)", "evidence: \(f.evidence)"]
        if let baseline = f.baseline { lines.append("baseline: \(baseline)") }
        if let firmware = f.firmware { lines.append("software: \(firmware)") }
        return lines.joined(separator: "\n")
    }
}
