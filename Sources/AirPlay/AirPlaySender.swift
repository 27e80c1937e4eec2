import Foundation

/// Timeouts and limits of one sender session; every wait is bounded.
public struct AirPlayConfiguration: Sendable, Equatable {
    public var connectTimeout: Double
    public var requestTimeout: Double
    /// Larger answers are a `badResponse`, never buffered whole.
    public var maxBodyBytes: Int
    /// `/play` retries on HTTP 500, as pyatv does.
    public var playRetries: Int
    public var retryDelay: Double
    /// The `/play` body's form; both carry the URL and the start fraction.
    public var playBody: PlayBody
    public var userAgent: String
    /// AirPlay 2: connection attempts to the event port (a refused one is tried again
    /// `eventRetryDelay` seconds later, as pyatv does), and the interval of `POST /feedback`
    /// (0: none).
    public var eventConnectAttempts: Int
    public var eventRetryDelay: Double
    public var feedbackInterval: Double

    /// `binaryPlist`: `Content-Location`, `Start-Position`, `X-Apple-Session-ID` as pyatv sends
    /// them; `textParameters`: `Content-Location: URL\nStart-Position: F\n` as early iOS did.
    public enum PlayBody: String, Sendable, Equatable, Codable, CaseIterable {
        case binaryPlist = "binary-plist"
        case textParameters = "text-parameters"
    }

    public init(connectTimeout: Double = 5, requestTimeout: Double = 5, maxBodyBytes: Int = 1 << 20,
                playRetries: Int = 3, retryDelay: Double = 1, playBody: PlayBody = .binaryPlist,
                userAgent: String = "MediaControl/1.0", eventConnectAttempts: Int = 5, eventRetryDelay: Double = 1,
                feedbackInterval: Double = 2) {
        self.connectTimeout = connectTimeout
        self.requestTimeout = requestTimeout
        self.maxBodyBytes = maxBodyBytes
        self.playRetries = playRetries
        self.retryDelay = retryDelay
        self.playBody = playBody
        self.userAgent = userAgent
        self.eventConnectAttempts = eventConnectAttempts
        self.eventRetryDelay = eventRetryDelay
        self.feedbackInterval = feedbackInterval
    }
}

/// How a session reaches a receiver: in plain HTTP, after transient pairing, after pair-verify
/// with stored credentials, or not at all (it needs a pairing this machine does not have).
public enum AirPlayAccess: Sendable, Equatable {
    /// Plain HTTP (AirPlay 1); `pairingName` turns a pairing answer into "needs pairing: run
    /// seamcheck airplay pair NAME".
    case plain(pairingName: String?)
    /// Transient pair-setup (PIN 3939) on every connection, then the encrypted channel.
    case transient
    /// Pair-verify with these credentials, then the encrypted channel.
    case verify(HAPCredentials)
    /// Refused before connecting: this error (a code nobody entered, a password, access control).
    case refuse(AirPlayError)
}

/// Which requests follow pairing: AirPlay 1's (`/play` straight away) or AirPlay 2's (RTSP SETUP,
/// the event channel, RECORD, then `/play`, `setProperty`, `rate`). Plain sessions are always
/// AirPlay 1.
public enum AirPlayFlow: String, Sendable, Equatable, Codable {
    case airPlay1 = "airplay1"
    case airPlay2 = "airplay2"
    /// The legacy video session (UxPlay, the Apple TV 3 generation): RTSP SETUP with NTP timing,
    /// RECORD and `/feedback` on one connection, `/play` and the rest on a plain HTTP one
    /// (`LegacyVideoSession`).
    case legacy = "legacy"
}

/// The sender's entry point: one kept-alive connection to one receiver.
public enum AirPlaySender {
    /// Opens a session the way `access` says. After pair-verify or transient pairing, `flow` says
    /// which requests go over the encrypted channel: AirPlay 1's (`/play`, `/playback-info`...)
    /// or AirPlay 2's (`AirPlay2Session`; see docs/airplay-pairing.md for what was verified).
    public static func open(_ endpoint: AirPlayEndpoint, access: AirPlayAccess, flow: AirPlayFlow = .airPlay1,
                            configuration: AirPlayConfiguration = .init()) async throws(AirPlayError) -> any AirPlayPlayback {
        let channel: HAPChannel
        switch access {
        case .plain(let pairingName) where flow == .legacy:
            _ = pairingName
            let session = LegacyVideoSession(endpoint: endpoint, configuration: configuration)
            try await session.connect()
            return session
        case .plain(let pairingName):
            let session = AirPlaySession(endpoint: endpoint, configuration: configuration, pairingName: pairingName)
            try await session.connect()
            return session
        case .transient:
            channel = try await AirPlayPairing.transient(endpoint, configuration: configuration)
        case .verify(let credentials):
            channel = try await AirPlayPairing.verify(endpoint, credentials: credentials, configuration: configuration)
        case .refuse(let error):
            throw error
        }
        switch flow {
        case .airPlay1, .legacy: return AirPlaySession(channel: channel, configuration: configuration)
        case .airPlay2: return AirPlay2Session(channel: channel, configuration: configuration)
        }
    }

    /// The legacy video session with pair-verify first on its RTSP connection, from stored legacy
    /// credentials (`airplay pair` against UxPlay `-pin`); a verification that fails is
    /// `.pairing` naming its step, which `lab run` reports as that receiver's refusal.
    public static func openLegacy(_ endpoint: AirPlayEndpoint, credentials: LegacyCredentials,
                                  configuration: AirPlayConfiguration = .init()) async throws(AirPlayError) -> any AirPlayPlayback {
        let session = LegacyVideoSession(endpoint: endpoint, configuration: configuration, credentials: credentials)
        try await session.connect()
        return session
    }

    /// Opens a session with `endpoint` (AirPlay 1 HTTP on its `_airplay._tcp` port): connects at
    /// once, so `.connect` comes from here and not from the first request.
    public static func open(_ endpoint: AirPlayEndpoint,
                            configuration: AirPlayConfiguration = .init()) async throws(AirPlayError) -> any AirPlayPlayback {
        try await session(endpoint, configuration: configuration)
    }

    /// `open` with the concrete session type (its session id, connection count, and `play` with a
    /// known duration).
    public static func session(_ endpoint: AirPlayEndpoint,
                               configuration: AirPlayConfiguration = .init()) async throws(AirPlayError) -> AirPlaySession {
        let session = AirPlaySession(endpoint: endpoint, configuration: configuration)
        try await session.connect()
        return session
    }
}
