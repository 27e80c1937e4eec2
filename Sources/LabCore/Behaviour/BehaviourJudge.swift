import Compatibility
import Foundation

/// One expectation kind with its check and the examples that specify it (they run as tests:
/// Tests/LabTests/BehaviourRuleExampleTests.swift).
public struct BehaviourRule: Sendable {
    public let kind: LabExpectation.Kind
    public let summary: String
    let check: @Sendable (BehaviourContext, LabExpectation) -> CheckResult
    public let examples: [BehaviourExample]
}

/// Judges one session of a behaviour case from the receiver's requests (and, for a `lab run`
/// cell, its playback series): every expectation of the case checked, then the overall outcome.
/// Pure: the same requests always give the same judgement.
public enum BehaviourJudge {
    /// - Parameters:
    ///   - requests: one client's requests during the session (any order; sorted by time here).
    ///   - series: the cell's playback series with the commands sent; nil for a person's session.
    ///   - profile: the receiver's class profile, when known: an audio-only class makes the case not applicable.
    public static func judge(case labCase: LabCase, primaryTimeline: [LabSegment], requests: [LabRequestRecord],
                             series: PlaybackSeries? = nil, deviceClass: String? = nil, profile: DeviceProfile? = nil) -> BehaviourJudgement? {
        guard let behaviour = labCase.behaviour else { return nil }
        let trace = BehaviourTrace(labCase: labCase, behaviour: behaviour, timeline: primaryTimeline, requests: requests)
        func result(_ outcome: BehaviourOutcome, _ checks: [BehaviourCheck], why: String?, evidence: [BehaviourTrace.Fetch]) -> BehaviourJudgement {
            let sorted = Dictionary(evidence.map { ($0.index, $0) }, uniquingKeysWith: { a, _ in a }).values.sorted { $0.index < $1.index }
            return BehaviourJudgement(caseId: labCase.id, feature: behaviour.feature, outcome: outcome, checks: checks, why: why,
                                      evidence: sorted.prefix(maxEvidence).map(trace.evidence), requests: requests.count)
        }
        if behaviour.needs.contains("video"), let profile, !profile.plays.video {
            return result(.notApplicable, [], why: "class \(deviceClass ?? profile.id) plays no video; the case needs video", evidence: [])
        }
        guard !trace.fetches.isEmpty else {
            return result(.notJudged, [], why: "no request from the receiver: the session never started", evidence: [])
        }
        let touched = behaviour.interstitials.flatMap { trace.requests(of: $0) }
        if touched.isEmpty, behaviour.interstitials.contains(where: trace.passed) {
            let primary = trace.primarySegments
            return result(.ignores, [], why: "no interstitial request in \(trace.fetches.count) requests: the receiver ignored "
                          + "EXT-X-DATERANGE" + (trace.furthest.map { " (played the primary to \(BehaviourTrace.s($0)))" } ?? ""),
                          evidence: Array(primary.prefix(1).map(\.fetch) + primary.suffix(1).map(\.fetch)))
        }
        let context = BehaviourContext(trace: trace, series: series)
        let results = behaviour.expectations.map { check($0, context) }
        let checks = zip(behaviour.expectations, results).map { expectation, checked in
            BehaviourCheck(kind: expectation.kind, interstitial: expectation.interstitial, outcome: checked.outcome,
                           expected: checked.expected, observed: checked.observed, because: expectation.because)
        }
        if let deviation = checks.first(where: { $0.outcome == .deviates }) {
            let all = checks.filter { $0.outcome == .deviates }.map(\.observed)
            return result(.deviates, checks, why: all.count > 1 ? all.joined(separator: "; ") : deviation.observed,
                          evidence: results.filter { $0.outcome == .deviates }.flatMap(\.evidence))
        }
        let evidence = results.filter { $0.outcome == .conforms }.flatMap(\.evidence)
        if let open = checks.first(where: { $0.outcome == .notJudged }) {
            return result(.notJudged, checks, why: "\(open.kind.rawValue) not judged: \(open.observed)", evidence: evidence)
        }
        return result(.conforms, checks, why: nil, evidence: evidence)
    }

    static let maxEvidence = 8

    static func check(_ expectation: LabExpectation, _ context: BehaviourContext) -> CheckResult {
        guard let rule = BehaviourRules.byKind[expectation.kind] else {
            return .notJudged(expectation.kind.rawValue, "no check for \(expectation.kind.rawValue)")
        }
        return rule.check(context, expectation)
    }
}

public enum BehaviourRules {
    typealias Check = @Sendable (BehaviourContext, LabExpectation, LabBehaviourInterstitial) -> CheckResult

    /// A check about one interstitial: the expectation's (or the case's first) must exist.
    static func on(_ check: @escaping Check) -> @Sendable (BehaviourContext, LabExpectation) -> CheckResult {
        { context, expectation in
            guard let interstitial = context.interstitial(expectation) else {
                return .notJudged(expectation.kind.rawValue, "the case has no interstitial \(expectation.interstitial ?? "")")
            }
            return check(context, expectation, interstitial)
        }
    }

    static let byKind = Dictionary(all.map { ($0.kind, $0) }, uniquingKeysWith: { first, _ in first })

    typealias X = BehaviourExample
    public static let all: [BehaviourRule] = [
        BehaviourRule(kind: .played, summary: "every asset that does not fail has a segment fetched", check: on(BehaviourChecks.played), examples: [
            X("plays the ad at 4 s", .midRoll, "m p0 p1 ad-1 ad-1:0 ad-1:1 p2", .conforms),
            X("plays straight through", .midRoll, "m p0 p1 p2 p3 p4", .deviates, overall: .ignores),
            X("stops at 2 s", .midRoll, "m p0", .notJudged),
        ]),
        BehaviourRule(kind: .notPlayed, summary: "no segment of any asset fetched (an empty or failed asset list)",
                      check: on(BehaviourChecks.notPlayed), examples: [
            X("reads the empty list and goes on", .emptyList, "m p0 p1 list-1.json p2 p3", .conforms),
            X("plays an asset anyway", .emptyList, "m p0 p1 list-1.json ad-1:0 p2", .deviates),
        ]),
        BehaviourRule(kind: .assetsInOrder, summary: "the assets' first segments in list order, failing ones left out",
                      check: on(BehaviourChecks.assetsInOrder), examples: [
            X("ad-1 then ad-3 past the failing ad-2", .failingAsset, "m p0 p1 list-1.json ad-1:0 ad-1:1 missing-ad/master.m3u8! ad-3:0 ad-3:1 p2",
              .conforms),
            X("gives up at the failing asset", .failingAsset, "m p0 p1 list-1.json ad-1:0 ad-1:1 missing-ad/master.m3u8! p2 p3", .deviates),
        ]),
        BehaviourRule(kind: .resumesAt, summary: "the first primary segment after the break holds the resume point",
                      check: on(BehaviourChecks.resumesAt), examples: [
            X("resumes at 4 s (X-RESUME-OFFSET=0)", .midRoll, "m p0 p1 ad-1:0 ad-1:1 p2 p3", .conforms),
            X("resumes at 8 s", .midRoll, "m p0 p1 ad-1:0 ad-1:1 p4 p5", .deviates),
            X("stops during the ad", .midRoll, "m p0 p1 ad-1:0", .notJudged),
        ]),
        BehaviourRule(kind: .playedAtMost, summary: "no asset segment from the limit on (X-PLAYOUT-LIMIT)",
                      check: on(BehaviourChecks.playedAtMost), examples: [
            X("ends the ad at 2 s", .playoutLimit, "m p0 p1 ad-1:0 p3 p4", .conforms),
            X("plays the whole ad", .playoutLimit, "m p0 p1 ad-1:0 ad-1:1 p3", .deviates),
        ]),
        BehaviourRule(kind: .beforePrimary, summary: "the pre-roll before any primary segment",
                      check: on(BehaviourChecks.beforePrimary), examples: [
            X("pre-roll first", .preRoll, "m ad-1:0 ad-1:1 p0 p1", .conforms),
            X("pre-roll at START as a mid-roll", .preRoll, "m p0 p1 ad-1:0 ad-1:1 p2", .deviates),
        ]),
        BehaviourRule(kind: .afterPrimary, summary: "the post-roll after the primary's last segment",
                      check: on(BehaviourChecks.afterPrimary), examples: [
            X("post-roll last", .postRoll, "m p0 p1 p2 p3 p4 p5 ad-1:0 ad-1:1", .conforms),
            X("post-roll at START", .postRoll, "m p0 p1 ad-1:0 ad-1:1 p2 p3 p4 p5", .deviates),
            X("stops at 6 s", .postRoll, "m p0 p1 p2", .notJudged),
        ]),
        BehaviourRule(kind: .playedOnce, summary: "the break played once though the sender seeks back over it (CUE=ONCE)",
                      check: on(BehaviourChecks.playedOnce), examples: [
            X("once, then not again after the seek back", .once, "m p0 p1 ad-1:0 ad-1:1 p2 p3 p4 p1 p2 p3", .conforms),
            X("again after the seek back", .once, "m p0 p1 ad-1:0 ad-1:1 p2 p3 p4 p1 ad-1:0 ad-1:1 p2", .deviates),
            X("no seek back", .once, "m p0 p1 ad-1:0 ad-1:1 p2 p3", .notJudged),
        ]),
        BehaviourRule(kind: .playedBeforeSeekTarget, summary: "a scrub past a JUMP-restricted break plays it before landing",
                      check: on(BehaviourChecks.playedBeforeSeekTarget), examples: [
            X("plays the ad, then lands at 9 s", .jump, "m p0 scrub=9 ad-1:0 ad-1:1 p4 p5", .conforms),
            X("lands at once", .jump, "m p0 scrub=9 p4 p5", .deviates),
            X("the session ended before the scrub", .jump, "m p0", .notJudged),
        ]),
        BehaviourRule(kind: .rateHeld, summary: "no rate above 1 reported while a SKIP-restricted break plays",
                      check: on(BehaviourChecks.rateHeld), examples: [
            X("refuses rate 2", .skip, "m p0 p1 ad-1:0 ~1 rate=2 ~1 ad-1:1 ~1 p2", .conforms),
            X("plays the ad at rate 2", .skip, "m p0 p1 ad-1:0 ~1 rate=2 ~2 ad-1:1 ~2 p2", .deviates),
        ]),
        BehaviourRule(kind: .primaryIdConstant, summary: "_HLS_primary_id on every interstitial request, one value",
                      check: { c, e in BehaviourChecks.primaryIdConstant(c, e, c.interstitial(e)) }, examples: [
            X("one id throughout", .twoBreaks, "m p0 ad-1?_HLS_primary_id=A ad-1:0 p1 p2 list-2.json?_HLS_primary_id=A ad-2:0 p3", .conforms),
            X("no id", .twoBreaks, "m p0 ad-1 ad-1:0 p1 p2 list-2.json ad-2:0 p3", .deviates),
            X("a new id per break", .twoBreaks, "m p0 ad-1?_HLS_primary_id=A ad-1:0 p1 p2 list-2.json?_HLS_primary_id=B ad-2:0 p3", .deviates),
        ]),
        BehaviourRule(kind: .startOffset, summary: "_HLS_start_offset on the asset-list request when joining mid-break",
                      check: on(BehaviourChecks.startOffset), examples: [
            X("joins 1 s into the break", .liveJoin, "m list-1.json?_HLS_start_offset=1.0 ad-1:0 ad-1:1 p4", .conforms),
            X("no offset", .liveJoin, "m list-1.json ad-1:0 ad-1:1 p4", .deviates),
        ]),
        BehaviourRule(kind: .leavesAtBoundary, summary: "the last primary segment before the break ends at the boundary (X-SNAP=OUT)",
                      check: on(BehaviourChecks.leavesAtBoundary), examples: [
            X("leaves at 4 s", .snap, "m p1 ad-1:0 ad-1:1 p4", .conforms),
            X("plays on to 4.6 s", .snap, "m p1 p2 ad-1:0 ad-1:1 p4", .deviates),
        ]),
    ]
}
