import Foundation

/// A stretch of one stream's tone (or of silence, `stream` nil) in a capture's audio.
public struct ToneRun: Sendable, Equatable {
    public var stream: Int?
    public var start: Double
    public var end: Double

    /// Milliseconds from the end of `from`'s tone to the start of `to`'s, for the switch nearest
    /// `near` (the video's): nil without such a pair.
    static func gap(_ runs: [ToneRun], from: Int, to: Int, near: Double) -> Double? {
        var best: Double?
        var bestDistance = Double.infinity
        for (index, run) in runs.enumerated() where run.stream == to && index > 0 {
            guard let previous = runs[..<index].last(where: { $0.stream != nil }), previous.stream == from else { continue }
            let distance = abs(run.start - near)
            if distance < bestDistance && distance < 10 {
                bestDistance = distance
                best = max(0, ((run.start - previous.end) * 1000).rounded())
            }
        }
        return best
    }
}

/// Tells which stream's tone is heard, window by window (Goertzel at each stream's frequency).
/// A window is a stream's when its tone holds most of the window's energy; silence below -50 dBFS.
struct ToneDetector {
    let tones: [(stream: Int, frequency: Double)]
    let window: Double
    private var buffer: [Float] = []
    private var bufferStart: Double?
    var runs: [ToneRun] = []

    init(tones: [(stream: Int, frequency: Double)], window: Double = 0.02) {
        self.tones = tones
        self.window = window
    }

    mutating func add(time: Double, samples: [Float], sampleRate: Int) {
        guard sampleRate > 0 else { return }
        if bufferStart == nil || abs((bufferStart! + Double(buffer.count) / Double(sampleRate)) - time) > 0.05 {
            // A discontinuity in the capture's audio: start over at this block.
            buffer.removeAll(keepingCapacity: true)
            bufferStart = time
        }
        buffer += samples
        let size = max(1, Int(window * Double(sampleRate)))
        var offset = 0
        while buffer.count - offset >= size {
            let start = bufferStart! + Double(offset) / Double(sampleRate)
            record(classify(buffer[offset..<(offset + size)], sampleRate: sampleRate), start: start, end: start + window)
            offset += size
        }
        buffer.removeFirst(offset)
        bufferStart! += Double(offset) / Double(sampleRate)
    }

    private mutating func record(_ stream: Int?, start: Double, end: Double) {
        if var last = runs.last, last.stream == stream, abs(last.end - start) < 0.001 {
            last.end = end
            runs[runs.count - 1] = last
        } else {
            runs.append(ToneRun(stream: stream, start: start, end: end))
        }
    }

    func classify(_ samples: ArraySlice<Float>, sampleRate: Int) -> Int? {
        var energy: Double = 0
        for sample in samples { energy += Double(sample) * Double(sample) }
        let count = Double(samples.count)
        // -50 dBFS RMS.
        guard energy / count > 1e-5 else { return nil }
        // Only the tones nearest the window's zero-crossing frequency (within 25 Hz for a sine in
        // 20 ms; the lab's tones are 60 Hz apart) are tried: 3 Goertzels a window, not one per stream.
        var crossings = 0
        var previous = samples.first ?? 0
        for sample in samples.dropFirst() {
            if (sample < 0) != (previous < 0) { crossings += 1 }
            previous = sample
        }
        let estimate = Double(crossings) / 2 / (count / Double(sampleRate))
        let candidates = tones.count <= 3 ? tones : Array(tones.sorted { abs($0.frequency - estimate) < abs($1.frequency - estimate) }.prefix(3))
        var best: (stream: Int, power: Double)?
        for tone in candidates {
            let power = Self.goertzel(samples, frequency: tone.frequency, sampleRate: Double(sampleRate))
            if power > best?.power ?? 0 { best = (tone.stream, power) }
        }
        // A pure tone's Goertzel power is (N/2)^2 A^2 / ... : compare with the window's energy (N A^2 / 2).
        guard let best, best.power * 2 / count >= energy * 0.5 else { return nil }
        return best.stream
    }

    static func goertzel(_ samples: ArraySlice<Float>, frequency: Double, sampleRate: Double) -> Double {
        let coefficient = 2 * cos(2 * Double.pi * frequency / sampleRate)
        var s1 = 0.0, s2 = 0.0
        for sample in samples {
            let s0 = Double(sample) + coefficient * s1 - s2
            s2 = s1
            s1 = s0
        }
        return s1 * s1 + s2 * s2 - coefficient * s1 * s2
    }
}
