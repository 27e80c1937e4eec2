import Compatibility
import Foundation
import Store

/// What changed between two runs: findings new in the later run, findings fixed since the
/// earlier one, and cells whose status changed.
///
/// Only cases finished in both runs, on classes both ran, are compared: a case an interrupted
/// run never reached is listed apart, not counted as fixed.
public struct RunDiff: Codable, Sendable, Equatable {
    public struct RunRef: Codable, Sendable, Equatable {
        public var id: Int64
        public var matrixName: String
        public var startedAt: Date
        public var status: RunStatus
    }

    public struct Change: Codable, Sendable, Equatable {
        public var caseId: String
        public var deviceClass: String?
        public var rule: String
        public var severity: Severity
        public var subject: String
        public var message: String
        public var known: Bool
    }

    public struct StatusChange: Codable, Sendable, Equatable {
        public var caseId: String
        public var deviceClass: String
        public var from: CellStatus
        public var to: CellStatus
    }

    public var from: RunRef
    public var to: RunRef
    public var newFindings: [Change]
    public var fixedFindings: [Change]
    public var statusChanges: [StatusChange]
    /// Cases finished in only one of the runs (not compared).
    public var casesOnlyInFrom: [String]
    public var casesOnlyInTo: [String]

    public init(from a: RunRecord, to b: RunRecord) {
        from = RunRef(a.summary)
        to = RunRef(b.summary)
        let casesA = Dictionary(a.cases.map { ($0.caseId, $0) }, uniquingKeysWith: { x, _ in x })
        let casesB = Dictionary(b.cases.map { ($0.caseId, $0) }, uniquingKeysWith: { x, _ in x })
        let shared = b.cases.map(\.caseId).filter { casesA[$0] != nil }
        let classes = b.summary.deviceClasses.filter { a.summary.deviceClasses.contains($0) }
        casesOnlyInFrom = a.cases.map(\.caseId).filter { casesB[$0] == nil }
        casesOnlyInTo = b.cases.map(\.caseId).filter { casesA[$0] == nil }
        var new: [Change] = [], fixed: [Change] = [], changes: [StatusChange] = []
        for caseId in shared {
            let (old, current) = (casesA[caseId]!, casesB[caseId]!)
            for deviceClass in classes {
                guard let was = old.cell(deviceClass)?.status, let now = current.cell(deviceClass)?.status, was != now else { continue }
                changes.append(StatusChange(caseId: caseId, deviceClass: deviceClass, from: was, to: now))
            }
            // A case that could not be audited in either run has no findings to compare: its
            // old findings are not "fixed" because the CDN was down, nor all "new" when it is back.
            guard old.failure == nil, current.failure == nil else { continue }
            let oldFindings = Self.findings(old, classes: classes), newFindings = Self.findings(current, classes: classes)
            let oldKeys = Set(oldFindings.map(\.0)), newKeys = Set(newFindings.map(\.0))
            new += newFindings.filter { !oldKeys.contains($0.0) }.map { Change(caseId: caseId, $0.1) }
            fixed += oldFindings.filter { !newKeys.contains($0.0) }.map { Change(caseId: caseId, $0.1) }
        }
        newFindings = new
        fixedFindings = fixed
        statusChanges = changes
    }

    public var isEmpty: Bool { newFindings.isEmpty && fixedFindings.isEmpty && statusChanges.isEmpty }

    /// Each finding once (class-independent ones sit in every cell), keyed by its fingerprint.
    private static func findings(_ result: CaseResult, classes: [String]) -> [(String, MatrixFinding)] {
        var seen = Set<String>()
        return result.cells.filter { classes.contains($0.deviceClass) }.flatMap(\.findings).compactMap { item in
            let key = Fingerprint.of(caseId: result.caseId, item.finding)
            return seen.insert(key).inserted ? (key, item) : nil
        }
    }
}

extension RunDiff.RunRef {
    init(_ summary: RunSummary) {
        self.init(id: summary.id, matrixName: summary.matrixName, startedAt: summary.startedAt, status: summary.status)
    }
}

extension RunDiff.Change {
    init(caseId: String, _ item: MatrixFinding) {
        self.init(caseId: caseId, deviceClass: item.finding.deviceClass, rule: item.finding.rule, severity: item.finding.severity,
                  subject: item.finding.subject, message: item.finding.message, known: item.isKnown)
    }
}

extension ResultStore {
    /// The diff of two recorded runs.
    public func diff(from a: Int64, to b: Int64) throws(StoreError) -> RunDiff {
        RunDiff(from: try run(a), to: try run(b))
    }
}
