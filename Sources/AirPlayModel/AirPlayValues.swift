import Foundation

// The AirPlay values other modules read (the lab's measurer and judge among them): what a receiver
// reports, and where it listens. Foundation only, so that a module can read a receiver's reports
// without the sender's networking; `AirPlay` re-exports this module.

/// Where a receiver's AirPlay service listens, and what discovery or the inventory calls it.
public struct AirPlayEndpoint: Sendable, Hashable, Codable, CustomStringConvertible {
    public var host: String
    public var port: Int
    public var name: String?
    public var deviceId: String?

    public init(host: String, port: Int, name: String? = nil, deviceId: String? = nil) {
        self.host = host
        self.port = port
        self.name = name
        self.deviceId = deviceId
    }

    public var description: String {
        let address = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        return name.map { "\($0) (\(address))" } ?? address
    }
}

/// A receiver's `/playback-info` answer. Receivers fill in different subsets: Kodi carries only
/// `duration`, `position` and `rate` (its buffer flags are constants).
public struct PlaybackInfo: Sendable, Equatable, Codable {
    public struct TimeRange: Sendable, Equatable, Codable {
        public var start: Double
        public var duration: Double
        public init(start: Double, duration: Double) { self.start = start; self.duration = duration }
    }

    /// The receiver's own error dict (`error: {code, domain}`), when it reports one.
    public struct ReceiverError: Sendable, Equatable, Codable, CustomStringConvertible {
        public var domain: String?
        public var code: Int?
        public init(domain: String?, code: Int?) { self.domain = domain; self.code = code }
        public var description: String { "\(domain ?? "unknown domain") \(code.map(String.init) ?? "?")" }
    }

    public var duration: Double?
    public var position: Double?
    public var rate: Double?
    public var readyToPlay: Bool?
    public var playbackBufferEmpty: Bool?
    public var playbackBufferFull: Bool?
    public var playbackLikelyToKeepUp: Bool?
    public var loadedTimeRanges: [TimeRange]
    public var seekableTimeRanges: [TimeRange]
    public var error: ReceiverError?

    public init(duration: Double? = nil, position: Double? = nil, rate: Double? = nil, readyToPlay: Bool? = nil,
                playbackBufferEmpty: Bool? = nil, playbackBufferFull: Bool? = nil, playbackLikelyToKeepUp: Bool? = nil,
                loadedTimeRanges: [TimeRange] = [], seekableTimeRanges: [TimeRange] = [], error: ReceiverError? = nil) {
        self.duration = duration
        self.position = position
        self.rate = rate
        self.readyToPlay = readyToPlay
        self.playbackBufferEmpty = playbackBufferEmpty
        self.playbackBufferFull = playbackBufferFull
        self.playbackLikelyToKeepUp = playbackLikelyToKeepUp
        self.loadedTimeRanges = loadedTimeRanges
        self.seekableTimeRanges = seekableTimeRanges
        self.error = error
    }
}

/// A receiver's `GET /server-info` answer (AirPlay 1). Kodi 20 answers deviceid (its interface's
/// MAC), features 119, model `Kodi,1` (its TXT record says `Xbmc,1`), protovers 1.0, srcvers 101.28.
public struct ServerInfo: Sendable, Equatable, Codable {
    public var deviceId: String?
    public var features: Int?
    public var model: String?
    public var protocolVersion: String?
    public var sourceVersion: String?

    public init(deviceId: String? = nil, features: Int? = nil, model: String? = nil,
                protocolVersion: String? = nil, sourceVersion: String? = nil) {
        self.deviceId = deviceId
        self.features = features
        self.model = model
        self.protocolVersion = protocolVersion
        self.sourceVersion = sourceVersion
    }
}
