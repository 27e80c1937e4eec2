import Foundation

/// HAP pairing with one receiver over its AirPlay port: pair-setup with a code (long-term keys
/// kept by the caller), transient pair-setup (no code, keys for this connection only), and
/// pair-verify with stored credentials. Verify and transient return an encrypted channel; every
/// failure closes the connection and names the step.
public enum AirPlayPairing {
    /// Pair-setup M1-M6 with `pin`: the credentials to store. With `pinStart`, `POST
    /// /pair-pin-start` comes first (an AirPlay receiver shows its code then); a refusal other
    /// than 403 goes on with `pin` and is told through `notice` (see `PinStart`): a HAP accessory
    /// with its code printed on it has no such step (HAP-python answers 500 and drops the connection).
    public static func pair(_ endpoint: AirPlayEndpoint, pin: String, pinStart: Bool = true,
                            configuration: AirPlayConfiguration = .init(),
                            notice: @Sendable (String) -> Void = { _ in }) async throws(AirPlayError) -> HAPCredentials {
        var exchange = try await PairingExchange(endpoint, configuration: configuration, hkp: 3)
        do throws(AirPlayError) {
            if pinStart, case .refused(let why, _) = try await exchange.pinStart() {
                notice(why)
                // After a refusal the connection's state is unknown (HAP-python drops it): a new one.
                await exchange.connection.shutDown()
                exchange = try await PairingExchange(endpoint, configuration: configuration, hkp: 3)
            }
            var setup = PairSetup(kind: .pin(pin))
            let m2 = try await exchange.post("/pair-setup", setup.m1(), step: "pair-setup M1")
            let m3 = try await exchange.checked { () throws(PairingFailure) in try setup.m3(answering: m2) }
            let m4 = try await exchange.post("/pair-setup", m3, step: "pair-setup M3")
            _ = try await exchange.checked { () throws(PairingFailure) in try setup.checkM4(m4) }
            let m6 = try await exchange.post("/pair-setup", setup.m5(), step: "pair-setup M5")
            let credentials = try await exchange.checked { () throws(PairingFailure) in try setup.credentials(answering: m6) }
            await exchange.connection.shutDown()
            return credentials
        } catch {
            await exchange.connection.shutDown()
            throw error
        }
    }

    /// Pair-verify M1-M4 with stored credentials, then the encrypted channel on that connection.
    public static func verify(_ endpoint: AirPlayEndpoint, credentials: HAPCredentials,
                              configuration: AirPlayConfiguration = .init()) async throws(AirPlayError) -> HAPChannel {
        if let problem = credentials.problem {
            throw .pairing(endpoint: endpoint.description, step: "pair-verify M1", reason: "stored credentials unusable: \(problem); run seamcheck airplay pair again")
        }
        let exchange = try await PairingExchange(endpoint, configuration: configuration, hkp: 3)
        let started = ContinuousClock.now
        do throws(AirPlayError) {
            var verify = PairVerify(credentials: credentials)
            let m2 = try await exchange.post("/pair-verify", verify.m1(), step: "pair-verify M1")
            let m3 = try await exchange.checked { () throws(PairingFailure) in try verify.m3(answering: m2) }
            let m4 = try await exchange.post("/pair-verify", m3, step: "pair-verify M3")
            let keys = try await exchange.checked { () throws(PairingFailure) in try verify.keys(answering: m4) }
            return try await exchange.channel(keys: keys, started: started)
        } catch {
            await exchange.connection.shutDown()
            throw error
        }
    }

    /// Transient pair-setup (PIN 3939, the transient flag, `X-Apple-HKP: 4`), M1-M4; the SRP
    /// key is the shared secret of the encrypted channel that follows.
    public static func transient(_ endpoint: AirPlayEndpoint, pinStart: Bool = true,
                                 configuration: AirPlayConfiguration = .init()) async throws(AirPlayError) -> HAPChannel {
        var exchange = try await PairingExchange(endpoint, configuration: configuration, hkp: 4)
        let started = ContinuousClock.now
        do throws(AirPlayError) {
            if pinStart, case .refused = try await exchange.pinStart() {
                await exchange.connection.shutDown()
                exchange = try await PairingExchange(endpoint, configuration: configuration, hkp: 4)
            }
            var setup = PairSetup(kind: .transient)
            let m2 = try await exchange.post("/pair-setup", setup.m1(), step: "pair-setup M1")
            let m3 = try await exchange.checked { () throws(PairingFailure) in try setup.m3(answering: m2) }
            let m4 = try await exchange.post("/pair-setup", m3, step: "pair-setup M3")
            let key = try await exchange.checked { () throws(PairingFailure) in try setup.checkM4(m4) }
            return try await exchange.channel(keys: HAPChannelKeys(sharedSecret: key), started: started)
        } catch {
            await exchange.connection.shutDown()
            throw error
        }
    }
}

/// One pairing conversation: POSTs of TLV8 bodies on one connection, answers checked for status.
struct PairingExchange: Sendable {
    let endpoint: AirPlayEndpoint
    let configuration: AirPlayConfiguration
    let connection: Connection
    let hkp: Int

    init(_ endpoint: AirPlayEndpoint, configuration: AirPlayConfiguration, hkp: Int) async throws(AirPlayError) {
        self.endpoint = endpoint
        self.configuration = configuration
        self.hkp = hkp
        connection = Connection(host: endpoint.host, port: endpoint.port, connectTimeout: configuration.connectTimeout,
                                maxBodyBytes: configuration.maxBodyBytes,  // TLV8 bodies are capped at 64 KiB when decoded
                                resendsAfterStaleClose: false)
        do { try await connection.connectIfNeeded() } catch {
            throw Self.map(error, endpoint: endpoint, step: "connect", timeout: configuration.connectTimeout)
        }
    }

    private var headers: [(String, String)] {
        [("User-Agent", "AirPlay/320.20"), ("Connection", "keep-alive"), ("X-Apple-HKP", String(hkp)),
         ("Content-Type", "application/octet-stream")]
    }

    /// `POST /pair-pin-start`: the receiver shows its code. See `PinStart` for its refusals.
    func pinStart() async throws(AirPlayError) -> PinStart.Outcome {
        let response: HTTPResponse
        do { response = try await send("/pair-pin-start", [], step: PinStart.step) } catch {
            return try PinStart.outcome(endpoint: endpoint, failure: error)
        }
        do { return try PinStart.outcome(endpoint: endpoint, status: response.status, reason: response.reason) } catch {
            await connection.shutDown()
            throw error
        }
    }

    /// POSTs `body`; a 2xx answer's body, else the connection is dropped and the step named.
    func post(_ path: String, _ body: [UInt8], step: String) async throws(AirPlayError) -> [UInt8] {
        let response = try await send(path, body, step: step)
        guard (200..<300).contains(response.status) else {
            await connection.shutDown()
            throw .pairing(endpoint: endpoint.description, step: step, reason: "answered \(response.status) \(response.reason)")
        }
        return Array(response.body)
    }

    private func send(_ path: String, _ body: [UInt8], step: String) async throws(AirPlayError) -> HTTPResponse {
        do {
            return try await connection.send(HTTPRequest(method: "POST", path: path, headers: headers, body: Data(body)),
                                             timeout: configuration.requestTimeout)
        } catch {
            await connection.shutDown()
            throw Self.map(error, endpoint: endpoint, step: step, timeout: configuration.requestTimeout)
        }
    }

    /// Runs one pure step; its failure drops the connection.
    func checked<T>(_ body: () throws(PairingFailure) -> T) async throws(AirPlayError) -> T {
        do { return try body() } catch {
            await connection.shutDown()
            throw error.airPlayError(endpoint: endpoint.description)
        }
    }

    func channel(keys: HAPChannelKeys, started: ContinuousClock.Instant) async throws(AirPlayError) -> HAPChannel {
        do { try await connection.encrypt(with: keys) } catch {
            throw Self.map(error, endpoint: endpoint, step: "encrypted channel", timeout: configuration.requestTimeout)
        }
        return HAPChannel(endpoint: endpoint, connection: connection, configuration: configuration,
                          setupTime: ContinuousClock.now - started, keys: keys)
    }

    static func map(_ failure: ConnectionFailure, endpoint: AirPlayEndpoint, step: String, timeout: Double) -> AirPlayError {
        let name = endpoint.description
        switch failure {
        case .connect(let reason): return .connect(endpoint: name, reason: reason)
        case .timeout: return .timeout(endpoint: name, path: step, seconds: timeout)
        case .closed where step == "pair-setup M3":
            return .pairing(endpoint: name, step: step, reason: "the receiver closed the connection instead of answering M4: a wrong code (openairplay's airplay2-receiver drops the connection on one), or it went away; check the code and pair again")
        case .closed, .io: return .connectionClosed(endpoint: name, path: step)
        case .malformed(let error): return .pairing(endpoint: name, step: step, reason: "not an HTTP answer: \(error)")
        case .encryption(let reason): return .pairing(endpoint: name, step: step, reason: reason)
        }
    }
}

/// An HTTP answer read over the encrypted channel.
public struct HAPAnswer: Sendable, Equatable {
    public var status: Int
    public var reason: String
    public var headers: [String: String]
    public var body: Data
}

/// The encrypted control channel after pair-verify (or transient pair-setup): HTTP requests,
/// framed and encrypted below HTTP. A close or a frame that does not decrypt ends it.
public actor HAPChannel {
    public nonisolated let endpoint: AirPlayEndpoint
    /// From the first pairing message to the keys (pair-verify or transient setup), connect excluded.
    public nonisolated let setupTime: Duration
    let connection: Connection
    /// The channel's keys; AirPlay 2's event channel derives its own from the same secret.
    let keys: HAPChannelKeys
    private let configuration: AirPlayConfiguration

    init(endpoint: AirPlayEndpoint, connection: Connection, configuration: AirPlayConfiguration, setupTime: Duration,
         keys: HAPChannelKeys) {
        self.endpoint = endpoint
        self.connection = connection
        self.configuration = configuration
        self.setupTime = setupTime
        self.keys = keys
    }

    /// One request over the channel; any HTTP status is returned, not thrown.
    public func send(_ method: String, _ path: String, headers: [(String, String)] = [], body: Data = Data()) async throws(AirPlayError) -> HAPAnswer {
        do {
            let response = try await connection.send(HTTPRequest(method: method, path: path, headers: headers, body: body),
                                                     timeout: configuration.requestTimeout)
            return HAPAnswer(status: response.status, reason: response.reason, headers: response.headers, body: response.body)
        } catch {
            await connection.shutDown()
            throw PairingExchange.map(error, endpoint: endpoint, step: "encrypted channel (\(method) \(path))",
                                      timeout: configuration.requestTimeout)
        }
    }

    public func close() async { await connection.shutDown() }
}
