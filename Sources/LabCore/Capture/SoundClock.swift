import Foundation

/// Places a live sound input's samples on the wall clock from its timestamps, which libavdevice
/// makes from the time of day less the server's reported latency, through a filter: right once
/// settled, jittery packet to packet (the first packet is often 150 ms off, a starved reader
/// bunches them) and 200 ms or more off while the filter settles in the first seconds of a stream.
/// So each second's offset (timestamp less count) is its median; a step of that median of 40 ms or
/// more that holds for the next two seconds is samples the input dropped; and a sample's time is
/// its count plus the median offset of the whole capture (drops before it added): the settling
/// seconds are outvoted. The first second's median against the last's, drops taken out, is the
/// device clock's drift from the wall (reported; at 1000 ppm it is 1 ms a second).
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

    public init(_ points: [(sample: Double, stamp: Double)]) {
        var windows: [[Double]] = []
        for point in points where point.sample >= 0 {
            let index = Int(point.sample)
            while windows.count <= index { windows.append([]) }
            windows[index].append(point.stamp - point.sample)
        }
        var medians: [Double] = []
        for window in windows {
            let sorted = window.sorted()
            // A second with no timestamp keeps the one before.
            medians.append(sorted.isEmpty ? (medians.last ?? 0) : sorted[sorted.count / 2])
        }
        var drops: [SoundDrop] = []
        if medians.count >= 4 {
            for k in 1..<(medians.count - 2) {
                let step = medians[k] - medians[k - 1]
                if step >= 0.04, medians[k + 1] - medians[k - 1] >= 0.04, medians[k + 2] - medians[k - 1] >= 0.04 {
                    drops.append(SoundDrop(at: Double(k), seconds: step))
                }
            }
        }
        offsets = medians
        self.drops = drops
        let dropped = medians.indices.map { k in drops.filter { Int($0.at) <= k }.map(\.seconds).reduce(0, +) }
        let settled = zip(medians, dropped).map { $0 - $1 }.sorted()
        baseline = settled.isEmpty ? 0 : settled[settled.count / 2]
        drift = medians.count >= 2 ? medians.last! - medians.first! - drops.map(\.seconds).reduce(0, +) : 0
    }

    /// Seconds from the input's first timestamp at which sample time `t` was heard.
    public func stamp(_ t: Double) -> Double {
        t + baseline + drops.filter { $0.at <= t }.map(\.seconds).reduce(0, +)
    }
}
