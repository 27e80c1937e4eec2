import Foundation

/// How far a live sound reader fell behind its input, from when each block was read (the
/// monotonic clock) against the samples counted: a reader that keeps up reads each block a
/// constant time after its last sample was made; a starved one (a busy machine, a reader thread
/// not scheduled) reads late, then in a burst. Each point's lateness is taken against the
/// earliest of the `window` seconds before it (so a device clock's slow drift is no lag), and runs
/// of points later than `bound` are the places the capture fell behind. Samples lost there (a
/// buffer that overflowed) or stamped from a stale latency make every figure near them doubtful:
/// the switches they touch are not measured (`SoundSwitches`), whatever they would read.
public struct SoundLag: Sendable, Equatable {
    /// Lateness past which a switch's figures are refused: two of pulse's 50 ms fragments. A reader
    /// that keeps up reads each fragment as it is made, and its pace settles one fragment either
    /// way when the server regroups them (seen: a step of 50 ms, held); later than that, it was
    /// not scheduled in time.
    public static let bound = 0.1
    public static let window = 10.0

    /// A place the reader fell behind: samples from `from` to `to` (seconds of sound) were read up
    /// to `seconds` later than the reader's own pace.
    public struct Episode: Sendable, Equatable {
        public var from: Double
        public var to: Double
        public var seconds: Double
        /// The reader was waiting for the input for most of it: the source (a sound server) sent
        /// nothing, rather than the reader not being scheduled.
        public var sourceStalled = false

        /// "the sound capture fell 386 ms behind" or "the sound source sent nothing for 386 ms".
        public var words: String {
            String(format: sourceStalled ? "the sound source sent nothing for %.0f ms" : "the sound capture fell %.0f ms behind", seconds * 1000)
        }
    }

    public let episodes: [Episode]
    /// The most the reader fell behind, seconds (0 when it kept up).
    public let worst: Double

    /// `waits`: reads that waited for the input (`AudioCaptureReader.waits`), on the points' read clock.
    public init(_ points: [(sample: Double, read: Double)], waits: [(read: Double, seconds: Double)] = [], bound: Double = Self.bound,
                window: Double = Self.window) {
        var episodes: [Episode] = []
        var worst = 0.0
        var earliest: [(sample: Double, raw: Double)] = []  // a monotonic deque: the window's minimum first
        for point in points where point.sample >= 0 {
            let raw = point.read - point.sample
            while let last = earliest.last, last.raw >= raw { earliest.removeLast() }
            earliest.append((point.sample, raw))
            while let first = earliest.first, first.sample < point.sample - window { earliest.removeFirst() }
            let late = raw - earliest[0].raw
            worst = max(worst, late)
            guard late > bound else { continue }
            // The read that came this late waited for most of it: the source was late, not the reader.
            let stalled = waits.contains { abs($0.read - point.read) < 0.2 && $0.seconds >= 0.6 * late }
            // The late block's samples were made up to `late` before they were read.
            if var open = episodes.last, open.to >= point.sample - late - 0.2 {
                open.to = point.sample
                if late > open.seconds { open.sourceStalled = stalled }
                open.seconds = max(open.seconds, late)
                episodes[episodes.count - 1] = open
            } else {
                episodes.append(Episode(from: max(0, point.sample - late), to: point.sample, seconds: late, sourceStalled: stalled))
            }
        }
        self.episodes = episodes
        self.worst = worst
    }

    /// The episode touching [from, to] (seconds of sound, `margin` either side: the points are a
    /// tenth of a second apart), the worst.
    public func episode(from: Double, to: Double, margin: Double = 0.2) -> Episode? {
        episodes.filter { $0.to >= from - margin && $0.from <= to + margin }.max { $0.seconds < $1.seconds }
    }
}
