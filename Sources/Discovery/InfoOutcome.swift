import Foundation

/// Where one `GET /info` request went and what came back.
public struct InfoAttempt: Codable, Sendable, Equatable {
    /// `HTTP/1.1` or `RTSP/1.0`.
    public var transport: String
    /// The address connected to, as advertised (`127.0.0.1`).
    public var address: String
    public var port: Int
    /// The service that advertised `port`: `_airplay._tcp` or `_raop._tcp`.
    public var service: String
    /// The status code when the receiver answered with a status line; nil otherwise.
    public var status: Int?
    /// What happened, for people: `200 OK`, `400 Bad Request`, `connection refused (nothing
    /// listens on this port)`, `no answer within 2 s`, `unusable answer (...)`.
    public var result: String

    public init(transport: String, address: String, port: Int, service: String, status: Int?, result: String) {
        self.transport = transport
        self.address = address
        self.port = port
        self.service = service
        self.status = status
        self.result = result
    }

    /// `RTSP/1.0 127.0.0.1:7101 (_raop._tcp): 200 OK`.
    public var summary: String {
        let host = address.contains(":") ? "[\(address)]" : address
        return "\(transport) \(host):\(port) (\(service)): \(result)"
    }
}

/// Everything `GET /info` on one receiver gave: the answer or why there is none, and each
/// request made on the way (the AirPlay port over HTTP, then RTSP, then the RAOP port).
public struct InfoOutcome: Sendable, Equatable {
    public var result: Result<ReceiverInfo, InfoError>
    public var attempts: [InfoAttempt]
    /// The request whose status line decided the result: the 200 that answered, or the refusal;
    /// nil when no request got a status line.
    public var answeredBy: InfoAttempt?

    public init(result: Result<ReceiverInfo, InfoError>, attempts: [InfoAttempt] = [], answeredBy: InfoAttempt? = nil) {
        self.result = result
        self.attempts = attempts
        self.answeredBy = answeredBy
    }

    public var info: ReceiverInfo? { try? result.get() }

    /// The receiver said no with a status (AirPlay 1 speakers answer 400 or 403): a fact about
    /// the receiver, not a failure of the request.
    public var isRefusal: Bool {
        if case .failure(.refused) = result { return true }
        return false
    }

    /// How `GET /info` ended, as `discover` writes it in `infoResult`.
    public enum Kind: String, Codable, Sendable {
        case answered
        /// A status other than 200: a fact about the receiver.
        case refused
        /// No usable answer (unreachable, no answer in time, garbage): a warning.
        case failed
        /// Not asked: asleep, or no address.
        case skipped
    }

    public var kind: Kind {
        switch result {
        case .success: .answered
        case .failure(.refused): .refused
        case .failure(.asleep), .failure(.noAddress): .skipped
        case .failure: .failed
        }
    }

    /// The warning a failed or skipped request leaves on its receiver, with every request tried;
    /// nil when the receiver answered or refused.
    public var warning: String? {
        guard case .failure(let error) = result, !isRefusal else { return nil }
        let tried = attempts.count > 1 ? " (tried " + attempts.map(\.summary).joined(separator: "; ") + ")" : ""
        return error.description + tried
    }
}
