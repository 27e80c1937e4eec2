import Foundation

/// Legacy AirPlay pairing (features bit 27, no HAP bits: UxPlay, the Apple TV 3) over RTSP/1.0
/// requests with a `CSeq` on the receiver's AirPlay port: UxPlay reads pairing requests only
/// there (an HTTP/1.1 `/pair-pin-start` is never answered). Never sends `X-Apple-Session-ID`
/// (UxPlay asserts on it in an RTSP request). Every failure names the step; nothing is encrypted
/// after pair-verify.
public enum LegacyPairing {
    /// PIN pairing on a connection of its own: `/pair-pin-start` (the receiver shows its code;
    /// skipped with `pinStart: false`), then the three `/pair-setup-pin` rounds with `pin`. Then
    /// a pair-verify on a new connection checks the keys. A wrong code is
    /// `pairing(step: "pair-setup-pin 2 (SRP proof)", ...)`.
    public static func pair(_ endpoint: AirPlayEndpoint, pin: String, pinStart: Bool = true,
                            configuration: AirPlayConfiguration = .init(),
                            notice: @Sendable (String) -> Void = { _ in }) async throws(AirPlayError) -> LegacyCredentials {
        var line = try await RTSPPairingLine(endpoint, configuration: configuration)
        do throws(AirPlayError) {
            if pinStart, case .refused(let why, _) = try await line.pinStart() {
                notice(why)
                // After a refusal the connection's state is unknown: a new one.
                await line.close()
                line = try await RTSPPairingLine(endpoint, configuration: configuration)
            }
            var setup = LegacyPinSetup(pin: pin)
            let steps = LegacyPinSetup.steps
            var answer = try await line.post("/pair-setup-pin", Array(setup.first()), contentType: PropertyList.binaryContentType,
                                             step: steps.first)
            if answer.status == 470 {
                // UxPlay 1.74 refuses round 1 when its random salt came out shorter than 16 bytes
                // (1 time in 256): the code is not read there, so round 1 is asked once more.
                answer = try await line.post("/pair-setup-pin", Array(setup.first()), contentType: PropertyList.binaryContentType,
                                             step: steps.first)
            }
            let first = try line.checked(answer, step: steps.first, refusal: "the receiver refused to start PIN pairing")
            let second = try await line.checked { () throws(PairingFailure) in try setup.second(answering: first) }
            let proof = try line.checked(try await line.post("/pair-setup-pin", Array(second), contentType: PropertyList.binaryContentType,
                                                             step: steps.second),
                                         step: steps.second, refusal: "the receiver did not accept the code (a wrong PIN); check the code it shows and pair again")
            let third = try await line.checked { () throws(PairingFailure) in try setup.third(answering: proof) }
            let keys = try line.checked(try await line.post("/pair-setup-pin", Array(third), contentType: PropertyList.binaryContentType,
                                                            step: steps.third),
                                        step: steps.third, refusal: "the receiver did not accept our sealed key")
            let credentials = try await line.checked { () throws(PairingFailure) in try setup.credentials(answering: keys) }
            await line.close()
            return credentials
        } catch {
            await line.close()
            throw error
        }
    }

    /// Pairing without a code (`/pair-setup` with a new key, then a pair-verify) on a connection
    /// of its own: credentials that pin the receiver's key for later sessions.
    public static func pairWithoutCode(_ endpoint: AirPlayEndpoint,
                                       configuration: AirPlayConfiguration = .init()) async throws(AirPlayError) -> LegacyCredentials {
        let line = try await RTSPPairingLine(endpoint, configuration: configuration)
        let identity = LegacyIdentity()
        do throws(AirPlayError) {
            let setup = LegacyKeySetup(identity: identity)
            let body = try line.checked(try await line.post("/pair-setup", setup.request(), contentType: "application/octet-stream",
                                                            step: "pair-setup"),
                                        step: "pair-setup", refusal: "the receiver refused our key")
            let receiverKey = try await line.checked { () throws(PairingFailure) in try setup.receiverKey(answering: Array(body)) }
            let credentials = LegacyCredentials(method: .key, controllerId: identity.id,
                                                controllerPrivateKey: identity.key.rawRepresentation, receiverPublicKey: Data(receiverKey))
            _ = try await verify(on: line, credentials: credentials, identity: identity)
            await line.close()
            return credentials
        } catch {
            await line.close()
            throw error
        }
    }

    /// Pair-verify (and, for credentials made without a code or none at all, the `/pair-setup`
    /// that must come first on each connection) on `connection`, an open connection to the
    /// receiver's AirPlay port that the caller goes on using for RTSP (`SETUP`...). RTSP requests
    /// carry `CSeq` from `firstCSeq`; the result says the next one. `credentials` nil: a new key
    /// for this connection (a receiver that wants no code).
    static func verify(connection: Connection, endpoint: AirPlayEndpoint, credentials: LegacyCredentials?,
                       configuration: AirPlayConfiguration = .init(), firstCSeq: Int = 0) async throws(AirPlayError) -> LegacyVerification {
        let line = RTSPPairingLine(connection: connection, endpoint: endpoint, configuration: configuration, firstCSeq: firstCSeq)
        do throws(AirPlayError) {
            let started = ContinuousClock.now
            var used = credentials
            if credentials == nil || credentials?.method == .key {
                let identity = credentials.flatMap(LegacyIdentity.init) ?? LegacyIdentity()
                let setup = LegacyKeySetup(identity: identity)
                let body = try line.checked(try await line.post("/pair-setup", setup.request(), contentType: "application/octet-stream",
                                                                step: "pair-setup"),
                                            step: "pair-setup", refusal: "the receiver refused our key")
                let key = try await line.checked { () throws(PairingFailure) in
                    try setup.receiverKey(answering: Array(body), expected: credentials?.receiverPublicKey)
                }
                used = LegacyCredentials(method: .key, controllerId: identity.id, controllerPrivateKey: identity.key.rawRepresentation,
                                         receiverPublicKey: Data(key))
            }
            guard let used, let identity = LegacyIdentity(used), used.problem == nil else {
                throw AirPlayError.pairing(endpoint: endpoint.description, step: LegacyPairVerify.steps.first,
                                           reason: "stored credentials unusable: \(credentials?.problem ?? "no key"); run seamcheck airplay pair again")
            }
            try await verify(on: line, credentials: used, identity: identity)
            return LegacyVerification(setupTime: ContinuousClock.now - started, nextCSeq: await line.nextCSeq, credentials: used)
        } catch {
            await connection.shutDown()
            throw error
        }
    }

    /// Pair-verify on a connection of its own, then one RTSP `GET /info` on it to see that the
    /// receiver kept the connection (UxPlay closes it after a signature it does not accept).
    public static func check(_ endpoint: AirPlayEndpoint, credentials: LegacyCredentials,
                             configuration: AirPlayConfiguration = .init()) async throws(AirPlayError) -> (verify: Duration, infoStatus: Int) {
        let connection = Connection(host: endpoint.host, port: endpoint.port, connectTimeout: configuration.connectTimeout,
                                    maxBodyBytes: configuration.maxBodyBytes, resendsAfterStaleClose: false)
        do { try await connection.connectIfNeeded() } catch {
            throw PairingExchange.map(error, endpoint: endpoint, step: "connect", timeout: configuration.connectTimeout)
        }
        let verification = try await verify(connection: connection, endpoint: endpoint, credentials: credentials, configuration: configuration)
        let line = RTSPPairingLine(connection: connection, endpoint: endpoint, configuration: configuration, firstCSeq: verification.nextCSeq)
        let info = try await line.send("GET", "/info", [], contentType: nil, step: "RTSP GET /info after pair-verify")
        await connection.shutDown()
        return (verification.setupTime, info.status)
    }

    @discardableResult
    static func verify(on line: RTSPPairingLine, credentials: LegacyCredentials, identity: LegacyIdentity) async throws(AirPlayError) -> Bool {
        let verify = LegacyPairVerify(identity: identity, receiverKey: Array(credentials.receiverPublicKey))
        let steps = LegacyPairVerify.steps
        let m2 = try line.checked(try await line.post("/pair-verify", verify.m1(), contentType: "application/octet-stream",
                                                      step: steps.first),
                                  step: steps.first, refusal: "the receiver refused pair-verify")
        let m3 = try await line.checked { () throws(PairingFailure) in try verify.m3(answering: Array(m2)) }
        _ = try line.checked(try await line.post("/pair-verify", m3, contentType: "application/octet-stream", step: steps.second),
                             step: steps.second, refusal: "the receiver did not accept our signature")
        return true
    }
}

/// What a legacy pair-verify on an open connection gives its caller.
struct LegacyVerification: Sendable {
    /// From the first pairing request to pair-verify's last answer.
    let setupTime: Duration
    /// The `CSeq` the caller's next RTSP request carries.
    let nextCSeq: Int
    /// The credentials used: the stored ones, or for a receiver without a code this connection's.
    let credentials: LegacyCredentials
}

/// RTSP/1.0 requests on one connection with a `CSeq` count of its own.
struct RTSPPairingLine: Sendable {
    let connection: Connection
    let endpoint: AirPlayEndpoint
    let configuration: AirPlayConfiguration
    private let counter: CSeqCounter

    init(connection: Connection, endpoint: AirPlayEndpoint, configuration: AirPlayConfiguration, firstCSeq: Int = 0) {
        self.connection = connection
        self.endpoint = endpoint
        self.configuration = configuration
        counter = CSeqCounter(next: firstCSeq)
    }

    init(_ endpoint: AirPlayEndpoint, configuration: AirPlayConfiguration) async throws(AirPlayError) {
        let connection = Connection(host: endpoint.host, port: endpoint.port, connectTimeout: configuration.connectTimeout,
                                    maxBodyBytes: configuration.maxBodyBytes, resendsAfterStaleClose: false)
        do { try await connection.connectIfNeeded() } catch {
            throw PairingExchange.map(error, endpoint: endpoint, step: "connect", timeout: configuration.connectTimeout)
        }
        self.init(connection: connection, endpoint: endpoint, configuration: configuration)
    }

    var nextCSeq: Int { get async { await counter.next } }

    func close() async { await connection.shutDown() }

    /// `POST /pair-pin-start`: the receiver shows its code. A refusal other than 403 is returned
    /// (the caller goes on with the code it was given, on a new connection when this one dropped).
    func pinStart() async throws(AirPlayError) -> PinStart.Outcome {
        let response: HTTPResponse
        do { response = try await send("POST", "/pair-pin-start", [], contentType: nil, step: PinStart.step) } catch {
            return try PinStart.outcome(endpoint: endpoint, failure: error)
        }
        return try PinStart.outcome(endpoint: endpoint, status: response.status, reason: response.reason)
    }

    func post(_ path: String, _ body: [UInt8], contentType: String, step: String) async throws(AirPlayError) -> HTTPResponse {
        try await send("POST", path, body, contentType: contentType, step: step)
    }

    func send(_ method: String, _ path: String, _ body: [UInt8], contentType: String?, step: String) async throws(AirPlayError) -> HTTPResponse {
        let sequence = await counter.take()
        var headers = [("CSeq", String(sequence)), ("User-Agent", "AirPlay/320.20")]
        if let contentType { headers.append(("Content-Type", contentType)) }
        do {
            return try await connection.send(HTTPRequest(method: method, path: path, headers: headers, body: Data(body), version: "RTSP/1.0"),
                                             timeout: configuration.requestTimeout)
        } catch {
            await connection.shutDown()
            throw PairingExchange.map(error, endpoint: endpoint, step: step, timeout: configuration.requestTimeout)
        }
    }

    /// A 2xx answer's body; another status names the step and `refusal`.
    func checked(_ response: HTTPResponse, step: String, refusal: String) throws(AirPlayError) -> Data {
        guard (200..<300).contains(response.status) else {
            throw .pairing(endpoint: endpoint.description, step: step, reason: "answered \(response.status) \(response.reason): \(refusal)")
        }
        return response.body
    }

    /// Runs one pure step; its failure drops the connection.
    func checked<T>(_ body: () throws(PairingFailure) -> T) async throws(AirPlayError) -> T {
        do { return try body() } catch {
            await connection.shutDown()
            throw error.airPlayError(endpoint: endpoint.description)
        }
    }
}

actor CSeqCounter {
    private(set) var next: Int
    init(next: Int) { self.next = next }
    func take() -> Int {
        defer { next += 1 }
        return next
    }
}
