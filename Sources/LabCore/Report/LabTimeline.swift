import Foundation

/// What the HTML report draws for one measured cell: the playhead against wall-clock time since
/// `/play`, the ad's window on the media timeline, the receiver's requests, stalls, the first frame.
public struct LabTimeline: Codable, Sendable, Equatable {
    public struct Point: Codable, Sendable, Equatable {
        public var atMs: Double
        /// nil: the poll got no answer, or the receiver had no item (drawn as a gap).
        public var position: Double?
        public var rate: Double?
        /// The poll got no answer (a fault, marked), as against an answer with no item (playback over).
        public var failed: Bool
    }

    public struct Tick: Codable, Sendable, Equatable {
        public enum Kind: String, Codable, Sendable { case segment, playlist, other }
        public var atMs: Double
        public var kind: Kind
        public var path: String
        /// The request was answered 4xx/5xx or cut short.
        public var failed: Bool
    }

    public var receiver: String
    public var caseId: String
    public var runId: String
    public var points: [Point]
    public var requests: [Tick]
    public var stalls: [MeasuredStall]
    public var jumps: [MeasuredJump]
    public var firstFrameMs: Double?
    /// The ad's window on the media timeline (seconds), and what kind of ad it is ("stitched ad", "interstitial").
    public var windowStart: Double?
    public var windowEnd: Double?
    public var windowLabel: String?
    public var transitions: [TransitionPoint]
    /// false: an interstitial case whose interstitial the receiver never fetched (no transition; the
    /// window is drawn greyed with that label); nil when the case has none to fetch.
    public var interstitialPlayed: Bool?
    /// Where playback ended short of the media (an early end, or a noted own end of stream), or nil.
    public var end: End?
    public var mediaDuration: Double?
    /// The verdict as the report shows it ("stall 1200 ms (measured)").
    public var verdict: String
    /// From a capture of the picture (`lab run --capture`): each transition in words, and its filmstrip.
    public var pictureTransitions: [String]?
    public var filmstrips: [Filmstrip]?
    /// From `lab run --capture-audio`: the sound's level lane, gaps and A/V offsets (`LabSoundLaneSVG`).
    public var sound: SoundMeasurement?

    /// A short end: the last poll that played, at what position, and in words.
    public struct End: Codable, Sendable, Equatable {
        public var atMs: Double
        public var position: Double
        /// "early end at 9 s of 12 s", "ended at 11.5 s of 12 s (its own end of stream)".
        public var label: String
    }

    public init(_ cell: LabRunCell, labCase: LabCase?, verdict: String) {
        receiver = cell.receiver
        caseId = cell.caseId
        runId = cell.runId
        points = cell.series.samples.sorted { $0.atMs < $1.atMs }
            .map { sample in
                // A receiver with no item (duration 0 after playing) reports position 0: not a playhead.
                let noItem = sample.info.map { ($0.duration ?? 1) <= 0 && cell.measurement.playToFirstFrameMs.map { sample.atMs > $0 } == true } ?? false
                let position = sample.info?.position.flatMap { $0.isFinite ? $0 : nil }
                return Point(atMs: sample.atMs, position: noItem ? nil : position, rate: sample.info?.rate.flatMap { $0.isFinite ? $0 : nil },
                             failed: sample.info == nil)
            }
        requests = cell.requests.map { request in
            let ms = request.at.timeIntervalSince(cell.series.playSentAt) * 1000
            let file = request.path.split(separator: "/").last.map(String.init) ?? request.path
            let kind: Tick.Kind = RequestTiming.isSegment(request) ? .segment
                : file.hasSuffix(".m3u8") || file.hasSuffix(".json") ? .playlist : .other
            return Tick(atMs: ms, kind: kind, path: request.path, failed: request.status >= 400 || !request.completed)
        }.filter { $0.atMs >= -250 }.sorted { $0.atMs < $1.atMs }
        stalls = cell.measurement.stalls
        jumps = cell.measurement.jumps
        firstFrameMs = cell.measurement.playToFirstFrameMs
        let window = labCase.flatMap(TransitionPoint.window(of:))
        windowStart = window?.lowerBound
        windowEnd = window?.upperBound
        let played = labCase.flatMap { TransitionPoint.interstitialFetched($0, requests: cell.requests) }
        interstitialPlayed = played
        windowLabel = window == nil ? nil : played == false ? "interstitial not played (the receiver fetched none of it)"
            : labCase?.delivery == .stitched ? "stitched ad" : "interstitial"
        transitions = played == false ? [] : labCase.map(TransitionPoint.of) ?? []
        end = Self.end(cell, points: points)
        mediaDuration = cell.measurement.mediaDuration
        self.verdict = verdict
        if let picture = cell.measurement.picture {
            // Every cell with a capture gets its picture's words, a switch seen on screen or not.
            var lines = picture.transitions.map(Self.words) + (picture.switchFreezes ?? []).map(\.words)
            if picture.adNeverShown { lines.append(PictureMeasurement.adNeverShownWords) }
            if lines.isEmpty {
                lines.append(picture.result == CaptureAnalysis.Result.measured.rawValue
                             ? "no switch seen on screen (streams seen: \((picture.streamsSeen ?? []).joined(separator: ", ")))"
                             : "the capture gave no picture to judge: \(picture.result)" + (picture.notes.first.map { ", \($0)" } ?? ""))
            }
            pictureTransitions = lines
            filmstrips = picture.filmstrips
        }
        sound = cell.measurement.sound
    }

    /// "primary #179 -> ad of control #0: stall 0 ms, frozen 0 ms, 0 black, 0 other, 0 skipped".
    static func words(_ t: CaptureTransition) -> String {
        var text = "\(t.from.label) #\(t.from.frame) -> \(t.to.label) #\(t.to.frame): stall \(Int(t.stallMs)) ms, "
            + "frozen \(Int(t.frozenMs)) ms, \(t.blackFrames) black, \(t.unreadableFrames) other"
        if let skipped = t.skippedFrames { text += ", \(skipped) skipped" }
        if let gap = t.captureGapMs { text += " (the capture missed \(Int(gap)) ms there)" }
        if let audio = t.audioGapMs { text += ", audio gap \(Int(audio)) ms" }
        return text
    }

    static func end(_ cell: LabRunCell, points: [Point]) -> End? {
        let m = cell.measurement
        let words: String
        let position: Double
        if let short = m.shortEnd {
            position = short.position
            words = "ended at \(MeasureText.seconds(short.position)) of \(MeasureText.seconds(short.duration)) (its own end of stream, noted)"
        } else if m.failure == .endedEarly, let last = m.lastPosition {
            position = last
            words = "early end at \(MeasureText.seconds(last))" + (m.mediaDuration.map { " of \(MeasureText.seconds($0))" } ?? "")
        } else {
            return nil
        }
        guard let at = points.last(where: { $0.position != nil })?.atMs else { return nil }
        return End(atMs: at, position: position, label: words)
    }

    /// The wall-clock span drawn, in ms: to the last poll or request.
    public var endMs: Double {
        max(points.last?.atMs ?? 0, requests.last?.atMs ?? 0, stalls.map { $0.startMs + $0.durationMs }.max() ?? 0, 1000)
    }

    /// The media span drawn, in seconds.
    public var maxPosition: Double {
        max(mediaDuration ?? 0, points.compactMap(\.position).max() ?? 0, windowEnd ?? 0, 1)
    }
}
