import Crypto
import Foundation

/// What pair-setup leaves for later pair-verifies: this controller's identity and long-term
/// Ed25519 key, and the accessory's identifier and long-term public key. Key material: the
/// description never shows it; only the credentials store writes it (to a 0600 file).
public struct HAPCredentials: Sendable, Equatable, Codable, CustomStringConvertible, CustomDebugStringConvertible {
    /// This controller's pairing identifier (an uppercase UUID, as iOS sends).
    public var controllerId: String
    /// The controller's Ed25519 private key (32-byte seed).
    public var controllerPrivateKey: Data
    /// The accessory's pairing identifier, as M6 gave it.
    public var accessoryId: String
    /// The accessory's Ed25519 public key (32 bytes).
    public var accessoryPublicKey: Data

    public init(controllerId: String, controllerPrivateKey: Data, accessoryId: String, accessoryPublicKey: Data) {
        self.controllerId = controllerId
        self.controllerPrivateKey = controllerPrivateKey
        self.accessoryId = accessoryId
        self.accessoryPublicKey = accessoryPublicKey
    }

    /// Checks sizes and that the private key is usable; nil when fine, else what is wrong.
    public var problem: String? {
        if controllerId.isEmpty || accessoryId.isEmpty { return "an empty pairing identifier" }
        if accessoryPublicKey.count != 32 { return "the receiver's public key is \(accessoryPublicKey.count) bytes, not 32" }
        if (try? Curve25519.Signing.PrivateKey(rawRepresentation: controllerPrivateKey)) == nil {
            return "the controller key is \(controllerPrivateKey.count) bytes, not a 32-byte Ed25519 key"
        }
        return nil
    }

    var signingKey: Curve25519.Signing.PrivateKey? {
        try? Curve25519.Signing.PrivateKey(rawRepresentation: controllerPrivateKey)
    }

    public var description: String { "HAPCredentials(controller \(controllerId), receiver \(accessoryId), keys redacted)" }
    public var debugDescription: String { description }
}

/// A new controller identity for one pair-setup.
struct ControllerIdentity: Sendable {
    let id: String
    let key: Curve25519.Signing.PrivateKey

    init(id: String = UUID().uuidString, key: Curve25519.Signing.PrivateKey = .init()) {
        self.id = id
        self.key = key
    }
}
