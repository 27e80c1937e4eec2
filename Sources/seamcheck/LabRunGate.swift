import ArgumentParser
import Compatibility
import Foundation
import LabCore
import Matrix
import Reporting
import ResultsReporting

/// `lab run --fail-on failed|stall|regression [--baseline RUN|latest]`: what makes a run exit 1,
/// with JUnit and SARIF naming each receiver, case and its evidence. Without `--fail-on` a run
/// exits as before (0 when it completed). Known issues are `.seamcheck.yml` `accepted` entries
/// with rule `lab-failed`, `lab-stall` or `lab-regression` (`case`, `class`, and `subject` the receiver).
struct LabGateOptions: ParsableArguments {
    @Option(name: .customLong("fail-on"),
            help: ArgumentHelp("Exit 1 when a cell failed, stalled, or regressed against --baseline: failed, stall, regression "
                               + "(repeatable or comma-separated; docs/ci.md).", valueName: "CONDITION"))
    var failOn: [String] = []

    @Option(help: ArgumentHelp("The run regressions are held against: a run id, or latest (the station's newest run before this one; "
                               + "the default with --fail-on regression).", valueName: "RUN|latest"))
    var baseline: String?

    @Option(name: .customLong("stall-change-ms"), help: "A stall this many ms longer than the baseline's, on the same verdict, is a regression.")
    var stallChangeMs: Double = ComparisonThresholds.defaults.stallChangeMs

    @Option(help: "Write the gate's findings as JUnit XML here (a testsuite per receiver, a testcase per case).")
    var junit: String?

    @Option(help: "Write the gate's findings as SARIF 2.1.0 here.")
    var sarif: String?

    @OptionGroup var config: ConfigOption

    var conditions: Set<LabGateCondition> {
        Set(failOn.flatMap { $0.split(separator: ",") }.compactMap { LabGateCondition(rawValue: $0.trimmingCharacters(in: .whitespaces)) })
    }

    func validate() throws {
        for value in failOn.flatMap({ $0.split(separator: ",") }) where LabGateCondition(rawValue: value.trimmingCharacters(in: .whitespaces)) == nil {
            throw ValidationError("--fail-on \(value): give failed, stall or regression")
        }
        if baseline != nil, !conditions.contains(.regression) {
            throw ValidationError("--baseline is what --fail-on regression compares with: add --fail-on regression")
        }
        try OptionChecks.number(stallChangeMs, "--stall-change-ms", in: 0...600_000, unit: "ms")
    }

    /// Whether anything is asked of the gate (else the run exits as it always has).
    var asked: Bool { !conditions.isEmpty || junit != nil || sarif != nil }

    /// The baseline run, resolved before the run starts (so a wrong id is exit 2 at once, and
    /// `latest` is never the run itself); nil when no regression is asked or, for `latest`, none exists.
    func resolveBaseline(store: LabStore, excluding resumed: String?) throws -> LabRunSummary? {
        guard conditions.contains(.regression) else { return nil }
        let wanted = baseline ?? "latest"
        if wanted == "latest" {
            guard let newest = try store.runs(station: store.station).first(where: { $0.id != resumed }) else {
                Terminal.writeStderr("seamcheck: note: no earlier lab run of station \(store.station) to hold this one against: no regression can be found\n")
                return nil
            }
            return newest
        }
        return try LabRunGate.run(wanted, store: store)
    }

    /// The project's `accepted` entries for the lab rules (none without a project file).
    func accepted(profiles: [String]) throws -> [ExpectedIssue] {
        (try ProjectFile.load(config, knownProfiles: profiles)?.accepted ?? []).filter { entry in
            LabGateCondition.rules.contains { Glob.matches(entry.rule, $0) }
        }
    }

    /// Evaluates the run, writes JUnit and SARIF, says the open findings on stderr; true when it fails the build.
    func evaluate(runId: String, baseline: LabRunSummary?, store: LabStore, accepted: [ExpectedIssue]) throws -> Bool {
        let cells = try store.briefCells(runId: runId)
        let comparison = try baseline.map { base throws(LabStoreError) in
            RunComparer(thresholds: ComparisonThresholds(stallChangeMs: stallChangeMs))
                .compare(before: base.id, try store.briefCells(runId: base.id), after: runId, cells)
        }
        let gate = LabGate.evaluate(runId: runId, cells: cells, conditions: conditions, comparison: comparison) { finding in
            accepted.first { entry in
                entry.matches(caseId: finding.caseId, rule: finding.rule, deviceClass: finding.deviceClass)
                    && (entry.subject.map { Glob.matches($0, finding.receiver) } ?? true)
            }?.reason
        }
        if let junit { try Output.write(LabGateReports.junit(gate, cells: cells), to: junit) }
        if let sarif { try Output.write(LabGateReports.sarif(gate), to: sarif) }
        for finding in gate.findings {
            let line = "\(finding.isOpen ? "" : "accepted (\(finding.accepted ?? "")): ")\(finding.rule) \(finding.receiver)"
                + (finding.station.map { " @ \($0)" } ?? "") + " / \(finding.caseId): \(finding.evidence)"
                + (finding.baseline.map { "; baseline \($0)" } ?? "")
            Terminal.writeStderr("seamcheck: \(VisibleText.escape(line))\n")
        }
        if !conditions.isEmpty {
            let open = gate.findings.filter(\.isOpen).count
            Terminal.writeStderr("seamcheck: lab run gate (--fail-on \(gate.conditions.map(\.rawValue).joined(separator: ","))"
                + (baseline.map { ", baseline \($0.id)" } ?? "") + "): \(open) open finding(s), \(gate.findings.count - open) accepted\n")
        }
        return gate.fails
    }
}

enum LabRunGate {
    /// A run by id, `latest` (the newest run in the database) or `previous` (the one before it);
    /// exit 2 with a did-you-mean when unknown.
    static func run(_ id: String, store: LabStore) throws -> LabRunSummary {
        if id == "latest" || id == "previous" {
            let runs = try store.runs()
            guard let run = runs.dropFirst(id == "latest" ? 0 : 1).first else {
                throw CLIFailure.input("no \(id) lab run in \(store.path): it has \(runs.count); `seamcheck lab run` makes one")
            }
            return run
        }
        guard let run = try store.run(id) else {
            let ids = try store.runs().map(\.id)
            throw CLIFailure.input("no lab run '\(id)'\(Suggestion.text(for: id, in: ids)); `seamcheck lab runs` lists them")
        }
        return run
    }
}
