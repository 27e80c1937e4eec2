import Crypto
import Foundation

/// Pair-verify's messages, controller side, without I/O: M1 (an ephemeral X25519 key) out, M2 in
/// (the accessory's key, its identifier and signature, encrypted), M3 (ours, signed with the
/// long-term key) out, M4 in. The X25519 shared secret then gives the channel keys.
struct PairVerify: Sendable {
    let credentials: HAPCredentials
    private let ephemeral: Curve25519.KeyAgreement.PrivateKey
    private var shared: [UInt8]?

    init(credentials: HAPCredentials, ephemeral: Curve25519.KeyAgreement.PrivateKey = .init()) {
        self.credentials = credentials
        self.ephemeral = ephemeral
    }

    func m1() -> [UInt8] {
        TLV8.encode([TLV8.Item(.state, [1]), TLV8.Item(.publicKey, Array(ephemeral.publicKey.rawRepresentation))])
    }

    /// M2 in, M3 out.
    mutating func m3(answering m2: some Collection<UInt8>) throws(PairingFailure) -> [UInt8] {
        let step = "pair-verify M2"
        let message = try PairingMessage.read(m2, step: step, state: 2)
        let accessoryPublic = try PairingMessage.item(message, .publicKey, step: step, count: 32...32)
        let sealed = try PairingMessage.item(message, .encryptedData, step: step, count: 16...4096)
        guard let peer = try? Curve25519.KeyAgreement.PublicKey(rawRepresentation: accessoryPublic),
              let secret = try? ephemeral.sharedSecretFromKeyAgreement(with: peer) else {
            throw .malformed(step: step, reason: "the receiver's X25519 key is unusable")
        }
        let shared = secret.withUnsafeBytes { Array($0) }
        self.shared = shared
        let key = HAPCrypto.key(from: shared, salt: "Pair-Verify-Encrypt-Salt", info: "Pair-Verify-Encrypt-Info")
        guard let inner = HAPCrypto.open(sealed, key: key, nonce: HAPCrypto.nonce(label: "PV-Msg02")) else {
            throw .decryption(step: step)
        }
        let decrypted: TLV8Message
        do { decrypted = try TLV8Message(decoding: inner) } catch { throw .malformed(step: step, reason: error.description) }
        let id = try PairingMessage.item(decrypted, .identifier, step: step, count: 1...128)
        let signature = try PairingMessage.item(decrypted, .signature, step: step, count: 64...64)
        guard id == Array(credentials.accessoryId.utf8) else { throw .wrongAccessory(step: step) }
        let ours = Array(ephemeral.publicKey.rawRepresentation)
        guard HAPCrypto.verify(signature: signature, of: accessoryPublic + id + ours,
                               publicKey: Array(credentials.accessoryPublicKey)) else {
            throw .badSignature(step: step)
        }
        guard let signing = credentials.signingKey else {
            throw .malformed(step: "pair-verify M3", reason: "the stored controller key is unusable")
        }
        let controllerId = Array(credentials.controllerId.utf8)
        let ourSignature = Array(try! signing.signature(for: ours + controllerId + accessoryPublic))  // cannot fail for a valid key
        let body = TLV8.encode([TLV8.Item(.identifier, controllerId), TLV8.Item(.signature, ourSignature)])
        let ourSealed = HAPCrypto.seal(body, key: key, nonce: HAPCrypto.nonce(label: "PV-Msg03"))
        return TLV8.encode([TLV8.Item(.state, [3]), TLV8.Item(.encryptedData, ourSealed)])
    }

    /// M4 in: the channel keys.
    func keys(answering m4: some Collection<UInt8>) throws(PairingFailure) -> HAPChannelKeys {
        _ = try PairingMessage.read(m4, step: "pair-verify M4", state: 4)
        return HAPChannelKeys(sharedSecret: shared!)  // keys follows m3
    }
}
