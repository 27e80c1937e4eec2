import Foundation

/// What the receiver's sound did during a capture (`--capture-audio`, `lab measure --audio`): the
/// tones of the lab's streams heard switch by switch. Times are seconds on the picture's clock
/// (from its first frame) when a picture was captured, else from the sound's first sample.
public struct SoundMeasurement: Codable, Sendable, Equatable {
    /// "measured"; "silent" (nothing above -50 dBFS: muted, the wrong source); "noTones" (sound but
    /// no lab tone); "unusableRate" (a sample rate too low for the tones); "failed" (could not be read).
    public var result: String
    public var input: String
    public var seconds: Double
    public var sampleRate: Int?
    /// Channels the input delivers.
    public var channels: Int?
    public var transitions: [SoundTransition]
    /// Silences inside one stream's tone (a dropout the viewer hears), at most 20.
    public var dropouts: [SoundDropout]
    /// Discontinuities in the waveform (clicks), seconds, at most 50.
    public var clicks: [Double]
    /// Samples the capture itself dropped, in ms: gaps overlapping them are not given.
    public var droppedMs: Double
    /// How far the audio device's sample clock parted from the wall clock over the capture, in ms
    /// (positive: the device ran slow); A/V offsets are corrected for it.
    public var clockDriftMs: Double?
    /// The most the live reader fell behind its input, ms (`SoundLag`); switches it touched past the
    /// bound are not measured.
    public var fellBehindMs: Double?
    /// The A/V offset at the return minus the one at the ad's start: drift across the ad.
    public var avDriftMs: Double?
    /// The level lane: dBFS of each `levelStep` seconds from `levelStart` (floored at -90).
    public var levelStart: Double
    public var levelStep: Double
    public var levels: [Double]
    /// Milliseconds from `/play` to time 0 of these times (`lab run`): places the sound on the cell's timeline.
    public var zeroSincePlayMs: Double?
    public var notes: [String]

    public init(result: String, input: String, seconds: Double = 0, sampleRate: Int? = nil, channels: Int? = nil,
                transitions: [SoundTransition] = [], dropouts: [SoundDropout] = [], clicks: [Double] = [], droppedMs: Double = 0,
                clockDriftMs: Double? = nil, avDriftMs: Double? = nil, levelStart: Double = 0, levelStep: Double = 0.05,
                levels: [Double] = [], notes: [String] = []) {
        self.result = result
        self.input = input
        self.seconds = seconds
        self.sampleRate = sampleRate
        self.channels = channels
        self.transitions = transitions
        self.dropouts = dropouts
        self.clicks = clicks
        self.droppedMs = droppedMs
        self.clockDriftMs = clockDriftMs
        self.avDriftMs = avDriftMs
        self.levelStart = levelStart
        self.levelStep = levelStep
        self.levels = levels
        self.notes = notes
    }

    public var isMeasured: Bool { result == "measured" }
    /// The longest audio gap at a switch, ms.
    public var longestGapMs: Double? { transitions.compactMap(\.gapMs).max() }
    /// The A/V offset furthest from its expected value, ms (signed).
    public var worstAVErrorMs: Double? {
        transitions.compactMap { t in t.avOffsetMs.map { $0 - (t.expectedAvOffsetMs ?? 0) } }.max { abs($0) < abs($1) }
    }
}

/// One switch heard: one stream's tone giving way to another's.
public struct SoundTransition: Codable, Sendable, Equatable {
    /// "the ad's start", "the return from the ad", "a switch".
    public var at: String
    public var from: String
    public var to: String
    public var fromStream: Int
    public var toStream: Int
    /// The outgoing tone's last sample and the incoming tone's first, in seconds.
    public var outgoingEnd: Double
    public var incomingStart: Double
    /// From `outgoingEnd` to `incomingStart` (0: the tones met); nil when the capture dropped samples there.
    public var gapMs: Double?
    /// The part of the gap that was silence (below -50 dBFS); the rest was other sound.
    public var silenceMs: Double?
    /// Clicks within 100 ms of the switch.
    public var clicks: Int
    /// Level (RMS dBFS) over the second before and after the switch, and the jump.
    public var levelBeforeDb: Double?
    public var levelAfterDb: Double?
    public var levelJumpDb: Double?
    /// The jump the loudness rule predicts: the lab's tones are matched in loudness (BS.1770), so
    /// their RMS levels differ by the K-weighting of their frequencies only.
    public var expectedLevelJumpDb: Double?
    /// Channels with sound before and after (where the input has more than one).
    public var channelsBefore: Int?
    public var channelsAfter: Int?
    /// The incoming tone's first sample minus the incoming stream's first frame on screen, in ms
    /// (positive: the sound came late); nil without a picture of the switch.
    public var avOffsetMs: Double?
    /// What the streams say it should be (the incoming stream's audio delay).
    public var expectedAvOffsetMs: Double?
    public var notes: [String]
    /// Why this switch's figures are not given ("not measured: the sound capture fell 310 ms behind
    /// at 2.41 s"): a capture that could not keep up refuses its numbers rather than give wrong ones.
    public var notMeasured: String? = nil

    /// Takes every figure away, for `reason`.
    mutating func refuse(_ reason: String) {
        gapMs = nil; silenceMs = nil; avOffsetMs = nil; expectedAvOffsetMs = nil
        levelBeforeDb = nil; levelAfterDb = nil; levelJumpDb = nil; channelsBefore = nil; channelsAfter = nil
        notMeasured = reason
        notes.append(reason)
    }
}

/// A silence inside one stream's tone.
public struct SoundDropout: Codable, Sendable, Equatable {
    public var stream: String
    public var at: Double
    public var ms: Double
}
