import Crypto
import Foundation

/// Legacy pair-verify, controller side, without I/O (UxPlay's `raop_handler_pairverify` and
/// `pairing.c`): M1 `01000000 | our X25519 key | our Ed25519 key` out; M2 `its X25519 key |
/// AES-CTR(its signature of its key | ours)` in, checked with its stored Ed25519 key; M3
/// `00000000 | AES-CTR(our signature of our key | its key)` out, masked by the keystream's next 64
/// bytes. Nothing is encrypted afterwards.
struct LegacyPairVerify: Sendable {
    static let steps = (first: "pair-verify 1", second: "pair-verify 2")
    let identity: LegacyIdentity
    let receiverKey: [UInt8]
    private let ephemeral: Curve25519.KeyAgreement.PrivateKey

    init(identity: LegacyIdentity, receiverKey: [UInt8], ephemeral: Curve25519.KeyAgreement.PrivateKey = .init()) {
        self.identity = identity
        self.receiverKey = receiverKey
        self.ephemeral = ephemeral
    }

    func m1() -> [UInt8] { [1, 0, 0, 0] + Array(ephemeral.publicKey.rawRepresentation) + identity.publicKey }

    /// M2 in (checked), M3 out.
    func m3(answering body: some Collection<UInt8>) throws(PairingFailure) -> [UInt8] {
        let step = Self.steps.first
        let bytes = Array(body)
        guard bytes.count == 96 else {
            throw .malformed(step: step, reason: bytes.isEmpty
                ? "an empty answer: the receiver does not know this controller's key (pair again)"
                : "\(bytes.count) bytes, expected 96 (X25519 key and signature)")
        }
        let theirs = Array(bytes[0..<32])
        guard let peer = try? Curve25519.KeyAgreement.PublicKey(rawRepresentation: theirs),
              let secret = try? ephemeral.sharedSecretFromKeyAgreement(with: peer) else {
            throw .malformed(step: step, reason: "the receiver's X25519 key is unusable")
        }
        let shared = secret.withUnsafeBytes { Array($0) }
        let stream = LegacyCrypto.verifyKeystream(shared)
        let ours = Array(ephemeral.publicKey.rawRepresentation)
        let signature = LegacyCrypto.xor(bytes[32..<96], stream[0..<64])
        guard HAPCrypto.verify(signature: signature, of: theirs + ours, publicKey: receiverKey) else {
            throw .badSignature(step: step)
        }
        let ourSignature = Array(try! identity.key.signature(for: ours + theirs))  // cannot fail for a valid key
        return [0, 0, 0, 0] + LegacyCrypto.xor(ourSignature, stream[64..<128])
    }
}
