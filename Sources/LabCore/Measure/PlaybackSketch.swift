import AirPlayModel
import Foundation

/// A playback series written as what the receiver did ("loads 800 ms, plays 6 s, freezes 1.2 s,
/// plays on"), polled like the run loop polls: the measurement rules' examples and the tests are
/// built from these, in the shapes Kodi showed (position in 0.25 s polls, duration and rate only).
public struct PlaybackSketch: Sendable {
    enum Step: Sendable {
        case loading(ms: Double)
        case plays(seconds: Double)
        case freezes(ms: Double)
        case rateZero(ms: Double)
        case jumps(to: Double)
        case gone(ms: Double)
        case ended(ms: Double)
        case error(domain: String, code: Int, ms: Double)
    }

    public var pollMs: Double
    /// The first poll comes this long after `/play` (polls rarely line up with what they watch).
    public var firstPollMs: Double
    /// What the receiver reports as `duration`.
    public var duration: Double
    var steps: [Step] = []
    /// The receiver's requests, ms after /play, with their paths.
    public var requests: [(ms: Double, path: String)] = []
    public var commands: [SentCommand] = []
    /// Loaded time ranges, as Kodi reports them: from 0 to the position plus `ahead`, capped at
    /// `upTo` (default: the furthest position the steps play, so the buffer drains at the end).
    /// nil: the receiver reports none.
    public var buffer: (ahead: Double, upTo: Double?)?

    public init(duration: Double, pollMs: Double = 250, firstPollMs: Double = 110) {
        self.duration = duration
        self.pollMs = pollMs
        self.firstPollMs = firstPollMs
        self.requests = [(20, "/cases/c/master.m3u8"), (35, "/cases/c/v.m3u8"), (55, "/cases/c/primary/seg_000.m4s")]
    }

    func adding(_ step: Step) -> Self { var copy = self; copy.steps.append(step); return copy }
    /// Rate 1, position not moving yet (start-up).
    public func loads(_ ms: Double) -> Self { adding(.loading(ms: ms)) }
    public func plays(_ seconds: Double) -> Self { adding(.plays(seconds: seconds)) }
    /// Rate 1, position stuck.
    public func freezes(_ ms: Double) -> Self { adding(.freezes(ms: ms)) }
    /// Rate 0, position stuck.
    public func rateZero(_ ms: Double) -> Self { adding(.rateZero(ms: ms)) }
    public func jumps(to position: Double) -> Self { adding(.jumps(to: position)) }
    /// Polls fail (no answer) for this long.
    public func gone(_ ms: Double) -> Self { adding(.gone(ms: ms)) }
    /// The receiver reports no item (an empty plist, as Kodi does) for this long.
    public func ended(_ ms: Double) -> Self { adding(.ended(ms: ms)) }
    public func error(domain: String, code: Int, for ms: Double) -> Self { adding(.error(domain: domain, code: code, ms: ms)) }
    public func buffers(ahead: Double, upTo: Double? = nil) -> Self { var copy = self; copy.buffer = (ahead, upTo); return copy }
    /// One more request of the receiver's, `ms` after /play.
    public func fetches(_ path: String, at ms: Double) -> Self { var copy = self; copy.requests.append((ms, path)); return copy }
    public func fetchesNothing() -> Self { var copy = self; copy.requests = []; return copy }
    public func sent(_ command: SentCommand) -> Self { var copy = self; copy.commands.append(command); return copy }

    /// The steps as timed spans: wall ms from /play.
    private func spans() -> [(start: Double, end: Double, step: Step, position: Double)] {
        var result: [(Double, Double, Step, Double)] = [], t = 0.0, position = 0.0
        for step in steps {
            switch step {
            case .loading(let ms), .freezes(let ms), .rateZero(let ms), .gone(let ms), .ended(let ms), .error(_, _, let ms):
                result.append((t, t + ms, step, position)); t += ms
            case .plays(let seconds):
                result.append((t, t + seconds * 1000, step, position)); t += seconds * 1000; position += seconds
            case .jumps(let to):
                position = to
            }
        }
        return result
    }

    /// Polls every `pollMs` from `firstPollMs` to the end of the last step.
    public func series(playSentAt: Date = Date(timeIntervalSince1970: 1_800_000_000)) -> PlaybackSeries {
        let spans = spans()
        let furthest = spans.map { span -> Double in
            if case .plays(let seconds) = span.step { return span.position + seconds }
            return span.position
        }.max() ?? 0
        func loaded(_ position: Double) -> [PlaybackInfo.TimeRange] {
            guard let buffer else { return [] }
            return [PlaybackInfo.TimeRange(start: 0, duration: min(position + buffer.ahead, buffer.upTo ?? furthest))]
        }
        var samples: [PlaybackSample] = []
        var t = firstPollMs
        while let span = spans.first(where: { $0.start <= t && t < $0.end }) {
            let info: PlaybackInfo?
            switch span.step {
            case .loading: info = PlaybackInfo(duration: duration, position: span.position, rate: 1)
            case .plays:
                let position = span.position + (t - span.start) / 1000
                info = PlaybackInfo(duration: duration, position: position, rate: 1, loadedTimeRanges: loaded(position))
            case .freezes: info = PlaybackInfo(duration: duration, position: span.position, rate: 1, loadedTimeRanges: loaded(span.position))
            case .rateZero: info = PlaybackInfo(duration: duration, position: span.position, rate: 0)
            case .ended: info = PlaybackInfo()  // Kodi's empty plist once the item is dropped
            case .error(let domain, let code, _):
                info = PlaybackInfo(duration: duration, position: span.position, rate: 0,
                                    error: PlaybackInfo.ReceiverError(domain: domain, code: code))
            case .gone, .jumps: info = nil
            }
            samples.append(PlaybackSample(atMs: t, info: info, failure: info == nil ? "connection refused" : nil))
            t += pollMs
        }
        return PlaybackSeries(playSentAt: playSentAt, pollIntervalMs: pollMs, samples: samples,
                              commands: [SentCommand(kind: .play, atMs: 0, value: 0)] + commands)
    }

    /// The receiver's requests as the lab server would log them.
    public func requestRecords(playSentAt: Date = Date(timeIntervalSince1970: 1_800_000_000), client: String = "127.0.0.9")
        -> [LabRequestRecord] {
        requests.map { LabRequestRecord(at: playSentAt.addingTimeInterval($0.ms / 1000), client: client, method: "GET",
                                        path: $0.path, status: 200, bytes: 1000, durationMs: 2, caseId: "c") }
    }
}
