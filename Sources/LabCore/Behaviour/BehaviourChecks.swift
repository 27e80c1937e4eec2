import Foundation

/// What one check needs: the session's requests read against the case, and the playback series
/// when the session was a `lab run` cell (scripted commands and the receiver's rate).
struct BehaviourContext: Sendable {
    let trace: BehaviourTrace
    let series: PlaybackSeries?

    func interstitial(_ expectation: LabExpectation) -> LabBehaviourInterstitial? {
        guard let id = expectation.interstitial else { return trace.behaviour.interstitials.first }
        return trace.behaviour.interstitials.first { $0.id == id }
    }

    /// Seconds from the session's first request to a time in the series (`atMs` after `/play`).
    func seconds(atMs: Double) -> Double? {
        series.map { $0.playSentAt.addingTimeInterval(atMs / 1000).timeIntervalSince(trace.origin) }
    }

    /// The commands of a kind the sender sent and the receiver accepted.
    func sent(_ kind: SentCommand.Kind) -> [SentCommand] {
        series?.commands.filter { $0.kind == kind && $0.failure == nil } ?? []
    }
}

/// A check's verdict before it is dressed as a `BehaviourCheck`.
struct CheckResult: Sendable {
    var outcome: BehaviourOutcome
    var expected: String
    var observed: String
    var evidence: [BehaviourTrace.Fetch] = []

    static func conforms(_ expected: String, _ observed: String, _ evidence: [BehaviourTrace.Fetch] = []) -> CheckResult {
        CheckResult(outcome: .conforms, expected: expected, observed: observed, evidence: evidence)
    }

    static func deviates(_ expected: String, _ observed: String, _ evidence: [BehaviourTrace.Fetch] = []) -> CheckResult {
        CheckResult(outcome: .deviates, expected: expected, observed: observed, evidence: evidence)
    }

    static func notJudged(_ expected: String, _ why: String, _ evidence: [BehaviourTrace.Fetch] = []) -> CheckResult {
        CheckResult(outcome: .notJudged, expected: expected, observed: why, evidence: evidence)
    }
}

/// The check functions, one per expectation kind (the table is `BehaviourRules.all`).
enum BehaviourChecks {
    typealias T = BehaviourTrace

    static func played(_ c: BehaviourContext, _ e: LabExpectation, _ i: LabBehaviourInterstitial) -> CheckResult {
        let playable = i.assets.enumerated().filter { !$0.element.fails }
        let names = playable.map { T.name($0.element) }.joined(separator: ", ")
        let expected = "\(names) fetched (\(i.id) at \(T.s(i.start)))"
        let segments = c.trace.assetSegments(i)
        let missing = playable.filter { asset in !segments.contains { $0.asset == asset.offset } }
        let firsts = playable.compactMap { asset in segments.first { $0.asset == asset.offset }?.fetch }
        if missing.isEmpty { return .conforms(expected, "fetched " + describe(firsts, c.trace), firsts) }
        guard c.trace.passed(i) else { return .notJudged(expected, endedBefore(i, c.trace)) }
        let list = missing.map { T.name($0.element) }.joined(separator: ", ")
        let touched = c.trace.requests(of: i)
        return .deviates(expected, "no segment of \(list) fetched" + (touched.isEmpty ? " (nothing of \(i.id) was requested)"
            : " (\(touched.count) other request(s) of \(i.id))"), Array(touched.prefix(3)))
    }

    static func notPlayed(_ c: BehaviourContext, _ e: LabExpectation, _ i: LabBehaviourInterstitial) -> CheckResult {
        let expected = "no segment of \(i.id) fetched (" + (i.assetListFails ? "its asset list fails" : "its ASSETS list is empty") + ")"
        let segments = c.trace.assetSegments(i).map(\.fetch) + c.trace.foreignSegments
        if let first = segments.min(by: { $0.index < $1.index }) {
            return .deviates(expected, "fetched \(segments.count) segment(s) during \(i.id), the first \(file(first.path, keep: 2)) at \(T.s(first.at))",
                             [first])
        }
        guard c.trace.passed(i) else { return .notJudged(expected, endedBefore(i, c.trace)) }
        return .conforms(expected, "no segment of \(i.id) fetched", Array(c.trace.requests(of: i).prefix(1)))
    }

    static func assetsInOrder(_ c: BehaviourContext, _ e: LabExpectation, _ i: LabBehaviourInterstitial) -> CheckResult {
        let playable = i.assets.enumerated().filter { !$0.element.fails }
        let expected = playable.map { T.name($0.element) }.joined(separator: " then ")
            + (i.assets.contains(where: \.fails) ? " (the failing asset skipped, the rest played)" : "")
        let segments = c.trace.assetSegments(i)
        let firsts = playable.compactMap { asset in segments.first { $0.asset == asset.offset } }
        if firsts.isEmpty {
            guard c.trace.passed(i) else { return .notJudged(expected, endedBefore(i, c.trace)) }
            return .deviates(expected, "no asset of \(i.id) fetched")
        }
        let observedOrder = firsts.sorted { $0.fetch.at < $1.fetch.at }
        let observed = "first segments: " + observedOrder.map { "\(T.name(i.assets[$0.asset])) at \(T.s($0.fetch.at))" }.joined(separator: ", ")
        let fetches = observedOrder.map(\.fetch)
        if firsts.count < playable.count {
            if c.trace.fetches.last.map({ $0.index == firsts.last?.fetch.index }) == true {
                return .notJudged(expected, observed + "; the session ended there", fetches)
            }
            let missing = playable.filter { asset in !firsts.contains { $0.asset == asset.offset } }.map { T.name($0.element) }
            return .deviates(expected, observed + "; \(missing.joined(separator: ", ")) never fetched", fetches)
        }
        if observedOrder.map(\.asset) != firsts.map(\.asset) { return .deviates(expected, observed + " (out of order)", fetches) }
        return .conforms(expected, observed, fetches)
    }

    static func resumesAt(_ c: BehaviourContext, _ e: LabExpectation, _ i: LabBehaviourInterstitial) -> CheckResult {
        let target = e.seconds ?? i.expectedResume
        let expected = "resumes at \(T.s(target)) (\(resumeReason(i)))"
        guard let anchor = c.trace.anchor(i) else {
            guard c.trace.passed(i) else { return .notJudged(expected, endedBefore(i, c.trace)) }
            return .deviates(expected, "never left the primary for \(i.id): nothing of it was requested")
        }
        guard let resumed = c.trace.primarySegments.first(where: { $0.fetch.at >= anchor.at && $0.fetch.index > anchor.index }) else {
            return .notJudged(expected, "no primary segment fetched after \(i.id) (at \(T.s(anchor.at))): the session ended before it resumed",
                              [anchor])
        }
        let at = c.trace.timeline[resumed.index].start
        let holding = c.trace.segment(holding: target)
        let tolerance = e.tolerance ?? 0
        let ok = holding == resumed.index || abs(at - target) <= tolerance
        let observed = "resumed at \(T.s(at)) (\(file(resumed.fetch.path)) fetched at \(T.s(resumed.fetch.at)))"
        return ok ? .conforms(expected, observed, [anchor, resumed.fetch])
            : .deviates(expected, "resumed at \(T.s(at)), expected \(T.s(target)) (\(resumeReason(i)))", [anchor, resumed.fetch])
    }

    static func playedAtMost(_ c: BehaviourContext, _ e: LabExpectation, _ i: LabBehaviourInterstitial) -> CheckResult {
        let limit = e.seconds ?? i.playoutLimit ?? i.duration
        let expected = "no segment of \(i.id) from \(T.s(limit)) into it fetched (X-PLAYOUT-LIMIT=\(number(limit)))"
        let segments = c.trace.assetSegments(i)
        if let over = segments.first(where: { $0.offset >= limit - T.epsilon }) {
            return .deviates(expected, "fetched \(file(over.fetch.path)), \(T.s(over.offset)) into \(i.id), at \(T.s(over.fetch.at)): "
                             + "played past X-PLAYOUT-LIMIT=\(number(limit))", [over.fetch])
        }
        guard let first = segments.first else {
            return .notJudged(expected, c.trace.passed(i) ? "\(i.id) was not played" : endedBefore(i, c.trace))
        }
        guard c.trace.primarySegments.contains(where: { $0.fetch.index > first.fetch.index }) else {
            return .notJudged(expected, "the session ended during \(i.id), before the limit could show", [first.fetch])
        }
        return .conforms(expected, "fetched \(segments.count) segment(s) of \(i.id), none from \(T.s(limit)) on", segments.map(\.fetch))
    }

    static func beforePrimary(_ c: BehaviourContext, _ e: LabExpectation, _ i: LabBehaviourInterstitial) -> CheckResult {
        let expected = "\(i.id) fetched before any primary segment (CUE=PRE)"
        let ad = c.trace.firstSegment(i)
        let primary = c.trace.primarySegments.first
        switch (ad, primary) {
        case (nil, nil):
            return .notJudged(expected, "neither \(i.id) nor a primary segment was fetched")
        case (let ad?, nil):
            return .conforms(expected, "\(i.id) at \(T.s(ad.at)), no primary segment yet", [ad])
        case (nil, let primary?):
            return .deviates(expected, "\(i.id) never fetched; the primary from \(file(primary.fetch.path)) at \(T.s(primary.fetch.at))",
                             [primary.fetch])
        case (let ad?, let primary?):
            if ad.index < primary.fetch.index {
                return .conforms(expected, "\(i.id) at \(T.s(ad.at)), the first primary segment at \(T.s(primary.fetch.at))", [ad, primary.fetch])
            }
            return .deviates(expected, "the primary first (\(file(primary.fetch.path)) at \(T.s(primary.fetch.at))), \(i.id) at \(T.s(ad.at))",
                             [primary.fetch, ad])
        }
    }

    static func afterPrimary(_ c: BehaviourContext, _ e: LabExpectation, _ i: LabBehaviourInterstitial) -> CheckResult {
        let expected = "\(i.id) fetched after the primary's last segment (CUE=POST)"
        let lastIndex = c.trace.timeline.count - 1
        let last = c.trace.primarySegments.first { $0.index == lastIndex }?.fetch
        let ad = c.trace.firstSegment(i)
        switch (ad, last) {
        case (let ad?, let last?) where ad.index > last.index:
            return .conforms(expected, "the last primary segment at \(T.s(last.at)), \(i.id) at \(T.s(ad.at))", [last, ad])
        case (let ad?, _):
            return .deviates(expected, "\(i.id) at \(T.s(ad.at)), " + (last.map { "before the last primary segment (\(T.s($0.at)))" }
                                                                          ?? "before the primary's end"), [ad] + (last.map { [$0] } ?? []))
        case (nil, let last?):
            return .deviates(expected, "\(i.id) never fetched after the last primary segment (\(T.s(last.at)))", [last])
        case (nil, nil):
            return .notJudged(expected, "the session ended before the primary's last segment" + (c.trace.furthest.map { " (fetched to \(T.s($0)))" } ?? ""))
        }
    }

    static func playedOnce(_ c: BehaviourContext, _ e: LabExpectation, _ i: LabBehaviourInterstitial) -> CheckResult {
        let expected = "\(i.id) played once although the sender seeks back over it (CUE=ONCE)"
        let segments = c.trace.assetSegments(i)
        // Each play of the break starts with a fetch of its first segment.
        let starts = segments.filter { $0.offset < T.epsilon }.map(\.fetch)
        if starts.count > 1 {
            return .deviates(expected, "\(i.id) played \(starts.count) times (its first segment at "
                             + starts.map { T.s($0.at) }.joined(separator: ", ") + ")", starts)
        }
        guard let first = starts.first else {
            return .notJudged(expected, c.trace.passed(i) ? "\(i.id) was not played" : endedBefore(i, c.trace))
        }
        // The seek back shows as a primary segment before START fetched after the break.
        let back = c.trace.primarySegments.first { $0.fetch.index > first.index && c.trace.timeline[$0.index].start < i.start - T.epsilon }
        guard let back else {
            let scrubs = c.sent(.scrub)
            return .notJudged(expected, scrubs.isEmpty ? "no seek back over \(i.id) in the session"
                              : "no primary segment before \(i.id) fetched after the scrub: the seek back did not show", [first])
        }
        guard c.trace.primarySegments.contains(where: { $0.fetch.index > back.fetch.index && c.trace.timeline[$0.index].start >= i.start - T.epsilon })
        else {
            return .notJudged(expected, "after seeking back (\(file(back.fetch.path)) at \(T.s(back.fetch.at))) the session ended before \(T.s(i.start))",
                              [first, back.fetch])
        }
        return .conforms(expected, "\(i.id) once (at \(T.s(first.at))); sought back to \(file(back.fetch.path)) at \(T.s(back.fetch.at)) and played on without it",
                         [first, back.fetch])
    }

    static func resumeReason(_ i: LabBehaviourInterstitial) -> String {
        let played = i.assets.filter { !$0.fails }.reduce(0) { $0 + $1.duration }
        if i.assetListFails { return "the asset list failed: the break is cancelled, offset 0" }
        if let offset = i.resumeOffset { return "X-RESUME-OFFSET=\(number(offset))" }
        if i.assetList != nil, i.assets.allSatisfy(\.fails) { return "empty ASSETS, no X-RESUME-OFFSET: offset 0" }
        if let limit = i.playoutLimit, limit < played { return "no X-RESUME-OFFSET, X-PLAYOUT-LIMIT=\(number(limit))" }
        if i.timelineOccupies == "RANGE" { return "X-TIMELINE-OCCUPIES=RANGE, no X-RESUME-OFFSET: START + \(T.s(played)) played" }
        return "no X-RESUME-OFFSET: START + \(T.s(played)) played"
    }

    static func endedBefore(_ i: LabBehaviourInterstitial, _ trace: BehaviourTrace) -> String {
        let place = i.cue.contains("PRE") ? "the primary's start" : i.cue.contains("POST") ? "the primary's end" : "START \(T.s(i.start))"
        guard let furthest = trace.furthest else { return "no primary segment fetched: the session ended before \(i.id) (\(place))" }
        if !i.cue.contains("PRE"), !i.cue.contains("POST"), furthest > i.start {
            // Past START, yet never met in order: a seek jumped over it.
            return "the playback never played up to \(i.id) (\(place)): it reached \(T.s(furthest)) of the primary by a seek over it"
        }
        return "the session ended at \(T.s(furthest)) of the primary, before \(i.id) (\(place))"
    }

    static func describe(_ fetches: [BehaviourTrace.Fetch], _ trace: BehaviourTrace) -> String {
        fetches.map { "\(file($0.path, keep: 2)) at \(T.s($0.at))" }.joined(separator: ", ")
    }

    /// The last `keep` components of a path ("ad-1/seg_000.m4s").
    static func file(_ path: String, keep: Int = 1) -> String {
        path.split(separator: "/").suffix(keep).joined(separator: "/")
    }

    /// 2 -> "2", 2.002 -> "2.002".
    static func number(_ value: Double) -> String { String(format: "%g", value) }
}
