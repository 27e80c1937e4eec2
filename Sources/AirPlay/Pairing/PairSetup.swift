import Crypto
import Foundation

/// Pair-setup's messages, controller side, without I/O: M1 out, M2 in, M3 out, M4 in, then for a
/// PIN pairing M5 out and M6 in (long-term keys exchanged), or for a transient pairing the SRP
/// key K is the session's shared secret (no keys kept). Every answer is checked: state, error
/// item, SRP proof, M6's signature.
struct PairSetup: Sendable {
    enum Kind: Sendable, Equatable {
        /// The code shown by the receiver (or printed on an accessory, such as "031-45-154").
        case pin(String)
        /// No code shown: PIN 3939 and the transient flag; M1-M4 only.
        case transient
    }

    static let transientPIN = "3939"
    let kind: Kind
    let controller: ControllerIdentity
    private let srpSecret: [UInt8]
    private var session: SRPSession?

    init(kind: Kind, controller: ControllerIdentity = .init(), srpSecret: [UInt8]? = nil) {
        self.kind = kind
        self.controller = controller
        self.srpSecret = srpSecret ?? SymmetricKey(size: .bits256).withUnsafeBytes { Array($0) }
    }

    /// M1: method pair-setup, state 1; transient adds the flags item.
    func m1() -> [UInt8] {
        var items = [TLV8.Item(.method, [TLV8.Method.pairSetup.rawValue]), TLV8.Item(.state, [1])]
        if kind == .transient { items.append(TLV8.Item(.flags, [UInt8(TLV8.transientFlag)])) }
        return TLV8.encode(items)
    }

    /// M2 (salt, B) in; M3 (A, proof) out.
    mutating func m3(answering m2: some Collection<UInt8>) throws(PairingFailure) -> [UInt8] {
        let step = "pair-setup M2"
        let message = try PairingMessage.read(m2, step: step, state: 2)
        let salt = try PairingMessage.item(message, .salt, step: step, count: 1...64)
        let serverPublic = try PairingMessage.item(message, .publicKey, step: step, count: 1...512)
        let password: String
        switch kind {
        case .pin(let pin): password = pin
        case .transient: password = Self.transientPIN
        }
        let client = SRPClient(parameters: .hap, privateKey: srpSecret)
        do {
            session = try client.session(salt: salt, serverPublicKey: serverPublic, password: Array(password.utf8))
        } catch {
            throw .malformed(step: step, reason: error.description)
        }
        return TLV8.encode([TLV8.Item(.state, [3]), TLV8.Item(.publicKey, client.publicKey),
                            TLV8.Item(.proof, session!.clientProof)])
    }

    /// M4 in: the accessory's proof checked. Returns the SRP key K (a transient pairing's shared secret).
    func checkM4(_ m4: some Collection<UInt8>) throws(PairingFailure) -> [UInt8] {
        let step = "pair-setup M4"
        let message = try PairingMessage.read(m4, step: step, state: 4)
        let proof = try PairingMessage.item(message, .proof, step: step, count: 1...64)
        guard let session, session.acceptsServerProof(proof) else { throw .badProof(step: step) }
        return session.key
    }

    private func encryptionKey(_ key: [UInt8]) -> SymmetricKey {
        HAPCrypto.key(from: key, salt: "Pair-Setup-Encrypt-Salt", info: "Pair-Setup-Encrypt-Info")
    }

    /// M5 out: the controller's identifier, long-term public key and signature, encrypted.
    func m5() -> [UInt8] {
        let key = session!.key  // m5 follows checkM4
        let x = HAPCrypto.key(from: key, salt: "Pair-Setup-Controller-Sign-Salt", info: "Pair-Setup-Controller-Sign-Info")
        let id = Array(controller.id.utf8)
        let publicKey = Array(controller.key.publicKey.rawRepresentation)
        let signed = x.withUnsafeBytes { Array($0) } + id + publicKey
        let signature = Array(try! controller.key.signature(for: signed))  // signing cannot fail for a valid key
        let inner = TLV8.encode([TLV8.Item(.identifier, id), TLV8.Item(.publicKey, publicKey), TLV8.Item(.signature, signature)])
        let sealed = HAPCrypto.seal(inner, key: encryptionKey(key), nonce: HAPCrypto.nonce(label: "PS-Msg05"))
        return TLV8.encode([TLV8.Item(.state, [5]), TLV8.Item(.encryptedData, sealed)])
    }

    /// M6 in: the accessory's identifier and long-term key, its signature checked.
    func credentials(answering m6: some Collection<UInt8>) throws(PairingFailure) -> HAPCredentials {
        let step = "pair-setup M6"
        let key = session!.key
        let message = try PairingMessage.read(m6, step: step, state: 6)
        let sealed = try PairingMessage.item(message, .encryptedData, step: step, count: 16...8192)
        guard let inner = HAPCrypto.open(sealed, key: encryptionKey(key), nonce: HAPCrypto.nonce(label: "PS-Msg06")) else {
            throw .decryption(step: step)
        }
        let decrypted: TLV8Message
        do { decrypted = try TLV8Message(decoding: inner) } catch { throw .malformed(step: step, reason: error.description) }
        let id = try PairingMessage.item(decrypted, .identifier, step: step, count: 1...128)
        let publicKey = try PairingMessage.item(decrypted, .publicKey, step: step, count: 32...32)
        let signature = try PairingMessage.item(decrypted, .signature, step: step, count: 64...64)
        let x = HAPCrypto.key(from: key, salt: "Pair-Setup-Accessory-Sign-Salt", info: "Pair-Setup-Accessory-Sign-Info")
        let signed = x.withUnsafeBytes { Array($0) } + id + publicKey
        guard HAPCrypto.verify(signature: signature, of: signed, publicKey: publicKey) else { throw .badSignature(step: step) }
        guard let accessoryId = String(bytes: id, encoding: .utf8) else {
            throw .malformed(step: step, reason: "the identifier is not UTF-8")
        }
        return HAPCredentials(controllerId: controller.id, controllerPrivateKey: controller.key.rawRepresentation,
                              accessoryId: accessoryId, accessoryPublicKey: Data(publicKey))
    }
}
