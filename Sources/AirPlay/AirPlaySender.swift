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

    public init(connectTimeout: Double = 5, requestTimeout: Double = 5, maxBodyBytes: Int = 1 << 20,
                playRetries: Int = 3, retryDelay: Double = 1) {
        self.connectTimeout = connectTimeout
        self.requestTimeout = requestTimeout
        self.maxBodyBytes = maxBodyBytes
        self.playRetries = playRetries
        self.retryDelay = retryDelay
    }
}

/// The sender's entry point: one kept-alive connection to one receiver.
public enum AirPlaySender {
    /// Opens a session with `endpoint` (AirPlay 1 HTTP on its `_airplay._tcp` port).
    public static func open(_ endpoint: AirPlayEndpoint,
                            configuration: AirPlayConfiguration = .init()) async throws(AirPlayError) -> any AirPlayPlayback {
        // Replaced by the sender's implementation (issue 19, part 1).
        throw .connect(endpoint: endpoint.description, reason: "the AirPlay sender is not built yet")
    }
}
