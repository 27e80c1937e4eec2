import Crypto
import Foundation

// The primitives HAP names, over swift-crypto: HKDF-SHA-512 to 32-byte keys, ChaCha20-Poly1305
// with the 8-byte labels ("PS-Msg05", "PV-Msg02"...) or a counter as nonce, Ed25519, X25519.

enum HAPCrypto {
    /// HKDF-SHA-512 (extract then expand) to 32 bytes.
    static func key(from secret: [UInt8], salt: String, info: String) -> SymmetricKey {
        HKDF<SHA512>.deriveKey(inputKeyMaterial: SymmetricKey(data: secret), salt: Array(salt.utf8),
                               info: Array(info.utf8), outputByteCount: 32)
    }

    /// A 12-byte nonce: 4 zero bytes then an 8-byte label.
    static func nonce(label: String) -> ChaChaPoly.Nonce {
        let bytes = Array(label.utf8)
        precondition(bytes.count == 8, "HAP nonce labels are 8 bytes")
        return try! ChaChaPoly.Nonce(data: [0, 0, 0, 0] + bytes)  // 12 bytes: cannot fail
    }

    /// A 12-byte nonce: 4 zero bytes then `counter` little-endian.
    static func nonce(counter: UInt64) -> ChaChaPoly.Nonce {
        var bytes: [UInt8] = [0, 0, 0, 0]
        withUnsafeBytes(of: counter.littleEndian) { bytes.append(contentsOf: $0) }
        return try! ChaChaPoly.Nonce(data: bytes)  // 12 bytes: cannot fail
    }

    /// Ciphertext followed by the 16-byte tag, as HAP sends it.
    static func seal(_ plaintext: [UInt8], key: SymmetricKey, nonce: ChaChaPoly.Nonce, aad: [UInt8] = []) -> [UInt8] {
        let box = try! ChaChaPoly.seal(plaintext, using: key, nonce: nonce, authenticating: aad)  // 32-byte key: cannot fail
        return Array(box.ciphertext) + Array(box.tag)
    }

    /// Opens ciphertext+tag; nil when it is shorter than a tag or does not authenticate.
    static func open(_ sealed: some Collection<UInt8>, key: SymmetricKey, nonce: ChaChaPoly.Nonce, aad: [UInt8] = []) -> [UInt8]? {
        let bytes = Array(sealed)
        guard bytes.count >= 16 else { return nil }
        guard let box = try? ChaChaPoly.SealedBox(nonce: nonce, ciphertext: bytes.dropLast(16), tag: bytes.suffix(16)),
              let plain = try? ChaChaPoly.open(box, using: key, authenticating: aad) else { return nil }
        return Array(plain)
    }

    /// Verifies an Ed25519 signature; false for a key or signature of the wrong size.
    static func verify(signature: [UInt8], of message: [UInt8], publicKey: [UInt8]) -> Bool {
        guard let key = try? Curve25519.Signing.PublicKey(rawRepresentation: publicKey) else { return false }
        return key.isValidSignature(signature, for: message)
    }
}
