import Foundation

/// Listens to a capture's sound block by block and keeps what the measurement needs, bounded:
/// the tone runs (edges refined to the sample where a tone meets silence), a level every 10 ms,
/// the channels heard, clicks, and the last 0.3 s of samples. An hour of sound keeps about 2 MB.
public struct SoundTrack: Sendable {
    static let quiet: Float = 0.003_16  // -50 dBFS RMS
    static let levelStep = 0.01
    private var detector: ToneDetector
    private let topFrequency: Double
    private var recent: [Float] = []
    private var recentStart = 0.0
    private var expectedNext: Double?
    private(set) var sampleRate: Int?
    private(set) var channels: Int?
    /// Mean square and channels heard of each 10 ms from `levelOrigin`.
    private(set) var power: [Float] = []
    private(set) var active: [UInt8] = []
    private(set) var levelOrigin: Double?
    private var sum: Float = 0
    private var count = 0
    private var channelsHeard = 0
    private var last: Float = 0
    private var envelope: Float = 0
    private(set) var clicks: [Double] = []
    private(set) var unusableRate: Int?
    public private(set) var seconds = 0.0

    public init(tones: [(stream: Int, frequency: Double)]) {
        detector = ToneDetector(tones: tones)
        topFrequency = tones.map(\.frequency).max() ?? 3000
    }

    /// The tone runs heard so far.
    public var runs: [ToneRun] { detector.runs }

    /// A block of the first channel's samples starting at `time`; `activeChannels` of `channels` had sound.
    public mutating func add(time: Double, samples: [Float], sampleRate rate: Int, channels: Int? = nil, activeChannels: Int? = nil) {
        guard rate > 0, !samples.isEmpty else { return }
        if Double(rate) < 2.2 * topFrequency {
            unusableRate = rate
            return
        }
        sampleRate = rate
        if let channels { self.channels = channels }
        let step = 1 / Double(rate)
        if let expectedNext, abs(expectedNext - time) > 0.05 { recent.removeAll(); last = 0 }
        if recent.isEmpty { recentStart = time }
        if levelOrigin == nil { levelOrigin = time }
        // Levels: pad what the input skipped as silence, then 10 ms at a time.
        let slot = Int(((time - levelOrigin!) / Self.levelStep).rounded(.down))
        while power.count < slot { power.append(0); active.append(0) }
        let perSlot = max(1, Int(Double(rate) * Self.levelStep))
        let blockChannels = activeChannels ?? 1
        // A sine of amplitude A at f steps at most 2 pi f / rate * A between samples: a larger step is a click.
        let slope = Float(1.5 * 2 * Double.pi * topFrequency / Double(rate))
        for (index, sample) in samples.enumerated() {
            sum += sample * sample
            count += 1
            if count >= perSlot {
                if power.count < 4 * 3600 * 100 {
                    power.append(sum / Float(count))
                    active.append(UInt8(min(255, max(channelsHeard, blockChannels))))
                }
                sum = 0; count = 0; channelsHeard = blockChannels
            }
            let magnitude = abs(sample)
            envelope = max(magnitude, envelope * 0.9995)
            let jump = abs(sample - last)
            if jump > max(0.05, slope * envelope + 0.02), envelope > Self.quiet * 3 {
                let at = time + Double(index) * step
                if clicks.last.map({ at - $0 > 0.01 }) ?? true, clicks.count < 1000 { clicks.append(at) }
            }
            last = sample
        }
        recent += samples
        let before = detector.runs.count
        detector.add(time: time, samples: samples, sampleRate: rate)
        if detector.runs.count > max(1, before) {
            for index in max(1, before)..<detector.runs.count { refine(index, rate: rate) }
        }
        let keep = Int(0.3 * Double(rate))
        if recent.count > keep {
            let cut = recent.count - keep
            recent.removeFirst(cut)
            recentStart += Double(cut) * step
        }
        expectedNext = time + Double(samples.count) * step
        seconds = max(seconds, expectedNext! - (levelOrigin ?? 0))
    }

    /// Moves the boundary between run `index - 1` and run `index` to the sample where a tone meets silence.
    private mutating func refine(_ index: Int, rate: Int) {
        let previous = detector.runs[index - 1], current = detector.runs[index]
        let boundary = current.start, window = detector.window
        func slice(_ from: Double, _ to: Double) -> Range<Int> {
            let lower = max(0, Int(((from - recentStart) * Double(rate)).rounded()))
            let upper = min(recent.count, Int(((to - recentStart) * Double(rate)).rounded()))
            return lower < upper ? lower..<upper : 0..<0
        }
        func peak(_ range: Range<Int>) -> Float { recent[range].map(abs).max() ?? 0 }
        func rms(_ range: Range<Int>) -> Float {
            range.isEmpty ? 0 : (recent[range].reduce(0) { $0 + $1 * $1 } / Float(range.count)).squareRoot()
        }
        let search = slice(boundary - window, boundary + window)
        guard !search.isEmpty else { return }
        var edge: Double?
        if previous.stream != nil, current.stream == nil, rms(slice(boundary, boundary + window)) < Self.quiet {
            let threshold = max(Self.quiet, 0.2 * peak(slice(boundary - window, boundary)))
            if let lastLoud = search.last(where: { abs(recent[$0]) > threshold }) {
                edge = recentStart + Double(lastLoud + 1) / Double(rate)
            }
        } else if previous.stream == nil, current.stream != nil, rms(slice(boundary - 2 * window, boundary - window)) < Self.quiet {
            let threshold = max(Self.quiet, 0.2 * peak(slice(boundary, boundary + window)))
            if let firstLoud = search.first(where: { abs(recent[$0]) > threshold }) {
                edge = recentStart + Double(firstLoud) / Double(rate)
            }
        }
        if edge == nil, let incoming = current.stream, index >= 1 {
            // Tone to tone, straight or through one or two mixed windows: where the incoming tone's
            // power passes the outgoing one's, in 5 ms steps.
            let outgoingIndex = previous.stream != nil ? index - 1 : index - 2
            if outgoingIndex >= 0, let outgoing = detector.runs[outgoingIndex].stream, outgoing != incoming,
               outgoingIndex == index - 1 || previous.end - previous.start <= 2 * window + 0.001,
               let a = frequency(outgoing), let b = frequency(incoming),
               let found = crossover(from: a, to: b, in: slice(detector.runs[outgoingIndex + 1].start - window, boundary + window), rate: rate) {
                for between in (outgoingIndex + 1)..<index {
                    detector.runs[between].start = found
                    detector.runs[between].end = found
                }
                detector.runs[outgoingIndex].end = found
                detector.runs[index].start = found
                return
            }
        }
        guard let edge, edge > previous.start, edge < current.end else { return }
        detector.runs[index - 1].end = edge
        detector.runs[index].start = edge
    }

    private func frequency(_ stream: Int) -> Double? { detector.tones.first { $0.stream == stream }?.frequency }

    /// The time of the first 5 ms step in `range` where tone `b` holds more power than tone `a`.
    private func crossover(from a: Double, to b: Double, in range: Range<Int>, rate: Int) -> Double? {
        let step = max(1, rate / 200)
        var start = range.lowerBound
        while start + step <= range.upperBound {
            let part = recent[start..<(start + step)]
            let pa = ToneDetector.goertzel(part, frequency: a, sampleRate: Double(rate))
            let pb = ToneDetector.goertzel(part, frequency: b, sampleRate: Double(rate))
            if pb > pa { return recentStart + Double(start) / Double(rate) }
            start += step
        }
        return nil
    }

    /// What was heard, with the picture's transitions for the A/V offsets. `place` puts a sound
    /// time on the picture's clock (`SoundClock` for live inputs); `drift` (seconds over the whole
    /// capture) is the device clock's parting from the wall, `drops` what the input dropped.
    public func finish(input: String, streams: CaptureStreams, picture: [CaptureTransition] = [],
                       place: @escaping (Double) -> Double = { $0 }, drift: Double? = nil, drops: [SoundClock.SoundDrop] = [],
                       lag: SoundLag? = nil, notes given: [String] = []) -> SoundMeasurement {
        var notes = given
        let origin = levelOrigin ?? 0
        let onPicture = place
        let levelsDb = stride(from: 0, to: power.count, by: 5).map { start -> Double in
            let chunk = power[start..<min(power.count, start + 5)]
            let mean = chunk.reduce(0, +) / Float(chunk.count)
            return max(-90, (10 * log10(Double(max(mean, 1e-12))) * 10).rounded() / 10)
        }
        var measurement = SoundMeasurement(result: "measured", input: input, seconds: (seconds * 1000).rounded() / 1000,
                                           sampleRate: sampleRate, channels: channels,
                                           clicks: Array(clicks.prefix(50).map { (onPicture($0) * 1000).rounded() / 1000 }),
                                           droppedMs: (drops.map(\.seconds).reduce(0, +) * 1000).rounded(),
                                           clockDriftMs: drift.map { ($0 * 1000).rounded() }, levelStart: onPicture(origin),
                                           levelStep: Self.levelStep * 5, levels: levelsDb)
        measurement.fellBehindMs = lag.map { ($0.worst * 1000).rounded() }
        if let unusableRate, sampleRate == nil {
            measurement.result = "unusableRate"
            measurement.notes = notes + ["the sound comes at \(unusableRate) Hz, too low for the lab's tones (up to "
                                         + "\(Int(topFrequency)) Hz need \(Int(2.2 * topFrequency)) Hz or more); capture at 48000 Hz"]
            return measurement
        }
        let loud = power.indices.filter { power[$0] > Self.quiet * Self.quiet }
        guard let lastLoud = loud.last else {
            measurement.result = "silent"
            measurement.notes = notes + [String(format: "the sound was silent for all %.1f s of capture (below -50 dBFS): a muted "
                                                + "receiver or TV, or the wrong source", seconds)]
            return measurement
        }
        let lastLoudTime = origin + Double(lastLoud + 1) * Self.levelStep
        if seconds + origin - lastLoudTime > 10 {
            notes.append(String(format: "the sound went silent for good at %.1f s (%.1f s before the capture's end): muted? "
                                + "nothing after it is measured", onPicture(lastLoudTime), seconds + origin - lastLoudTime))
        }
        if !drops.isEmpty {
            notes.append(String(format: "the sound capture dropped %.0f ms in %d places: gaps overlapping them are not given",
                                drops.map(\.seconds).reduce(0, +) * 1000, drops.count))
        }
        if let lag, !lag.episodes.isEmpty {
            let stalled = lag.episodes.filter(\.sourceStalled).count
            notes.append(String(format: "the sound came late %d times, at most %.0f ms (%@): switches there are not measured",
                                lag.episodes.count, lag.worst * 1000,
                                stalled == 0 ? "the capture fell behind: the machine too busy to read it in time?"
                                    : stalled == lag.episodes.count ? "the sound source sent nothing meanwhile: its server starved?"
                                    : "\(stalled) of them the source sending nothing, the others the capture falling behind"))
        }
        if let drift, seconds > 10, abs(drift) * 1000 > 5 {
            notes.append(String(format: "the sound device's clock parted %.0f ms from the wall clock over %.0f s (%.0f ppm): "
                                + "A/V offsets follow the wall clock second by second", drift * 1000, seconds, drift / seconds * 1e6))
        }
        let tones = runs.filter { $0.stream != nil }
        if tones.isEmpty {
            measurement.result = "noTones"
            measurement.notes = notes + ["sound was heard but no lab tone: is this the receiver playing a lab stream?"]
            return measurement
        }
        if let unusableRate { notes.append("some sound came at \(unusableRate) Hz, too low for the tones: not read") }
        measurement.transitions = SoundSwitches(track: self, streams: streams, origin: origin)
            .transitions(tones, picture: picture, drops: drops, lag: lag, onPicture: onPicture)
        measurement.dropouts = SoundSwitches(track: self, streams: streams, origin: origin).dropouts(tones, onPicture: onPicture)
        let offsets = measurement.transitions.filter { $0.avOffsetMs != nil }
        if let start = offsets.first(where: { $0.at == SoundSwitches.adStart }),
           let back = offsets.first(where: { $0.at == SoundSwitches.adReturn && $0.fromStream == start.toStream }) {
            measurement.avDriftMs = back.avOffsetMs! - start.avOffsetMs!
        }
        if !picture.isEmpty, offsets.isEmpty, !measurement.transitions.isEmpty {
            notes.append("no switch was both seen and heard: no A/V offset")
        }
        measurement.notes = notes
        return measurement
    }

    /// Mean square over [from, to) from the 10 ms levels, and the most channels heard there.
    func level(from: Double, to: Double, origin: Double) -> (db: Double, channels: Int)? {
        let lower = max(0, Int(((from - origin) / Self.levelStep).rounded()))
        let upper = min(power.count, Int(((to - origin) / Self.levelStep).rounded()))
        guard lower < upper else { return nil }
        let mean = power[lower..<upper].reduce(0, +) / Float(upper - lower)
        let heard = active[lower..<upper].sorted()[(upper - lower) / 2]
        return (((10 * log10(Double(max(mean, 1e-12)))) * 10).rounded() / 10, Int(heard))
    }

    /// Seconds of [from, to) below -50 dBFS, from the 10 ms levels.
    func silence(from: Double, to: Double, origin: Double) -> Double {
        let lower = max(0, Int(((from - origin) / Self.levelStep).rounded()))
        let upper = min(power.count, Int(((to - origin) / Self.levelStep).rounded()))
        guard lower < upper else { return 0 }
        return Double(power[lower..<upper].filter { $0 < Self.quiet * Self.quiet }.count) * Self.levelStep
    }
}
