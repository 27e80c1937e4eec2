import Foundation

/// Places a live sound input's samples on the wall clock from its timestamps, which libavdevice
/// makes from the time of day less the server's reported latency, through a filter: right once
/// settled, jittery packet to packet (the first packet is often 150 ms off, a starved reader
/// bunches them) and 200 ms or more off while the filter settles in the first seconds of a stream.
/// So each second's offset (timestamp less count) is its median; a step of that median of 40 ms or
/// more that holds for the next two seconds, and that the reads' own clock shows too, is samples
/// the input dropped; and a sample's time is its count plus the median offset of the whole capture
/// (drops before it added): the settling seconds are outvoted. The third second's median against
/// the last's, drops taken out, is the device clock's drift from the wall (reported; at 1000 ppm
/// it is 1 ms a second).
public struct SoundClock: Sendable, Equatable {
    /// The median offset of each second of samples, in seconds.
    public let offsets: [Double]
    /// The capture's offset with drops taken out: the median over its seconds.
    public let baseline: Double
    public let drops: [SoundDrop]
    public let drift: Double

    public struct SoundDrop: Sendable, Equatable {
        public var at: Double
        public var seconds: Double
    }

    /// `reads`: when each block was read (`AudioCaptureReader.clock`'s `read`), on the monotonic
    /// clock. Given, a step of the stamps is a drop only where the reads step too: samples lost
    /// leave the count behind both clocks, while the stamps' filter settling (the first seconds of
    /// a stream on a sink that was idle: 150-250 ms in a second, seen) moves the stamps alone.
    public init(_ points: [(sample: Double, stamp: Double)], reads: [(sample: Double, read: Double)]? = nil) {
        let medians = Self.medians(points.map { ($0.sample, $0.stamp) })
        let readMedians = reads.map { Self.medians($0.map { ($0.sample, $0.read) }) }
        var drops: [SoundDrop] = []
        if medians.count >= 4 {
            for k in 1..<(medians.count - 2) {
                let step = medians[k] - medians[k - 1]
                guard step >= 0.04, medians[k + 1] - medians[k - 1] >= 0.04, medians[k + 2] - medians[k - 1] >= 0.04 else { continue }
                if let readMedians, readMedians.count > k + 1,
                   min(readMedians[k], readMedians[k + 1]) - readMedians[k - 1] < step / 2 { continue }
                drops.append(SoundDrop(at: Double(k), seconds: step))
            }
        }
        offsets = medians
        self.drops = drops
        let dropped = medians.indices.map { k in drops.filter { Int($0.at) <= k }.map(\.seconds).reduce(0, +) }
        let settled = zip(medians, dropped).map { $0 - $1 }.sorted()
        baseline = settled.isEmpty ? 0 : settled[settled.count / 2]
        // From the third second: the first two may still be the stamps' filter settling.
        let first = medians.count > 4 ? 2 : 0
        drift = medians.count >= 2 ? medians.last! - medians[first] - drops.filter { Int($0.at) > first }.map(\.seconds).reduce(0, +) : 0
    }

    /// The median of (time less sample) in each second of samples; a second with none keeps the one before.
    static func medians(_ points: [(sample: Double, time: Double)]) -> [Double] {
        var windows: [[Double]] = []
        for point in points where point.sample >= 0 {
            let index = Int(point.sample)
            while windows.count <= index { windows.append([]) }
            windows[index].append(point.time - point.sample)
        }
        var medians: [Double] = []
        for window in windows {
            let sorted = window.sorted()
            medians.append(sorted.isEmpty ? (medians.last ?? 0) : sorted[sorted.count / 2])
        }
        return medians
    }

    /// Seconds from the input's first timestamp at which sample time `t` was heard.
    public func stamp(_ t: Double) -> Double {
        t + baseline + drops.filter { $0.at <= t }.map(\.seconds).reduce(0, +)
    }
}
