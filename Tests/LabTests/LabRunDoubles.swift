import AirPlay
import Foundation
@testable import LabCore
@testable import LabRun
@testable import LabServer

/// A clock whose sleeps return at once, moving its time to the deadline: a cell of 30 s of polls
/// runs in microseconds.
final class JumpingClock: Clock, @unchecked Sendable {
    struct Instant: InstantProtocol {
        var offset: Duration
        func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        func duration(to other: Instant) -> Duration { other.offset - offset }
        static func < (a: Instant, b: Instant) -> Bool { a.offset < b.offset }
    }

    private let lock = NSLock()
    private var current = Instant(offset: .zero)

    var now: Instant { lock.withLock { current } }
    var minimumResolution: Duration { .zero }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        try Task.checkCancellation()
        advance(to: deadline)
        await Task.yield()
    }

    func advance(to deadline: Instant) {
        lock.withLock { if current < deadline { current = deadline } }
    }

    func advance(by duration: Duration) {
        lock.withLock { current = current.advanced(by: duration) }
    }
}

/// A receiver in the test process: `/playback-info` answers `script(seconds since /play)`;
/// each request costs `latency` on the clock. Not a stand-in for the protocol (the end-to-end
/// tests use a real HTTP receiver): a way to feed the runner timelines.
final class ScriptedReceiver: AirPlayPlayback, @unchecked Sendable {
    let clock: JumpingClock
    let latency: Duration
    let script: @Sendable (Double) -> Result<PlaybackInfo, AirPlayError>
    private let lock = NSLock()
    private var playedAt: JumpingClock.Instant?
    private(set) var log: [String] = []

    init(clock: JumpingClock, latency: Duration = .milliseconds(20), script: @escaping @Sendable (Double) -> Result<PlaybackInfo, AirPlayError>) {
        self.clock = clock
        self.latency = latency
        self.script = script
    }

    private func note(_ entry: String) { lock.withLock { log.append(entry) } }

    func play(url: URL, startPosition: Double) async throws(AirPlayError) {
        note("play \(url.lastPathComponent)")
        clock.advance(by: latency)
        lock.withLock { playedAt = clock.now }
    }

    func playbackInfo() async throws(AirPlayError) -> PlaybackInfo {
        clock.advance(by: latency)
        let since = lock.withLock { playedAt.map { $0.duration(to: clock.now) } } ?? .zero
        note("playback-info")
        return try script(CellMachine.ms(since) / 1000).get()
    }

    func setRate(_ rate: Double) async throws(AirPlayError) { note("rate \(rate)"); clock.advance(by: latency) }
    func scrub(to seconds: Double) async throws(AirPlayError) { note("scrub \(seconds)"); clock.advance(by: latency) }
    func stop() async throws(AirPlayError) { note("stop") }
    func close() async { note("close") }

    /// A receiver that plays `duration` seconds of media from `startsAt` seconds after /play.
    static func playing(_ duration: Double, startsAt: Double = 0.5) -> @Sendable (Double) -> Result<PlaybackInfo, AirPlayError> {
        { t in
            let position = min(max(0, t - startsAt), duration)
            return .success(PlaybackInfo(duration: duration, position: position, rate: position < duration ? 1 : 0))
        }
    }
}

/// The store's side of the runner, in memory.
final class MemoryRecorder: LabRunRecording, @unchecked Sendable {
    private let lock = NSLock()
    private(set) var cells: [(cell: LabRunCell, done: Bool)] = []

    func record(_ cell: LabRunCell, done: Bool) throws(LabStoreError) { lock.withLock { cells.append((cell, done)) } }
    func requests(client: String, from: Date, to: Date) throws(LabStoreError) -> [LabRequestRecord] { [] }

    func cells(of receiver: String) -> [(cell: LabRunCell, done: Bool)] { lock.withLock { cells.filter { $0.cell.receiver == receiver } } }
}

extension PlaybackInfo {
    static func at(_ position: Double, of duration: Double? = 10, rate: Double = 1) -> PlaybackInfo {
        PlaybackInfo(duration: duration, position: position, rate: rate)
    }
}
