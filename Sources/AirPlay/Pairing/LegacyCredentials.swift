import Crypto
import Foundation

/// What legacy AirPlay pairing (features bit 27: UxPlay, the Apple TV 3) leaves for later
/// pair-verifies: this controller's identifier and long-term Ed25519 key, and the receiver's
/// Ed25519 public key. Key material: the description never shows it; only the credentials store
/// writes it (to a 0600 file).
public struct LegacyCredentials: Sendable, Equatable, Codable, CustomStringConvertible, CustomDebugStringConvertible {
    /// How the keys were exchanged.
    public enum Method: String, Sendable, Codable {
        /// `/pair-pin-start` and three `/pair-setup-pin` rounds with the code the receiver showed;
        /// later connections only pair-verify (the receiver keeps our key).
        case pin
        /// `/pair-setup` with our public key, no code; every connection pair-sets-up again, and
        /// the stored receiver key pins it to the receiver first seen.
        case key
    }

    public var method: Method
    /// Sent as `user` in the first `/pair-setup-pin` round (16 uppercase hex digits).
    public var controllerId: String
    /// The controller's Ed25519 private key (32-byte seed).
    public var controllerPrivateKey: Data
    /// The receiver's Ed25519 public key (32 bytes).
    public var receiverPublicKey: Data

    public init(method: Method, controllerId: String, controllerPrivateKey: Data, receiverPublicKey: Data) {
        self.method = method
        self.controllerId = controllerId
        self.controllerPrivateKey = controllerPrivateKey
        self.receiverPublicKey = receiverPublicKey
    }

    /// Nil when usable, else what is wrong (sizes, an unusable key).
    public var problem: String? {
        if controllerId.isEmpty { return "an empty controller identifier" }
        if receiverPublicKey.count != 32 { return "the receiver's public key is \(receiverPublicKey.count) bytes, not 32" }
        if signingKey == nil { return "the controller key is \(controllerPrivateKey.count) bytes, not a 32-byte Ed25519 key" }
        return nil
    }

    var signingKey: Curve25519.Signing.PrivateKey? {
        try? Curve25519.Signing.PrivateKey(rawRepresentation: controllerPrivateKey)
    }

    /// The receiver's key as a short fingerprint for listings (first 8 bytes of its SHA-256, hex).
    public var receiverKeyFingerprint: String {
        SHA256.hash(data: receiverPublicKey).prefix(8).map { String(format: "%02x", $0) }.joined()
    }

    public var description: String { "LegacyCredentials(\(method.rawValue), controller \(controllerId), keys redacted)" }
    public var debugDescription: String { description }
}

/// A controller identity for one legacy pairing: an identifier and an Ed25519 key.
struct LegacyIdentity: Sendable {
    let id: String
    let key: Curve25519.Signing.PrivateKey

    init(id: String = LegacyIdentity.newId(), key: Curve25519.Signing.PrivateKey = .init()) {
        self.id = id
        self.key = key
    }

    init?(_ credentials: LegacyCredentials) {
        guard let key = credentials.signingKey else { return nil }
        self.init(id: credentials.controllerId, key: key)
    }

    var publicKey: [UInt8] { Array(key.publicKey.rawRepresentation) }

    /// 16 uppercase hex digits (UxPlay keeps at most 24 characters of `user`).
    static func newId() -> String {
        (0..<8).map { _ in String(format: "%02X", UInt8.random(in: 0...255)) }.joined()
    }
}
