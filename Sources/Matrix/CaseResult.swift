import Compatibility
import Foundation

/// The state of one case on one device class.
public enum CellStatus: String, Codable, Sendable, CaseIterable, Comparable {
    /// Nothing at warning or above (info findings may be present).
    case pass
    /// Every finding that would warn or fail is covered by an expected issue.
    case known
    /// Findings at warning or above, all below the run's fail-on threshold.
    case warn
    /// A finding at or above the run's fail-on threshold that no expected issue covers.
    case fail
    /// The case could not be audited (an input unreachable or unprobeable, a timeout).
    case error

    private var rank: Int { Self.allCases.firstIndex(of: self)! }
    public static func < (lhs: CellStatus, rhs: CellStatus) -> Bool { lhs.rank < rhs.rank }
}

/// A finding of a matrix run: the audit's finding, and whether an expected issue covers it.
public struct MatrixFinding: Codable, Sendable, Equatable {
    public var finding: Finding
    /// The `reason` of the covering expected issue; nil when none covers it.
    public var knownReason: String?
    /// Index of the covering expected issue in the matrix file.
    public var expectedIssue: Int?

    public init(finding: Finding, knownReason: String? = nil, expectedIssue: Int? = nil) {
        self.finding = finding
        self.knownReason = knownReason
        self.expectedIssue = expectedIssue
    }

    public var isKnown: Bool { knownReason != nil }

    enum CodingKeys: String, CodingKey { case known, knownReason, expectedIssue }

    // Flat: the Finding's fields, then known / knownReason (null when not known).
    public init(from decoder: Decoder) throws {
        finding = try Finding(from: decoder)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        knownReason = try c.decodeIfPresent(String.self, forKey: .knownReason)
        expectedIssue = try c.decodeIfPresent(Int.self, forKey: .expectedIssue)
    }

    public func encode(to encoder: Encoder) throws {
        try finding.encode(to: encoder)
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(isKnown, forKey: .known)
        try c.encode(knownReason, forKey: .knownReason)
        try c.encode(expectedIssue, forKey: .expectedIssue)
    }
}

/// One case on one device class.
public struct CellResult: Codable, Sendable, Equatable {
    public var deviceClass: String
    public var status: CellStatus
    /// This class's findings, plus the case's class-independent ones.
    public var findings: [MatrixFinding]

    public init(deviceClass: String, status: CellStatus, findings: [MatrixFinding]) {
        self.deviceClass = deviceClass
        self.status = status
        self.findings = findings
    }
}

/// A finished case: what was audited, how long it took, and a cell per device class.
public struct CaseResult: Sendable, Equatable {
    public var caseId: String
    /// "explicit" or "playlist".
    public var kind: String
    public var primary: String
    public var interstitials: [String]
    public var tags: [String]
    public var startedAt: Date
    public var seconds: Double
    /// Set when the case could not be audited; every cell is then `error`.
    public var failure: CaseFailure?
    /// The primary first, then the interstitials, with their probed media (empty on failure).
    public var assets: [AuditedAsset]
    public var placements: [InterstitialPlacement]
    public var cells: [CellResult]

    public init(caseId: String, kind: String, primary: String, interstitials: [String], tags: [String],
                startedAt: Date, seconds: Double, failure: CaseFailure?, assets: [AuditedAsset],
                placements: [InterstitialPlacement], cells: [CellResult]) {
        self.caseId = caseId
        self.kind = kind
        self.primary = primary
        self.interstitials = interstitials
        self.tags = tags
        self.startedAt = startedAt
        self.seconds = seconds
        self.failure = failure
        self.assets = assets
        self.placements = placements
        self.cells = cells
    }

    public func cell(_ deviceClass: String) -> CellResult? {
        cells.first { $0.deviceClass == deviceClass }
    }
}

/// Turns an audit into cells: applies the expected issues, then grades each class.
public struct CellGrader: Sendable {
    public var expectedIssues: [ExpectedIssue]
    /// nil: nothing fails (`--fail-on never`).
    public var threshold: Severity?

    public init(expectedIssues: [ExpectedIssue], threshold: Severity?) {
        self.expectedIssues = expectedIssues
        self.threshold = threshold
    }

    /// A finding without a class (a spec finding) counts in every cell, and in each cell an
    /// expected issue for that cell's class (or `*`) can accept it.
    public func cells(caseId: String, findings: [Finding], deviceClasses: [String], input: String = "") -> [CellResult] {
        deviceClasses.map { deviceClass in
            let own = findings.filter { $0.deviceClass == deviceClass || $0.deviceClass == nil }.map { finding -> MatrixFinding in
                let index = expectedIssues.firstIndex {
                    $0.matches(caseId: caseId, finding: finding, deviceClass: finding.deviceClass ?? deviceClass, input: input)
                }
                return MatrixFinding(finding: finding, knownReason: index.map { expectedIssues[$0].reason }, expectedIssue: index)
            }
            return CellResult(deviceClass: deviceClass, status: grade(own), findings: own)
        }
    }

    public func errorCells(deviceClasses: [String]) -> [CellResult] {
        deviceClasses.map { CellResult(deviceClass: $0, status: .error, findings: []) }
    }

    /// fail > warn > known > pass; see `CellStatus`.
    public func grade(_ findings: [MatrixFinding]) -> CellStatus {
        func matters(_ severity: Severity) -> Bool { severity >= .warning || threshold.map { severity >= $0 } == true }
        let open = findings.filter { !$0.isKnown }.map(\.finding.severity)
        if let threshold, open.contains(where: { $0 >= threshold }) { return .fail }
        if open.contains(where: matters) { return .warn }
        if findings.contains(where: { $0.isKnown && matters($0.finding.severity) }) { return .known }
        return .pass
    }
}
