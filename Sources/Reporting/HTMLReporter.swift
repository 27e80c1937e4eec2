import Compatibility
import Foundation

/// A self-contained HTML page: the interstitial x device-class grid and each interstitial's
/// findings grouped Must fix / Should fix / Good to know, with the fix as an ffmpeg command.
public struct HTMLReporter: AuditReporter {
    public init() {}

    public func render(_ result: AuditResult) -> String {
        var h: [String] = []
        h.append("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Seamcheck audit</title>")
        h.append("<style>\(Self.css)</style></head><body>")
        h.append("<h1>Seamcheck audit</h1>")
        h.append("<p>Primary <code>\(xmlEscape(result.primary.input))</code><br>\(xmlEscape(MediaText.summary(result.primary.media)))</p>")
        let s = result.summary
        h.append("<p class=\"summary\">\(s.error) error(s), \(s.warning) warning(s), \(s.info) info across \(result.deviceClasses.count) device class(es)</p>")
        if let loudness = result.loudness { h.append("<p>\(xmlEscape(loudness.summary))</p>") }
        h.append("<table class=\"grid\"><thead><tr><th>interstitial</th>")
        h.append(result.deviceClasses.map { "<th>\(xmlEscape($0))</th>" }.joined())
        h.append("</tr></thead><tbody>")
        for asset in result.interstitials {
            h.append("<tr><th>\(xmlEscape(asset.role)): <code>\(xmlEscape(MediaText.shortName(asset)))</code></th>")
            for deviceClass in result.deviceClasses {
                let severity = worstSeverity(for: asset, deviceClass: deviceClass, in: result)
                let label = severity.map { $0 == .error ? "fail" : $0 == .warning ? "warn" : "info" } ?? "pass"
                if notAudited(asset, deviceClass: deviceClass, in: result) {
                    h.append("<td class=\"warn\">not audited</td>")
                } else {
                    h.append("<td class=\"\(label)\">\(label)</td>")
                }
            }
            h.append("</tr>")
        }
        h.append("</tbody></table>")
        for asset in result.interstitials {
            h.append("<section><h2>\(xmlEscape(MediaText.heading(asset)))</h2>")
            h.append("<ul>" + (MediaText.mediaLines(asset) + MediaText.loudnessLines(asset))
                .map { "<li>\(xmlEscape($0))</li>" }.joined() + "</ul>")
            let found = findings(for: asset, in: result)
            if found.isEmpty { h.append("<p class=\"pass\">No findings: the switch is seamless on every device class audited.</p>") }
            for (title, severity) in [("Must fix", Severity.error), ("Should fix", .warning), ("Good to know", .info)] {
                let group = found.filter { $0.severity == severity }
                guard !group.isEmpty else { continue }
                h.append("<h3>\(title)</h3><ul>")
                var rules: [String] = []
                for finding in group where !rules.contains(finding.rule) { rules.append(finding.rule) }
                for rule in rules {
                    let rows = group.filter { $0.rule == rule }
                    let classes = rows.compactMap(\.deviceClass).joined(separator: ", ")
                    h.append("<li><code>\(xmlEscape(rule))</code> on \(xmlEscape(classes)): \(xmlEscape(rows[0].message))</li>")
                }
                h.append("</ul>")
            }
            for command in remediationCommands(for: asset, in: result) {
                let intro = command.label == "fix" ? "Re-encode to match the primary:" : "Re-encode to match the primary (\(command.label)):"
                h.append("<p>\(xmlEscape(intro))</p><pre>\(xmlEscape(command.text))</pre>")
            }
            h.append("</section>")
        }
        h.append("</body></html>")
        return h.joined(separator: "\n") + "\n"
    }

    static let css = """
    body{font:15px/1.45 system-ui,sans-serif;margin:2em auto;max-width:70em;color:#222;padding:0 1em}
    code,pre{font-family:ui-monospace,monospace}pre{background:#f4f4f4;padding:.6em;overflow-x:auto}
    table.grid{border-collapse:collapse}table.grid th,table.grid td{border:1px solid #ccc;padding:.3em .7em;text-align:left}
    td.pass{background:#dff5e1}td.info{background:#e3effc}td.warn{background:#fff3cd}td.fail{background:#f8d7da;font-weight:bold}
    p.pass{color:#17692a}.summary{font-weight:bold}
    """
}
