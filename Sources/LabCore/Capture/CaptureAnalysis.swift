import Foundation

/// What a capture of a receiver's output showed, read from the frame codes (`seamcheck lab measure`).
/// Times are seconds from the capture's first frame; durations are milliseconds.
public struct CaptureAnalysis: Codable, Sendable, Equatable {
    public static let schemaVersion = 1

    public enum Result: String, Codable, Sendable {
        /// Frame codes were read: the fields below hold what they say.
        case measured
        /// No frame code in the first `noCodeLimit` seconds: the wrong input, a blank screen, a suite without codes.
        case noFrameCodes
    }

    public var schemaVersion = CaptureAnalysis.schemaVersion
    public var input: String
    public var result: Result
    public var capture: CaptureQuality
    /// Seconds from the capture's start to the first coded frame.
    public var startup: Double?
    /// The first coded frame shown.
    public var firstFrame: ShownFrame?
    /// Each stretch of one stream on screen, in order.
    public var segments: [ShownSegment]
    /// Each switch from one stream to another.
    public var transitions: [CaptureTransition]
    public var blackFrames: Int
    public var unreadableFrames: Int
    /// Whether the capture had audio to read tones from.
    public var audio: Bool
    /// Things to know before trusting the numbers (dropped capture frames, an old suite).
    public var notes: [String]
    /// With `keepFilmstrips`: pictures around each transition, in the order of `transitions`.
    public var filmstrips: [Filmstrip]?
    /// What the sound did (`--audio same`: the capture's own audio track; `--audio INPUT`: another input).
    public var sound: SoundMeasurement?
    /// The first frame's timestamp as the input gave it, in seconds (wall-clock seconds for x11grab):
    /// how a sound captured apart is placed on the picture's clock.
    public var clockOrigin: Double?

    public init(input: String, result: Result, capture: CaptureQuality, startup: Double? = nil, firstFrame: ShownFrame? = nil,
                segments: [ShownSegment] = [], transitions: [CaptureTransition] = [], blackFrames: Int = 0,
                unreadableFrames: Int = 0, audio: Bool = false, notes: [String] = []) {
        self.input = input
        self.result = result
        self.capture = capture
        self.startup = startup
        self.firstFrame = firstFrame
        self.segments = segments
        self.transitions = transitions
        self.blackFrames = blackFrames
        self.unreadableFrames = unreadableFrames
        self.audio = audio
        self.notes = notes
    }
}

/// How well the capture itself kept time.
public struct CaptureQuality: Codable, Sendable, Equatable {
    public var frames: Int
    public var seconds: Double
    public var width: Int
    public var height: Int
    /// The rate the capture's stream declares (a device's configured rate), if any.
    public var nominalRate: Double?
    /// Frames per second actually delivered.
    public var measuredRate: Double
    /// Frames missing from the capture's own cadence (gaps longer than 1.5 intervals).
    public var droppedFrames: Int
    /// The longest interval between two captured frames: what every time here is good to.
    public var precisionMs: Double
}

/// A coded frame and when the capture first showed it.
public struct ShownFrame: Codable, Sendable, Equatable {
    public var stream: Int
    /// "primary", "ad of frame-rate-25"; "stream N" without a manifest.
    public var label: String
    public var frame: Int
    public var at: Double
    public init(stream: Int, label: String, frame: Int, at: Double) {
        self.stream = stream
        self.label = label
        self.frame = frame
        self.at = at
    }
}

/// One stream on screen without another in between.
public struct ShownSegment: Codable, Sendable, Equatable {
    public var stream: Int
    public var label: String
    public var firstFrame: Int
    public var lastFrame: Int
    public var start: Double
    public var end: Double
    /// Frames per second the stream plays at (the manifest's, else estimated from the codes).
    public var frameRate: Double
    /// Distinct frames seen.
    public var framesShown: Int
    /// Frame periods frames were held beyond their own (a frozen picture is many).
    public var repeatedFrames: Int
    /// Frames never shown though the capture's rate could have shown them.
    public var skippedFrames: Int
    /// Jumps back to an earlier frame (a restart or a seek).
    public var backwardJumps: Int
    /// Frozen pictures: a frame held at least two capture intervals beyond its own duration.
    public var freezes: [Freeze]
    public var blackFrames: Int
}

public struct Freeze: Codable, Sendable, Equatable {
    public var frame: Int
    /// When the frame was first shown.
    public var at: Double
    /// How long it stayed beyond its own frame duration.
    public var ms: Double
    /// How much later every frame came after it than before it: the shift of the playback
    /// timeline (time shown minus frame index over rate, the median of up to 15 frames either
    /// side), which capture jitter and the frozen frame's own phase do not blur. nil when the
    /// freeze is too near the segment's ends to say.
    public var delayMs: Double?
    public init(frame: Int, at: Double, ms: Double, delayMs: Double? = nil) {
        self.frame = frame
        self.at = at
        self.ms = ms
        self.delayMs = delayMs
    }
}

/// A switch from one stream to another (primary to ad, ad to primary).
public struct CaptureTransition: Codable, Sendable, Equatable {
    public var from: ShownFrame
    public var to: ShownFrame
    /// The last frame of `from` the stream has before the break, when the manifest says where the break is.
    public var expectedLastFrame: Int?
    /// The first frame of `to` after the break (0 for an ad; the break's frame for the primary).
    public var expectedFirstFrame: Int?
    /// How long `from`'s last frame stayed beyond its own duration, black and other pictures excluded.
    public var frozenMs: Double
    public var blackFrames: Int
    public var blackMs: Double
    /// Pictures without a code between the two (a spinner, a blend, a menu).
    public var unreadableFrames: Int
    /// Frames of either side never shown around the switch (needs the manifest's break).
    public var skippedFrames: Int?
    /// From `from`'s last frame's due end to `to`'s first frame: what a viewer waited (0 when seamless).
    public var stallMs: Double
    /// From the end of `from`'s tone to the start of `to`'s, when the capture has audio and both have tones.
    public var audioGapMs: Double?
    /// The longest interval without a captured frame from `from`'s last frame to `to`'s first, when
    /// the capture itself dropped frames there: frames missing then may be the capture's, not the player's.
    public var captureGapMs: Double?
    public init(from: ShownFrame, to: ShownFrame, expectedLastFrame: Int?, expectedFirstFrame: Int?, frozenMs: Double, blackFrames: Int, blackMs: Double, unreadableFrames: Int, skippedFrames: Int?, stallMs: Double, audioGapMs: Double?) {
        self.from = from
        self.to = to
        self.expectedLastFrame = expectedLastFrame
        self.expectedFirstFrame = expectedFirstFrame
        self.frozenMs = frozenMs
        self.blackFrames = blackFrames
        self.blackMs = blackMs
        self.unreadableFrames = unreadableFrames
        self.skippedFrames = skippedFrames
        self.stallMs = stallMs
        self.audioGapMs = audioGapMs
    }
}
