import Crypto
import Foundation

// Legacy AirPlay pair-setup, controller side, without I/O, as UxPlay 1.74 reads it
// (lib/raop_handlers.h, lib/pairing.c): with no code, one `/pair-setup` of our Ed25519 public key;
// with a code, `/pair-pin-start` then three binary-plist rounds of `/pair-setup-pin`.

/// `/pair-setup` without a code: our 32-byte Ed25519 public key out, the receiver's in.
struct LegacyKeySetup: Sendable {
    let identity: LegacyIdentity

    func request() -> [UInt8] { identity.publicKey }

    /// The receiver's Ed25519 public key; `expected` (a stored one) must match when given.
    func receiverKey(answering body: some Collection<UInt8>, expected: Data? = nil) throws(PairingFailure) -> [UInt8] {
        let step = "pair-setup"
        guard body.count == 32 else {
            throw .malformed(step: step, reason: body.isEmpty ? "no key in the answer (the receiver refused our key)"
                                                               : "the receiver's key is \(body.count) bytes, not 32")
        }
        if let expected, Data(body) != expected { throw .wrongAccessory(step: step) }
        return Array(body)
    }
}

/// The PIN flow's three `/pair-setup-pin` rounds: `{method: "pin", user}` -> `{pk, salt}`;
/// `{pk: A, proof: M}` -> `{proof}`; `{epk, authTag}` (our Ed25519 key sealed with AES-GCM under
/// keys from K) -> `{epk, authTag}` (the receiver's). SRP-6a over SHA-1 with the 2048-bit group.
struct LegacyPinSetup: Sendable {
    static let steps = (first: "pair-setup-pin 1 (user)", second: "pair-setup-pin 2 (SRP proof)", third: "pair-setup-pin 3 (keys)")
    let pin: String
    let identity: LegacyIdentity
    private let srpSecret: [UInt8]
    private var session: SRPSession?

    init(pin: String, identity: LegacyIdentity = .init(), srpSecret: [UInt8]? = nil) {
        self.pin = pin
        self.identity = identity
        self.srpSecret = srpSecret ?? SymmetricKey(size: .bits256).withUnsafeBytes { Array($0) }
    }

    /// Round 1 out.
    func first() -> Data { PropertyList.binary(["method": "pin", "user": identity.id]) }

    /// Round 1's answer (`pk` = B, `salt`) in; round 2 (`pk` = A, `proof` = M) out.
    mutating func second(answering body: Data) throws(PairingFailure) -> Data {
        let step = Self.steps.first
        let answer = try Self.plist(body, step: step)
        let salt = try Self.data(answer, "salt", step: step, count: 1...64)
        let serverPublic = try Self.data(answer, "pk", step: step, count: 1...512)
        let client = SRPClient(parameters: .legacy, username: Array(identity.id.utf8), privateKey: srpSecret)
        do {
            session = try client.session(salt: salt, serverPublicKey: serverPublic, password: Array(pin.utf8))
        } catch {
            throw .malformed(step: step, reason: error.description)
        }
        return PropertyList.binary(["pk": Data(client.publicKey), "proof": Data(session!.clientProof)])
    }

    /// Round 2's answer (the receiver's proof, checked) in; round 3 (our key, sealed) out.
    func third(answering body: Data) throws(PairingFailure) -> Data {
        let step = Self.steps.second
        let answer = try Self.plist(body, step: step)
        let proof = try Self.data(answer, "proof", step: step, count: 1...64)
        guard let session, session.acceptsServerProof(proof) else { throw .badProof(step: step) }
        let (key, iv) = LegacyCrypto.setupKey(session.key)
        let sealed = LegacyCrypto.seal(identity.publicKey, key: key, iv: LegacyCrypto.bumped(iv, by: 1))
        return PropertyList.binary(["epk": Data(sealed.ciphertext), "authTag": Data(sealed.tag)])
    }

    /// Round 3's answer (the receiver's Ed25519 key, sealed) in: the credentials.
    func credentials(answering body: Data) throws(PairingFailure) -> LegacyCredentials {
        let step = Self.steps.third
        let answer = try Self.plist(body, step: step)
        let epk = try Self.data(answer, "epk", step: step, count: 32...32)
        let tag = try Self.data(answer, "authTag", step: step, count: 16...16)
        guard let session else { throw .malformed(step: step, reason: "no SRP session (round 2 did not run)") }
        let (key, iv) = LegacyCrypto.setupKey(session.key)
        guard let receiverKey = LegacyCrypto.open(epk, tag: tag, key: key, iv: LegacyCrypto.bumped(iv, by: 2)) else {
            throw .decryption(step: step)
        }
        return LegacyCredentials(method: .pin, controllerId: identity.id, controllerPrivateKey: identity.key.rawRepresentation,
                                 receiverPublicKey: Data(receiverKey))
    }

    static func plist(_ body: Data, step: String) throws(PairingFailure) -> [String: Any] {
        switch PropertyList.dictionary(from: body) {
        case .success(let dictionary): return dictionary
        case .failure(let error): throw .malformed(step: step, reason: error.reason)
        }
    }

    static func data(_ plist: [String: Any], _ key: String, step: String, count: ClosedRange<Int>) throws(PairingFailure) -> [UInt8] {
        guard let value = plist[key] as? Data else { throw .malformed(step: step, reason: "no `\(key)` data in its plist") }
        guard count.contains(value.count) else {
            throw .malformed(step: step, reason: "`\(key)` is \(value.count) bytes, expected \(count.lowerBound == count.upperBound ? "\(count.lowerBound)" : "\(count.lowerBound)-\(count.upperBound)")")
        }
        return Array(value)
    }
}
