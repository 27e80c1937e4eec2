import Foundation
import MediaProbe

/// A receiver's sound heard apart from its picture (`--capture-audio RECEIVER=pulse:...|alsa:...`):
/// read live on a thread of its own from `init` until `finish`, kept bounded (`SoundTrack`).
public final class SoundCapture: @unchecked Sendable {
    public let input: CaptureInput
    private let streams: CaptureStreams
    private let lock = NSLock()
    private var stopped = false
    private var outcome: Result<Heard, CaptureError>?
    private let done = DispatchSemaphore(value: 0)
    private let firstBlock = DispatchSemaphore(value: 0)

    struct Heard {
        var track: SoundTrack
        var origin: Double?
        var clock: [(sample: Double, stamp: Double, read: Double)]
        var unreadable: Int
        /// When the first block came (less its own length): time 0 of a sound heard alone.
        var started: Date?
        var firstReadWall: Double?
        /// Seconds from the reading's start (the input opened) to its first block.
        var firstBlockAfter: Double?
        var waits: [(read: Double, seconds: Double)] = []
    }

    /// Starts reading `input` at once; a file is read to its end, a device until `finish` (or `duration` seconds).
    public convenience init(input: CaptureInput, streams: CaptureStreams, duration: Double? = nil) {
        self.init(input: input, streams: streams, duration: duration, beforeEachBlock: nil)
    }

    /// `beforeEachBlock` is called with each block's time before it is taken in: tests starve the reader with it.
    init(input: CaptureInput, streams: CaptureStreams, duration: Double?, beforeEachBlock: (@Sendable (Double) -> Void)?) {
        self.input = input
        self.streams = streams
        let opened = Date()
        Thread { [self] in
            let result = Result { () throws(CaptureError) -> Heard in
                let reader = try AudioCaptureReader(input: input)
                var track = SoundTrack(tones: streams.tones)
                var started: Date?
                while let block = try reader.next() {
                    beforeEachBlock?(block.time)
                    if started == nil {
                        started = Date().addingTimeInterval(-Double(block.samples.count) / Double(max(1, block.sampleRate)))
                        firstBlock.signal()
                    }
                    if input.isDevice, lock.withLock({ stopped }) { break }
                    if let duration, block.time > duration { break }
                    track.add(time: block.time, samples: block.samples, sampleRate: block.sampleRate, channels: block.channels,
                              activeChannels: block.activeChannels)
                }
                return Heard(track: track, origin: reader.originTimestamp, clock: reader.clock, unreadable: reader.unreadableFrames,
                             started: started, firstReadWall: reader.firstReadWall,
                             firstBlockAfter: started.map { $0.timeIntervalSince(opened) }, waits: reader.waits)
            }
            lock.withLock { outcome = result }
            done.signal()
            firstBlock.signal()  // nothing more will come: no one waits for it
        }.start()
    }

    /// Waits at most `timeout` seconds for the input's first block of sound (or the reading's end);
    /// false if neither came. A
    /// PulseAudio null sink that nothing plays into renders in blocks of 2 s: a stream that connects
    /// then (this reader, and a player) gets its first sound up to 2 s late, and a player's sound
    /// may start behind its picture. Once this reader has heard a block, the sink runs at its 50 ms.
    public func waitForFirstBlock(timeout: Double) -> Bool {
        guard firstBlock.wait(timeout: .now() + timeout) == .success else { return false }
        firstBlock.signal()
        return true
    }

    /// When the first block of sound came (time 0 of a sound heard alone), once finished.
    public var started: Date? { lock.withLock { (try? outcome?.get())?.started } }

    /// Stops the reading and says what was heard, placed on the picture's clock by `pictureOrigin`
    /// (the first frame's timestamp, `CaptureAnalysis.clockOrigin`); waits at most `timeout` seconds.
    public func finish(picture: [CaptureTransition] = [], pictureOrigin: Double? = nil, timeout: Double = 15) -> SoundMeasurement {
        lock.withLock { stopped = true }
        guard done.wait(timeout: .now() + timeout) == .success, let outcome = lock.withLock({ outcome }) else {
            return SoundMeasurement(result: "failed", input: input.description, notes: ["the sound capture did not stop within \(Int(timeout)) s"])
        }
        switch outcome {
        case .failure(let error):
            return SoundMeasurement(result: "failed", input: input.description, notes: [error.description])
        case .success(let heard):
            var notes: [String] = []
            let placed = Self.shift(sound: heard.origin, picture: pictureOrigin)
            if let note = placed.note, pictureOrigin != nil { notes.append(note) }
            if let after = heard.firstBlockAfter, after > 1, input.isDevice {
                notes.append(String(format: "the sound input gave its first sound %.1f s after it was opened (a PulseAudio null sink "
                                    + "nothing plays into renders in 2 s blocks): nothing before it was heard, and a player that "
                                    + "started before it may have played its sound behind its picture until it caught up", after))
            }
            if heard.unreadable > 0 { notes.append("\(heard.unreadable) blocks of sound came in a sample format not read") }
            guard input.isDevice else {
                return heard.track.finish(input: input.description, streams: streams, picture: picture, notes: notes)
            }
            let reads = heard.clock.map { ($0.sample, $0.read) }
            let clock = SoundClock(heard.clock.map { ($0.sample, $0.stamp) }, reads: reads)
            let shift = placed.seconds
            return heard.track.finish(input: input.description, streams: streams, picture: picture,
                                      place: { clock.stamp($0) + shift }, drift: clock.drift,
                                      drops: clock.drops.map { .init(at: $0.at, seconds: $0.seconds) },
                                      lag: SoundLag(reads, waits: heard.waits), notes: notes)
        }
    }

    /// Seconds to add to the sound's times to put them on the picture's clock. Devices (pulse,
    /// alsa, x11grab) stamp with the time of day: the difference of the first timestamps. Otherwise
    /// (recordings, v4l2's monotonic stamps) the two are aligned by their starts, and say so.
    static func shift(sound: Double?, picture: Double?) -> (seconds: Double, note: String?) {
        if let sound, let picture, sound > 1e9, picture > 1e9, abs(sound - picture) < 3600 {
            return (sound - picture, nil)
        }
        return (0, "the sound and the picture share no clock (their timestamps are not both the time of day): they are aligned "
                + "by their first samples, and A/V offsets are only as good as the two inputs started together")
    }
}
