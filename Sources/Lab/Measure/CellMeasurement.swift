import Foundation

// CONTRACT (owned by the measurement work; the run loop only calls `CellMeasurer.measure` and
// stores what it returns). Fields may be added; the run loop relies on the ones below.

/// A stall seen in a cell: playback that should have been moving and was not.
public struct MeasuredStall: Codable, Sendable, Equatable {
    /// Where on the case's timeline (seconds of media position) it happened.
    public var position: Double
    /// When it started, in ms since `/play`.
    public var startMs: Double
    public var durationMs: Double
    /// Why it counts: "position-frozen" (rate 1, position not advancing) or "rate-dropped" (rate 0 with no command).
    public var kind: String

    public init(position: Double, startMs: Double, durationMs: Double, kind: String) {
        self.position = position
        self.startMs = startMs
        self.durationMs = durationMs
        self.kind = kind
    }
}

/// The automatic verdict of a cell, recorded with `source: measured`.
public enum MeasuredOutcome: String, Codable, Sendable, Equatable {
    case seamless, stall, failed, skipped
}

/// What one cell measured, from its playback series and the receiver's requests.
public struct CellMeasurement: Codable, Sendable, Equatable {
    public var playToFirstRequestMs: Double?
    public var playToFirstSegmentMs: Double?
    public var playToFirstFrameMs: Double?
    public var stalls: [MeasuredStall]
    public var outcome: MeasuredOutcome
    /// The longest stall at a transition (the number the verdict and calibration use), in ms.
    public var transitionStallMs: Double?
    /// One line saying why the outcome is what it is ("position frozen 1.24 s at 6.0 s", "receiver went away").
    public var reason: String

    public init(playToFirstRequestMs: Double? = nil, playToFirstSegmentMs: Double? = nil, playToFirstFrameMs: Double? = nil,
                stalls: [MeasuredStall] = [], outcome: MeasuredOutcome, transitionStallMs: Double? = nil, reason: String) {
        self.playToFirstRequestMs = playToFirstRequestMs
        self.playToFirstSegmentMs = playToFirstSegmentMs
        self.playToFirstFrameMs = playToFirstFrameMs
        self.stalls = stalls
        self.outcome = outcome
        self.transitionStallMs = transitionStallMs
        self.reason = reason
    }
}

/// Turns a cell's series and requests into a measurement. Pure: no I/O, no clock.
public struct CellMeasurer: Sendable {
    public init() {}

    /// `requests` are the lab server's records for this receiver's address since `/play` (any case);
    /// `labCase` is the case played; `failure` is set when the run loop could not finish the cell
    /// (receiver went away, timed out), and the series holds what was seen up to then.
    public func measure(series: PlaybackSeries, requests: [LabRequestRecord], labCase: LabCase,
                        failure: String?) -> CellMeasurement {
        // Placeholder until the measurement work lands: first frame only.
        let firstMoving = series.samples.first { ($0.info?.position ?? 0) > 0 && ($0.info?.rate ?? 0) > 0 }
        if let failure { return CellMeasurement(playToFirstFrameMs: firstMoving?.atMs, outcome: .failed, reason: failure) }
        return CellMeasurement(playToFirstFrameMs: firstMoving?.atMs, outcome: firstMoving == nil ? .failed : .seamless,
                               reason: firstMoving == nil ? "position never moved" : "played")
    }
}
