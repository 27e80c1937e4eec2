import Foundation

/// What a receiver wants before a sender may play, read from its TXT record as pyatv reads it
/// (`get_pairing_requirement`): access control (`act`, `acl`), a password (`pw`, flag 0x80), a
/// code (flags 0x8 PINRequired, 0x200 OneTimePairingRequired), transient pairing (AirPlay 2 with
/// feature bit 43 SupportsSystemPairing or 48 SupportsCoreUtilsPairingAndEncryption), or nothing.
/// A receiver with feature bit 27 (SupportsLegacyPairing) and none of HAP's bits (38, 46, 48)
/// pairs the legacy way (UxPlay, the Apple TV 3): with a code when a record has flag 0x8 (UxPlay
/// `-pin`: `pw=true`, raop `sf=0x8c`), else without one; `pw=true` without flag 0x8 stays a
/// password (UxPlay `-pw`: `sf=0x84`).
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
        /// Legacy pairing without a code (features bit 27, no HAP bits): `/pair-setup` with the
        /// sender's key and a pair-verify on each connection.
        case legacy
        /// Legacy pairing with the code the receiver shows (`/pair-setup-pin`), once: `seamcheck
        /// airplay pair`.
        case legacyPin = "legacy-pin"
    }

    public var kind: Kind
    /// Which keys gave the kind (`flags 0x200`, `features bit 48`...).
    public var reason: String
    /// Features bit 38 or 48 (pyatv's test for AirPlay 2): after pairing the sender uses the
    /// AirPlay 2 play flow. Nil when no features were read (an address; JSON from before).
    public var airPlay2: Bool?

    /// Features bit 27 (SupportsLegacyPairing); nil when no features were read.
    public var legacyPairingBit: Bool?
    /// The `pw` TXT value as read (`true`/`1`/`yes`); nil when no record was read.
    public var pw: Bool?

    public init(kind: Kind, reason: String, airPlay2: Bool? = nil, legacyPairingBit: Bool? = nil, pw: Bool? = nil) {
        self.kind = kind
        self.reason = reason
        self.airPlay2 = airPlay2
        self.legacyPairingBit = legacyPairingBit
        self.pw = pw
    }

    private enum CodingKeys: String, CodingKey { case kind, scheme, reason, airPlay2, legacyPairingBit, pw }

    /// Equal when what is wanted is: kind, reason and flow (`legacyPairingBit` and `pw` are the
    /// record's facts shown beside it).
    public static func == (lhs: PairingRequirement, rhs: PairingRequirement) -> Bool {
        lhs.kind == rhs.kind && lhs.reason == rhs.reason && lhs.airPlay2 == rhs.airPlay2
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(kind)
        hasher.combine(reason)
        hasher.combine(airPlay2)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        kind = try container.decode(Kind.self, forKey: .kind)
        reason = try container.decode(String.self, forKey: .reason)
        airPlay2 = try container.decodeIfPresent(Bool.self, forKey: .airPlay2)
        legacyPairingBit = try container.decodeIfPresent(Bool.self, forKey: .legacyPairingBit)
        pw = try container.decodeIfPresent(Bool.self, forKey: .pw)
    }

    /// `scheme`, `legacyPairingBit` and `pw` are written beside the first fields (null when unknown).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(kind, forKey: .kind)
        try container.encode(scheme, forKey: .scheme)
        try container.encode(reason, forKey: .reason)
        try container.encodeIfPresent(airPlay2, forKey: .airPlay2)
        try container.encode(legacyPairingBit, forKey: .legacyPairingBit)
        try container.encode(pw, forKey: .pw)
    }

    /// `raopFlags`: the `_raop._tcp` record's `sf` when the `_airplay._tcp` record's `flags` won
    /// in `flags` (UxPlay says PIN only there).
    public init(features: AirPlayFeatures?, flags: StatusFlags?, password: Bool, acl: String?, act: String?,
                raopFlags: StatusFlags? = nil) {
        let has = { (feature: AirPlayFeature) in features?.contains(feature) ?? false }
        let flag = { (bit: StatusFlag) in flags?.contains(bit) ?? false }
        let airPlay2 = has(.supportsUnifiedMediaControl) || has(.supportsCoreUtilsPairingAndEncryption)
        let hap = airPlay2 || has(.supportsHKPairingAndAccessControl)
        let legacyPIN = flag(.pinRequired) || (raopFlags?.contains(.pinRequired) ?? false)
        if act == "2" {
            self.init(kind: .unsupported, reason: "act=2 (access: same home only)")
        } else if acl == "1" {
            self.init(kind: .disabled, reason: "acl=1 (access control)")
        } else if has(.supportsLegacyPairing), !hap, legacyPIN {
            let where_ = flag(.pinRequired) ? "flags 0x8" : "raop sf 0x8"
            self.init(kind: .legacyPin, reason: "features bit 27, no HAP bits, \(where_)\(password ? ", pw=true" : "")")
        } else if has(.supportsLegacyPairing), !hap, !password, !flag(.passwordRequired) {
            self.init(kind: .legacy, reason: "features bit 27, no HAP bits (38, 46, 48)")
        } else if password || flag(.passwordRequired) {
            self.init(kind: .password, reason: password ? "pw=true" : "flags 0x80")
        } else if flag(.pinRequired) || flag(.oneTimePairingRequired) {
            self.init(kind: .pin, reason: flag(.oneTimePairingRequired) ? "flags 0x200" : "flags 0x8")
        } else if airPlay2, has(.supportsSystemPairing) || has(.supportsCoreUtilsPairingAndEncryption) {
            self.init(kind: .transient, reason: has(.supportsCoreUtilsPairingAndEncryption) ? "features bit 48" : "features bit 43")
        } else {
            self.init(kind: .none, reason: airPlay2 ? "AirPlay 2 without pairing features" : "AirPlay 1")
        }
        if features != nil {
            self.airPlay2 = airPlay2
            legacyPairingBit = has(.supportsLegacyPairing)
        }
        pw = password
    }

    /// The scheme in the words `discover` uses: none, legacy, legacy-pin, hap, hap-transient,
    /// password, disabled, unsupported (`kind` keeps its first values: `pin` is HAP with a code).
    public var scheme: String {
        switch kind {
        case .none: "none"
        case .legacy: "legacy"
        case .legacyPin: "legacy-pin"
        case .pin: "hap"
        case .transient: "hap-transient"
        case .password: "password"
        case .disabled: "disabled"
        case .unsupported: "unsupported"
        }
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
        case .legacy: "legacy pairing, no code (\(reason))"
        case .legacyPin: "legacy PIN pairing (\(reason))"
        }
    }
}
