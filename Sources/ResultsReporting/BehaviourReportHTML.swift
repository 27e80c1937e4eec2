import Reporting
import Foundation
import LabCore

extension BehaviourReportText {
    /// The conformance table as one self-contained page, readable without script: each cell coloured
    /// by its outcome, its reason in a tooltip (`title`) and, opened, every check's expected against
    /// observed and the requests that decided it.
    static func html(_ report: BehaviourReport) -> String {
        let header = report.features.map { feature in
            "<th title=\"\(xmlEscape(feature.title))\"><code>\(xmlEscape(feature.feature))</code></th>"
        }.joined()
        let rows = report.receivers.map { row in
            "<tr><th class=\"rx\">\(xmlEscape(row.receiver))<br><small>\(xmlEscape(row.deviceClass ?? "no class"))</small></th>"
                + report.features.map { cellHTML(report.cell(row.receiver, $0.feature)) }.joined() + "</tr>"
        }.joined(separator: "\n")
        let classes = Array(Set(report.classes.map(\.deviceClass))).sorted()
        let classTable = classes.isEmpty ? "<p>No receiver has a device class: pin one with <code>--inventory</code>.</p>"
            : "<table><thead><tr><th>class</th>\(header)</tr></thead><tbody>\n" + classes.map { deviceClass in
                "<tr><th class=\"rx\">\(xmlEscape(deviceClass))</th>" + report.features.map { feature in
                    let cell = report.classes.first { $0.deviceClass == deviceClass && $0.feature == feature.feature }
                    let worst = cell.flatMap { $0.counts.keys.compactMap(BehaviourOutcome.init(rawValue:)).min() }
                    return "<td class=\"\(css(worst))\">\(xmlEscape(cell?.summary ?? "-"))</td>"
                }.joined() + "</tr>"
            }.joined(separator: "\n") + "\n</tbody></table>"
        let empty = report.cells.isEmpty ? "<p>No behaviour case played yet: <code>seamcheck lab run --case 'behaviour-*'</code>, or play them from the lab page.</p>" : ""
        return """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
        <title>Seamcheck behaviour report</title>
        <style>body{font:14px/1.4 system-ui,sans-serif;margin:1em auto;max-width:1600px;padding:0 1em}
        table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:4px 6px;text-align:left;vertical-align:top}
        thead th{font-weight:normal;writing-mode:vertical-rl;transform:rotate(180deg);white-space:nowrap}th.rx{white-space:nowrap}
        td{min-width:6em;font-size:13px}.wide{overflow-x:auto}td.conforms{background:#e3f4e3}td.deviates{background:#fbdcd9}td.ignores{background:#fdf0c8}
        td.not-judged{background:#eef0f3;color:#555}td.not-applicable{background:#f7f7f7;color:#888}
        details summary{cursor:pointer;font-weight:600}details p{margin:.2em 0}ul{margin:.2em 0;padding-left:1.1em}
        .ok{color:#1b6e1b}.bad{color:#a3261b}.open{color:#666}code,pre{font-size:12px}pre{margin:.2em 0;white-space:pre-wrap}</style></head><body>
        <h1>Seamcheck behaviour report</h1>
        <p>\(xmlEscape(headline(report))). Receivers as rows, interstitial features as columns (draft-pantos-hls-rfc8216bis-22 Appendix D); the newest judgement of each receiver and feature, from <code>lab run</code> cells and sessions played from the lab page. Open a cell for what was expected and what happened.</p>
        <p><small>\(xmlEscape(legend))</small></p>
        \(empty)
        <div class="wide"><table class="behaviour"><thead><tr><th>receiver</th>\(header)</tr></thead><tbody>
        \(rows)
        </tbody></table></div>
        <h2>Per device class</h2>
        \(classTable)
        </body></html>

        """
    }

    static func css(_ outcome: BehaviourOutcome?) -> String {
        outcome.map { $0.rawValue.replacingOccurrences(of: " ", with: "-") } ?? "none"
    }

    static func cellHTML(_ cell: BehaviourReportCell?) -> String {
        guard let cell else { return "<td class=\"none\">-</td>" }
        let checks = cell.checks.map { check in
            let style = check.outcome == .conforms ? "ok" : check.outcome == .deviates ? "bad" : "open"
            return "<li class=\"\(style)\"><b>\(xmlEscape(check.kind.rawValue))</b> \(xmlEscape(check.outcome.rawValue)): "
                + "expected \(xmlEscape(check.expected)); observed \(xmlEscape(check.observed))</li>"
        }.joined()
        let evidence = cell.evidence.isEmpty ? "" : "<pre>\(xmlEscape(cell.evidence.joined(separator: "\n")))</pre>"
        return "<td class=\"\(css(cell.outcome))\" title=\"\(xmlEscape(cell.why ?? cell.outcome.rawValue))\"><details><summary>"
            + "\(xmlEscape(mark(cell)))</summary><p>\(xmlEscape(detail(cell)))</p>"
            + (checks.isEmpty ? "" : "<ul>\(checks)</ul>") + evidence + "</details></td>"
    }
}
