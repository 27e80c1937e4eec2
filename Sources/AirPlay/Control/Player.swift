import Foundation

/// One AirPlay 1 session: every request carries the session's `X-Apple-Session-ID` and goes over
/// one kept-alive connection. An actor: a session is driven by one task at a time, and calls
/// from several tasks queue up rather than interleave on the wire.
public actor AirPlaySession: AirPlayPlayback {
    public nonisolated let endpoint: AirPlayEndpoint
    /// The `X-Apple-Session-ID` of every request (an uppercase UUID).
    public nonisolated let sessionId: String
    public nonisolated let configuration: AirPlayConfiguration
    private let connection: Connection
    private var closed = false
    /// The name for `seamcheck airplay pair`: a pairing answer (401/403/453/470) on a plain
    /// session then reads "needs pairing: run seamcheck airplay pair NAME".
    private let pairingName: String?

    init(endpoint: AirPlayEndpoint, configuration: AirPlayConfiguration, pairingName: String? = nil) {
        self.endpoint = endpoint
        self.configuration = configuration
        self.pairingName = pairingName
        sessionId = UUID().uuidString
        connection = Connection(host: endpoint.host, port: endpoint.port, connectTimeout: configuration.connectTimeout,
                                maxBodyBytes: configuration.maxBodyBytes)
    }

    /// A session over a connection already verified and encrypted (`HAPChannel`).
    init(channel: HAPChannel, configuration: AirPlayConfiguration) {
        endpoint = channel.endpoint
        self.configuration = configuration
        pairingName = nil
        sessionId = UUID().uuidString
        connection = channel.connection
    }

    /// Opens the TCP connection now, so an unreachable receiver is known before `/play`.
    func connect() async throws(AirPlayError) {
        do {
            try await connection.connectIfNeeded()
        } catch {
            throw map(error, path: "connect")
        }
    }

    /// TCP connections this session opened (1 unless the receiver closed one).
    public var connectionsOpened: Int { get async { await connection.opened } }

    // MARK: - Playback

    public func play(url: URL, startPosition: Double) async throws(AirPlayError) {
        try await play(url: url, startPosition: startPosition, duration: nil)
    }

    /// `POST /play`. AirPlay 1's `Start-Position` is a fraction of the duration, which a sender
    /// rarely knows before playing: with `duration` the fraction is `startPosition / duration`
    /// (clamped to 0...1); without it the fraction is 0, and a non-zero `startPosition` is also
    /// sent as `Start-Position-Seconds` (AirPlay 2's key; AirPlay 1 receivers such as Kodi ignore
    /// it and start at the beginning). Retried on HTTP 500 up to `playRetries` more times.
    public func play(url: URL, startPosition: Double, duration: Double?) async throws(AirPlayError) {
        let seconds = startPosition.isFinite ? max(startPosition, 0) : 0
        var fraction = 0.0
        if let duration, duration.isFinite, duration > 0 { fraction = min(seconds / duration, 1) }
        let (contentType, body) = Self.playBody(url: url, fraction: fraction, seconds: seconds,
                                                sessionId: sessionId, form: configuration.playBody)
        var attempt = 0
        while true {
            let response = try await send("POST", "/play", contentType: contentType, body: body)
            if response.status == 500, attempt < configuration.playRetries {
                attempt += 1
                try? await Task.sleep(nanoseconds: UInt64(max(configuration.retryDelay, 0) * 1_000_000_000))
                if !Task.isCancelled { continue }
            }
            try check(response, path: "/play")
            return
        }
    }

    /// The `/play` body in either form, with its content type.
    static func playBody(url: URL, fraction: Double, seconds: Double, sessionId: String,
                         form: AirPlayConfiguration.PlayBody) -> (String, Data) {
        switch form {
        case .binaryPlist:
            var plist: [String: Any] = ["Content-Location": url.absoluteString, "Start-Position": fraction,
                                        "X-Apple-Session-ID": sessionId]
            if seconds > 0 { plist["Start-Position-Seconds"] = seconds }
            return (PropertyList.binaryContentType, PropertyList.binary(plist))
        case .textParameters:
            var text = "Content-Location: \(url.absoluteString)\nStart-Position: \(String(format: "%.6f", fraction))\n"
            if seconds > 0 { text += "Start-Position-Seconds: \(String(format: "%.6f", seconds))\n" }
            return ("text/parameters", Data(text.utf8))
        }
    }

    public func playbackInfo() async throws(AirPlayError) -> PlaybackInfo {
        try SessionAnswers.playbackInfo(try await send("GET", "/playback-info"), endpoint: endpoint.description)
    }

    /// `POST /rate?value=`: 0 pauses, 1 plays.
    public func setRate(_ rate: Double) async throws(AirPlayError) {
        let path = SessionPaths.rate(rate)
        try check(try await send("POST", path), path: path)
    }

    /// `POST /scrub?position=` in seconds (Kodi ends fMP4 HLS playback on a scrub: FFmpeg's seek fails).
    public func scrub(to seconds: Double) async throws(AirPlayError) {
        let path = SessionPaths.scrub(seconds)
        try check(try await send("POST", path), path: path)
    }

    public func stop() async throws(AirPlayError) {
        try check(try await send("POST", "/stop"), path: "/stop")
    }

    public func serverInfo() async throws(AirPlayError) -> ServerInfo {
        try SessionAnswers.serverInfo(try await send("GET", "/server-info"), endpoint: endpoint.description)
    }

    public nonisolated var playbackSessionId: String? { sessionId }

    public func postAction(_ body: Data) async throws(AirPlayError) {
        let response = try await send("POST", "/action", contentType: PropertyList.binaryContentType, body: body)
        try check(response, path: "/action")
    }

    public func close() async {
        closed = true
        await connection.shutDown()
    }

    // MARK: - Exchange

    private func send(_ method: String, _ path: String, contentType: String? = nil,
                      body: Data = Data()) async throws(AirPlayError) -> HTTPResponse {
        guard !closed else { throw .connectionClosed(endpoint: endpoint.description, path: path) }
        var headers = [("User-Agent", configuration.userAgent), ("X-Apple-Session-ID", sessionId)]
        if let contentType { headers.append(("Content-Type", contentType)) }
        let request = HTTPRequest(method: method, path: path, headers: headers, body: body)
        do {
            return try await connection.send(request, timeout: configuration.requestTimeout)
        } catch {
            throw map(error, path: path)
        }
    }

    private func map(_ failure: ConnectionFailure, path: String) -> AirPlayError {
        SessionAnswers.error(failure, endpoint: endpoint.description, path: path, timeout: configuration.requestTimeout)
    }

    private func check(_ response: HTTPResponse, path: String) throws(AirPlayError) {
        try SessionAnswers.check(response, endpoint: endpoint.description, path: path, pairingName: pairingName)
    }
}
