import Foundation

/// A DNS-SD TXT record as key → value; a bare key (`pk`) has a nil value, `key=` has "".
public typealias TXTRecord = [String: String?]

/// What an AirPlay receiver can do, guessed from its feature bits and flags as pyatv does.
public struct ReceiverCapabilities: Codable, Sendable, Equatable, Hashable {
    /// URL/video playback: feature bit 0 (SupportsAirPlayVideoV1) or 49 (SupportsAirPlayVideoV2).
    public var video: Bool
    /// Audio: feature bit 9 (SupportsAirPlayAudio) or 30 (HasUnifiedAdvertiserInfo), or a
    /// `_raop._tcp` service.
    public var audio: Bool
    /// AirPlay 2: feature bit 38 (SupportsUnifiedMediaControl) or 48 (CoreUtils pairing).
    public var airPlay2: Bool
    /// Screen mirroring: feature bit 7 (SupportsAirPlayScreen).
    public var screenMirroring: Bool
    /// `pw=true` (or `1`) or status flag bit 7.
    public var passwordRequired: Bool
    /// Status flag bit 3.
    public var pinRequired: Bool

    public init(video: Bool = false, audio: Bool = false, airPlay2: Bool = false,
                screenMirroring: Bool = false, passwordRequired: Bool = false, pinRequired: Bool = false) {
        self.video = video
        self.audio = audio
        self.airPlay2 = airPlay2
        self.screenMirroring = screenMirroring
        self.passwordRequired = passwordRequired
        self.pinRequired = pinRequired
    }

    /// The guesses for a receiver with these features, flags and `pw` value.
    public init(features: AirPlayFeatures?, flags: StatusFlags?, passwordKey: Bool, hasRAOP: Bool) {
        let has = { (feature: AirPlayFeature) in features?.contains(feature) ?? false }
        self.init(
            video: has(.supportsAirPlayVideoV1) || has(.supportsAirPlayVideoV2),
            audio: has(.supportsAirPlayAudio) || has(.hasUnifiedAdvertiserInfo) || hasRAOP,
            airPlay2: has(.supportsUnifiedMediaControl) || has(.supportsCoreUtilsPairingAndEncryption),
            screenMirroring: has(.supportsAirPlayScreen),
            passwordRequired: passwordKey || (flags?.contains(.passwordRequired) ?? false),
            pinRequired: flags?.contains(.pinRequired) ?? false
        )
    }
}

/// An AirPlay receiver's identity and abilities, decoded from its TXT records.
///
/// Decoding never fails: a missing or malformed value leaves its field nil and adds a line to
/// `warnings` saying which key was wrong and how.
public struct ReceiverDescription: Codable, Sendable, Equatable {
    /// The service instance name (for `_raop._tcp`, the part after `@`).
    public var name: String
    /// The MAC-like device id, upper case with colons (`90:DD:5D:98:F0:0A`).
    public var deviceId: String?
    public var model: String?
    /// The `manufacturer` key; "Apple" when it is absent and `model` is an Apple identifier.
    public var manufacturer: String?
    /// The product name from `AppleModelCatalog`; nil for non-Apple models.
    public var product: String?
    /// Why an Apple `model` is not believed (see `ModelClaim`): then `manufacturer` is not
    /// inferred as Apple and `product` is nil. Empty when nothing contradicts the model.
    public var modelDoubts: [String]
    public var features: AirPlayFeatures?
    public var featureNames: [String]
    public var flags: StatusFlags?
    public var flagNames: [String]
    /// The AirPlay version (`srcvers`, raop `vs`), such as `377.40.00`.
    public var sourceVersion: String?
    public var osVersion: String?
    public var capabilities: ReceiverCapabilities
    /// What it wants before a sender may play (pairing, a password, nothing).
    public var pairing: PairingRequirement
    public var warnings: [String]

    /// Decodes a receiver from its `_airplay._tcp` TXT record and, when known, its `_raop._tcp`
    /// one; the airplay record wins where both carry a value.
    ///
    /// - Parameter fallbackDeviceId: used when the airplay record has no `deviceid` (the MAC
    ///   part of the raop instance name, see `RAOPName`).
    public init(name: String, airplay: TXTRecord?, raop: TXTRecord? = nil, fallbackDeviceId: String? = nil) {
        var decoder = TXTDecoder(airplay: airplay ?? [:], raop: raop ?? [:], hasAirPlayRecord: airplay != nil)
        self.name = name

        if let raw = decoder.value(airplay: "deviceid", raop: nil) {
            deviceId = Self.normalizedDeviceId(raw)
            if deviceId == nil { decoder.warn("deviceid '\(raw)' is not a MAC address (6 hex bytes)") }
        } else if let fallback = fallbackDeviceId {
            deviceId = Self.normalizedDeviceId(fallback) ?? fallback
        } else {
            deviceId = nil
            decoder.warn("no deviceid key: this receiver cannot be matched with its _raop._tcp service")
        }

        model = decoder.nonEmpty(airplay: "model", raop: "am")
        if model == nil { decoder.warn("no model key") }
        features = decoder.features()
        modelDoubts = ModelClaim.doubts(model: model, features: features, airplay: airplay).map(\.reason)
        let believed = modelDoubts.isEmpty
        manufacturer = decoder.nonEmpty(airplay: "manufacturer", raop: nil)
            ?? model.flatMap { AppleModelCatalog.isAppleModel($0) && believed ? "Apple" : nil }
        product = believed ? model.flatMap(AppleModelCatalog.productName(forModel:)) : nil

        featureNames = features?.names ?? []
        flags = decoder.flags()
        flagNames = flags?.names ?? []
        sourceVersion = decoder.nonEmpty(airplay: "srcvers", raop: "vs")
        osVersion = decoder.nonEmpty(airplay: "osvers", raop: "ov")

        let password = decoder.value(airplay: "pw", raop: "pw").map { ["true", "1", "yes"].contains($0.lowercased()) }
        capabilities = ReceiverCapabilities(features: features, flags: flags,
                                            passwordKey: password ?? false, hasRAOP: raop != nil)
        let raopFlags = (decoder.raop["sf"] ?? nil).flatMap { StatusFlags(text: $0) }
        pairing = PairingRequirement(features: features, flags: flags, password: password ?? false,
                                     acl: decoder.nonEmpty(airplay: "acl", raop: nil), act: decoder.nonEmpty(airplay: "act", raop: nil),
                                     raopFlags: raopFlags)
        warnings = decoder.warnings
    }

    private enum CodingKeys: String, CodingKey {
        case name, deviceId, model, manufacturer, product, modelDoubts, features, featureNames, flags, flagNames, sourceVersion,
             osVersion, capabilities, pairing, warnings
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        deviceId = try container.decodeIfPresent(String.self, forKey: .deviceId)
        model = try container.decodeIfPresent(String.self, forKey: .model)
        manufacturer = try container.decodeIfPresent(String.self, forKey: .manufacturer)
        product = try container.decodeIfPresent(String.self, forKey: .product)
        modelDoubts = try container.decodeIfPresent([String].self, forKey: .modelDoubts) ?? []
        features = try container.decodeIfPresent(AirPlayFeatures.self, forKey: .features)
        featureNames = try container.decode([String].self, forKey: .featureNames)
        flags = try container.decodeIfPresent(StatusFlags.self, forKey: .flags)
        flagNames = try container.decode([String].self, forKey: .flagNames)
        sourceVersion = try container.decodeIfPresent(String.self, forKey: .sourceVersion)
        osVersion = try container.decodeIfPresent(String.self, forKey: .osVersion)
        capabilities = try container.decode(ReceiverCapabilities.self, forKey: .capabilities)
        // Stored before pairing was read: derived again from the features and flags.
        pairing = try container.decodeIfPresent(PairingRequirement.self, forKey: .pairing)
            ?? PairingRequirement(features: features, flags: flags, password: capabilities.passwordRequired, acl: nil, act: nil)
        warnings = try container.decode([String].self, forKey: .warnings)
    }

    /// Every key is written, an unknown value as `null`: scripts can rely on the fields of
    /// docs/interface.md being there.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(deviceId, forKey: .deviceId)
        try container.encode(model, forKey: .model)
        try container.encode(manufacturer, forKey: .manufacturer)
        try container.encode(product, forKey: .product)
        try container.encode(modelDoubts, forKey: .modelDoubts)
        try container.encode(features, forKey: .features)
        try container.encode(featureNames, forKey: .featureNames)
        try container.encode(flags, forKey: .flags)
        try container.encode(flagNames, forKey: .flagNames)
        try container.encode(sourceVersion, forKey: .sourceVersion)
        try container.encode(osVersion, forKey: .osVersion)
        try container.encode(capabilities, forKey: .capabilities)
        try container.encode(pairing, forKey: .pairing)
        try container.encode(warnings, forKey: .warnings)
    }

    /// `90:DD:5D:98:F0:0A` for `90:dd:5d:98:f0:0a`, `90-DD-...` or `90DD5D98F00A`; nil otherwise.
    public static func normalizedDeviceId(_ text: String) -> String? {
        let hex = text.filter { $0 != ":" && $0 != "-" }
        guard hex.count == 12, hex.allSatisfy(\.isHexDigit),
              text.count == 12 || text.count == 17 else { return nil }
        let upper = Array(hex.uppercased())
        return stride(from: 0, to: 12, by: 2).map { String(upper[$0...$0 + 1]) }.joined(separator: ":")
    }
}

/// The parts of a `_raop._tcp` instance name: `<MAC without colons>@<device name>`.
public struct RAOPName: Sendable, Equatable {
    /// Upper case with colons, comparable with `ReceiverDescription.deviceId`.
    public var deviceId: String
    public var name: String

    public init?(_ instanceName: String) {
        guard let at = instanceName.firstIndex(of: "@"),
              let id = ReceiverDescription.normalizedDeviceId(String(instanceName[..<at])) else { return nil }
        deviceId = id
        name = String(instanceName[instanceName.index(after: at)...])
    }
}

/// Looks keys up (case-insensitively) in the airplay record, then the raop one, collecting warnings.
struct TXTDecoder {
    let airplay: [String: String?]
    let raop: [String: String?]
    /// False for a receiver with a RAOP record only: no `features` is normal there.
    let hasAirPlayRecord: Bool
    private(set) var warnings: [String] = []

    init(airplay: TXTRecord, raop: TXTRecord, hasAirPlayRecord: Bool = true) {
        self.airplay = Self.lowercasedKeys(airplay)
        self.raop = Self.lowercasedKeys(raop)
        self.hasAirPlayRecord = hasAirPlayRecord
    }

    mutating func warn(_ message: String) { warnings.append(message) }

    /// The first present value; a bare key counts as absent.
    func value(airplay key: String, raop raopKey: String?) -> String? {
        if let value = airplay[key], let value { return value }
        if let raopKey, let value = raop[raopKey], let value { return value }
        return nil
    }

    func nonEmpty(airplay key: String, raop raopKey: String?) -> String? {
        value(airplay: key, raop: raopKey).map { $0.trimmingCharacters(in: .whitespaces) }.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// `features` (or raop `ft`), with the bits above 63 from `fex`; `fex` alone when the others
    /// are absent or malformed.
    mutating func features() -> AirPlayFeatures? {
        var parsed: AirPlayFeatures?
        var source = "features"
        if let text = airplay["features"] ?? nil {
            parsed = AirPlayFeatures(features: text)
            if parsed == nil { warn("features '\(text)' is not 0xLOW or 0xLOW,0xHIGH hex") }
        } else if let text = raop["ft"] ?? nil {
            source = "ft"
            parsed = AirPlayFeatures(features: text)
            if parsed == nil { warn("ft '\(text)' (raop) is not 0xLOW or 0xLOW,0xHIGH hex") }
        }
        var fex: AirPlayFeatures?
        if let text = airplay["fex"] ?? nil {
            fex = AirPlayFeatures(fex: text)
            if fex == nil { warn("fex '\(text)' is not base64") }
        }
        switch (parsed, fex) {
        case let (parsed?, fex?):
            if fex.rawValue != parsed.rawValue {
                warn("fex (\(fex.hex)) disagrees with \(source) (\(parsed.hex)) in bits 0-63; using \(source)")
            }
            return AirPlayFeatures(rawValue: parsed.rawValue, extendedBits: fex.extendedBits)
        case let (parsed?, nil): return parsed
        case let (nil, fex?): return fex
        case (nil, nil):
            // AirPlay 1 receivers (a RAOP record only, such as shairport-sync 3) carry no features.
            if hasAirPlayRecord, warnings.allSatisfy({ !$0.hasPrefix("features") && !$0.hasPrefix("ft") && !$0.hasPrefix("fex") }) {
                warn("no features key: capabilities are unknown")
            }
            return nil
        }
    }

    mutating func flags() -> StatusFlags? {
        for (record, key, label) in [(airplay, "flags", "flags"), (raop, "sf", "sf (raop)")] {
            guard let text = record[key] ?? nil else { continue }
            if let flags = StatusFlags(text: text) { return flags }
            warn("\(label) '\(text)' is not a hex number")
            return nil
        }
        return nil
    }

    private static func lowercasedKeys(_ record: TXTRecord) -> [String: String?] {
        var result: [String: String?] = [:]
        for (key, value) in record where result[key.lowercased()] == nil { result[key.lowercased()] = value }
        return result
    }
}
