import Crypto
import CryptoExtras
import Foundation

// The primitives legacy AirPlay pairing uses, as UxPlay's pairing.c and crypto.c do: AES-128-GCM
// with 16-byte IVs for the keys sealed in the PIN flow, AES-128-CTR for pair-verify's signatures,
// both keyed from SHA-512 digests.

enum LegacyCrypto {
    /// The first 16 bytes of SHA-512(`label` | `secret`).
    static func digest16(_ label: String, _ secret: [UInt8]) -> [UInt8] {
        var hasher = SHA512()
        hasher.update(data: Array(label.utf8))
        hasher.update(data: secret)
        return Array(hasher.finalize().prefix(16))
    }

    /// The PIN flow's AES-GCM key and IV from the SRP key K ("Pair-Setup-AES-Key"/"-IV"). The
    /// controller seals with the IV's last byte + 1, the receiver with + 2 (UxPlay's `aesIV[15]++`,
    /// a byte that wraps).
    static func setupKey(_ k: [UInt8]) -> (key: SymmetricKey, iv: [UInt8]) {
        (SymmetricKey(data: digest16("Pair-Setup-AES-Key", k)), digest16("Pair-Setup-AES-IV", k))
    }

    static func bumped(_ iv: [UInt8], by count: UInt8) -> [UInt8] {
        var copy = iv
        copy[15] &+= count
        return copy
    }

    /// AES-128-GCM with a 16-byte IV and no AAD: ciphertext and 16-byte tag.
    static func seal(_ plain: [UInt8], key: SymmetricKey, iv: [UInt8]) -> (ciphertext: [UInt8], tag: [UInt8]) {
        let box = try! AES.GCM.seal(plain, using: key, nonce: try! AES.GCM.Nonce(data: iv))  // 16-byte key and IV: cannot fail
        return (Array(box.ciphertext), Array(box.tag))
    }

    /// Nil when it does not authenticate.
    static func open(_ ciphertext: [UInt8], tag: [UInt8], key: SymmetricKey, iv: [UInt8]) -> [UInt8]? {
        guard tag.count == 16, let nonce = try? AES.GCM.Nonce(data: iv),
              let box = try? AES.GCM.SealedBox(nonce: nonce, ciphertext: ciphertext, tag: tag),
              let plain = try? AES.GCM.open(box, using: key) else { return nil }
        return Array(plain)
    }

    /// Pair-verify's AES-128-CTR keystream from the X25519 secret ("Pair-Verify-AES-Key"/"-IV",
    /// a full 128-bit counter): its first 64 bytes mask the receiver's signature, the next 64 ours.
    static func verifyKeystream(_ shared: [UInt8], count: Int = 128) -> [UInt8] {
        let key = SymmetricKey(data: digest16("Pair-Verify-AES-Key", shared))
        let nonce = try! AES._CTR.Nonce(nonceBytes: digest16("Pair-Verify-AES-IV", shared))  // 16 bytes: cannot fail
        return Array(try! AES._CTR.encrypt([UInt8](repeating: 0, count: count), using: key, nonce: nonce))  // 16-byte key
    }

    static func xor(_ a: some Collection<UInt8>, _ b: some Collection<UInt8>) -> [UInt8] { zip(a, b).map { $0 ^ $1 } }
}
