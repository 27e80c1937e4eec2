import AirPlayModel
import Foundation

/// What a playback series shows, before any verdict: first frame, stalls, jumps, faults, the end.
/// Built by walking consecutive answered polls after the first frame. Poll-aware: a freeze is
/// measured between the last poll that moved and the first that moved again, minus the media
/// time those polls show advancing, so that its duration does not depend on the poll interval.
struct SeriesReading {
    var firstFrameMs: Double?
    var stalls: [MeasuredStall] = []
    var jumps: [MeasuredJump] = []
    var failedPolls = 0
    /// Polls that failed after the last answered one: the receiver stopped answering.
    var trailingFailures = 0
    var lastFailure: String?
    var receiverError: (error: String, atMs: Double)?
    /// The furthest position seen while playing (rate > 0 and a duration), and the largest duration reported.
    var lastPlayingPosition: Double?
    var reportedDuration: Double?
    /// The end of the receiver's loaded time ranges at the last poll seen playing (nil when it reported
    /// none): equal to that poll's position when it had played all it had buffered.
    var lastPlayingLoadedEnd: Double?
    /// The receiver reported no item (duration missing or 0) after it had played.
    var endedAtMs: Double?
    /// The first answer with no item came right after failed polls: the receiver went away and came
    /// back without it. The failed stretch, in ms.
    var endedAfterGap: (fromMs: Double, polls: Int)?

    init(series: PlaybackSeries, thresholds: MeasurementThresholds) {
        let stopAt = series.commands.first { $0.kind == .stop && $0.failure == nil }?.atMs ?? .infinity
        // A receiver's NaN or infinity (seen in plists) is no value at all; polls out of time order are sorted.
        let samples = series.samples.filter { $0.atMs.isFinite && $0.atMs <= stopAt && $0.previousItem != true }.sorted { $0.atMs < $1.atMs }.map(Self.finite)
        let eps = thresholds.positionEpsilonSeconds
        let paused = PauseWindows(series.commands)

        failedPolls = samples.filter { $0.info == nil }.count
        trailingFailures = samples.reversed().prefix { $0.info == nil }.count
        lastFailure = samples.last { $0.info == nil }?.failure
        for sample in samples {
            guard let info = sample.info else { continue }
            if let error = info.error, receiverError == nil { receiverError = ("\(error)", sample.atMs) }
            if let duration = info.duration, duration > 0 { reportedDuration = max(reportedDuration ?? 0, duration) }
        }

        // Answered polls, each remembering whether a failed poll came just before it.
        var polls: [(sample: PlaybackSample, info: PlaybackInfo, afterGap: Bool)] = []
        var gap = false
        for sample in samples {
            guard let info = sample.info else { gap = true; continue }
            // An answer without a usable position while an item plays (a NaN) says nothing: the polls
            // either side of it are compared. Without a duration either, it is the item gone (Kodi's
            // empty plist at the end), which the walk below must see.
            guard info.position != nil || (info.duration ?? 0) <= 0 else { continue }
            polls.append((sample, info, gap))
            gap = false
        }

        // The first frame: the first poll whose position advanced (rate > 0) by more than jitter and by
        // no more than the time since explains; the frame came when its position says playback began,
        // but not before the last poll that still showed the resting position.
        // `rest` is the position it waits at: the start, or where a start-position seek put it.
        var rest = series.commands.first { $0.kind == .play }?.value ?? 0
        var previous: (atMs: Double, position: Double) = (0, rest)
        var restingAtMs = 0.0
        var firstIndex: Int?
        for (index, poll) in polls.enumerated() {
            let position = poll.info.position ?? 0, rate = poll.info.rate ?? 0
            let delta = position - previous.position, elapsed = (poll.sample.atMs - previous.atMs) / 1000
            if rate > 0, delta > eps, delta <= elapsed * rate + thresholds.jumpToleranceSeconds, position > rest {
                firstFrameMs = max(restingAtMs, poll.sample.atMs - (position - rest) * 1000 / rate)
                firstIndex = index
                break
            }
            if abs(delta) > thresholds.jumpToleranceSeconds {
                rest = position
                restingAtMs = poll.sample.atMs
            } else if abs(position - rest) <= 0.001 {
                restingAtMs = poll.sample.atMs
            }
            previous = (poll.sample.atMs, position)
        }
        guard let firstIndex else { return }
        // A receiver that reports a duration while it has an item and none after (pyatv reads it so).
        let reportsDuration = reportedDuration != nil

        // A freeze is a run of consecutive poll pairs each showing more wall time than media time
        // (by more than the position epsilon): its duration is the sum of those shortfalls, so that a
        // 1.2 s freeze reads 1.2 s whether polled every 250 ms or every second.
        var freeze: (startMs: Double, position: Double, shortfallMs: Double, firstPoll: Int)?
        // The previous pair's shortfall when it was below the epsilon: a freeze starting next began in it.
        var lead: (startMs: Double, position: Double, shortfallMs: Double, firstPoll: Int)?
        var drop: (startMs: Double, position: Double, lastAtMs: Double)?
        // How far the position lags wall time at a poll (ms). Receivers report positions in steps
        // (Kodi: about 0.2 s), so a poll that shows no movement may be followed by one that catches
        // up: the freeze that counts is the lag it left behind, the lowest lag in the second after it
        // less the lowest in the second before it (lags only read high, never low, from stepping).
        func lag(_ index: Int) -> Double? {
            let poll = polls[index]
            guard let position = poll.info.position, (poll.info.rate ?? 0) > 0 else { return nil }
            return poll.sample.atMs - position * 1000 / (poll.info.rate ?? 1)
        }
        var settledFrom = firstIndex  // the backward look stops where the previous freeze ended
        func settledLag(from start: Int, forward: Bool) -> Double? {
            let anchor = polls[start].sample.atMs
            var lags: [Double] = [], index = start
            while index >= settledFrom, index < polls.count, abs(polls[index].sample.atMs - anchor) <= 1000 {
                if let value = lag(index) { lags.append(value) }
                if forward, index > start, polls[index].afterGap { break }
                index += forward ? 1 : -1
            }
            return lags.min()
        }
        func closeFreeze(resumed: Bool, at resumeIndex: Int? = nil) {
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
        func closeDrop(resumedAtMs: Double?) {
            guard let open = drop else { return }
            let end = resumedAtMs ?? open.lastAtMs
            stalls.append(MeasuredStall(position: open.position, startMs: open.startMs, durationMs: max(0, end - open.startMs),
                                        kind: "rate-dropped", resumed: resumedAtMs != nil))
            drop = nil
        }
        markPlaying(polls[firstIndex].info)

        for index in polls.indices.dropFirst(firstIndex + 1) {
            let a = polls[index - 1], b = polls[index]
            let t0 = a.sample.atMs, t1 = b.sample.atMs
            let p0 = a.info.position ?? 0, p1 = b.info.position ?? 0
            let delta = p1 - p0, elapsed = (t1 - t0) / 1000
            let rate = b.info.rate ?? 0
            let previousLead = lead
            lead = nil
            if reportsDuration && (b.info.duration ?? 0) <= 0 {
                // The receiver has no item any more: playback ended (or was ended).
                closeFreeze(resumed: false); closeDrop(resumedAtMs: nil)
                if endedAtMs == nil {
                    endedAtMs = t1
                    if b.afterGap {
                        let failed = samples.filter { $0.info == nil && $0.atMs > t0 && $0.atMs < t1 }
                        endedAfterGap = (failed.first?.atMs ?? t0, failed.count)
                    }
                }
                continue
            }
            if b.afterGap || paused.contains(t1) || paused.contains(t0) || paused.scrubbed(between: t0, and: t1) {
                closeFreeze(resumed: false); closeDrop(resumedAtMs: nil)
                continue
            }
            if rate <= 0 {
                closeFreeze(resumed: false)
                if drop == nil {
                    let moved = min(max(0, delta), elapsed)
                    drop = (t0 + moved * 1000, p0 + moved, t1)
                } else {
                    drop?.lastAtMs = t1
                }
                continue
            }
            if let open = drop {
                // Rate back above 0: it came back when the position says it started moving again.
                closeDrop(resumedAtMs: max(open.lastAtMs, t1 - max(0, p1 - open.position) * 1000 / rate))
                markPlaying(b.info)
                continue
            }
            if delta > elapsed * rate + thresholds.jumpToleranceSeconds || delta < -thresholds.jumpToleranceSeconds {
                closeFreeze(resumed: true)  // the jump is reported as itself; the lag across it is not a freeze
                jumps.append(MeasuredJump(atMs: t1, from: p0, to: p1, kind: delta > 0 ? "forward" : "backward"))
                markPlaying(b.info)
                continue
            }
            let shortfallMs = (t1 - t0) - max(0, delta) * 1000 / rate
            // It moved first, then stopped: a freeze starts where the position stopped.
            let moved = max(0, delta)
            if shortfallMs > eps * 1000 {
                if freeze == nil { freeze = previousLead ?? (t0 + moved * 1000 / rate, p0 + moved, 0, index - 1) }
                freeze?.shortfallMs += shortfallMs
            } else {
                // A pair just under the epsilon at either edge of a freeze still belongs to it.
                if freeze != nil { freeze?.shortfallMs += max(0, shortfallMs) }
                closeFreeze(resumed: true, at: index)
                lead = shortfallMs > 1 ? (t0 + moved * 1000 / rate, p0 + moved, shortfallMs, index - 1) : nil
            }
            markPlaying(b.info)
        }
        closeFreeze(resumed: false)
        closeDrop(resumedAtMs: nil)
        stalls = stalls.filter { $0.durationMs >= thresholds.stallMinimumMs }
    }

    static func finite(_ sample: PlaybackSample) -> PlaybackSample {
        guard var info = sample.info else { return sample }
        if let value = info.position, !value.isFinite { info.position = nil }
        if let value = info.rate, !value.isFinite { info.rate = nil }
        if let value = info.duration, !value.isFinite { info.duration = nil }
        var copy = sample
        copy.info = info
        return copy
    }

    private mutating func markPlaying(_ info: PlaybackInfo) {
        guard let position = info.position, (info.rate ?? 0) > 0 else { return }
        lastPlayingPosition = max(lastPlayingPosition ?? position, position)
        lastPlayingLoadedEnd = info.loadedTimeRanges.map { $0.start + $0.duration }.filter(\.isFinite).max()
    }
}

/// When the sender itself paused playback (`/rate` 0 until the next non-zero `/rate`) or moved it (`/scrub`).
struct PauseWindows {
    private var windows: [ClosedRange<Double>] = []
    private var scrubs: [Double] = []

    init(_ commands: [SentCommand]) {
        var pausedAt: Double?
        for command in commands.sorted(by: { $0.atMs < $1.atMs }) where command.failure == nil {
            switch command.kind {
            case .rate where (command.value ?? 1) == 0:
                pausedAt = pausedAt ?? command.atMs
            case .rate:
                if let start = pausedAt { windows.append(start...command.atMs); pausedAt = nil }
            case .scrub:
                scrubs.append(command.atMs)
            case .play, .stop:
                break
            }
        }
        if let start = pausedAt { windows.append(start...Double.infinity) }
    }

    func contains(_ atMs: Double) -> Bool { windows.contains { $0.contains(atMs) } }

    func scrubbed(between start: Double, and end: Double) -> Bool { scrubs.contains { $0 > start && $0 <= end } }
}
