import Foundation

/// One AirPlay 2 URL-playback session over the encrypted channel after pair-verify (or transient
/// pairing), in the order pyatv's AirPlay 2 player uses: RTSP `SETUP` (binary plist), the event
/// channel to the port SETUP names, `POST /feedback` every `feedbackInterval`, `RECORD`, then
/// HTTP `POST /play` (binary plist), RTSP `PUT /setProperty?...` and `POST /rate?value=1`.
/// `/playback-info` and `/server-info` are HTTP `GET`s; `stop` is RTSP `TEARDOWN`.
/// Checked against a loopback peer written for the tests only, never against an Apple receiver.
public actor AirPlay2Session: AirPlayPlayback {
    public nonisolated let endpoint: AirPlayEndpoint
    /// The `X-Apple-Session-ID` of the HTTP requests (a lowercase UUID, as pyatv sends it).
    public nonisolated let sessionId: String
    public nonisolated let configuration: AirPlayConfiguration
    private let connection: Connection
    private let keys: HAPChannelKeys
    private var ids = RTSPSessionIdentity()
    private let deviceId = AirPlay2Messages.randomDeviceId()
    private var events: EventChannel?
    private var timing: TimingServer?
    private var feedback: Task<Void, Never>?
    private var closed = false

    init(channel: HAPChannel, configuration: AirPlayConfiguration) {
        endpoint = channel.endpoint
        self.configuration = configuration
        sessionId = UUID().uuidString.lowercased()
        connection = channel.connection
        keys = channel.keys
    }

    /// Whether the RTSP session is set up (SETUP, event channel and RECORD done).
    public var isSetUp: Bool { events != nil }

    /// The receiver's requests on the event channel answered so far (0 before SETUP).
    public var eventsAnswered: Int { get async { await events?.answered ?? 0 } }

    // MARK: - Playback

    public func play(url: URL, startPosition: Double) async throws(AirPlayError) {
        try await play(url: url, startPosition: startPosition, duration: nil)
    }

    /// SETUP, event channel and RECORD (once per session, again after `stop`), then `/play` with
    /// the start in seconds (the duration is not needed), retried on HTTP 500 as AirPlay 1's is,
    /// then the properties and `rate 1` (the receiver otherwise stays paused, pyatv notes).
    /// pyatv does not check the `setProperty` answers; neither does this (only `/rate`'s).
    public func play(url: URL, startPosition: Double, duration: Double?) async throws(AirPlayError) {
        if events == nil { try await setUp() }
        let seconds = startPosition.isFinite ? max(startPosition, 0) : 0
        let body = PropertyList.binary(AirPlay2Messages.play(url: url, startSeconds: seconds, uuid: UUID().uuidString.lowercased(),
                                                             deviceId: deviceId))
        var attempt = 0
        while true {
            let response = try await http("POST", "/play", body: body, extra: [("X-Apple-ProtocolVersion", "1"), ("X-Apple-Stream-ID", "1")])
            if response.status == 500, attempt < configuration.playRetries {
                attempt += 1
                try? await Task.sleep(nanoseconds: UInt64(max(configuration.retryDelay, 0) * 1_000_000_000))
                if !Task.isCancelled { continue }
            }
            try check(response, step: "/play")
            break
        }
        for property in AirPlay2Messages.propertiesBeforeRate { _ = try await setProperty(property.name, property.body) }
        try await setRate(1)
        for property in AirPlay2Messages.propertiesAfterRate { _ = try await setProperty(property.name, property.body) }
    }

    public func playbackInfo() async throws(AirPlayError) -> PlaybackInfo {
        try SessionAnswers.playbackInfo(try await http("GET", "/playback-info"), endpoint: endpoint.description)
    }

    /// RTSP `POST /rate?value=`: 0 pauses, 1 plays.
    public func setRate(_ rate: Double) async throws(AirPlayError) {
        let path = SessionPaths.rate(rate)
        try check(try await rtsp("POST", uri: path), step: "RTSP POST \(path)")
    }

    /// HTTP `POST /scrub?position=` as AirPlay 1 sends it; whether AirPlay 2 receivers take it
    /// on this channel is not known here.
    public func scrub(to seconds: Double) async throws(AirPlayError) {
        let path = SessionPaths.scrub(seconds)
        try check(try await http("POST", path), step: path)
    }

    /// RTSP `TEARDOWN` of the session; the event channel and feedback end with it, and the next
    /// `play` sets up a new RTSP session on the same encrypted connection.
    public func stop() async throws(AirPlayError) {
        guard events != nil else { return }
        let response = try await rtsp("TEARDOWN", uri: nil, extra: [("Session", String(ids.session))])
        await endSession()
        try check(response, step: "RTSP TEARDOWN")
    }

    public func serverInfo() async throws(AirPlayError) -> ServerInfo {
        try SessionAnswers.serverInfo(try await http("GET", "/server-info"), endpoint: endpoint.description)
    }

    public func close() async {
        closed = true
        await endSession()
        await connection.shutDown()
    }

    // MARK: - Setup

    private func setUp() async throws(AirPlayError) {
        let local = await connection.localHost ?? "127.0.0.1"
        do {
            timing = try await TimingServer.start(host: local)
        } catch {
            throw .connect(endpoint: endpoint.description, reason: "cannot open the UDP timing port on \(local) for RTSP SETUP: \(error)")
        }
        let body = AirPlay2Messages.setup(sessionUUID: UUID().uuidString, deviceId: deviceId, name: "seamcheck", timingPort: timing?.port ?? 0)
        let port: Int
        do throws(AirPlayError) {
            let response = try await rtsp("SETUP", uri: nil, body: PropertyList.binary(body))
            try check(response, step: "RTSP SETUP")
            guard let named = AirPlay2Messages.eventPort(try plist(response, step: "RTSP SETUP")) else {
                throw AirPlayError.badResponse(endpoint: endpoint.description, path: "RTSP SETUP", reason: "no eventPort (a TCP port number) in its plist")
            }
            port = named
        } catch {
            await endSession()
            throw error
        }
        do {
            events = try await EventChannel.connect(host: endpoint.host, port: port, keys: keys.events,
                                                    connectTimeout: configuration.connectTimeout,
                                                    attempts: configuration.eventConnectAttempts, retryDelay: configuration.eventRetryDelay)
        } catch {
            await endSession()
            let reason: String
            if case .connect(let why) = error { reason = why } else { reason = "\(error)" }
            throw .connect(endpoint: endpoint.description, reason: "event channel to port \(port) (named by RTSP SETUP): \(reason)")
        }
        startFeedback()
        do {
            try check(try await rtsp("RECORD", uri: nil), step: "RTSP RECORD")
        } catch {
            await endSession()
            throw error
        }
    }

    private func startFeedback() {
        feedback = RTSPSessionIdentity.every(configuration.feedbackInterval) { [weak self] in
            guard let self else { return false }
            await self.sendFeedback()
            return true
        }
    }

    /// Best effort, as pyatv's: a failed feedback is not an error of the session.
    private func sendFeedback() async {
        guard !closed, events != nil else { return }
        _ = try? await rtsp("POST", uri: "/feedback")
    }

    private func endSession() async {
        feedback?.cancel()
        feedback = nil
        await events?.close()
        events = nil
        await timing?.close()
        timing = nil
    }

    // MARK: - Exchange

    private func setProperty(_ name: String, _ body: [String: Any]) async throws(AirPlayError) -> HTTPResponse {
        try await rtsp("PUT", uri: "/setProperty?\(name)", body: PropertyList.binary(body))
    }

    /// One RTSP/1.0 request: `CSeq` from 0 as pyatv counts, the DACP and remote ids, and the
    /// session URI `rtsp://LOCAL-IP/N` when `uri` is nil. An answer with another `CSeq` is refused.
    private func rtsp(_ method: String, uri: String?, body: Data = Data(),
                      extra: [(String, String)] = []) async throws(AirPlayError) -> HTTPResponse {
        let local = await connection.localHost ?? "127.0.0.1"
        let made = ids.request(method, uri: uri, localHost: local, userAgent: AirPlay2Messages.userAgent, body: body,
                               extra: [("Client-Instance", ids.dacpId)] + extra)
        let response = try await send(made.request, step: made.step)
        try RTSPSessionIdentity.checkSequence(response, sequence: made.sequence, endpoint: endpoint.description, step: made.step)
        return response
    }

    private func http(_ method: String, _ path: String, body: Data = Data(),
                      extra: [(String, String)] = []) async throws(AirPlayError) -> HTTPResponse {
        var headers = [("User-Agent", AirPlay2Messages.userAgent), ("X-Apple-Session-ID", sessionId)]
        if !body.isEmpty { headers.append(("Content-Type", PropertyList.binaryContentType)) }
        headers += extra
        return try await send(HTTPRequest(method: method, path: path, headers: headers, body: body), step: path)
    }

    private func send(_ request: HTTPRequest, step: String) async throws(AirPlayError) -> HTTPResponse {
        guard !closed else { throw .connectionClosed(endpoint: endpoint.description, path: step) }
        do {
            return try await connection.send(request, timeout: configuration.requestTimeout)
        } catch {
            throw SessionAnswers.error(error, endpoint: endpoint.description, path: step, timeout: configuration.requestTimeout)
        }
    }

    private func check(_ response: HTTPResponse, step: String) throws(AirPlayError) {
        try SessionAnswers.check(response, endpoint: endpoint.description, path: step)
    }

    private func plist(_ response: HTTPResponse, step: String) throws(AirPlayError) -> [String: Any] {
        try SessionAnswers.plist(response, endpoint: endpoint.description, path: step)
    }
}
