import Foundation
import Lab

/// `seamcheck lab report` formats.
public enum LabReportFormat: String, CaseIterable, Sendable {
    case table, json, markdown, html, junit

    public func render(_ report: LabReport) -> String {
        switch self {
        case .table: return LabReportText.table(report)
        case .json: return LabReportText.json(report)
        case .markdown: return LabReportText.markdown(report)
        case .html: return LabReportText.html(report)
        case .junit: return LabReportText.junit(report)
        }
    }
}

/// Text is escaped for each format: receiver names, notes and paths come from the network and operators.
enum LabReportText {
    static func mark(_ cell: LabReportCell) -> String {
        switch cell.agrees {
        case true?: return "agrees"
        case false?: return "DISAGREES"
        case nil: return cell.observed == nil ? "not observed" : "not compared"
        }
    }

    static func table(_ report: LabReport) -> String {
        var out = "lab report: \(report.summary.cells) receiver cells, \(report.summary.agree) agree, "
            + "\(report.summary.disagree) disagree, \(report.summary.unobserved) without a verdict\n\n"
        if report.cells.isEmpty {
            out += "no verdicts or sessions yet: play cases from the lab page (lab serve) and record verdicts\n"
        } else {
            var rows = [["CASE", "CLASS", "RECEIVER", "PREDICTED", "OBSERVED", "", "EVIDENCE"]]
            for cell in report.cells {
                rows.append([cell.case, cell.deviceClass ?? "-", cell.receiver ?? "-", cell.predicted ?? "-", cell.observed ?? "-",
                             mark(cell), cell.evidence])
            }
            out += Reporting.table(rows)
        }
        let tested = report.classes.filter { !$0.verdicts.isEmpty }
        if !tested.isEmpty {
            var rows = [["CASE", "CLASS", "PREDICTED", "OBSERVED (worst)", "", "RECEIVERS"]]
            for cell in tested {
                rows.append([cell.case, cell.deviceClass ?? "-", cell.predicted ?? "-", cell.observed ?? "-", mark(cell), cell.evidence])
            }
            out += "\nper device class:\n" + Reporting.table(rows)
        }
        return out
    }

    static func json(_ report: LabReport) -> String {
        JSONOutput.encode(report)
    }

    static func markdown(_ report: LabReport) -> String {
        var md = ["# Seamcheck lab report", "",
                  "\(report.summary.cells) receiver cells: \(report.summary.agree) agree, \(report.summary.disagree) disagree, "
                  + "\(report.summary.unobserved) without a verdict.", "",
                  "| case | class | receiver | predicted | observed | | evidence |", "|---|---|---|---|---|---|---|"]
        for cell in report.cells {
            md.append("| `\(markdownCell(cell.case))` | \(markdownCell(cell.deviceClass ?? "-")) | \(markdownCell(cell.receiver ?? "-")) | "
                      + "\(cell.predicted ?? "-") | \(markdownCell(cell.observed ?? "-")) | "
                      + (cell.agrees == false ? "**\(mark(cell))**" : mark(cell)) + " | \(markdownCell(cell.evidence)) |")
        }
        let tested = report.classes.filter { !$0.verdicts.isEmpty }
        if !tested.isEmpty {
            md += ["", "## Per device class", "", "| case | class | predicted | observed (worst) | | receivers |", "|---|---|---|---|---|---|"]
            for cell in tested {
                md.append("| `\(markdownCell(cell.case))` | \(markdownCell(cell.deviceClass ?? "-")) | \(cell.predicted ?? "-") | "
                          + "\(markdownCell(cell.observed ?? "-")) | \(mark(cell)) | \(markdownCell(cell.evidence)) |")
            }
        }
        return md.joined(separator: "\n") + "\n"
    }

    static func html(_ report: LabReport) -> String {
        func row(_ cell: LabReportCell, receiver: Bool) -> String {
            let style = cell.agrees == false ? " class=\"bad\"" : cell.agrees == true ? " class=\"ok\"" : ""
            return "<tr\(style)><td><code>\(xmlEscape(cell.case))</code></td><td>\(xmlEscape(cell.deviceClass ?? "-"))</td>"
                + (receiver ? "<td>\(xmlEscape(cell.receiver ?? "-"))</td>" : "")
                + "<td>\(xmlEscape(cell.predicted ?? "-"))</td><td>\(xmlEscape(cell.observed ?? "-"))</td>"
                + "<td>\(mark(cell))</td><td>\(xmlEscape(cell.evidence))</td></tr>"
        }
        let tested = report.classes.filter { !$0.verdicts.isEmpty }
        return """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
        <title>Seamcheck lab report</title>
        <style>body{font:14px/1.4 system-ui,sans-serif;margin:1em auto;max-width:1100px;padding:0 1em}
        table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #ccc;padding:4px 6px;text-align:left;vertical-align:top}
        tr.bad td{background:#fdecea}tr.ok td{background:#edf7ed}</style></head><body>
        <h1>Seamcheck lab report</h1>
        <p>\(report.summary.cells) receiver cells: \(report.summary.agree) agree, \(report.summary.disagree) disagree, \(report.summary.unobserved) without a verdict.</p>
        <table><thead><tr><th>case</th><th>class</th><th>receiver</th><th>predicted</th><th>observed</th><th></th><th>evidence</th></tr></thead><tbody>
        \(report.cells.map { row($0, receiver: true) }.joined(separator: "\n"))
        </tbody></table>
        <h2>Per device class</h2>
        <table><thead><tr><th>case</th><th>class</th><th>predicted</th><th>observed (worst)</th><th></th><th>receivers</th></tr></thead><tbody>
        \(tested.map { row($0, receiver: false) }.joined(separator: "\n"))
        </tbody></table></body></html>

        """
    }

    /// A test case per receiver cell: a disagreement is a failure, a cell without a verdict is skipped.
    static func junit(_ report: LabReport) -> String {
        var xml = ["<?xml version=\"1.0\" encoding=\"UTF-8\"?>",
                   "<testsuites name=\"seamcheck lab\" tests=\"\(report.cells.count)\" failures=\"\(report.summary.disagree)\">"]
        let byCase = Dictionary(grouping: report.cells, by: \.case)
        for caseId in byCase.keys.sorted() {
            let cells = byCase[caseId]!
            xml.append("  <testsuite name=\"\(xmlEscape(caseId))\" tests=\"\(cells.count)\" failures=\"\(cells.filter { $0.agrees == false }.count)\" "
                       + "skipped=\"\(cells.filter { $0.agrees == nil }.count)\">")
            for cell in cells {
                let name = xmlEscape("\(cell.receiver ?? "-") (\(cell.deviceClass ?? "unclassified"))")
                xml.append("    <testcase classname=\"\(xmlEscape(caseId))\" name=\"\(name)\">")
                if cell.agrees == false {
                    xml.append("      <failure message=\"predicted \(xmlEscape(cell.predicted ?? "-")), observed \(xmlEscape(cell.observed ?? "-"))\">"
                               + xmlEscape(cell.evidence) + "</failure>")
                } else if cell.agrees == nil {
                    xml.append("      <skipped message=\"\(xmlEscape(mark(cell)))\"/>")
                }
                xml.append("    </testcase>")
            }
            xml.append("  </testsuite>")
        }
        xml.append("</testsuites>")
        return xml.joined(separator: "\n") + "\n"
    }
}

/// Text for a Markdown table cell: pipes escaped, one line, control characters visible.
func markdownCell(_ text: String) -> String {
    VisibleText.escape(text).replacingOccurrences(of: "|", with: "\\|").replacingOccurrences(of: "\n", with: " ")
}
