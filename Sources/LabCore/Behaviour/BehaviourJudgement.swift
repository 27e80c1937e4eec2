import Foundation

// CONTRACT between the judge (Sources/LabCore/Behaviour), the run loop (which stores a judgement with
// each behaviour cell) and the reports (`lab report --behaviour`). Fields may be added; none renamed.

/// How a receiver did on one behaviour case (docs/interface.md spells the JSON values with a space).
public enum BehaviourOutcome: String, Codable, Sendable, CaseIterable, Comparable {
    /// Every expectation that could be judged held.
    case conforms
    /// The feature had no effect: the receiver requested nothing of any interstitial.
    case ignores
    /// At least one expectation did not hold: `observed` says what happened instead.
    case deviates
    /// The session ended before the point an expectation needs (or lacks the series it needs).
    case notJudged = "not judged"
    /// The receiver's class cannot show the case (an audio-only receiver and a video feature).
    case notApplicable = "not applicable"

    /// Order for roll-ups and for the worst of several: deviates first.
    public static func < (a: BehaviourOutcome, b: BehaviourOutcome) -> Bool { a.rank < b.rank }
    private var rank: Int {
        switch self {
        case .deviates: 0
        case .ignores: 1
        case .conforms: 2
        case .notJudged: 3
        case .notApplicable: 4
        }
    }
}

/// One expectation of the case, judged.
public struct BehaviourCheck: Codable, Sendable, Equatable {
    public var kind: LabExpectation.Kind
    /// The DATERANGE ID; nil for session-wide checks.
    public var interstitial: String?
    /// `conforms`, `deviates` or `not judged`.
    public var outcome: BehaviourOutcome
    /// What a conforming receiver does, with the numbers and the attribute behind them.
    public var expected: String
    /// What this receiver did; a deviation names the expected value too
    /// ("resumed at 8.0 s, expected 4.0 s (X-RESUME-OFFSET=0)"); a check not judged says why.
    public var observed: String
    /// The spec's words behind the expectation.
    public var because: String

    public init(kind: LabExpectation.Kind, interstitial: String?, outcome: BehaviourOutcome, expected: String, observed: String,
                because: String) {
        self.kind = kind
        self.interstitial = interstitial
        self.outcome = outcome
        self.expected = expected
        self.observed = observed
        self.because = because
    }
}

/// One request line that decided a check.
public struct BehaviourEvidence: Codable, Sendable, Equatable {
    /// Seconds from the session's first request.
    public var at: Double
    public var path: String
    public var query: String?
    public var status: Int

    public init(at: Double, path: String, query: String?, status: Int) {
        self.at = at
        self.path = path
        self.query = query
        self.status = status
    }

    /// "4.2 s GET /cases/x/ad-1/seg_000.m4s 200".
    public var line: String {
        String(format: "%.1f s ", at) + path + (query.map { "?" + $0 } ?? "") + " \(status)"
    }
}

/// The judge's answer for one session (a `lab run` cell or a person's session from the lab page).
public struct BehaviourJudgement: Codable, Sendable, Equatable {
    public var caseId: String
    /// The conformance table's column ("resume-offset-zero").
    public var feature: String
    public var outcome: BehaviourOutcome
    public var checks: [BehaviourCheck]
    /// One line: why the outcome (the first deviation, why not judged, what was ignored).
    public var why: String?
    /// The few requests that decided it, in time order.
    public var evidence: [BehaviourEvidence]
    /// Requests the session made (all of them, the evidence is a few).
    public var requests: Int

    public init(caseId: String, feature: String, outcome: BehaviourOutcome, checks: [BehaviourCheck], why: String?,
                evidence: [BehaviourEvidence], requests: Int) {
        self.caseId = caseId
        self.feature = feature
        self.outcome = outcome
        self.checks = checks
        self.why = why
        self.evidence = evidence
        self.requests = requests
    }

    private enum CodingKeys: String, CodingKey { case caseId, feature, outcome, checks, why, evidence, requests }

    /// `why` is always present, null when the case conforms.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(caseId, forKey: .caseId)
        try c.encode(feature, forKey: .feature)
        try c.encode(outcome, forKey: .outcome)
        try c.encode(checks, forKey: .checks)
        try c.encode(why, forKey: .why)
        try c.encode(evidence, forKey: .evidence)
        try c.encode(requests, forKey: .requests)
    }
}
