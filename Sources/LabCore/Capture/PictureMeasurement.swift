import Foundation
import MediaProbe

/// What the capture of a receiver's output showed during one cell (`lab run --capture`): the
/// picture's side of the cell, beside what the protocol said.
public struct PictureMeasurement: Codable, Sendable, Equatable {
    /// "measured" or "noFrameCodes" (`CaptureAnalysis.Result`); "failed" when the capture could not be read.
    public var result: String
    /// The capture input.
    public var input: String
    /// From `/play` to the first coded frame on screen, in ms.
    public var playToFirstFrameMs: Double?
    /// The longest stall at a transition from the picture (0: every switch seamless; nil: none seen).
    public var transitionStallMs: Double?
    public var transitions: [CaptureTransition]
    /// Freezes away from the transitions, the longest first (at most 5).
    public var freezes: [Freeze]
    public var capture: CaptureQuality?
    public var notes: [String]
    /// A few small pictures around each transition (in the order of `transitions`).
    public var filmstrips: [Filmstrip]?
    /// The streams seen on screen, by label ("primary", "ad of control"), in the order first seen.
    public var streamsSeen: [String]?
    /// Frames on screen whose code could not be read (garbled, scaled beyond reading, other content).
    public var unreadableFrames: Int?
    /// Freezes of the primary's picture at its break (the frame before the ad, or the first after
    /// it), whether or not a switch to the ad was seen on screen: `markSwitchFreezes`.
    public var switchFreezes: [SwitchFreeze]?

    public init(result: String, input: String, playToFirstFrameMs: Double? = nil, transitionStallMs: Double? = nil,
                transitions: [CaptureTransition] = [], freezes: [Freeze] = [], capture: CaptureQuality? = nil, notes: [String] = []) {
        self.result = result
        self.input = input
        self.playToFirstFrameMs = playToFirstFrameMs
        self.transitionStallMs = transitionStallMs
        self.transitions = transitions
        self.freezes = freezes
        self.capture = capture
        self.notes = notes
    }

    /// A cell's picture from a capture that began at `captureStarted` (its first frame), for a `/play` sent at `playSentAt`.
    public init(_ analysis: CaptureAnalysis, captureStarted: Date?, playSentAt: Date) {
        let offset = captureStarted.map { $0.timeIntervalSince(playSentAt) } ?? 0
        self.init(result: analysis.result.rawValue, input: analysis.input,
                  playToFirstFrameMs: analysis.startup.map { (($0 + offset) * 1000).rounded() },
                  transitionStallMs: analysis.transitions.map(\.stallMs).max(),
                  transitions: analysis.transitions,
                  freezes: Array(analysis.segments.flatMap(\.freezes).sorted { $0.ms > $1.ms }.prefix(5)),
                  capture: analysis.capture, notes: analysis.notes)
        filmstrips = analysis.filmstrips
        var seen: [String] = []
        for segment in analysis.segments where !seen.contains(segment.label) { seen.append(segment.label) }
        streamsSeen = seen
        unreadableFrames = analysis.unreadableFrames
    }

    /// The note's opening words: `adNeverShown` reads them back (also from cells stored before it).
    public static let adNeverShownWords = "no frame of the ad was seen on screen, though the receiver reported playing past it"

    /// Whether the picture never showed the ad while the receiver said it played past it.
    public var adNeverShown: Bool { notes.contains { $0.hasPrefix(Self.adNeverShownWords) } }

    /// The longest freeze at a switch the picture saw: a transition's stall or a held primary frame at its break.
    public var switchStallMs: Double? {
        guard result == CaptureAnalysis.Result.measured.rawValue else { return nil }
        let values = transitions.map(\.stallMs) + (switchFreezes ?? []).map(\.ms)
        return values.max()
    }

    /// Finds the freezes at the case's break, in the primary's frames (the ad's START times its frame
    /// rate): from `windowSeconds` before the break to `windowSeconds` after the primary resumes (the
    /// break itself for a stitched case, whose frames from there on are due after the ad; the resume
    /// offset for an interstitial), held at least `minimumMs`. When no ad frame reached the screen,
    /// primary frames due after the ad may have been shown in its place (Kodi with an HEVC ad shows
    /// them early, then holds one about 2 s): the ad's length is added to the window then. Call after
    /// `noteAdNeverShown`. Freezes carry no stream, so an ad frame numbered like these would count as
    /// well: the lab's ads are shorter than their primaries' breaks are late, so none is.
    public mutating func markSwitchFreezes(labCase: LabCase, windowSeconds: Double, minimumMs: Double) {
        guard result == CaptureAnalysis.Result.measured.rawValue, let start = labCase.interstitialStart,
              let rate = labCase.primary.frameRate.map(LabRecipes.frameRate), rate > 0 else { return }
        func frames(_ seconds: Double) -> Int { Int((seconds * rate).rounded()) }
        let breakFrame = frames(start), window = frames(windowSeconds)
        let resume = labCase.delivery == .stitched ? breakFrame : breakFrame + frames(labCase.resumeOffset ?? labCase.interstitialDuration ?? 0)
        let inPlace = adNeverShown ? frames(labCase.interstitialDuration ?? 0) : 0
        let found = freezes.filter { $0.frame >= breakFrame - window && $0.frame <= resume + inPlace + window && $0.ms >= minimumMs }
            .map { freeze in
                SwitchFreeze(at: freeze.frame < breakFrame ? "the ad's start"
                                : inPlace > 0 ? "the ad's place (a primary frame due after the ad)" : "the return from the ad",
                             frame: freeze.frame, ms: freeze.ms)
            }
        switchFreezes = found.isEmpty ? nil : found
    }

    /// Adds the note a viewer would care about most: the receiver played through the ad by its own
    /// account (`playedThroughAd`), yet no frame of any ad reached the screen. Only for a capture
    /// that read codes at all.
    public mutating func noteAdNeverShown(playedThroughAd: Bool) {
        guard result == CaptureAnalysis.Result.measured.rawValue, playedThroughAd, let seen = streamsSeen,
              !seen.contains(where: { $0.hasPrefix("ad of ") }) else { return }
        let unreadable = unreadableFrames.map { $0 > 0 ? "; \($0) frames on screen could not be read" : "" } ?? ""
        notes.append(Self.adNeverShownWords + ": a viewer saw no ad (or an unreadable picture)\(unreadable)")
    }
}

/// The primary's picture held at its break (`PictureMeasurement.markSwitchFreezes`).
public struct SwitchFreeze: Codable, Sendable, Equatable {
    /// "the ad's start" (a frame before the break) or "the return from the ad".
    public var at: String
    /// The primary's frame held, and for how long beyond its own duration.
    public var frame: Int
    public var ms: Double

    public init(at: String, frame: Int, ms: Double) {
        self.at = at
        self.frame = frame
        self.ms = ms
    }

    /// "primary #179 held 2170 ms at the ad's start".
    public var words: String { "primary #\(frame) held \(Int(ms.rounded())) ms at \(at)" }
}

/// A capture read for the length of one cell: started before `/play`, finished after `/stop`.
/// The analyzer runs on a thread of its own (it blocks in FFmpeg); `finish` stops it and waits.
public final class CellCapture: @unchecked Sendable {
    private let lock = NSLock()
    private var stopped = false
    private var firstFrame: Date?
    private var outcome: (analysis: Result<CaptureAnalysis, CaptureError>, started: Date?)?
    private let done = DispatchSemaphore(value: 0)
    public let input: CaptureInput
    /// The receiver's sound heard apart (`--capture-audio pulse:...`), placed on the picture's clock at the end.
    private let sound: SoundCapture?
    private let picture: Bool

    /// Hears `sound` alone: no picture (`--capture-audio` without `--capture`).
    public init(soundOnly sound: SoundCapture) {
        self.input = sound.input
        self.sound = sound
        picture = false
        done.signal()
    }

    /// Starts reading `input` at once (and `sound`, already started).
    public init(input: CaptureInput, analyzer: CaptureAnalyzer, sound: SoundCapture? = nil) {
        self.input = input
        self.sound = sound
        picture = true
        var settings = analyzer
        // A cell ends the capture; the analyzer never gives up on its own before that.
        settings.noCodeLimit = .infinity
        settings.keepFilmstrips = true
        let bounded = settings
        Thread { [self] in
            let result = Result { () throws(CaptureError) -> CaptureAnalysis in
                // Asked after each frame the capture delivers: the first call is when its first frame came.
                try bounded.analyze(input, isCancelled: { [self] in
                    lock.withLock {
                        if firstFrame == nil { firstFrame = Date() }
                        return stopped
                    }
                })
            }
            lock.withLock { outcome = (result, firstFrame) }
            done.signal()
        }.start()
    }

    /// Whether the sound captured apart has given its first block (true without one). A cell waits
    /// for it before `/play`, a few seconds at most (`SoundCapture.waitForFirstBlock`): on an idle
    /// PulseAudio null sink the first sound comes up to 2 s after the input opens.
    public var soundHeard: Bool { sound?.waitForFirstBlock(timeout: 0) ?? true }

    /// Stops the capture and returns what it showed and what was heard (the capture's own audio
    /// with `CaptureAnalyzer.measuresOwnSound`, or the sound captured apart).
    public func finishBoth(playSentAt: Date, timeout: Double = 15) -> (PictureMeasurement?, SoundMeasurement?) {
        guard picture else {
            var heard = sound?.finish(timeout: timeout)
            heard?.zeroSincePlayMs = sound?.started.map { ($0.timeIntervalSince(playSentAt) * 1000).rounded() }
            return (nil, heard)
        }
        let shown = finish(playSentAt: playSentAt, timeout: timeout)
        let (analysis, started) = lock.withLock { (outcome.flatMap { try? $0.analysis.get() }, outcome?.started) }
        var heard = sound.map { $0.finish(picture: shown.transitions, pictureOrigin: analysis?.clockOrigin, timeout: timeout) } ?? analysis?.sound
        heard?.zeroSincePlayMs = started.map { ($0.timeIntervalSince(playSentAt) * 1000).rounded() }
        return (shown, heard)
    }

    /// Stops the capture and returns what it showed, for a `/play` sent at `playSentAt`. Waits at most `timeout` seconds.
    public func finish(playSentAt: Date, timeout: Double = 15) -> PictureMeasurement {
        lock.withLock { stopped = true }
        guard done.wait(timeout: .now() + timeout) == .success, let outcome = lock.withLock({ outcome }) else {
            return PictureMeasurement(result: "failed", input: input.description, notes: ["the capture did not stop within \(Int(timeout)) s"])
        }
        switch outcome.analysis {
        case .success(let analysis):
            return PictureMeasurement(analysis, captureStarted: outcome.started, playSentAt: playSentAt)
        case .failure(let error):
            return PictureMeasurement(result: "failed", input: input.description, notes: [error.description])
        }
    }
}
