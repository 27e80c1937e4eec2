import Foundation

/// What makes `lab run --fail-on` exit 1: a failed cell, a stalled cell, or a regression against
/// the baseline run. Each is a rule id that `.seamcheck.yml`'s `accepted` entries can name
/// (with `case`, `class` and `subject`: the receiver), so a known issue with a reason never fails
/// the build.
public enum LabGateCondition: String, Codable, Sendable, CaseIterable {
    case failed, stall, regression

    /// The rule id findings of this condition carry (JUnit, SARIF, `accepted` entries).
    public var rule: String { "lab-" + rawValue }

    public static var rules: [String] { allCases.map(\.rule) }
}

/// One cell that trips a condition.
public struct LabGateFinding: Codable, Sendable, Equatable {
    public var condition: LabGateCondition
    public var rule: String
    public var runId: String
    public var station: String?
    public var receiver: String
    public var deviceClass: String?
    public var caseId: String
    /// What the cell showed: "stall 1200 ms: position frozen 1.2 s at ad start 6 s".
    public var evidence: String
    /// For a regression: the baseline cell, "seamless (run 2026-...)"; and both sides' software.
    public var baseline: String?
    public var firmware: String?
    /// The `accepted` entry's reason when the project accepts it (then it does not fail the run).
    public var accepted: String?

    public var isOpen: Bool { accepted == nil }
}

/// The gate's answer for one run.
public struct LabGateResult: Codable, Sendable, Equatable {
    public var schemaVersion = 1
    public var runId: String
    public var conditions: [LabGateCondition]
    /// The run the regressions are held against (nil: no baseline asked, or none found).
    public var baseline: String?
    public var findings: [LabGateFinding]
    /// Cells the gate looked at.
    public var cells: Int

    /// Whether the run fails the build: an open finding of any asked condition.
    public var fails: Bool { findings.contains(where: \.isOpen) }
}

public enum LabGate {
    /// The findings of `conditions` in `cells` (a run's, light); regressions from `comparison`
    /// (the baseline before, this run after). `accept` gives the reason an `accepted` entry covers a
    /// finding with, or nil.
    public static func evaluate(runId: String, cells: [LabCellBrief], conditions: Set<LabGateCondition>, comparison: RunComparison?,
                                accept: (LabGateFinding) -> String? = { _ in nil }) -> LabGateResult {
        var findings: [LabGateFinding] = []
        let played = cells.filter(\.done)
        for cell in played {
            let verdict = LabVerdict(rawValue: cell.verdict)
            let condition: LabGateCondition? = verdict == .failed ? .failed : verdict == .stall ? .stall : nil
            guard let condition, conditions.contains(condition) else { continue }
            findings.append(LabGateFinding(condition: condition, rule: condition.rule, runId: runId, station: cell.station,
                                           receiver: cell.receiver, deviceClass: cell.deviceClass, caseId: cell.caseId,
                                           evidence: "\(RunComparer.describe(cell)): \(cell.reason)", baseline: nil,
                                           firmware: cell.software?.summary, accepted: nil))
        }
        if conditions.contains(.regression), let comparison {
            for entry in comparison.regressions {
                let firmware = entry.firmwareChanged
                    ? "firmware changed: \((entry.before?.software).map(\.summary) ?? "unknown") -> \((entry.after?.software).map(\.summary) ?? "unknown")"
                    : entry.after?.software?.summary
                findings.append(LabGateFinding(condition: .regression, rule: LabGateCondition.regression.rule, runId: runId,
                                               station: entry.station, receiver: entry.receiver, deviceClass: entry.deviceClass,
                                               caseId: entry.caseId, evidence: "\(entry.what): \(entry.after?.reason ?? "")",
                                               baseline: entry.before.map { "\(Self.side($0)) in run \($0.runId)" },
                                               firmware: firmware, accepted: nil))
            }
        }
        findings = findings.map { finding in
            var copy = finding
            copy.accepted = accept(finding)
            return copy
        }
        return LabGateResult(runId: runId, conditions: LabGateCondition.allCases.filter(conditions.contains),
                             baseline: comparison?.before, findings: findings, cells: played.count)
    }

    static func side(_ side: RunComparison.Side) -> String {
        if let behaviour = side.behaviour { return behaviour }
        return side.stallMs.map { "\(side.verdict) \(String(format: "%.0f", $0)) ms" } ?? side.verdict
    }
}
