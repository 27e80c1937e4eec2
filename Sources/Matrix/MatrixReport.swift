import Compatibility
import Foundation

/// Everything the reports of one run show: the recorded run, what changed since the previous
/// run of the same matrix, the encoder view, and expected issues that matched nothing.
public struct MatrixReport: Sendable, Equatable {
    public var run: RunRecord
    /// Nil for the first run of a matrix.
    public var changes: RunDiff?
    public var encoder: EncoderCompatibility
    /// Expected issues no finding of this run matched: candidates for removal.
    public var unusedExpectedIssues: [ExpectedIssue]

    public init(run: RunRecord, changes: RunDiff?) {
        self.run = run
        self.changes = changes
        encoder = EncoderCompatibility(cases: run.cases, profiles: run.profiles)
        let used = Set(run.cases.flatMap(\.cells).flatMap(\.findings).compactMap(\.expectedIssue))
        unusedExpectedIssues = run.expectedIssues.enumerated().filter { !used.contains($0.offset) }.map(\.element)
    }

    public var deviceClasses: [String] { run.summary.deviceClasses }

    /// Planned cases the run did not finish (interrupted or killed).
    public var unfinishedCases: [String] {
        let done = Set(run.cases.map(\.caseId))
        return run.plannedCases.filter { !done.contains($0) }
    }

    /// Cells per status over the finished cases; every status present.
    public var counts: [CellStatus: Int] {
        var counts = Dictionary(uniqueKeysWithValues: CellStatus.allCases.map { ($0, 0) })
        for cell in run.cases.flatMap(\.cells) { counts[cell.status, default: 0] += 1 }
        return counts
    }

    /// Whether the run should exit 1: a `fail` cell.
    public var hasFailures: Bool { counts[.fail, default: 0] > 0 }
    public var hasErrors: Bool { counts[.error, default: 0] > 0 }

    /// Distinct open (not known) findings of a severity, grouped by rule, in catalog order:
    /// the "Must fix" (error) and "Should fix" (warning) lists.
    public func openFindings(_ severity: Severity) -> [RuleGroup] {
        var groups: [RuleGroup] = []
        for result in run.cases {
            for cell in result.cells {
                for item in cell.findings where !item.isKnown && item.finding.severity == severity {
                    let f = item.finding
                    var index = groups.firstIndex { $0.rule == f.rule }
                    if index == nil {
                        groups.append(RuleGroup(rule: f.rule, occurrences: []))
                        index = groups.count - 1
                    }
                    if let at = groups[index!].occurrences.firstIndex(where: { $0.caseId == result.caseId && $0.subject == f.subject && $0.message == f.message }) {
                        if let c = f.deviceClass, !groups[index!].occurrences[at].deviceClasses.contains(c) {
                            groups[index!].occurrences[at].deviceClasses.append(c)
                        }
                    } else {
                        groups[index!].occurrences.append(RuleGroup.Occurrence(
                            caseId: result.caseId, subject: f.subject, deviceClasses: f.deviceClass.map { [$0] } ?? [],
                            message: f.message, remediation: f.remediation))
                    }
                }
            }
        }
        let order = RuleCatalog.descriptions.map(\.id)
        return groups.sorted { (order.firstIndex(of: $0.rule) ?? 999, $0.rule) < (order.firstIndex(of: $1.rule) ?? 999, $1.rule) }
    }

    /// Known findings: (case, class, rule, reason), each once.
    public var knownFindings: [(caseId: String, deviceClass: String?, rule: String, reason: String)] {
        var seen = Set<String>()
        var list: [(caseId: String, deviceClass: String?, rule: String, reason: String)] = []
        for result in run.cases {
            for item in result.cells.flatMap(\.findings) where item.isKnown {
                let key = Fingerprint.of(caseId: result.caseId, item.finding)
                guard seen.insert(key).inserted else { continue }
                list.append((result.caseId, item.finding.deviceClass, item.finding.rule, item.knownReason ?? ""))
            }
        }
        return list
    }
}

/// The open findings of one rule across a run.
public struct RuleGroup: Sendable, Equatable {
    public struct Occurrence: Sendable, Equatable {
        public var caseId: String
        public var subject: String
        public var deviceClasses: [String]
        public var message: String
        public var remediation: String?
    }

    public var rule: String
    public var occurrences: [Occurrence]
}
