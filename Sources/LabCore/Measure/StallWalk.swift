import AirPlayModel
import Foundation

/// The walk over a series' answered polls from the first frame on, as the named steps of
/// `StallSteps` (freeze, lead, rate drop; the end and jumps beside them). Each consecutive pair of
/// polls goes to exactly one step (`step`); what a step leaves open (a freeze, a drop) is closed by
/// the next step that sees playback move again, or at the end.
struct StallWalk {
    struct Poll {
        var sample: PlaybackSample
        var info: PlaybackInfo
        /// A failed poll came just before this one.
        var afterGap: Bool
    }

    /// A freeze being measured: where it began, the wall time it has lost so far, its first poll.
    typealias OpenFreeze = (startMs: Double, position: Double, shortfallMs: Double, firstPoll: Int)

    let polls: [Poll]
    let samples: [PlaybackSample]
    let thresholds: MeasurementThresholds
    let paused: PauseWindows
    let reportedDuration: Double?
    let firstIndex: Int

    var stalls: [MeasuredStall] = []
    var jumps: [MeasuredJump] = []
    var lastPlayingPosition: Double?
    var lastPlayingLoadedEnd: Double?
    var endedAtMs: Double?
    var endedAfterGap: (fromMs: Double, polls: Int)?

    private var freeze: OpenFreeze?
    /// The previous pair's shortfall when it was below the epsilon: a freeze starting next began in it.
    private var lead: OpenFreeze?
    private var drop: (startMs: Double, position: Double, lastAtMs: Double)?
    /// The backward look of `settledLag` stops where the previous freeze ended.
    private var settledFrom: Int

    init(polls: [Poll], samples: [PlaybackSample], thresholds: MeasurementThresholds, paused: PauseWindows,
         reportedDuration: Double?, firstIndex: Int) {
        self.polls = polls
        self.samples = samples
        self.thresholds = thresholds
        self.paused = paused
        self.reportedDuration = reportedDuration
        self.firstIndex = firstIndex
        self.settledFrom = firstIndex
    }

    mutating func run() {
        markPlaying(polls[firstIndex].info)
        for index in polls.indices.dropFirst(firstIndex + 1) { step(index) }
        closeFreeze(resumed: false)
        closeDrop(resumedAtMs: nil)
        stalls = stalls.filter { $0.durationMs >= thresholds.stallMinimumMs }
    }

    /// One pair of polls (`index - 1`, `index`), to the step it belongs to.
    private mutating func step(_ index: Int) {
        let a = polls[index - 1], b = polls[index]
        let t0 = a.sample.atMs, t1 = b.sample.atMs
        let p0 = a.info.position ?? 0, p1 = b.info.position ?? 0
        let delta = p1 - p0, elapsed = (t1 - t0) / 1000
        let rate = b.info.rate ?? 0
        let previousLead = lead
        lead = nil
        // A receiver that reports a duration while it has an item and none after (pyatv reads it so);
        // or an answer with no item at all, whatever the duration said before (UxPlay reports a live
        // stream's duration as -0.0, then an empty 200 once it dropped the item): no rate is not rate 0.
        if reportedDuration != nil && (b.info.duration ?? 0) <= 0 || b.info.position == nil && b.info.rate == nil && b.info.duration == nil {
            ended(at: t0, t1, afterGap: b.afterGap)
        } else if b.afterGap || paused.contains(t1) || paused.contains(t0) || paused.scrubbed(between: t0, and: t1) {
            // A fault or the sender's own pause or scrub: nothing open survives it.
            closeFreeze(resumed: false)
            closeDrop(resumedAtMs: nil)
        } else if rate <= 0 {
            rateDrop(t0: t0, t1: t1, p0: p0, delta: delta, elapsed: elapsed)
        } else if let open = drop {
            // Rate back above 0: it came back when the position says it started moving again.
            closeDrop(resumedAtMs: max(open.lastAtMs, t1 - max(0, p1 - open.position) * 1000 / rate))
            markPlaying(b.info)
        } else if delta > elapsed * rate + thresholds.jumpToleranceSeconds || delta < -thresholds.jumpToleranceSeconds {
            closeFreeze(resumed: true)  // the jump is reported as itself; the lag across it is not a freeze
            jumps.append(MeasuredJump(atMs: t1, from: p0, to: p1, kind: delta > 0 ? "forward" : "backward"))
            markPlaying(b.info)
        } else {
            freezeOrLead(index, t0: t0, t1: t1, p0: p0, delta: delta, rate: rate, previousLead: previousLead)
            markPlaying(b.info)
        }
    }

    /// The end: the receiver has no item any more (playback ended, or was ended).
    private mutating func ended(at t0: Double, _ t1: Double, afterGap: Bool) {
        closeFreeze(resumed: false)
        closeDrop(resumedAtMs: nil)
        guard endedAtMs == nil else { return }
        endedAtMs = t1
        if afterGap {
            let failed = samples.filter { $0.info == nil && $0.atMs > t0 && $0.atMs < t1 }
            endedAfterGap = (failed.first?.atMs ?? t0, failed.count)
        }
    }

    /// Rate drop: the rate at 0 with no `/rate 0` from the sender; it began where the position stopped.
    private mutating func rateDrop(t0: Double, t1: Double, p0: Double, delta: Double, elapsed: Double) {
        closeFreeze(resumed: false)
        if drop == nil {
            let moved = min(max(0, delta), elapsed)
            drop = (t0 + moved * 1000, p0 + moved, t1)
        } else {
            drop?.lastAtMs = t1
        }
    }

    /// Freeze: a run of pairs each showing more wall time than media time (by more than the
    /// position epsilon); its duration is the sum of those shortfalls, so that a 1.2 s freeze reads
    /// 1.2 s whether polled every 250 ms or every second. Lead: a pair just under the epsilon at
    /// either edge of a freeze still belongs to it.
    private mutating func freezeOrLead(_ index: Int, t0: Double, t1: Double, p0: Double, delta: Double, rate: Double,
                                       previousLead: OpenFreeze?) {
        let shortfallMs = (t1 - t0) - max(0, delta) * 1000 / rate
        // It moved first, then stopped: a freeze starts where the position stopped.
        let moved = max(0, delta)
        if shortfallMs > thresholds.positionEpsilonSeconds * 1000 {
            if freeze == nil { freeze = previousLead ?? (t0 + moved * 1000 / rate, p0 + moved, 0, index - 1) }
            freeze?.shortfallMs += shortfallMs
        } else {
            if freeze != nil { freeze?.shortfallMs += max(0, shortfallMs) }
            closeFreeze(resumed: true, at: index)
            lead = shortfallMs > 1 ? (t0 + moved * 1000 / rate, p0 + moved, shortfallMs, index - 1) : nil
        }
    }

    /// How far the position lags wall time at a poll (ms). Receivers report positions in steps
    /// (Kodi: about 0.2 s), so a poll that shows no movement may be followed by one that catches
    /// up: the freeze that counts is the lag it left behind, the lowest lag in the second after it
    /// less the lowest in the second before it (lags only read high, never low, from stepping).
    private func lag(_ index: Int) -> Double? {
        let poll = polls[index]
        guard let position = poll.info.position, (poll.info.rate ?? 0) > 0 else { return nil }
        return poll.sample.atMs - position * 1000 / (poll.info.rate ?? 1)
    }

    private func settledLag(from start: Int, forward: Bool) -> Double? {
        let anchor = polls[start].sample.atMs
        var lags: [Double] = [], index = start
        while index >= settledFrom, index < polls.count, abs(polls[index].sample.atMs - anchor) <= 1000 {
            if let value = lag(index) { lags.append(value) }
            if forward, index > start, polls[index].afterGap { break }
            index += forward ? 1 : -1
        }
        return lags.min()
    }

    private mutating func closeFreeze(resumed: Bool, at resumeIndex: Int? = nil) {
        guard let open = freeze else { return }
        freeze = nil
        var duration = open.shortfallMs
        if resumed, let resumeIndex, let before = settledLag(from: open.firstPoll, forward: false),
           let after = settledLag(from: resumeIndex, forward: true) {
            duration = max(0, after - before)
        }
        if let resumeIndex { settledFrom = resumeIndex }
        // Stuck in the last seconds before the item was dropped: the end of the media, not a stall.
        if !resumed, let end = reportedDuration, open.position >= end - thresholds.earlyEndMarginSeconds { return }
        stalls.append(MeasuredStall(position: open.position, startMs: open.startMs, durationMs: duration,
                                    kind: "position-frozen", resumed: resumed))
    }

    private mutating func closeDrop(resumedAtMs: Double?) {
        guard let open = drop else { return }
        let end = resumedAtMs ?? open.lastAtMs
        stalls.append(MeasuredStall(position: open.position, startMs: open.startMs, durationMs: max(0, end - open.startMs),
                                    kind: "rate-dropped", resumed: resumedAtMs != nil))
        drop = nil
    }

    private mutating func markPlaying(_ info: PlaybackInfo) {
        guard let position = info.position, (info.rate ?? 0) > 0 else { return }
        lastPlayingPosition = max(lastPlayingPosition ?? position, position)
        lastPlayingLoadedEnd = info.loadedTimeRanges.map { $0.start + $0.duration }.filter(\.isFinite).max()
    }
}
