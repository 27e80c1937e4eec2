import Foundation

/// The checks that need a sender's action (a scrub, a rate) or read query parameters.
extension BehaviourChecks {
    static func playedBeforeSeekTarget(_ c: BehaviourContext, _ e: LabExpectation, _ i: LabBehaviourInterstitial) -> CheckResult {
        let target = e.seconds ?? i.start + i.duration
        let expected = "after a scrub to \(T.s(target)) (past \(i.id) at \(T.s(i.start))), \(i.id) fetched before the primary at "
            + "\(T.s(target)) (X-RESTRICT=JUMP)"
        guard let holding = c.trace.segment(holding: target) else { return .notJudged(expected, "\(T.s(target)) is not on the primary timeline") }
        let primary = c.trace.primarySegments
        // When the seek happened: the sender's scrub (a `lab run` cell), else a forward jump in the
        // primary's fetches over START (a person's seek at the lab page).
        let seekAt: Double
        if let series = c.series {
            guard let scrub = c.sent(.scrub).first, let at = c.seconds(atMs: scrub.atMs) else {
                let failed = series.commands.first { $0.kind == .scrub }
                return .notJudged(expected, failed.map { "the scrub failed: \($0.failure ?? "?")" } ?? "the scrub was not sent: the session ended first")
            }
            seekAt = at
        } else {
            let jump = zip(primary, primary.dropFirst()).first { a, b in
                b.index > a.index + 1 && c.trace.timeline[a.index].start < i.start && c.trace.timeline[b.index].start >= i.start
            }
            guard let jump else { return .notJudged(expected, "no seek past \(i.id) in the session's requests") }
            seekAt = jump.0.fetch.at
        }
        // The request log and the sender share a clock; the slack covers a log time taken as the request ended.
        guard let landed = primary.first(where: { $0.fetch.at >= seekAt - seekSlack && $0.index == holding }) else {
            return .notJudged(expected, "the primary at \(T.s(target)) was not fetched after the seek (at \(T.s(seekAt))): the session ended first")
        }
        let adBefore = c.trace.assetSegments(i).first { $0.fetch.index < landed.fetch.index }?.fetch
        if let adBefore {
            return .conforms(expected, "\(i.id) at \(T.s(adBefore.at)), then \(file(landed.fetch.path)) at \(T.s(landed.fetch.at)) "
                             + "(seek at \(T.s(seekAt)))", [adBefore, landed.fetch])
        }
        return .deviates(expected, "landed on \(T.s(target)) (\(file(landed.fetch.path)) at \(T.s(landed.fetch.at))) without playing \(i.id): "
                         + "the seek skipped the JUMP-restricted ad", [landed.fetch])
    }

    /// Seconds a fetch may appear before the command that caused it.
    static let seekSlack = 0.25

    static func rateHeld(_ c: BehaviourContext, _ e: LabExpectation, _ i: LabBehaviourInterstitial) -> CheckResult {
        let expected = "rate 1 while \(i.id) plays, the sender's rate command refused (X-RESTRICT=SKIP)"
        guard let series = c.series else {
            return .notJudged(expected, "needs the playback series: a session from the lab page has none (play the case with lab run)")
        }
        guard let rate = c.sent(.rate).first, let rateAt = c.seconds(atMs: rate.atMs) else {
            let failed = series.commands.first { $0.kind == .rate }
            return .notJudged(expected, failed.map { "the rate command failed: \($0.failure ?? "?")" } ?? "the rate command was not sent: the session ended first")
        }
        guard let start = c.trace.firstSegment(i) else {
            return .notJudged(expected, c.trace.passed(i) ? "\(i.id) was not played" : endedBefore(i, c.trace))
        }
        let end = c.trace.primarySegments.first { $0.fetch.index > start.index }?.fetch.at ?? .infinity
        let during = series.samples.filter { $0.previousItem != true }.compactMap { sample -> (at: Double, rate: Double)? in
            guard let at = c.seconds(atMs: sample.atMs), at >= start.at, at <= end, let r = sample.info?.rate else { return nil }
            return (at, r)
        }
        let sentText = "rate \(number(rate.value ?? 0)) sent at \(T.s(rateAt))"
        guard rateAt <= end else {
            return .notJudged(expected, "\(sentText), after \(i.id) had ended (\(T.s(end)))", [start])
        }
        if let fast = during.first(where: { $0.rate > 1.01 }) {
            return .deviates(expected, "rate \(number(fast.rate)) reported at \(T.s(fast.at)) while \(i.id) played, expected 1 "
                             + "(X-RESTRICT=SKIP; \(sentText))", [start])
        }
        guard !during.isEmpty else { return .notJudged(expected, "no playback report while \(i.id) played", [start]) }
        return .conforms(expected, "rate stayed at most 1 in \(during.count) report(s) while \(i.id) played (\(sentText))", [start])
    }

    static func primaryIdConstant(_ c: BehaviourContext, _ e: LabExpectation, _ i: LabBehaviourInterstitial?) -> CheckResult {
        let expected = "every asset-list and asset-playlist request carries _HLS_primary_id, one value for the session"
        let targets = c.trace.behaviour.interstitials.filter { e.interstitial == nil || $0.id == e.interstitial }
        let entries = c.trace.fetches.filter { fetch in
            targets.contains { t in (t.assetList.map { fetch.path == "/" + $0 } ?? false) || t.assets.contains { fetch.path == "/" + $0.playlist } }
        }
        guard !entries.isEmpty else {
            return .notJudged(expected, "no asset list or asset playlist was requested")
        }
        let values = entries.map { T.parameter("_HLS_primary_id", in: $0.record.query) }
        let missing = zip(entries, values).filter { $0.1 == nil }.map(\.0)
        if let first = missing.first {
            return .deviates(expected, "\(missing.count) of \(entries.count) interstitial request(s) without _HLS_primary_id "
                             + "(\(file(first.path, keep: 2)) at \(T.s(first.at)))", missing)
        }
        let distinct = Array(Set(values.compactMap { $0 })).sorted()
        if distinct.count > 1 {
            return .deviates(expected, "_HLS_primary_id changed within the session: " + distinct.joined(separator: ", "), entries)
        }
        return .conforms(expected, "_HLS_primary_id=\(distinct[0]) on all \(entries.count) interstitial request(s)", entries)
    }

    static func startOffset(_ c: BehaviourContext, _ e: LabExpectation, _ i: LabBehaviourInterstitial) -> CheckResult {
        let wanted = e.seconds ?? 0, tolerance = e.tolerance ?? 0.25
        let expected = "the asset-list request carries _HLS_start_offset=\(number(wanted)) (within \(number(tolerance)) s): joined mid-break"
        guard let list = i.assetList, let request = c.trace.fetches.first(where: { $0.path == "/" + list }) else {
            return .notJudged(expected, c.trace.passed(i) ? "the asset list of \(i.id) was not requested" : endedBefore(i, c.trace))
        }
        guard let text = T.parameter("_HLS_start_offset", in: request.record.query) else {
            return .deviates(expected, "the asset list requested at \(T.s(request.at)) without _HLS_start_offset, expected \(number(wanted))",
                             [request])
        }
        guard let value = Double(text) else {
            return .deviates(expected, "_HLS_start_offset=\(text) is not a number, expected \(number(wanted))", [request])
        }
        if abs(value - wanted) > tolerance {
            return .deviates(expected, "_HLS_start_offset=\(text), expected \(number(wanted)) +- \(number(tolerance))", [request])
        }
        return .conforms(expected, "_HLS_start_offset=\(text) at \(T.s(request.at))", [request])
    }

    static func leavesAtBoundary(_ c: BehaviourContext, _ e: LabExpectation, _ i: LabBehaviourInterstitial) -> CheckResult {
        let boundary = e.seconds ?? i.start
        let expected = "leaves the primary at the segment boundary \(T.s(boundary)), the nearest to START \(T.s(i.start)) (X-SNAP=OUT)"
        guard let ad = c.trace.firstSegment(i) else {
            return .notJudged(expected, c.trace.passed(i) ? "\(i.id) was not played" : endedBefore(i, c.trace))
        }
        guard let last = c.trace.primarySegments.last(where: { $0.fetch.index < ad.index }) else {
            return .notJudged(expected, "no primary segment fetched before \(i.id)", [ad])
        }
        let end = c.trace.end(of: last.index)
        let observed = "the last primary segment before \(i.id) was \(file(last.fetch.path)), ending at \(T.s(end))"
        if abs(end - boundary) <= (e.tolerance ?? 0.1) { return .conforms(expected, observed, [last.fetch, ad]) }
        return .deviates(expected, "left the primary at \(T.s(end)) (after \(file(last.fetch.path))), expected at the boundary \(T.s(boundary)) (X-SNAP=OUT)",
                         [last.fetch, ad])
    }
}
