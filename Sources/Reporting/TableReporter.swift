import Compatibility
import Foundation

/// The terminal view: each interstitial with a rule x device-class grid, messages and the fix.
///
/// Every line is made of values from the inputs: each goes through `VisibleText` before colour
/// is added (`line`, and the grid's cells before their widths are measured).
public struct TableReporter: AuditReporter {
    public var color: Bool

    public init(color: Bool) {
        self.color = color
    }

    public func render(_ result: AuditResult) -> String {
        var out: [String] = []
        let primaryFindings = findings(for: result.primary, in: result)
        for asset in [result.primary] + result.interstitials {
            if asset.role != "primary" { out.append("") }
            out.append(bold(line(MediaText.heading(asset))))
            out += MediaText.mediaLines(asset).map { line("  " + $0) }
            out += MediaText.loudnessLines(asset).map { line("  " + $0) }
            let found = findings(for: asset, in: result)
            if asset.role == "primary" {
                if !primaryFindings.isEmpty {
                    out += grid(found, classes: result.deviceClasses).map { "  " + $0 }
                    out += Set(found.map(\.message)).sorted().map { line("  - " + $0) }
                }
                continue
            }
            if found.isEmpty {
                out.append("  " + paint("no findings: the switch is seamless on every device class audited", .green))
                continue
            }
            let skipped = Set(result.deviceClasses.filter { notAudited(asset, deviceClass: $0, in: result) })
            out.append(contentsOf: grid(found, classes: result.deviceClasses, notAudited: skipped).map { "  " + $0 })
            var seenMessages: Set<String> = []
            for finding in found where seenMessages.insert(finding.rule + finding.message).inserted {
                out.append(line("  - \(finding.rule): \(finding.message)" + (finding.accepted.map { " (accepted: \($0))" } ?? "")))
            }
            for command in remediationCommands(for: asset, in: result) {
                out.append(line("  \(command.label): \(command.text)"))
            }
        }
        let attributed = Set(([result.primary] + result.interstitials).flatMap { result.findings(for: $0) }.map(\.self))
        let general = result.findings.filter { !attributed.contains($0) }
        if !general.isEmpty {
            out.append("")
            out.append(bold("Playlist"))
            out += general.map { line("  [\($0.severity.rawValue)] \($0.rule): \($0.message) (\($0.subject))" + ($0.accepted.map { " (accepted: \($0))" } ?? "")) }
        }
        let summary = result.summary
        out.append("")
        if let loudness = result.loudness { out.append(line(loudness.summary)) }
        out.append(line("\(summary.error) error(s), \(summary.warning) warning(s), \(summary.info) info across "
            + "\(result.deviceClasses.count) device class(es): \(result.deviceClasses.joined(separator: ", "))"))
        return out.joined(separator: "\n") + "\n"
    }

    /// Rows: rules that fired; columns: device classes; cells: the severity, "-" where it did not fire.
    private func grid(_ found: [Finding], classes: [String], notAudited: Set<String> = []) -> [String] {
        var rules: [String] = []
        for finding in found where !rules.contains(finding.rule) { rules.append(finding.rule) }
        let ruleWidth = max(4, rules.map { line($0).count }.max() ?? 0)
        let widths = classes.map { max(line($0).count, notAudited.contains($0) ? 11 : 7) }
        var lines = [pad("rule", ruleWidth) + "  " + zip(classes, widths).map { pad(line($0), $1) }.joined(separator: "  ")]
        for rule in rules {
            var cells: [String] = []
            for (deviceClass, width) in zip(classes, widths) {
                // A finding without a class (an unreachable asset, a wrong CODECS) applies to every class.
                let severity = found.first { $0.rule == rule && ($0.deviceClass == deviceClass || $0.deviceClass == nil) }?.severity
                let text = rule == "media-not-probed" && notAudited.contains(deviceClass) ? "not audited" : severity?.label ?? "-"
                cells.append(paint(pad(text, width), severity.map(tone) ?? .dim))
            }
            lines.append(pad(line(rule), ruleWidth) + "  " + cells.joined(separator: "  "))
        }
        return lines
    }

    /// Text from the inputs, with its control characters made visible (before any colour).
    private func line(_ text: String) -> String {
        VisibleText.escape(text)
    }

    private func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }

    enum Tone: String { case red = "31", yellow = "33", blue = "36", green = "32", dim = "2" }

    private func tone(_ severity: Severity) -> Tone {
        switch severity {
        case .error: return .red
        case .warning: return .yellow
        case .info: return .blue
        }
    }

    private func paint(_ text: String, _ tone: Tone) -> String {
        color ? "\u{1B}[\(tone.rawValue)m\(text)\u{1B}[0m" : text
    }

    private func bold(_ text: String) -> String {
        color ? "\u{1B}[1m\(text)\u{1B}[0m" : text
    }
}
