import Foundation

/// Places a live sound input's samples on the wall clock from its timestamps, which libavdevice
/// makes from the time of day less the server's reported latency: right on average, jittery
/// packet to packet (the first packet is often 150 ms off, a starved reader bunches them). So a
/// sample's time is its count plus the median offset (timestamp less count) of the second around
/// it; a step of that median of 40 ms or more that holds for the next second too is samples the
/// input dropped; the first second's median against the last second's, drops taken out, is the
/// device clock's drift from the wall.
public struct SoundClock: Sendable, Equatable {
    /// The median offset of each second of samples, in seconds.
    public let offsets: [Double]
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
        if medians.count >= 3 {
            for k in 1..<(medians.count - 1) {
                let step = medians[k] - medians[k - 1]
                if step >= 0.04, medians[k + 1] - medians[k - 1] >= 0.04 { drops.append(SoundDrop(at: Double(k), seconds: step)) }
            }
        }
        offsets = medians
        self.drops = drops
        drift = medians.count >= 2 ? medians.last! - medians.first! - drops.map(\.seconds).reduce(0, +) : 0
    }

    /// Seconds from the input's first timestamp at which sample time `t` was heard.
    public func stamp(_ t: Double) -> Double {
        guard !offsets.isEmpty else { return t }
        return t + offsets[min(offsets.count - 1, max(0, Int(t)))]
    }
}
