import Foundation

// CONTRACT (owned by the measurement work; the run loop only calls `CellMeasurer.measure` and
// stores what it returns). Fields may be added; the run loop relies on the ones below. Fields added
// after the contract decode as empty/nil from older stored JSON.

/// A stall seen in a cell: playback that should have been moving and was not.
public struct MeasuredStall: Codable, Sendable, Equatable {
    /// Where on the case's timeline (seconds of media position) it happened.
    public var position: Double
    /// When it started, in ms since `/play`.
    public var startMs: Double
    public var durationMs: Double
    /// Why it counts: "position-frozen" (rate 1, position not advancing) or "rate-dropped" (rate 0 with no command).
    public var kind: String
    /// The transition point it falls at ("ad start 6 s", "ad end 11 s", "resume 6 s"), nil when elsewhere.
    public var transition: String?
    /// False when playback had not moved again by the end of the series (the duration is a lower bound).
    public var resumed: Bool

    public var atTransition: Bool { transition != nil }

    public init(position: Double, startMs: Double, durationMs: Double, kind: String, transition: String? = nil,
                resumed: Bool = true) {
        self.position = position
        self.startMs = startMs
        self.durationMs = durationMs
        self.kind = kind
        self.transition = transition
        self.resumed = resumed
    }

    private enum CodingKeys: String, CodingKey { case position, startMs, durationMs, kind, transition, resumed }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(position: try c.decode(Double.self, forKey: .position), startMs: try c.decode(Double.self, forKey: .startMs),
                  durationMs: try c.decode(Double.self, forKey: .durationMs), kind: try c.decode(String.self, forKey: .kind),
                  transition: try c.decodeIfPresent(String.self, forKey: .transition),
                  resumed: try c.decodeIfPresent(Bool.self, forKey: .resumed) ?? true)
    }
}

/// A position change the elapsed wall time does not explain (and no scrub command asked for).
public struct MeasuredJump: Codable, Sendable, Equatable {
    public var atMs: Double
    public var from: Double
    public var to: Double
    /// "forward" (content skipped) or "backward" (content replayed, or a restart at 0).
    public var kind: String
    public var transition: String?

    public init(atMs: Double, from: Double, to: Double, kind: String, transition: String? = nil) {
        self.atMs = atMs
        self.from = from
        self.to = to
        self.kind = kind
        self.transition = transition
    }
}

/// A receiver's own end of stream short of the duration it reported: it had fetched the timeline's
/// last segment in full and played all it had buffered (Kodi 20 ends stitched items so, about 2.2 s
/// short). Noted, not failed: the stream reached it whole; what it dropped on the way is its own.
public struct MeasuredShortEnd: Codable, Sendable, Equatable {
    /// The last position seen playing and the duration the receiver reported, in seconds.
    public var position: Double
    public var duration: Double
    /// The last segment it fetched (the URL path) and when, in ms since `/play`.
    public var lastSegment: String
    public var lastSegmentAtMs: Double
    /// The end of its loaded time ranges at the last playing poll (nil when it reports none).
    public var loadedEnd: Double?

    public init(position: Double, duration: Double, lastSegment: String, lastSegmentAtMs: Double, loadedEnd: Double?) {
        self.position = position
        self.duration = duration
        self.lastSegment = lastSegment
        self.lastSegmentAtMs = lastSegmentAtMs
        self.loadedEnd = loadedEnd
    }
}

/// Why a cell failed (or was skipped), as a value: the report and the run loop branch on it.
public enum MeasuredFailure: String, Codable, Sendable, Equatable, CaseIterable {
    case neverPlayed = "never played"
    case receiverError = "receiver error"
    case receiverWentAway = "receiver went away"
    case endedEarly = "early end"
    /// The run loop could not finish the cell for another reason (its text is in `reason`).
    case runFailed = "run failed"
    case notRun = "not run"
}

/// The automatic verdict of a cell, recorded with `source: measured`.
public enum MeasuredOutcome: String, Codable, Sendable, Equatable {
    case seamless, stall, failed, skipped
}

/// What one cell measured, from its playback series and the receiver's requests.
public struct CellMeasurement: Codable, Sendable, Equatable {
    public var playToFirstRequestMs: Double?
    public var playToFirstSegmentMs: Double?
    public var playToFirstFrameMs: Double?
    public var stalls: [MeasuredStall]
    public var outcome: MeasuredOutcome
    /// The longest stall at a transition (the number the verdict and calibration use), in ms: 0
    /// when playback went through every transition point without one, nil when it never reached them.
    public var transitionStallMs: Double?
    /// One line saying why the outcome is what it is ("position frozen 1.24 s at 6.0 s", "receiver went away").
    public var reason: String
    /// Set when the outcome is failed or skipped.
    public var failure: MeasuredFailure?
    public var jumps: [MeasuredJump]
    /// Polls that got no answer (timeouts, connection lost): faults, never stalls.
    public var failedPolls: Int
    /// The receiver's own error dict ("AVFoundationErrorDomain -11800"), when it reported one.
    public var receiverError: String?
    /// The furthest media position seen playing, in seconds.
    public var lastPosition: Double?
    /// The media's duration as the receiver reported it (or the case's, when it reported none).
    public var mediaDuration: Double?
    /// Set when the receiver ended short of `mediaDuration` by its own end of stream (not an early end).
    public var shortEnd: MeasuredShortEnd?
    /// What a capture of the receiver's output showed (`lab run --capture`): the picture's stalls beside these.
    public var picture: PictureMeasurement?
    /// What the receiver's sound did (`lab run --capture-audio`): gaps, clicks, levels, A/V offsets.
    public var sound: SoundMeasurement?
    /// How long, in ms, the receiver held the primary's position at the interstitial's START while it
    /// played the ad (the ad's fetches say it did): the ad playing, not a stall. Only what lasted
    /// longer than the ad counts as a stall there. nil when no such hold was seen.
    public var adHoldMs: Double?

    public init(playToFirstRequestMs: Double? = nil, playToFirstSegmentMs: Double? = nil, playToFirstFrameMs: Double? = nil,
                stalls: [MeasuredStall] = [], outcome: MeasuredOutcome, transitionStallMs: Double? = nil, reason: String,
                failure: MeasuredFailure? = nil, jumps: [MeasuredJump] = [], failedPolls: Int = 0, receiverError: String? = nil,
                lastPosition: Double? = nil, mediaDuration: Double? = nil, shortEnd: MeasuredShortEnd? = nil) {
        self.playToFirstRequestMs = playToFirstRequestMs
        self.playToFirstSegmentMs = playToFirstSegmentMs
        self.playToFirstFrameMs = playToFirstFrameMs
        self.stalls = stalls
        self.outcome = outcome
        self.transitionStallMs = transitionStallMs
        self.reason = reason
        self.failure = failure
        self.jumps = jumps
        self.failedPolls = failedPolls
        self.receiverError = receiverError
        self.lastPosition = lastPosition
        self.mediaDuration = mediaDuration
        self.shortEnd = shortEnd
    }

    private enum CodingKeys: String, CodingKey {
        case playToFirstRequestMs, playToFirstSegmentMs, playToFirstFrameMs, stalls, outcome, transitionStallMs, reason
        case failure, jumps, failedPolls, receiverError, lastPosition, mediaDuration, shortEnd, picture, sound, behaviour, adHoldMs
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(playToFirstRequestMs: try c.decodeIfPresent(Double.self, forKey: .playToFirstRequestMs),
                  playToFirstSegmentMs: try c.decodeIfPresent(Double.self, forKey: .playToFirstSegmentMs),
                  playToFirstFrameMs: try c.decodeIfPresent(Double.self, forKey: .playToFirstFrameMs),
                  stalls: try c.decodeIfPresent([MeasuredStall].self, forKey: .stalls) ?? [],
                  outcome: try c.decode(MeasuredOutcome.self, forKey: .outcome),
                  transitionStallMs: try c.decodeIfPresent(Double.self, forKey: .transitionStallMs),
                  reason: try c.decodeIfPresent(String.self, forKey: .reason) ?? "",
                  failure: try c.decodeIfPresent(MeasuredFailure.self, forKey: .failure),
                  jumps: try c.decodeIfPresent([MeasuredJump].self, forKey: .jumps) ?? [],
                  failedPolls: try c.decodeIfPresent(Int.self, forKey: .failedPolls) ?? 0,
                  receiverError: try c.decodeIfPresent(String.self, forKey: .receiverError),
                  lastPosition: try c.decodeIfPresent(Double.self, forKey: .lastPosition),
                  mediaDuration: try c.decodeIfPresent(Double.self, forKey: .mediaDuration),
                  shortEnd: try c.decodeIfPresent(MeasuredShortEnd.self, forKey: .shortEnd))
        picture = try c.decodeIfPresent(PictureMeasurement.self, forKey: .picture)
        sound = try c.decodeIfPresent(SoundMeasurement.self, forKey: .sound)
        adHoldMs = try c.decodeIfPresent(Double.self, forKey: .adHoldMs)
    }

    public func encode(to encoder: any Encoder) throws { try encode(to: encoder, behaviour: nil) }

    /// The measurement's JSON with a behaviour judgement at its `behaviour` key (held by the cell,
    /// `LabRunCell.behaviour`): the store keeps both in one column, the same JSON object as before
    /// the judgement moved out of the measurement. Keys in the order the synthesized encoder wrote them.
    public func encode(to encoder: any Encoder, behaviour: (any Encodable)?) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeIfPresent(playToFirstRequestMs, forKey: .playToFirstRequestMs)
        try c.encodeIfPresent(playToFirstSegmentMs, forKey: .playToFirstSegmentMs)
        try c.encodeIfPresent(playToFirstFrameMs, forKey: .playToFirstFrameMs)
        try c.encode(stalls, forKey: .stalls)
        try c.encode(outcome, forKey: .outcome)
        try c.encodeIfPresent(transitionStallMs, forKey: .transitionStallMs)
        try c.encode(reason, forKey: .reason)
        try c.encodeIfPresent(failure, forKey: .failure)
        try c.encode(jumps, forKey: .jumps)
        try c.encode(failedPolls, forKey: .failedPolls)
        try c.encodeIfPresent(receiverError, forKey: .receiverError)
        try c.encodeIfPresent(lastPosition, forKey: .lastPosition)
        try c.encodeIfPresent(mediaDuration, forKey: .mediaDuration)
        try c.encodeIfPresent(shortEnd, forKey: .shortEnd)
        try c.encodeIfPresent(picture, forKey: .picture)
        try c.encodeIfPresent(sound, forKey: .sound)
        if let behaviour { try behaviour.encode(to: c.superEncoder(forKey: .behaviour)) }
        try c.encodeIfPresent(adHoldMs, forKey: .adHoldMs)
    }

    /// A cell the run never played (receiver gone and not back, interrupted): `skipped`, with why.
    public static func notRun(_ why: String) -> CellMeasurement {
        CellMeasurement(outcome: .skipped, reason: "not run: \(why)", failure: .notRun)
    }

    /// The stall /playback-info shows: the longest at a transition, else the longest elsewhere.
    public var protocolStallMs: Double? {
        outcome == .stall ? (stalls.filter(\.atTransition).map(\.durationMs).max() ?? stalls.map(\.durationMs).max()) : nil
    }

    /// The stall the verdict names (`verdict`): the protocol's, or the picture's when that is worse.
    public var verdictStallMs: Double? { verdict().stallMs }

    /// The longest stall away from any transition, in ms.
    public var elsewhereStallMs: Double? {
        stalls.filter { !$0.atTransition }.map(\.durationMs).max()
    }

    /// The verdict from all the evidence (`CellVerdict`, `VerdictRules`): the protocol, the requests,
    /// the picture and the sound; the worst decides.
    public func verdict(thresholds: MeasurementThresholds = .defaults) -> CellVerdict {
        CellVerdict(self, thresholds: thresholds)
    }

    /// The verdict on the operator's scale, from all the evidence: a seamless cell with a jump, or one
    /// whose receiver ended short by its own end of stream (content it never showed), is a glitch; an
    /// ad the picture never showed is a failure.
    public var labVerdict: LabVerdict { verdict().verdict }
}
