import AirPlay
import Foundation
import LabCore
import LabServer

/// The bounds of one cell: how often to poll, when to give up, what counts as the end.
public struct CellLimits: Sendable, Equatable {
    public var pollInterval: Duration
    /// From `/play`: the cell ends here whatever the receiver does (media duration plus a margin).
    public var caseTimeout: Duration
    /// A position within this many seconds of the duration is the end of the media.
    public var endTolerance: Double
    /// Polls in a row without a duration, once playback had started, that mean the receiver
    /// finished and dropped the item (pyatv counts 5 at 1 s).
    public var idlePollsToFinish: Int
    /// Polls failing this long in a row: the receiver went away.
    public var goneAfter: Duration
    /// Seconds past the start position within which a first answer is this cell's item; one further
    /// on that stands still is the previous item still reported (see `PlaybackSample.previousItem`).
    public var startWindow: Double
    /// False for a case that goes on past the primary's end (a CUE=POST break): the cell ends when
    /// the receiver drops the item (or at the timeout), not when the position reaches the duration.
    public var stopAtEnd: Bool
    /// A live stream has no duration until it ends: only an answer with neither a duration nor a
    /// position counts towards `idlePollsToFinish`.
    public var live: Bool

    public init(pollInterval: Duration = .milliseconds(250), caseTimeout: Duration, endTolerance: Double = 0.5,
                idlePollsToFinish: Int? = nil, goneAfter: Duration = .seconds(3), startWindow: Double = 2, stopAtEnd: Bool = true,
                live: Bool = false) {
        self.stopAtEnd = stopAtEnd
        self.live = live
        self.pollInterval = pollInterval
        self.caseTimeout = caseTimeout
        self.endTolerance = endTolerance
        // About a second of polls by default, and never fewer than 2.
        self.idlePollsToFinish = idlePollsToFinish ?? max(2, Int((Duration.seconds(1) / pollInterval).rounded(.up)))
        self.goneAfter = goneAfter
        self.startWindow = startWindow
    }
}

/// How a cell ended, and the failure the measurer is given (nil when it played to the end).
public struct CellEnd: Sendable, Equatable {
    public enum Kind: String, Sendable, Codable {
        /// The position reached the duration.
        case reachedEnd
        /// The receiver dropped the item after playing it (no duration any more).
        case finished
        case timedOut
        /// Connection refused or closed, or polls unanswered for `goneAfter`.
        case receiverGone
        /// The receiver's own error dict in `/playback-info`.
        case receiverError
        /// Pairing, a password, or URL playback wanted: the whole receiver is skipped.
        case refused
        /// `/play` (or the session) failed otherwise.
        case playFailed
        /// `/playback-info` answered errors (not a lost connection) for `goneAfter`.
        case pollsFailing
    }

    public var kind: Kind
    public var failure: String?
    /// The receiver's refusal, for `.refused`.
    public var refusal: AirPlayError?

    public init(kind: Kind, failure: String?, refusal: AirPlayError? = nil) {
        self.kind = kind
        self.failure = failure
        self.refusal = refusal
    }

    public static let receiverWentAway = "receiver went away"
}

/// What the driver does next.
public enum CellAction: Sendable, Equatable {
    /// Poll `/playback-info` once `at` has passed since `/play`.
    case poll(at: Duration)
    /// Send a scripted command (`/scrub`, `/rate`), then report it with `commandAnswered`.
    case send(LabScriptedCommand)
    /// Send `/stop`, then report it with `stopAnswered`.
    case stop(CellEnd)
    /// Nothing more to send (the cell ended without a session to stop, or after `/stop`).
    case done(CellEnd)
}

/// One cell as a state machine: events in (answers, with the time since `/play`), actions out.
/// No I/O and no clock, so stalls and timeouts are tested in microseconds; `CellDriver` runs it.
/// It keeps the series (samples and commands) as it goes.
public struct CellMachine: Sendable {
    public let limits: CellLimits
    public private(set) var samples: [PlaybackSample] = []
    public private(set) var commands: [SentCommand] = []
    public private(set) var ended: CellEnd?
    /// The scripted commands not sent yet, in the order they are due.
    public private(set) var pending: [LabScriptedCommand]
    /// When playback started (the answer that set `hasPlayed`): scripted commands are due from here.
    public private(set) var playStarted: Duration?

    /// Where `/play` asked the item to start, and whether an answer has shown this item yet (a
    /// position near that start, or one that moves): until then a position far from the start is
    /// the previous item's.
    private var startPosition = 0.0
    private var seenThisItem = false
    private var previousItemPosition: Double?
    private var lastPosition: Double?
    private var lastDuration: Double?
    private var failingSince: Duration?
    private var idlePolls = 0
    private var nextPoll: Duration = .zero

    /// True once the position moved (or stood above 0 at rate > 0).
    public private(set) var hasPlayed = false

    /// `script`: the case's commands (`LabBehaviour.commands`), each sent right after the first poll
    /// at which it is due (`isDue`): at its `atPosition`, else its `after` seconds after playback started.
    public init(limits: CellLimits, script: [LabScriptedCommand] = []) {
        self.limits = limits
        pending = script.sorted { $0.after < $1.after }
    }

    /// The session could not be opened: nothing was sent.
    public mutating func openFailed(_ error: AirPlayError) -> CellAction {
        finishWithoutStop(Self.end(forSessionError: error, during: "opening the session"))
    }

    /// `/play` was answered (or failed) `at` after it was sent.
    public mutating func playAnswered(at: Duration, startPosition: Double, error: AirPlayError?) -> CellAction {
        commands.append(SentCommand(kind: .play, atMs: 0, value: startPosition, failure: error?.description))
        self.startPosition = startPosition
        if let error { return finishWithoutStop(Self.end(forSessionError: error, during: "/play")) }
        nextPoll = limits.pollInterval
        return schedule(after: at)
    }

    /// One `/playback-info` answer (or failure), `at` after `/play`.
    public mutating func polled(at: Duration, _ result: Result<PlaybackInfo, AirPlayError>) -> CellAction {
        guard ended == nil else { return .done(ended!) }
        switch result {
        case .success(let info):
            failingSince = nil
            if isPreviousItem(info) {
                samples.append(PlaybackSample(atMs: Self.ms(at), info: info, previousItem: true))
                return schedule(after: at)
            }
            samples.append(PlaybackSample(atMs: Self.ms(at), info: info))
            if let error = info.error {
                return stop(CellEnd(kind: .receiverError, failure: "the receiver reported an error: \(error)"))
            }
            let hasDuration = (info.duration ?? 0) > 0
            if let position = info.position {
                if let lastPosition, position > lastPosition + 0.001 { hasPlayed = true }
                if position > 0, (info.rate ?? 0) > 0, hasDuration { hasPlayed = true }
                lastPosition = position
            }
            if hasDuration { lastDuration = info.duration }
            if hasPlayed, playStarted == nil { playStarted = at }
            if limits.stopAtEnd, hasPlayed, let duration = info.duration, duration > 0, let position = info.position,
               position >= duration - limits.endTolerance {
                return stop(CellEnd(kind: .reachedEnd, failure: nil))
            }
            if hasPlayed, !hasDuration, !limits.live || info.position == nil {
                idlePolls += 1
                if idlePolls >= limits.idlePollsToFinish { return stop(CellEnd(kind: .finished, failure: nil)) }
            } else {
                idlePolls = 0
            }
        case .failure(let error):
            samples.append(PlaybackSample(atMs: Self.ms(at), info: nil, failure: error.description))
            if Self.isRefusal(error) {
                return finishWithoutStop(CellEnd(kind: .refused, failure: error.description, refusal: error))
            }
            let since = failingSince ?? at
            failingSince = since
            if at - since >= limits.goneAfter {
                if Self.isTransport(error) {
                    return finishWithoutStop(CellEnd(kind: .receiverGone, failure: "\(CellEnd.receiverWentAway): "
                        + "/playback-info failing for \(Self.seconds(at - since)) s (\(error))"))
                }
                return stop(CellEnd(kind: .pollsFailing, failure: "/playback-info failing for \(Self.seconds(at - since)) s: \(error)"))
            }
        }
        return schedule(after: at)
    }

    /// Whether this answer is still the item played before this cell. Until this item shows itself,
    /// a position more than `limits.startWindow` past the start position is the previous item's,
    /// unless it moves from one answer to the next (a stopped item's position stands still).
    private mutating func isPreviousItem(_ info: PlaybackInfo) -> Bool {
        guard !seenThisItem, let position = info.position, (info.duration ?? 0) > 0 else { return false }
        defer { previousItemPosition = position }
        if position <= startPosition + limits.startWindow { seenThisItem = true; return false }
        if let before = previousItemPosition, position > before + 0.001 { seenThisItem = true; return false }
        return true
    }

    /// A scripted command sent `sentAt` after `/play` was answered (or failed) `at`. It is recorded
    /// at `sentAt`: the receiver may act on it (fetch the scrub's target) before its answer arrives.
    public mutating func commandAnswered(sentAt: Duration? = nil, at: Duration, _ command: LabScriptedCommand, error: AirPlayError?) -> CellAction {
        let kind: SentCommand.Kind = command.kind == .scrub ? .scrub : .rate
        commands.append(SentCommand(kind: kind, atMs: Self.ms(sentAt ?? at), value: command.value, failure: error?.description))
        return schedule(after: at)
    }

    /// `/stop` was answered (or failed).
    public mutating func stopAnswered(at: Duration, error: AirPlayError?) -> CellAction {
        commands.append(SentCommand(kind: .stop, atMs: Self.ms(at), failure: error?.description))
        return .done(ended ?? CellEnd(kind: .playFailed, failure: "stopped before it ended"))
    }

    /// The next poll, on the poll grid (missed ticks skipped), or the timeout's end.
    private mutating func schedule(after now: Duration) -> CellAction {
        if now >= limits.caseTimeout { return stop(timeoutEnd(at: now)) }
        if let next = pending.first, isDue(next, now: now) {
            pending.removeFirst()
            return .send(next)
        }
        while nextPoll <= now { nextPoll += limits.pollInterval }
        var wake = min(nextPoll, limits.caseTimeout)
        // A command due by the clock before the next tick is sent on time: the poll is brought forward to it.
        if let started = playStarted, let next = pending.first, next.atPosition == nil || lastPosition == nil {
            wake = min(wake, max(now, started + Self.duration(next.after)))
        }
        return .poll(at: wake)
    }

    /// A command is due once playback started and the receiver's position reached its `atPosition`
    /// (the media's own clock, whatever the playback speed), or, without one or without any
    /// reported position, `after` seconds after playback started.
    private func isDue(_ command: LabScriptedCommand, now: Duration) -> Bool {
        guard let started = playStarted else { return false }
        if let target = command.atPosition, let position = lastPosition { return position >= target - 0.001 }
        return now >= started + Self.duration(command.after)
    }

    static func duration(_ seconds: Double) -> Duration { .milliseconds(Int64((seconds * 1000).rounded())) }

    private func timeoutEnd(at now: Duration) -> CellEnd {
        let limit = Self.seconds(limits.caseTimeout)
        guard hasPlayed else {
            return CellEnd(kind: .timedOut, failure: "never started playing within \(limit) s (position did not move)")
        }
        let position = lastPosition.map { String(format: "%.1f", $0) } ?? "?"
        let duration = lastDuration.map { String(format: " of %.1f", $0) } ?? ""
        return CellEnd(kind: .timedOut, failure: "not finished within \(limit) s (position \(position)\(duration) s)")
    }

    private mutating func stop(_ end: CellEnd) -> CellAction {
        ended = end
        return .stop(end)
    }

    private mutating func finishWithoutStop(_ end: CellEnd) -> CellAction {
        ended = end
        return .done(end)
    }

    static func end(forSessionError error: AirPlayError, during step: String) -> CellEnd {
        if isRefusal(error) { return CellEnd(kind: .refused, failure: error.description, refusal: error) }
        if isTransport(error) { return CellEnd(kind: .receiverGone, failure: "\(CellEnd.receiverWentAway): \(error)") }
        return CellEnd(kind: .playFailed, failure: "\(step) failed: \(error)")
    }

    /// Pairing, password or no URL playback: the receiver will refuse every case alike.
    static func isRefusal(_ error: AirPlayError) -> Bool {
        switch error {
        case .pairingRequired, .passwordRequired, .noURLPlayback, .needsPairing, .pairing, .pairingRefused, .busy: true
        default: false
        }
    }

    /// The receiver is unreachable (as opposed to answering something wrong).
    static func isTransport(_ error: AirPlayError) -> Bool {
        switch error {
        case .connect, .connectionClosed, .timeout: true
        default: false
        }
    }

    static func ms(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
    }

    static func seconds(_ duration: Duration) -> String {
        String(format: "%g", (ms(duration) / 10).rounded() / 100)
    }
}
