import HLS

/// Bounds on what a report says about an absurd input, so that a small hostile playlist cannot
/// make lint or audit write hundreds of megabytes (64 KiB URIs from EXT-X-DEFINE, repeated in
/// every finding's subject, expected, actual and message; tens of thousands of findings).
///
/// What is cut is said in one more finding, `report-truncated`, as severe as the worst finding
/// left out, so that `--fail-on` still sees it. Counts and summaries see only what is kept.
public struct ReportLimits: Sendable, Equatable {
    public static let ruleID = "report-truncated"

    /// The most bytes (UTF-8) of one text of a finding; longer texts keep their start and end.
    public var maxTextLength: Int
    public var maxFindings: Int

    public init(maxTextLength: Int = 2_048, maxFindings: Int = 10_000) {
        self.maxTextLength = maxTextLength
        self.maxFindings = maxFindings
    }

    /// `findings` with long texts shortened and at most `maxFindings` (plus the one saying so).
    public func apply(_ findings: [Finding]) -> [Finding] {
        var kept = Array(findings.prefix(maxFindings))
        let dropped = findings.dropFirst(maxFindings)
        var shortened = 0
        for index in kept.indices {
            var finding = kept[index]
            let before = finding
            finding.subject = shorten(finding.subject)
            finding.expected = finding.expected.map(shorten)
            finding.actual = finding.actual.map(shorten)
            finding.message = shorten(finding.message)
            finding.remediation = finding.remediation.map(shorten)
            if finding != before { shortened += 1; kept[index] = finding }
        }
        guard shortened > 0 || !dropped.isEmpty else { return findings }
        var parts: [String] = []
        if shortened > 0 {
            parts.append("\(shortened) finding(s) had texts longer than \(maxTextLength) bytes; their middles are cut")
        }
        var severity = Severity.info
        if !dropped.isEmpty {
            severity = dropped.map(\.severity).max() ?? .info
            var byRule: [String: Int] = [:]
            var order: [String] = []
            for finding in dropped {
                if byRule[finding.rule] == nil { order.append(finding.rule) }
                byRule[finding.rule, default: 0] += 1
            }
            parts.append("\(dropped.count) finding(s) after the first \(maxFindings) are left out ("
                         + order.map { "\($0): \(byRule[$0]!)" }.joined(separator: ", ") + ")")
        }
        kept.append(Finding(rule: Self.ruleID, severity: severity, deviceClass: nil, subject: "this report",
                            expected: "at most \(maxFindings) findings of at most \(maxTextLength) bytes per text",
                            actual: "\(findings.count) findings", message: parts.joined(separator: "; "), remediation: nil))
        return kept
    }

    /// About the first two thirds and the last third of the allowance, cut between scalars,
    /// with the number of bytes cut between them. Never counts characters: that walk
    /// over a 64 KiB text per finding was most of what reporting cost.
    func shorten(_ text: String) -> String { BoundedText.clip(text, maxBytes: maxTextLength) }
}
