import Foundation

/// One URL-playback session with a legacy video receiver (UxPlay 1.74, the Apple TV 3
/// generation): an RTSP connection holds the session (SETUP with `ekey`/`eiv` and the NTP
/// responder's port, RECORD, `POST /feedback` every `feedbackInterval`, TEARDOWN) and a second,
/// plain HTTP connection carries `/play`, `/playback-info`, `/rate`, `/scrub` and `/stop` with
/// the session's `X-Apple-Session-ID` and no `CSeq`. Neither connection ever carries a header its
/// receiver chokes on (`LegacyMessages.allowed`). A receiver another sender holds answers the
/// first RTSP request with 409: `.busy`.
///
/// The RTSP connection is opened by `open` (so an unreachable or busy receiver is known before
/// `/play`); SETUP happens at the first `play`, and again after `stop`. The reverse (PTTH)
/// connection of pushed playlists is a third connection, opened beside these two by whoever
/// needs it with `sessionId` (UxPlay ties `/reverse` to the session by that header).
public actor LegacyVideoSession: AirPlayPlayback {
    public nonisolated let endpoint: AirPlayEndpoint
    /// The `X-Apple-Session-ID` of the HTTP connection (an uppercase UUID); never sent over RTSP.
    public nonisolated let sessionId: String
    public nonisolated let configuration: AirPlayConfiguration
    private let rtspConnection: Connection
    private let httpConnection: Connection
    private var ids = RTSPSessionIdentity()
    private let deviceId = LegacyMessages.randomDeviceId()
    private var timing: TimingServer?
    private var feedback: Task<Void, Never>?
    private var setUp = false
    private var closed = false
    /// `POST /feedback` answers that were not 2xx or did not come (the receiver stopped listening).
    public private(set) var feedbackFailures = 0
    public private(set) var feedbackSent = 0

    /// Stored legacy credentials (`airplay pair`): pair-verify on the RTSP connection before
    /// anything else is sent on it (UxPlay `-pin`, an Apple TV 3 generation receiver).
    private let credentials: LegacyCredentials?
    /// How long that pair-verify took (nil without credentials).
    public private(set) var verifyTime: Duration?

    public init(endpoint: AirPlayEndpoint, configuration: AirPlayConfiguration = .init(), credentials: LegacyCredentials? = nil) {
        self.endpoint = endpoint
        self.configuration = configuration
        self.credentials = credentials
        sessionId = UUID().uuidString
        rtspConnection = Connection(host: endpoint.host, port: endpoint.port, connectTimeout: configuration.connectTimeout,
                                    maxBodyBytes: configuration.maxBodyBytes, lengthlessIsEmpty: true)
        httpConnection = Connection(host: endpoint.host, port: endpoint.port, connectTimeout: configuration.connectTimeout,
                                    maxBodyBytes: configuration.maxBodyBytes, lengthlessIsEmpty: true)
    }

    /// Opens the RTSP connection now, so an unreachable receiver is `.connect` before `/play`;
    /// with credentials, pair-verifies on it (a failure is `.pairing` naming the step, and the
    /// connection is closed).
    func connect() async throws(AirPlayError) {
        do { try await rtspConnection.connectIfNeeded() } catch {
            throw SessionAnswers.error(error, endpoint: endpoint.description, path: "connect", timeout: configuration.requestTimeout)
        }
        guard let credentials else { return }
        let verification = try await LegacyPairing.verify(connection: rtspConnection, endpoint: endpoint, credentials: credentials,
                                                          configuration: configuration, firstCSeq: ids.cseq)
        ids.cseq = verification.nextCSeq
        verifyTime = verification.setupTime
    }

    /// Whether the RTSP session is set up (SETUP and RECORD answered).
    public var isSetUp: Bool { setUp }
    /// NTP timing requests the receiver sent and were answered in this session.
    public var timingRequestsAnswered: Int { get async { await timing?.answered ?? 0 } }
    /// TCP connections opened for RTSP and HTTP together.
    public var connectionsOpened: Int { get async { await rtspConnection.opened + httpConnection.opened } }

    // MARK: - Playback

    public func play(url: URL, startPosition: Double) async throws(AirPlayError) {
        try await play(url: url, startPosition: startPosition, duration: nil)
    }

    /// SETUP and RECORD (once per session, again after `stop`), then `/play` with the start in
    /// seconds on the HTTP connection, retried on HTTP 500 as AirPlay 1's is.
    public func play(url: URL, startPosition: Double, duration: Double?) async throws(AirPlayError) {
        if !setUp { try await setUpSession() }
        let seconds = startPosition.isFinite ? max(startPosition, 0) : 0
        let body = PropertyList.binary(LegacyMessages.play(url: url, startSeconds: seconds, uuid: UUID().uuidString))
        var attempt = 0
        while true {
            let response = try await http("POST", "/play", body: body)
            if response.status == 500, attempt < configuration.playRetries {
                attempt += 1
                try? await Task.sleep(nanoseconds: UInt64(max(configuration.retryDelay, 0) * 1_000_000_000))
                if !Task.isCancelled { continue }
            }
            try check(response, step: "/play")
            return
        }
    }

    /// UxPlay answers 200 with no body while its player has no position yet and once the item
    /// ended (it then resets its HLS state and closes the connection): both read as no playback.
    public func playbackInfo() async throws(AirPlayError) -> PlaybackInfo {
        try SessionAnswers.playbackInfo(try await http("GET", "/playback-info"), endpoint: endpoint.description)
    }

    public func setRate(_ rate: Double) async throws(AirPlayError) {
        let path = SessionPaths.rate(rate)
        try check(try await http("POST", path), step: path)
    }

    public func scrub(to seconds: Double) async throws(AirPlayError) {
        let path = SessionPaths.scrub(seconds)
        try check(try await http("POST", path), step: path)
    }

    /// HTTP `/stop`, then RTSP TEARDOWN of the session (the next `play` sets up a new one).
    public func stop() async throws(AirPlayError) {
        let response = try await http("POST", "/stop")
        await tearDown()
        try check(response, step: "/stop")
    }

    /// `GET /server-info` on the HTTP connection (UxPlay answers an XML plist).
    public func serverInfo() async throws(AirPlayError) -> ServerInfo {
        try SessionAnswers.serverInfo(try await http("GET", "/server-info"), endpoint: endpoint.description)
    }

    /// The HTTP connection's session id: the reverse connection of pushed playlists names it.
    public nonisolated var playbackSessionId: String? { sessionId }

    /// `POST /action` (a pushed playlist, `FCUPMessages.action`) on the HTTP connection, where
    /// UxPlay matches it to `/play` by the session id.
    public func postAction(_ body: Data) async throws(AirPlayError) {
        try check(try await http("POST", "/action", body: body), step: "/action")
    }

    /// TEARDOWN when set up (best effort, bounded by the request timeout), then both connections closed.
    public func close() async {
        guard !closed else { return }
        await tearDown()
        closed = true
        await rtspConnection.shutDown()
        await httpConnection.shutDown()
    }

    // MARK: - Session

    private func setUpSession() async throws(AirPlayError) {
        let local = await rtspConnection.localHost ?? "127.0.0.1"
        do {
            timing = try await TimingServer.start(host: local)
        } catch {
            throw .connect(endpoint: endpoint.description, reason: "cannot open the UDP timing port on \(local) for RTSP SETUP: \(error)")
        }
        let body = LegacyMessages.setup(sessionUUID: UUID().uuidString, deviceId: deviceId, name: "seamcheck", timingPort: timing?.port ?? 0)
        do throws(AirPlayError) {
            let response = try await rtsp("SETUP", uri: nil, body: PropertyList.binary(body))
            try check(response, step: "RTSP SETUP")
            try check(try await rtsp("RECORD", uri: nil), step: "RTSP RECORD")
        } catch {
            await endTiming()
            throw error
        }
        setUp = true
        startFeedback()
    }

    private func startFeedback() {
        feedback = RTSPSessionIdentity.every(configuration.feedbackInterval) { [weak self] in
            guard let self else { return false }
            await self.sendFeedback()
            return true
        }
    }

    /// Best effort: a feedback that fails is counted, not an error of the session (the polls of
    /// `/playback-info` say whether the receiver is still there).
    private func sendFeedback() async {
        guard !closed, setUp else { return }
        feedbackSent += 1
        let ok: Bool
        do throws(AirPlayError) { ok = (200..<300).contains(try await rtsp("POST", uri: "/feedback").status) } catch { ok = false }
        if !ok { feedbackFailures += 1 }
    }

    private func tearDown() async {
        feedback?.cancel()
        feedback = nil
        if setUp, !closed {
            setUp = false
            _ = try? await rtsp("TEARDOWN", uri: nil)
        }
        setUp = false
        await endTiming()
    }

    private func endTiming() async {
        await timing?.close()
        timing = nil
    }

    // MARK: - Exchange

    /// One RTSP/1.0 request on the RTSP connection: `CSeq` counted from 0, the DACP and remote ids,
    /// the session URI `rtsp://LOCAL-IP/N` when `uri` is nil; never `X-Apple-Session-ID`.
    private func rtsp(_ method: String, uri: String?, body: Data = Data()) async throws(AirPlayError) -> HTTPResponse {
        let local = await rtspConnection.localHost ?? "127.0.0.1"
        let made = ids.request(method, uri: uri, localHost: local, userAgent: LegacyMessages.userAgent, body: body)
        precondition(LegacyMessages.allowed(made.request.headers, rtsp: true), "a header UxPlay dies on, on RTSP")
        let response = try await send(made.request, on: rtspConnection, step: made.step)
        try RTSPSessionIdentity.checkSequence(response, sequence: made.sequence, endpoint: endpoint.description, step: made.step)
        if response.status == 409 { throw .busy(endpoint: endpoint.description) }
        return response
    }

    /// One HTTP/1.1 request on the HTTP connection with the session id; never a `CSeq`.
    private func http(_ method: String, _ path: String, body: Data = Data()) async throws(AirPlayError) -> HTTPResponse {
        var headers = [("User-Agent", LegacyMessages.userAgent), ("X-Apple-Session-ID", sessionId)]
        if !body.isEmpty { headers.append(("Content-Type", PropertyList.binaryContentType)) }
        precondition(LegacyMessages.allowed(headers, rtsp: false), "a CSeq on the HTTP connection")
        return try await send(HTTPRequest(method: method, path: path, headers: headers, body: body), on: httpConnection, step: path)
    }

    private func send(_ request: HTTPRequest, on connection: Connection, step: String) async throws(AirPlayError) -> HTTPResponse {
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

    /// Which session `endpoint` wants, asked once with an RTSP `GET /info` on a connection of its
    /// own, closed after (UxPlay counts an open RTSP connection as a sender holding it).
    /// `.airPlay1` when it has no RTSP `/info` (Kodi: 501) or answered something else; nil when
    /// no connection could be made (ask again later).
    public static func probeFlow(_ endpoint: AirPlayEndpoint, configuration: AirPlayConfiguration = .init()) async -> AirPlayFlow? {
        let connection = Connection(host: endpoint.host, port: endpoint.port, connectTimeout: min(configuration.connectTimeout, 3),
                                    maxBodyBytes: configuration.maxBodyBytes, lengthlessIsEmpty: true)
        let request = HTTPRequest(method: "GET", path: "/info", headers: [("CSeq", "0"), ("User-Agent", LegacyMessages.userAgent)],
                                  version: "RTSP/1.0")
        let result: Result<HTTPResponse, ConnectionFailure>
        do { result = .success(try await connection.send(request, timeout: min(configuration.requestTimeout, 3))) } catch { result = .failure(error) }
        await connection.shutDown()
        switch result {
        case .success(let response): return LegacyMessages.flow(infoStatus: response.status, body: response.body) ?? .airPlay1
        case .failure(.connect): return nil
        case .failure: return .airPlay1
        }
    }
}
