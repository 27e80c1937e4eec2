import Reporting
import Compatibility
import Foundation
import Matrix

/// Sections of report.html beyond the grid.
enum MatrixHTML {
    /// A bar for the primary's duration with each interstitial placed at its offset, coloured
    /// by its worst status over the run's classes. Placement is drawn as given: explicit-input
    /// cases say "assumed pre-roll pod".
    static func timeline(_ result: CaseResult, report: MatrixReport) -> String {
        guard result.failure == nil, let primary = result.assets.first else {
            return "<span class=\"muted\">\(e(result.failure.map { "error: " + ($0.input.map(shortName) ?? $0.kind.rawValue) } ?? "no media"))</span>"
        }
        let interstitials = Array(result.assets.dropFirst())
        let ends = result.placements.compactMap { p in p.offset.map { $0 + (p.duration ?? 0) } }
        let span = max(primary.media.duration ?? 0, ends.max() ?? 0, 0.001)
        func pct(_ value: Double) -> String { String(format: "%.2f%%", min(100, max(0, value / span * 100))) }
        var h = "<div class=\"timeline\" title=\"primary \(e(shortName(primary.input))): \(e(durationText(primary.media.duration)))\">"
        h += "<div class=\"primary\" style=\"width:\(pct(primary.media.duration ?? span))\"></div>"
        for placement in result.placements where placement.interstitial < interstitials.count {
            let asset = interstitials[placement.interstitial]
            let status = report.status(of: asset, in: result)
            guard let offset = placement.offset else { continue }
            let width = max(placement.duration ?? span * 0.02, span * 0.01)
            h += "<div class=\"ad \(status.rawValue)\" style=\"left:\(pct(offset));width:\(pct(width))\" "
                + "title=\"\(e("\(asset.role) \(shortName(asset.input)) at \(durationText(offset)) for \(durationText(placement.duration)): \(status.rawValue)"))\">"
                + "\(placement.interstitial + 1)</div>"
        }
        h += "</div>"
        let basis = result.placements.first?.basis == .assumedPreRollPod ? "assumed pre-roll pod" : "from the schedule"
        h += "<div class=\"tlnote\">\(interstitials.count) interstitial(s), \(basis); primary \(e(durationText(primary.media.duration)))</div>"
        return h
    }

    static func durationText(_ seconds: Double?) -> String {
        seconds.map { String(format: "%.1f s", $0) } ?? "unknown duration"
    }

    static func changes(_ diff: RunDiff?) -> [String] {
        var h = ["<h2>Since the previous run</h2>"]
        guard let diff else { return h + ["<p class=\"muted\">First run of this matrix in the database.</p>"] }
        h.append("<p>Compared with run \(diff.from.id) (\(diff.from.status.rawValue)): <b>\(diff.newFindings.count)</b> new finding(s), "
            + "<b>\(diff.fixedFindings.count)</b> fixed, <b>\(diff.statusChanges.count)</b> cell(s) changed status.</p>")
        if !diff.statusChanges.isEmpty {
            h.append("<table class=\"list\"><tr><th>case</th><th>class</th><th>was</th><th>now</th></tr>")
            for c in diff.statusChanges {
                h.append("<tr><td><code>\(e(c.caseId))</code></td><td>\(e(c.deviceClass))</td><td class=\"\(c.from.rawValue)\">\(c.from.rawValue)</td>"
                    + "<td class=\"\(c.to.rawValue)\">\(c.to.rawValue)</td></tr>")
            }
            h.append("</table>")
        }
        for (label, list) in [("New", diff.newFindings), ("Fixed", diff.fixedFindings)] where !list.isEmpty {
            h.append("<h3>\(label)</h3><ul>")
            for f in list {
                h.append("<li class=\"\(label.lowercased())\"><code>\(e(f.caseId))</code> <code>\(e(f.rule))</code> on \(e(f.deviceClass ?? "all")) "
                    + "(\(f.severity.rawValue)\(f.known ? ", known" : "")): \(e(f.message))</li>")
            }
            h.append("</ul>")
        }
        return h
    }

    static func known(_ report: MatrixReport) -> [String] {
        let known = report.knownFindings
        var h: [String] = []
        if !known.isEmpty {
            h.append("<h2>Known issues</h2><table class=\"list\"><tr><th>case</th><th>class</th><th>rule</th><th>reason</th></tr>")
            for k in known {
                h.append("<tr><td><code>\(e(k.caseId))</code></td><td>\(e(k.deviceClass ?? "all"))</td><td><code>\(e(k.rule))</code></td><td>\(e(k.reason))</td></tr>")
            }
            h.append("</table>")
        }
        if !report.unusedExpectedIssues.isEmpty {
            h.append("<p class=\"muted\">Expected issues that matched nothing in this run (remove them?): "
                + report.unusedExpectedIssues.map { "<code>\(e("\($0.caseId) / \($0.rule) / \($0.deviceClass)"))</code>" }.joined(separator: ", ") + "</p>")
        }
        return h
    }

    static func errors(_ report: MatrixReport) -> [String] {
        let failed = report.run.cases.filter { $0.failure != nil }
        guard !failed.isEmpty else { return [] }
        return ["<h2>Errors</h2><ul>"] + failed.map {
            "<li><code>\(e($0.caseId))</code>: \(e($0.failure?.reason ?? ""))</li>"
        } + ["</ul>"]
    }

    static func encoder(_ view: EncoderCompatibility) -> [String] {
        var h: [String] = []
        if view.groups.isEmpty { return ["<p class=\"muted\">No case was audited.</p>"] }
        h.append(view.primariesAgree
            ? "<p class=\"ok\">Every primary asks for the same settings: one encoding of each interstitial plays seamlessly on every class.</p>"
            : "<p class=\"warnbox\">The primaries disagree among themselves (\(e(view.differingParameters.joined(separator: ", ")))): settings per group.</p>")
        for (index, group) in view.groups.enumerated() {
            h.append("<h3>\(view.groups.count > 1 ? "Group \(index + 1): " : "")\(group.cases.count) case(s), primaries "
                + group.primaries.map { "<code>\(e(shortName($0)))</code>" }.joined(separator: ", ") + "</h3>")
            h.append("<table class=\"list\"><tr><th>parameter</th><th>value</th><th>required by</th><th>ffmpeg options</th></tr>")
            for s in group.settings {
                let required = s.requiredBy.isEmpty ? "<span class=\"muted\">free</span>" : e(s.requiredBy.joined(separator: ", "))
                h.append("<tr><td>\(e(s.parameter))</td><td><b>\(e(s.value))</b></td><td>\(required)</td><td><code>\(e(s.arguments))</code></td></tr>")
            }
            h.append("</table><pre>ffmpeg -i INTERSTITIAL \(e(group.arguments)) OUTPUT.mp4</pre>")
            h.append("<p>\(group.interstitialsAlreadyMatching) of \(group.interstitials) interstitial(s) of these cases already match. Cases: "
                + group.cases.map { "<code>\(e($0))</code>" }.joined(separator: ", ") + "</p>")
            for caveat in group.caveats { h.append("<p class=\"warnbox\">\(e(caveat))</p>") }
        }
        if !view.casesWithoutMedia.isEmpty {
            h.append("<p class=\"muted\">Not included (could not be audited): \(e(view.casesWithoutMedia.joined(separator: ", ")))</p>")
        }
        return h
    }

    static let css = """
    body{font:14px/1.45 system-ui,sans-serif;margin:1.5em auto;max-width:92em;color:#222;padding:0 1em}
    h1{margin-bottom:.2em}h2{margin-top:1.6em;border-bottom:1px solid #ddd}h2.must{color:#a4161a}h2.should{color:#8a6100}
    code,pre{font-family:ui-monospace,monospace;font-size:.92em}pre{background:#f4f4f4;padding:.5em;overflow-x:auto;white-space:pre-wrap}
    .meta{color:#555}.muted{color:#777}.ok{color:#17692a}.warnbox{background:#fff3cd;padding:.4em .7em;border-left:4px solid #e0a800}
    .badge{padding:.1em .5em;border-radius:.7em;color:#fff;background:#555}.badge.completed{background:#2b8a3e}.badge.interrupted,.badge.abandoned{background:#c92a2a}
    .chip{display:inline-block;padding:.15em .6em;border-radius:.8em;font-weight:600}
    .pass{background:#d3f9d8}.warn{background:#fff3bf}.fail{background:#ffc9c9;color:#8a0c0c;font-weight:700}
    .known{background:#dbe4ff;color:#364fc7}.error{background:#495057;color:#fff;font-weight:700}
    table.grid{border-collapse:collapse;width:100%}table.grid th,table.grid td{border:1px solid #ccc;padding:.3em .5em;text-align:left;vertical-align:top}
    table.grid td{text-align:center;min-width:6em}table.grid thead th{background:#f1f3f5;position:sticky;top:0}
    table.list{border-collapse:collapse}table.list th,table.list td{border:1px solid #ddd;padding:.25em .6em;text-align:left}
    .tag{font-size:.75em;background:#e9ecef;border-radius:.5em;padding:0 .4em;color:#495057}.inputs{font-size:.8em;color:#666;font-weight:normal}
    td.tl,th.tl{min-width:16em;text-align:left!important;background:#fff!important;color:#222!important;font-weight:normal!important}
    .timeline{position:relative;height:1.4em;background:#f8f9fa;border:1px solid #dee2e6;border-radius:3px}
    .timeline .primary{position:absolute;left:0;top:60%;height:40%;background:#adb5bd}
    .timeline .ad{position:absolute;top:0;height:60%;border:1px solid #555;font-size:.7em;line-height:1.4;text-align:center;overflow:hidden;box-sizing:border-box}
    .tlnote{font-size:.75em;color:#777}.legend{font-size:.85em;color:#555}.count{font-size:.7em;color:#777}
    ul.fix li{margin-bottom:.4em}li.new{color:#a4161a}li.fixed{color:#17692a}
    """
}
