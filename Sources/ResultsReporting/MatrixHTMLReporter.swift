import Reporting
import Compatibility
import Foundation
import Matrix

/// report.html, self-contained (inline CSS, no script): the case x device class grid with a
/// timeline per case, what changed since the previous run, Must fix / Should fix with the
/// ffmpeg fixes, known issues, errors and the encoder settings.
public struct MatrixHTMLReporter: MatrixReporter {
    public init() {}

    public func render(_ report: MatrixReport) -> String {
        let s = report.run.summary
        var h: [String] = []
        h.append("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">")
        h.append("<title>\(e("Seamcheck matrix: " + s.matrixName))</title><style>\(MatrixHTML.css)</style></head><body>")
        h.append("<h1>Seamcheck matrix: \(e(s.matrixName))</h1>")
        h.append("<p class=\"meta\">Run \(s.id) <span class=\"badge \(s.status.rawValue)\">\(s.status.rawValue)</span> started "
            + "\(e(ISO8601DateFormatter().string(from: s.startedAt))) &middot; \(report.run.cases.count) of \(s.plannedCases) case(s) "
            + "&times; \(s.deviceClasses.count) device class(es) &middot; fail-on <code>\(s.failOn.rawValue)</code>"
            + (s.probesPerformed.map { " &middot; \($0) probe(s) for \(s.distinctInputs ?? $0) distinct input(s)" } ?? "") + "</p>")
        h.append("<p class=\"chips\">" + CellStatus.allCases.map {
            "<span class=\"chip \($0.rawValue)\">\(report.counts[$0] ?? 0) \($0.rawValue)</span>"
        }.joined(separator: " ") + "</p>")
        if !report.unfinishedCases.isEmpty {
            h.append("<p class=\"warnbox\">Not finished (the run was \(s.status.rawValue)): "
                + report.unfinishedCases.map { "<code>\(e($0))</code>" }.joined(separator: ", ") + "</p>")
        }
        h += grid(report)
        h += MatrixHTML.changes(report.changes)
        h += fixes(report)
        h += MatrixHTML.known(report)
        h += MatrixHTML.errors(report)
        h.append("<h2 id=\"encoder\">Encoder settings for interstitials</h2>")
        h += MatrixHTML.encoder(report.encoder)
        h.append("</body></html>")
        return h.joined(separator: "\n") + "\n"
    }

    private func grid(_ report: MatrixReport) -> [String] {
        var h = ["<h2>Cases &times; device classes</h2>", "<table class=\"grid\"><thead><tr><th>case</th>"
            + report.deviceClasses.map { "<th>\(e($0))</th>" }.joined() + "<th class=\"tl\">interstitials on the primary's timeline</th></tr></thead><tbody>"]
        for result in report.run.cases {
            var row = "<tr><th><code>\(e(result.caseId))</code>" + result.tags.map { " <span class=\"tag\">\(e($0))</span>" }.joined()
                + "<div class=\"inputs\">\(e(shortName(result.primary)))</div></th>"
            for deviceClass in report.deviceClasses {
                guard let cell = result.cell(deviceClass) else { row += "<td>-</td>"; continue }
                row += "<td class=\"\(cell.status.rawValue)\" title=\"\(e(tooltip(cell, result)))\">\(cell.status.rawValue)</td>"
            }
            row += "<td class=\"tl\">" + MatrixHTML.timeline(result, report: report) + "</td></tr>"
            h.append(row)
        }
        h.append("</tbody></table>")
        h.append("<p class=\"legend\">" + CellStatus.allCases.map { "<span class=\"chip \($0.rawValue)\">\($0.rawValue)</span> \(legend($0))" }
            .joined(separator: " &nbsp; ") + "</p>")
        return h
    }

    private func tooltip(_ cell: CellResult, _ result: CaseResult) -> String {
        if cell.status == .error { return result.failure?.reason ?? "" }
        return cell.findings.map { "\($0.isKnown ? "known" : $0.finding.severity.rawValue): \($0.finding.rule)" }.joined(separator: "\n")
    }

    private func legend(_ status: CellStatus) -> String {
        switch status {
        case .pass: return "seamless (info at most)"
        case .known: return "accepted issue"
        case .warn: return "warnings"
        case .fail: return "at or above fail-on"
        case .error: return "could not audit"
        }
    }

    private func fixes(_ report: MatrixReport) -> [String] {
        var h: [String] = []
        for (title, severity) in [("Must fix", Severity.error), ("Should fix", .warning)] {
            let groups = report.openFindings(severity)
            h.append("<h2 class=\"\(severity == .error ? "must" : "should")\">\(title)</h2>")
            guard !groups.isEmpty else { h.append("<p class=\"ok\">Nothing.</p>"); continue }
            for group in groups {
                h.append("<h3><code>\(e(group.rule))</code> <span class=\"count\">\(group.occurrences.count)</span></h3><ul class=\"fix\">")
                for o in group.occurrences {
                    h.append("<li><code>\(e(o.caseId))</code> \(e(o.subject)) on <b>\(e(o.deviceClasses.joined(separator: ", ")))</b>: "
                        + "\(e(o.message))" + (o.remediation.map { "<pre>\(e($0))</pre>" } ?? "") + "</li>")
                }
                h.append("</ul>")
            }
        }
        return h
    }
}

func e(_ text: String) -> String { xmlEscape(text) }
