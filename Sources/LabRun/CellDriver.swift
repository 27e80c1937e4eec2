import AirPlay
import Foundation
import LabCore
import LabServer

/// Opens a session with a receiver: `AirPlaySender.open` in the command, an in-process double in tests.
public typealias AirPlayOpener = @Sendable (AirPlayEndpoint) async throws(AirPlayError) -> any AirPlayPlayback

/// What the driver saw of one cell.
public struct CellRecording: Sendable, Equatable {
    public var series: PlaybackSeries
    public var end: CellEnd
    public var startedAt: Date
    public var finishedAt: Date
    /// Scripted commands the cell ended before sending (the receiver stopped first).
    public var unsent: [LabScriptedCommand] = []
}

/// Runs a `CellMachine` against one receiver: opens the session, sends `/play`, polls on the
/// machine's schedule with `clock`, sends `/stop`, closes. The only I/O of a cell.
///
/// Cancelled (SIGINT), it sends `/stop` once (bounded by the session's request timeout), closes
/// the session and throws `CancellationError`: a cut-short cell is not a result.
public struct CellDriver<C: Clock>: Sendable where C.Duration == Duration {
    public let clock: C
    public let limits: CellLimits
    public let opener: AirPlayOpener
    /// Each poll's sample as it comes (for progress lines).
    public let onSample: @Sendable (PlaybackSample) -> Void

    public init(clock: C, limits: CellLimits, opener: @escaping AirPlayOpener,
                onSample: @escaping @Sendable (PlaybackSample) -> Void = { _ in }) {
        self.clock = clock
        self.limits = limits
        self.opener = opener
        self.onSample = onSample
    }

    /// `script`: the case's scripted commands (`/scrub`, `/rate`), sent at their times after playback started.
    public func run(_ endpoint: AirPlayEndpoint, url: URL, startPosition: Double = 0,
                    script: [LabScriptedCommand] = []) async throws(CancellationError) -> CellRecording {
        try Self.checkCancellation()  // cancelled before it began: no session opened, no /play sent
        var machine = CellMachine(limits: limits, script: script)
        let startedAt = Date()
        let playback: any AirPlayPlayback
        do { playback = try await opener(endpoint) } catch {
            try Self.checkCancellation()
            let end = Self.finalEnd(machine.openFailed(error))
            return CellRecording(series: PlaybackSeries(playSentAt: startedAt, pollIntervalMs: CellMachine.ms(limits.pollInterval)),
                                 end: end, startedAt: startedAt, finishedAt: Date(), unsent: script)
        }
        let origin = clock.now
        let playSentAt = Date()
        var playError: AirPlayError?
        do { try await playback.play(url: url, startPosition: startPosition) } catch { playError = error }
        var action = machine.playAnswered(at: elapsed(since: origin), startPosition: startPosition, error: playError)
        while true {
            switch action {
            case .poll(let at):
                do { try await clock.sleep(until: origin.advanced(by: at), tolerance: nil) } catch {
                    await Self.abandon(playback)
                    throw CancellationError()
                }
                let result: Result<PlaybackInfo, AirPlayError>
                do { result = .success(try await playback.playbackInfo()) } catch { result = .failure(error) }
                if Task.isCancelled {
                    await Self.abandon(playback)
                    throw CancellationError()
                }
                action = machine.polled(at: elapsed(since: origin), result)
                if let sample = machine.samples.last { onSample(sample) }
            case .send(let command):
                var commandError: AirPlayError?
                let sentAt = elapsed(since: origin)
                do {
                    switch command.kind {
                    case .scrub: try await playback.scrub(to: command.value)
                    case .rate: try await playback.setRate(command.value)
                    }
                } catch { commandError = error }
                action = machine.commandAnswered(sentAt: sentAt, at: elapsed(since: origin), command, error: commandError)
            case .stop:
                var stopError: AirPlayError?
                do { try await playback.stop() } catch { stopError = error }
                action = machine.stopAnswered(at: elapsed(since: origin), error: stopError)
            case .done(let end):
                await playback.close()
                let series = PlaybackSeries(playSentAt: playSentAt, pollIntervalMs: CellMachine.ms(limits.pollInterval),
                                            samples: machine.samples, commands: machine.commands)
                return CellRecording(series: series, end: end, startedAt: startedAt, finishedAt: Date(), unsent: machine.pending)
            }
        }
    }

    private func elapsed(since origin: C.Instant) -> Duration { origin.duration(to: clock.now) }

    private static func finalEnd(_ action: CellAction) -> CellEnd {
        switch action {
        case .done(let end), .stop(let end): end
        case .poll, .send: CellEnd(kind: .playFailed, failure: "no session")
        }
    }

    private static func abandon(_ playback: any AirPlayPlayback) async {
        try? await playback.stop()
        await playback.close()
    }

    private static func checkCancellation() throws(CancellationError) {
        if Task.isCancelled { throw CancellationError() }
    }
}
