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
        // The walk from the first frame on, in named steps (StallWalk; StallSteps gives their examples).
        var walk = StallWalk(polls: polls.map { StallWalk.Poll(sample: $0.sample, info: $0.info, afterGap: $0.afterGap) },
                             samples: samples, thresholds: thresholds, paused: paused, reportedDuration: reportedDuration,
                             firstIndex: firstIndex)
        walk.run()
        stalls = walk.stalls
        jumps = walk.jumps
        lastPlayingPosition = walk.lastPlayingPosition
        lastPlayingLoadedEnd = walk.lastPlayingLoadedEnd
        endedAtMs = walk.endedAtMs
        endedAfterGap = walk.endedAfterGap
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
