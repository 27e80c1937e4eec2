import Foundation

/// What a receiver wants before a sender may play, read from its TXT record as pyatv reads it
/// (`get_pairing_requirement`): access control (`act`, `acl`), a password (`pw`, flag 0x80), a
/// code (flags 0x8 PINRequired, 0x200 OneTimePairingRequired), transient pairing (AirPlay 2 with
/// feature bit 43 SupportsSystemPairing or 48 SupportsCoreUtilsPairingAndEncryption), or nothing.
/// A guess from advertisements: the receiver's answers (a 470 on `/play`) can still disagree.
public struct PairingRequirement: Codable, Sendable, Equatable, Hashable {
    public enum Kind: String, Codable, Sendable, CaseIterable {
        /// No pairing: AirPlay 1, or AirPlay 2 without a pairing feature.
        case none
        /// HAP transient pair-setup (PIN 3939, nothing shown or stored).
        case transient
        /// A code shown on the receiver the first time: `seamcheck airplay pair`.
        case pin
        /// An AirPlay password: not supported by the lab (turn it off).
        case password
        /// `acl=1`: the receiver's access control allows no pairing from this sender.
        case disabled
        /// `act=2`: only devices of the same home may play.
        case unsupported
    }

    public var kind: Kind
    /// Which keys gave the kind (`flags 0x200`, `features bit 48`...).
    public var reason: String
    /// Features bit 38 or 48 (pyatv's test for AirPlay 2): after pairing the sender uses the
    /// AirPlay 2 play flow. Nil when no features were read (an address; JSON from before).
    public var airPlay2: Bool?

    public init(kind: Kind, reason: String, airPlay2: Bool? = nil) {
        self.kind = kind
        self.reason = reason
        self.airPlay2 = airPlay2
    }

    public init(features: AirPlayFeatures?, flags: StatusFlags?, password: Bool, acl: String?, act: String?) {
        let has = { (feature: AirPlayFeature) in features?.contains(feature) ?? false }
        let flag = { (bit: StatusFlag) in flags?.contains(bit) ?? false }
        let airPlay2 = has(.supportsUnifiedMediaControl) || has(.supportsCoreUtilsPairingAndEncryption)
        if act == "2" {
            self.init(kind: .unsupported, reason: "act=2 (access: same home only)")
        } else if acl == "1" {
            self.init(kind: .disabled, reason: "acl=1 (access control)")
        } else if password || flag(.passwordRequired) {
            self.init(kind: .password, reason: password ? "pw=true" : "flags 0x80")
        } else if flag(.pinRequired) || flag(.oneTimePairingRequired) {
            self.init(kind: .pin, reason: flag(.oneTimePairingRequired) ? "flags 0x200" : "flags 0x8")
        } else if airPlay2, has(.supportsSystemPairing) || has(.supportsCoreUtilsPairingAndEncryption) {
            self.init(kind: .transient, reason: has(.supportsCoreUtilsPairingAndEncryption) ? "features bit 48" : "features bit 43")
        } else {
            self.init(kind: .none, reason: airPlay2 ? "AirPlay 2 without pairing features" : "AirPlay 1")
        }
        if features != nil { self.airPlay2 = airPlay2 }
    }

    /// Short words for tables: "transient pairing", "PIN pairing (flags 0x200)".
    public var summary: String {
        switch kind {
        case .none: "no pairing"
        case .transient: "transient pairing (\(reason))"
        case .pin: "PIN pairing (\(reason))"
        case .password: "password (\(reason))"
        case .disabled: "pairing disabled (\(reason))"
        case .unsupported: "pairing not possible (\(reason))"
        }
    }
}
