import Foundation
import MediaProbe

/// Reads a capture of a receiver's output frame by frame and says what it showed
/// (`CaptureAnalysis`). Blocking: it decodes as fast as the input gives frames (a file faster than
/// real time, a device in real time); run it off the cooperative pool.
public struct CaptureAnalyzer: Sendable {
    public var streams: CaptureStreams
    /// Pictures are scaled to at most this width before reading: codes need no more.
    public var analysisWidth = 480
    /// Give up with `noFrameCodes` when no code was read in this many seconds of capture.
    public var noCodeLimit: Double = 10
    /// Stop after this many seconds of capture (a device never ends by itself); nil: the whole input.
    public var duration: Double?
    /// Seconds a device may stay silent before the capture counts as stopped.
    public var readTimeout: Double = 5
    /// Keep a few small pictures around each transition (`CaptureAnalysis.filmstrips`).
    public var keepFilmstrips = false
    /// Measure the sound of the capture's own audio track (`CaptureAnalysis.sound`; `--capture-audio same`).
    public var measuresOwnSound = false

    public init(streams: CaptureStreams, duration: Double? = nil) {
        self.streams = streams
        self.duration = duration
    }

    /// Analyzes `input`; `isCancelled` is asked between frames (a SIGINT, a cell that ended).
    public func analyze(_ input: CaptureInput, isCancelled: @Sendable () -> Bool = { false }) throws(CaptureError) -> CaptureAnalysis {
        let reader = try CaptureReader(input: input, analysisWidth: analysisWidth, readTimeout: readTimeout)
        var codes = FrameCodeReader(code: streams.code)
        var tones = SoundTrack(tones: streams.tones)
        var readings: [(time: Double, reading: FrameReading)] = []
        var black = 0, unreadable = 0
        var firstCode: Double?
        var size = (0, 0)
        var stoppedForNoCodes = false
        let names = streams
        var film = FilmstripCollector { reading in
            switch reading {
            case .code(let stream, let frame): return "\(names.label(stream)) #\(frame)"
            case .black: return "black"
            case .unreadable: return "other"
            }
        }
        frames: while let event = try reader.next() {
            if isCancelled() { break }
            switch event {
            case .audio(let time, let samples, let rate, let channels, let active):
                tones.add(time: time, samples: samples, sampleRate: rate, channels: channels, activeChannels: active)
            case .video(let time, let image):
                if let duration, time > duration { break frames }
                size = (image.width, image.height)
                var reading = codes.read(image)
                if case .code(let stream, _) = reading, !streams.knows(stream) { reading = .unreadable }
                switch reading {
                case .code: if firstCode == nil { firstCode = time }
                case .black: black += 1
                case .unreadable: unreadable += 1
                }
                readings.append((time, reading))
                if keepFilmstrips { film.add(time: time, reading: reading, image: image) }
                if firstCode == nil, time >= noCodeLimit { stoppedForNoCodes = true }
            }
            if stoppedForNoCodes { break }
        }
        // The input's own size, not the analysis size its pictures were scaled to.
        if reader.sourceWidth > 0, reader.sourceHeight > 0 { size = (reader.sourceWidth, reader.sourceHeight) }
        let quality = Self.quality(readings.map(\.time), nominal: reader.nominalFrameRate, size: size)
        var notes: [String] = []
        if let cut = Self.cutShort(lastFrame: readings.last?.time, declared: reader.declaredDuration, limit: duration,
                                   stoppedEarly: stoppedForNoCodes || isCancelled()) {
            notes.append(cut)
        }
        if streams.manifest?.frameCode == nil {
            notes.append(streams.manifest == nil
                ? "no suite manifest: streams are named by id and frame rates estimated from the codes (give --streams)"
                : "the suite has no frame codes: regenerate it with `seamcheck lab streams`")
        }
        if quality.droppedFrames > 0 {
            notes.append(String(format: "the capture dropped %d frames (%.2f fps measured%@): times are good to ±%.0f ms",
                                quality.droppedFrames, quality.measuredRate,
                                quality.nominalRate.map { String(format: " of %.2f", $0) } ?? "", quality.precisionMs))
        }
        guard let firstCode else {
            let seconds = readings.last?.time ?? 0
            notes.append(String(format: "no frame codes seen in %.1f s of capture (%d frames): is this the receiver's picture, playing a lab stream?",
                                seconds, readings.count))
            return CaptureAnalysis(input: input.description, result: .noFrameCodes, capture: quality, blackFrames: black,
                                   unreadableFrames: unreadable, audio: reader.hasAudio, notes: notes)
        }
        let interval = quality.measuredRate > 0 ? 1 / quality.measuredRate : 1 / 30
        let built = CaptureTimeline(streams: streams, interval: interval).build(readings, tones: tones.runs)
        let first = built.segments.first.map { ShownFrame(stream: $0.stream, label: $0.label, frame: $0.firstFrame, at: $0.start) }
        var analysis = CaptureAnalysis(input: input.description, result: .measured, capture: quality, startup: firstCode,
                                       firstFrame: first, segments: built.segments, transitions: built.transitions, blackFrames: black,
                                       unreadableFrames: unreadable, audio: reader.hasAudio, notes: notes)
        if keepFilmstrips { analysis.filmstrips = film.finished() }
        analysis.clockOrigin = reader.originTimestamp
        if measuresOwnSound {
            analysis.sound = reader.hasAudio
                ? tones.finish(input: input.description + " (its audio)", streams: streams, picture: built.transitions)
                : SoundMeasurement(result: "failed", input: input.description, notes: ["the capture has no audio track to hear"])
        }
        return analysis
    }

    /// A recording whose pictures end more than a second (and 5 %) before the duration its file
    /// declares was cut short: what it showed after that is not known, so say so beside the result.
    static func cutShort(lastFrame: Double?, declared: Double?, limit: Double?, stoppedEarly: Bool) -> String? {
        guard !stoppedEarly, let declared, declared > 0 else { return nil }
        let wanted = min(declared, limit ?? declared), seen = lastFrame ?? 0
        guard wanted - seen > max(1, wanted * 0.05) else { return nil }
        return String(format: "the capture ended early: pictures stop at %.1f s of the %.1f s its file declares (a truncated file or an "
                      + "interrupted recording?); nothing after %.1f s was measured", seen, declared, seen)
    }

    /// The capture's cadence: measured rate, frames missing from it, the longest interval.
    static func quality(_ times: [Double], nominal: Double?, size: (Int, Int)) -> CaptureQuality {
        let span = (times.last ?? 0) - (times.first ?? 0)
        let measured = times.count > 1 && span > 0 ? Double(times.count - 1) / span : 0
        var intervals = zip(times.dropFirst(), times).map { $0 - $1 }
        intervals.sort()
        let median = intervals.isEmpty ? 0 : intervals[intervals.count / 2]
        let expected = nominal.map { 1 / $0 } ?? median
        var dropped = 0
        var largest = 0.0
        for gap in zip(times.dropFirst(), times).map({ $0 - $1 }) {
            largest = max(largest, gap)
            if expected > 0, gap > expected * 1.5 { dropped += Int((gap / expected).rounded()) - 1 }
        }
        return CaptureQuality(frames: times.count, seconds: (span * 1000).rounded() / 1000, width: size.0, height: size.1,
                              nominalRate: nominal.map { ($0 * 1000).rounded() / 1000 }, measuredRate: (measured * 1000).rounded() / 1000,
                              droppedFrames: dropped, precisionMs: (max(largest, expected) * 1000).rounded())
    }
}

extension CaptureStreams {
    /// Each stream's tone: the suite's, else the frame code's rule for 40 ids.
    var tones: [(stream: Int, frequency: Double)] {
        if let streams = manifest?.streams {
            return streams.compactMap { stream in stream.tone.map { (stream.id, Double($0)) } }
        }
        return (0..<40).map { ($0, Double(code.tone(stream: $0))) }
    }
}
