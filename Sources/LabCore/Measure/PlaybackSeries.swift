import AirPlayModel
import Foundation

// What the run loop records per cell and the measurer reads: the contract between
// Sources/LabRun (which polls) and Sources/LabCore/Measure (which turns a series into numbers).

/// One poll of a receiver's playback state, timed from the moment `/play` was sent.
public struct PlaybackSample: Codable, Sendable, Equatable {
    /// Milliseconds since `/play` was sent (monotonic clock).
    public var atMs: Double
    /// nil when the poll failed (timeout, connection lost): `failure` says why.
    public var info: PlaybackInfo?
    public var failure: String?
    /// True when the answer was still about the item the receiver played before this cell (Kodi goes
    /// on reporting the stopped item's position for a moment after the next `/play`): kept for the
    /// record, never read as this cell's playback. Absent otherwise.
    public var previousItem: Bool?

    public init(atMs: Double, info: PlaybackInfo?, failure: String? = nil, previousItem: Bool? = nil) {
        self.atMs = atMs
        self.info = info
        self.failure = failure
        self.previousItem = previousItem
    }
}

/// A command the sender sent during the cell, with its time and the receiver's answer.
public struct SentCommand: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable { case play, rate, scrub, stop }
    public var kind: Kind
    public var atMs: Double
    /// The command's value: the rate, the scrub position in seconds, the play start position.
    public var value: Double?
    /// nil when it succeeded, else the error's text.
    public var failure: String?

    public init(kind: Kind, atMs: Double, value: Double? = nil, failure: String? = nil) {
        self.kind = kind
        self.atMs = atMs
        self.value = value
        self.failure = failure
    }
}

/// Everything the run loop saw of one cell (one case on one receiver).
public struct PlaybackSeries: Codable, Sendable, Equatable {
    /// Wall-clock time `/play` was sent: the request log's times are compared against it.
    public var playSentAt: Date
    public var pollIntervalMs: Double
    public var samples: [PlaybackSample]
    public var commands: [SentCommand]

    public init(playSentAt: Date, pollIntervalMs: Double, samples: [PlaybackSample] = [], commands: [SentCommand] = []) {
        self.playSentAt = playSentAt
        self.pollIntervalMs = pollIntervalMs
        self.samples = samples
        self.commands = commands
    }
}
