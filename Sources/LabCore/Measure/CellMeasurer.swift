import Foundation

/// Turns a cell's series and requests into a measurement. Pure: no I/O, no clock.
public struct CellMeasurer: Sendable {
    public let thresholds: MeasurementThresholds

    public init(thresholds: MeasurementThresholds = .defaults) {
        self.thresholds = thresholds
    }

    /// `requests` are the lab server's records for this receiver's address since `/play` (any case);
    /// `labCase` is the case played; `failure` is set when the run loop could not finish the cell
    /// (receiver went away, timed out), and the series holds what was seen up to then.
    public func measure(series: PlaybackSeries, requests: [LabRequestRecord], labCase: LabCase,
                        failure: String?) -> CellMeasurement {
        let reading = SeriesReading(series: series, thresholds: thresholds)
        // A receiver that fetched none of the interstitial (Kodi ignores EXT-X-DATERANGE) never met
        // the case's transitions: its stalls there are stalls elsewhere.
        let fetched = TransitionPoint.interstitialFetched(labCase, requests: requests)
        let points = fetched == false ? [] : TransitionPoint.of(labCase)
        let window = thresholds.transitionWindowSeconds
        func near(_ position: Double) -> TransitionPoint? {
            points.filter { abs($0.position - position) <= window }.min { abs($0.position - position) < abs($1.position - position) }
        }
        var stalls = reading.stalls.map { stall -> MeasuredStall in
            var stall = stall
            stall.transition = near(stall.position)?.label
            return stall
        }
        let adHoldMs = fetched == true ? Self.discountAdHold(&stalls, labCase: labCase, thresholds: thresholds) : nil
        let jumps = reading.jumps.map { jump -> MeasuredJump in
            var jump = jump
            jump.transition = (near(jump.from) ?? near(jump.to))?.label
            return jump
        }
        let timed = RequestTiming(requests: requests, playSentAt: series.playSentAt)
        let duration = reading.reportedDuration ?? Self.caseDuration(labCase)
        var m = CellMeasurement(playToFirstRequestMs: timed.firstRequestMs, playToFirstSegmentMs: timed.firstSegmentMs,
                                playToFirstFrameMs: reading.firstFrameMs, stalls: stalls, outcome: .seamless, reason: "",
                                jumps: jumps, failedPolls: reading.failedPolls, receiverError: reading.receiverError?.error,
                                lastPosition: reading.lastPlayingPosition, mediaDuration: duration)
        let transitionStalls = stalls.filter(\.atTransition).map(\.durationMs)
        if let furthest = reading.lastPlayingPosition, let last = points.map(\.position).max(), furthest >= last + window {
            m.transitionStallMs = transitionStalls.max() ?? 0
        } else {
            m.transitionStallMs = transitionStalls.max()
        }
        m.shortEnd = Self.ownEndOfStream(reading: reading, duration: duration, requests: requests, labCase: labCase,
                                         playSentAt: series.playSentAt, margin: thresholds.earlyEndMarginSeconds,
                                         pastTransitions: points.map(\.position).max())
        if m.shortEnd != nil {
            // The freeze that never resumed before the receiver's own end of stream is that end
            // draining (Kodi holds its last frame 0.2-0.4 s), not a stall: the note says what was lost.
            m.stalls.removeAll { !$0.resumed && $0.kind == "position-frozen" && !$0.atTransition }
        }
        m.adHoldMs = adHoldMs
        decide(&m, reading: reading, failure: failure, timed: timed, live: labCase.behaviour?.live != nil)
        if fetched == false, m.outcome == .seamless || m.outcome == .stall {
            m.reason += "; interstitial not played (the receiver fetched none of it)"
        }
        return m
    }

    /// A receiver that plays a POINT interstitial holds the primary's position at START while the ad
    /// plays (AVPlayer pauses the primary item): a freeze there, up to the ad's duration, is the ad
    /// playing. Removes that much from the freeze at START (the whole stall when the rest is under
    /// `stallMinimumMs`) and returns the hold in ms; nil when no freeze sat at START. A freeze shorter
    /// than half the ad cannot have been the ad played through: it stays a stall.
    static func discountAdHold(_ stalls: inout [MeasuredStall], labCase: LabCase, thresholds: MeasurementThresholds) -> Double? {
        guard labCase.delivery != .stitched, let start = labCase.interstitialStart, let duration = labCase.interstitialDuration,
              duration > 0, let index = stalls.firstIndex(where: {
                  $0.kind == "position-frozen" && abs($0.position - start) <= thresholds.positionEpsilonSeconds + 0.25
                      && $0.durationMs >= duration * 500
              }) else { return nil }
        let adMs = duration * 1000
        let held = min(stalls[index].durationMs, adMs)
        let rest = stalls[index].durationMs - adMs
        if rest < thresholds.stallMinimumMs, stalls[index].resumed {
            stalls.remove(at: index)
        } else {
            stalls[index].durationMs = max(rest, 0)
        }
        return held
    }

    /// How far past the last playing position a receiver's loaded time ranges may reach and still
    /// count as drained (one poll of Kodi's rounding).
    static let drainedToleranceSeconds = 0.5

    /// An end short of `duration` that is the receiver's own end of stream: before it dropped the
    /// item it had fetched, in full, the last segment of one of the case's primary playlists, and its
    /// loaded time ranges ended where its position did (it played all it had). A receiver that
    /// reports no loaded ranges, or stopped with media still buffered or unfetched, ended early. So
    /// did one that stopped before `pastTransitions` (the case's last transition point, when the
    /// receiver met them): whatever its buffers say, it never played the switch back, the part
    /// under test (a decoder that gave up inside the ad drains its buffers too).
    static func ownEndOfStream(reading: SeriesReading, duration: Double?, requests: [LabRequestRecord], labCase: LabCase,
                               playSentAt: Date, margin: Double, pastTransitions: Double? = nil) -> MeasuredShortEnd? {
        guard let ended = reading.endedAtMs, let position = reading.lastPlayingPosition, let duration,
              position < duration - margin, position > (pastTransitions ?? -.infinity), let loaded = reading.lastPlayingLoadedEnd,
              loaded <= position + drainedToleranceSeconds else { return nil }
        let last = Set(labCase.variants.filter { $0.role == .primary }.compactMap(\.lastSegment).map { "/" + $0 })
        var fetched: (request: LabRequestRecord, atMs: Double)?
        for request in requests where last.contains(request.path) && request.method == "GET" && request.status < 400 && request.completed {
            let atMs: Double = request.at.timeIntervalSince(playSentAt) * 1000
            guard atMs >= -250, atMs <= ended, atMs < (fetched?.atMs ?? .infinity) else { continue }
            fetched = (request, atMs)
        }
        guard let (request, atMs) = fetched else { return nil }
        return MeasuredShortEnd(position: position, duration: duration, lastSegment: request.path, lastSegmentAtMs: max(0, atMs),
                                loadedEnd: loaded)
    }

    /// The verdict, in order: the run's own failure, the receiver's error, the receiver gone, never
    /// played, early end (not a receiver's own end of stream: that is noted), stalls; else seamless.
    private func decide(_ m: inout CellMeasurement, reading: SeriesReading, failure: String?, timed: RequestTiming, live: Bool) {
        func fail(_ kind: MeasuredFailure, _ reason: String) {
            m.shortEnd = nil
            m.outcome = .failed
            m.failure = kind
            m.reason = reason
        }
        let gone = reading.trailingFailures >= 2
        if let failure {
            let lowered = failure.lowercased()
            let kind: MeasuredFailure = reading.receiverError != nil ? .receiverError
                : lowered.contains("went away") || lowered.contains("vanish") || (gone && m.playToFirstFrameMs != nil) ? .receiverWentAway
                : m.playToFirstFrameMs == nil ? .neverPlayed : .runFailed
            fail(kind, failure)
        } else if let error = reading.receiverError {
            fail(.receiverError, "receiver error \(error.error) at \(MeasureText.seconds(error.atMs / 1000)) after /play")
        } else if gone, m.playToFirstFrameMs != nil {
            fail(.receiverWentAway, "receiver went away: the last \(reading.trailingFailures) polls failed"
                 + (reading.lastFailure.map { " (\($0))" } ?? ""))
        } else if let away = reading.endedAfterGap, m.playToFirstFrameMs != nil {
            fail(.receiverWentAway, "receiver went away: \(away.polls) polls failed from \(MeasureText.seconds(away.fromMs / 1000)) "
                 + "after /play, and it came back without the item" + (reading.lastFailure.map { " (\($0))" } ?? ""))
        } else if m.playToFirstFrameMs == nil {
            let what = timed.firstRequestMs == nil ? "the receiver fetched nothing"
                : timed.firstSegmentMs == nil ? "it fetched playlists but no segment" : "it fetched segments but the position never moved"
            fail(.neverPlayed, "never played: \(what)" + (gone ? "; the last \(reading.trailingFailures) polls failed" : ""))
        } else if let ended = reading.endedAtMs, let position = reading.lastPlayingPosition, let duration = m.mediaDuration,
                  position < duration - thresholds.earlyEndMarginSeconds, m.shortEnd == nil {
            fail(.endedEarly, "ended early: playback stopped at \(MeasureText.seconds(position)) of \(MeasureText.seconds(duration))"
                 + " (\(MeasureText.seconds(ended / 1000)) after /play)")
        } else if !live, reading.reportedDuration == nil, let position = reading.lastPlayingPosition, let duration = m.mediaDuration,
                  position < duration - thresholds.earlyEndMarginSeconds {
            // A receiver that reports duration 0 (or none) while its position moves gives no end of
            // its own to believe: the case's known duration is what the last position is held against.
            fail(.endedEarly, "ended early: playback stopped at \(MeasureText.seconds(position)) of the case's "
                 + "\(MeasureText.seconds(duration)); the receiver reported no duration (0) while its position moved, "
                 + "so the case's own duration is held against it")
        } else if !m.stalls.isEmpty {
            m.outcome = .stall
            let named = m.stalls.filter(\.atTransition).max { $0.durationMs < $1.durationMs }
                ?? m.stalls.max { $0.durationMs < $1.durationMs }!
            let what = named.kind == "rate-dropped" ? "rate dropped to 0 for" : "position frozen"
            m.reason = "\(what) \(MeasureText.ms(named.durationMs))\(named.resumed ? "" : " (never resumed)") at "
                + MeasureText.seconds(named.position) + (named.transition.map { " (\($0))" } ?? " (away from any transition)")
                + (m.stalls.count > 1 ? "; \(m.stalls.count) stalls" : "")
        } else {
            m.outcome = .seamless
            m.reason = "played" + (m.playToFirstFrameMs.map { "; first frame \(MeasureText.ms($0)) after /play" } ?? "")
                + (m.transitionStallMs == 0 ? "; no stall at the transitions" : "")
                + (m.adHoldMs.map { "; position held at the ad's start \(MeasureText.ms($0)) while the ad played" } ?? "")
        }
        if let short = m.shortEnd {
            m.reason += "; ended by its own end of stream \(MeasureText.seconds(short.duration - short.position)) short of the "
                + "\(MeasureText.seconds(short.duration)) it reported (at \(MeasureText.seconds(short.position))): it had fetched "
                + "the last segment (\(short.lastSegment), \(MeasureText.seconds(short.lastSegmentAtMs / 1000)) after /play) "
                + "and played all it had loaded"
        }
        if !m.jumps.isEmpty {
            let jump = m.jumps[0]
            m.reason += "; position jumped \(jump.kind) from \(MeasureText.seconds(jump.from)) to \(MeasureText.seconds(jump.to))"
                + (jump.transition.map { " (\($0))" } ?? "")
        }
    }

    /// The case's playback timeline when the receiver reports no duration: a stitched playlist
    /// carries the ad inside it.
    static func caseDuration(_ labCase: LabCase) -> Double {
        labCase.primary.duration + (labCase.delivery == .stitched ? labCase.interstitialDuration ?? 0 : 0)
    }
}

/// The receiver's requests against the moment `/play` was sent.
struct RequestTiming {
    static let segmentExtensions: Set<String> = ["ts", "m4s", "mp4", "aac", "m4a", "ac3", "ec3", "mp3"]
    var firstRequestMs: Double?
    var firstSegmentMs: Double?

    init(requests: [LabRequestRecord], playSentAt: Date) {
        // The log and /play share the machine's wall clock; a request a few ms "before" is clock granularity.
        let after = requests.map { ($0, $0.at.timeIntervalSince(playSentAt) * 1000) }.filter { $0.1 >= -250 }
            .sorted { $0.1 < $1.1 }
        firstRequestMs = after.first.map { max(0, $0.1) }
        firstSegmentMs = after.first { Self.isSegment($0.0) && $0.0.status < 400 }.map { max(0, $0.1) }
    }

    /// A media segment: by extension, not an init section (the suite names them init*).
    static func isSegment(_ request: LabRequestRecord) -> Bool {
        let file = request.path.split(separator: "/").last.map(String.init) ?? ""
        guard !file.hasPrefix("init"), let dot = file.lastIndex(of: ".") else { return false }
        return segmentExtensions.contains(file[file.index(after: dot)...].lowercased())
    }
}
