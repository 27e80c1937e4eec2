import Compatibility
import Foundation

/// A Markdown report: an overview grid (interstitial x device class), then each interstitial's
/// findings grouped Must fix / Should fix / Good to know, with the ffmpeg command that fixes it.
/// Each line's control characters are made visible (`VisibleText`): the values come from inputs.
public struct MarkdownReporter: AuditReporter {
    public init() {}

    public func render(_ result: AuditResult) -> String {
        var md: [String] = []
        md.append("# Seamcheck audit")
        md.append("")
        md.append("Primary: `\(result.primary.input)`  ")
        md.append(MediaText.summary(result.primary.media))
        md.append("")
        let s = result.summary
        md.append("**\(s.error) error(s), \(s.warning) warning(s), \(s.info) info** across \(result.deviceClasses.count) device class(es).")
        if let loudness = result.loudness { md.append(""); md.append(loudness.summary.prefix(1).uppercased() + loudness.summary.dropFirst() + ".") }
        md.append("")
        md.append("## Overview")
        md.append("")
        md.append("| interstitial | " + result.deviceClasses.joined(separator: " | ") + " |")
        md.append("|---|" + result.deviceClasses.map { _ in "---" }.joined(separator: "|") + "|")
        for asset in result.interstitials {
            let cells = result.deviceClasses.map {
                notAudited(asset, deviceClass: $0, in: result) ? "not audited" : cell(worstSeverity(for: asset, deviceClass: $0, in: result))
            }
            md.append("| \(escape(asset.role)): `\(escape(MediaText.shortName(asset)))` | " + cells.joined(separator: " | ") + " |")
        }
        for asset in result.interstitials {
            md.append("")
            md.append("## \(MediaText.heading(asset))")
            md.append("")
            md += (MediaText.mediaLines(asset) + MediaText.loudnessLines(asset)).map { "- " + $0 }
            md.append("")
            let found = findings(for: asset, in: result)
            if found.isEmpty {
                md.append("No findings: the switch is seamless on every device class audited.")
                continue
            }
            for (title, severity) in [("Must fix", Severity.error), ("Should fix", .warning), ("Good to know", .info)] {
                let group = found.filter { $0.severity == severity }
                guard !group.isEmpty else { continue }
                md.append("### \(title)")
                md.append("")
                md.append("| rule | device classes | expected | actual | message |")
                md.append("|---|---|---|---|---|")
                var rules: [String] = []
                for finding in group where !rules.contains(finding.rule) { rules.append(finding.rule) }
                for rule in rules {
                    let rows = group.filter { $0.rule == rule }
                    let first = rows[0]
                    let classes = rows.compactMap(\.deviceClass).joined(separator: ", ")
                    md.append("| `\(rule)` | \(escape(classes)) | \(escape(first.expected ?? "")) | \(escape(first.actual ?? "")) | \(escape(first.message)) |")
                }
                md.append("")
            }
            for command in remediationCommands(for: asset, in: result) {
                md.append(command.label == "fix" ? "Re-encode to match the primary:" : "Re-encode to match the primary (\(command.label)):")
                md.append("")
                md.append("```sh")
                md.append(command.text)
                md.append("```")
            }
        }
        return VisibleText.escape(lines: md).joined(separator: "\n") + "\n"
    }

    private func cell(_ severity: Severity?) -> String {
        switch severity {
        case .none: return "pass"
        case .some(.info): return "info"
        case .some(.warning): return "**warning**"
        case .some(.error): return "**ERROR**"
        }
    }

    private func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "|", with: "\\|").replacingOccurrences(of: "\n", with: " ")
    }
}
