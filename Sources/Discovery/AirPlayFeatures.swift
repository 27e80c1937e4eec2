import Foundation

/// A named AirPlay feature bit, as advertised in the `features`/`fex` TXT keys (pyatv's names).
public enum AirPlayFeature: Int, CaseIterable, Codable, Sendable {
    case supportsAirPlayVideoV1 = 0
    case supportsAirPlayPhoto = 1
    case videoHTTPLiveStreams = 4
    case supportsAirPlaySlideshow = 5
    case supportsAirPlayScreen = 7
    case supportsAirPlayAudio = 9
    case audioRedundant = 11
    case authentication4 = 14
    case metadataFeatures0 = 15
    case metadataFeatures1 = 16
    case metadataFeatures2 = 17
    case audioFormats0 = 18
    case audioFormats1 = 19
    case audioFormats2 = 20
    case audioFormats3 = 21
    case authentication1 = 23
    case authentication8 = 26
    case supportsLegacyPairing = 27
    case hasUnifiedAdvertiserInfo = 30
    case isCarPlay = 32
    case supportsVolume = 33
    case supportsUnifiedMediaControl = 38
    case supportsBufferedAudio = 40
    case supportsPTP = 41
    case supportsScreenMultiCodec = 42
    case supportsSystemPairing = 43
    case supportsHKPairingAndAccessControl = 46
    case supportsCoreUtilsPairingAndEncryption = 48
    case supportsAirPlayVideoV2 = 49
    case metadataFeatures3 = 50
    case supportsUnifiedPairSetupAndMFi = 51

    /// The bit number.
    public var bit: Int { rawValue }

    /// The name used by pyatv and the AirPlay specification notes (e.g. `SupportsAirPlayVideoV1`).
    public var name: String {
        switch self {
        case .supportsAirPlayVideoV1: "SupportsAirPlayVideoV1"
        case .supportsAirPlayPhoto: "SupportsAirPlayPhoto"
        case .videoHTTPLiveStreams: "VideoHTTPLiveStreams"
        case .supportsAirPlaySlideshow: "SupportsAirPlaySlideshow"
        case .supportsAirPlayScreen: "SupportsAirPlayScreen"
        case .supportsAirPlayAudio: "SupportsAirPlayAudio"
        case .audioRedundant: "AudioRedundant"
        case .authentication4: "Authentication_4"
        case .metadataFeatures0: "MetadataFeatures_0"
        case .metadataFeatures1: "MetadataFeatures_1"
        case .metadataFeatures2: "MetadataFeatures_2"
        case .audioFormats0: "AudioFormats_0"
        case .audioFormats1: "AudioFormats_1"
        case .audioFormats2: "AudioFormats_2"
        case .audioFormats3: "AudioFormats_3"
        case .authentication1: "Authentication_1"
        case .authentication8: "Authentication_8"
        case .supportsLegacyPairing: "SupportsLegacyPairing"
        case .hasUnifiedAdvertiserInfo: "HasUnifiedAdvertiserInfo"
        case .isCarPlay: "IsCarPlay"
        case .supportsVolume: "SupportsVolume"
        case .supportsUnifiedMediaControl: "SupportsUnifiedMediaControl"
        case .supportsBufferedAudio: "SupportsBufferedAudio"
        case .supportsPTP: "SupportsPTP"
        case .supportsScreenMultiCodec: "SupportsScreenMultiCodec"
        case .supportsSystemPairing: "SupportsSystemPairing"
        case .supportsHKPairingAndAccessControl: "SupportsHKPairingAndAccessControl"
        case .supportsCoreUtilsPairingAndEncryption: "SupportsCoreUtilsPairingAndEncryption"
        case .supportsAirPlayVideoV2: "SupportsAirPlayVideoV2"
        case .metadataFeatures3: "MetadataFeatures_3"
        case .supportsUnifiedPairSetupAndMFi: "SupportsUnifiedPairSetupAndMFi"
        }
    }
}

/// The feature mask of an AirPlay receiver.
///
/// Codable as one hex string: `"0x%016llX"` (64 bits) in the usual case; when `fex` carried
/// bits above 63, the string grows by 16 hex digits per further 64 bits.
public struct AirPlayFeatures: Codable, Sendable, Equatable, Hashable {
    /// Bits 0...63.
    public var rawValue: UInt64
    /// Set bit numbers above 63 (only `fex` can carry them), ascending.
    public var extendedBits: [Int]

    public init(rawValue: UInt64, extendedBits: [Int] = []) {
        self.rawValue = rawValue
        self.extendedBits = extendedBits.filter { $0 >= 64 }.sorted()
    }

    /// Parses a `features` (or raop `ft`) value: `0xLOW` or `0xLOW,0xHIGH`, 1 to 8 hex digits each.
    public init?(features text: String) {
        let parts = text.trimmingCharacters(in: .whitespaces).split(separator: ",", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count) else { return nil }
        var words: [UInt64] = []
        for part in parts {
            guard part.hasPrefix("0x") || part.hasPrefix("0X") else { return nil }
            let digits = part.dropFirst(2)
            guard (1...8).contains(digits.count), digits.allSatisfy(\.isHexDigit),
                  let word = UInt64(digits, radix: 16) else { return nil }
            words.append(word)
        }
        self.init(rawValue: (words.count == 2 ? words[1] << 32 : 0) | words[0])
    }

    /// Parses a `fex` value: base64 (padding optional) of the little-endian feature bytes.
    public init?(fex text: String) {
        var base64 = text.trimmingCharacters(in: .whitespaces)
        guard !base64.isEmpty else { return nil }
        if base64.count % 4 == 1 { return nil }
        while base64.count % 4 != 0 { base64 += "=" }
        guard let data = Data(base64Encoded: base64), !data.isEmpty else { return nil }
        var low: UInt64 = 0
        var extended: [Int] = []
        for (index, byte) in data.enumerated() {
            if index < 8 {
                low |= UInt64(byte) << (8 * UInt64(index))
            } else {
                for bit in 0..<8 where byte & (1 << bit) != 0 { extended.append(index * 8 + bit) }
            }
        }
        self.init(rawValue: low, extendedBits: extended)
    }

    /// The 64-bit mask as `0x` and 16 upper-case hex digits.
    public var hex: String { String(format: "0x%016llX", rawValue) }

    /// True when bit `bit` is set (any bit number, including those above 63).
    public func contains(bit: Int) -> Bool {
        guard bit >= 0 else { return false }
        return bit < 64 ? rawValue & (1 << UInt64(bit)) != 0 : extendedBits.contains(bit)
    }

    public func contains(_ feature: AirPlayFeature) -> Bool { contains(bit: feature.bit) }

    /// The named features that are set, by ascending bit.
    public var features: [AirPlayFeature] { AirPlayFeature.allCases.filter(contains) }

    /// Names of the set bits that have one, by ascending bit.
    public var names: [String] { features.map(\.name) }

    /// Set bits without a name in `AirPlayFeature`, ascending.
    public var unnamedBits: [Int] {
        let named = Set(AirPlayFeature.allCases.map(\.bit))
        return ((0..<64).filter { contains(bit: $0) } + extendedBits).filter { !named.contains($0) }
    }

    // MARK: Codable as a hex string

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let value = AirPlayFeatures(hex: text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath,
                                                    debugDescription: "not a 0x-prefixed hex feature mask: \(text)"))
        }
        self = value
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(encodedHex)
    }

    /// `hex`, extended on the left by 16 digits per 64 further bits when `extendedBits` is not empty.
    var encodedHex: String {
        guard let top = extendedBits.last else { return hex }
        var words = [UInt64](repeating: 0, count: top / 64 + 1)
        words[0] = rawValue
        for bit in extendedBits { words[bit / 64] |= 1 << UInt64(bit % 64) }
        return "0x" + words.reversed().map { String(format: "%016llX", $0) }.joined()
    }

    /// Parses `encodedHex` output (any number of hex digits after `0x`).
    init?(hex text: String) {
        guard text.hasPrefix("0x") || text.hasPrefix("0X") else { return nil }
        let digits = Array(text.dropFirst(2))
        guard !digits.isEmpty, digits.allSatisfy(\.isHexDigit) else { return nil }
        var low: UInt64 = 0
        var extended: [Int] = []
        for (position, digit) in digits.reversed().enumerated() {
            let nibble = UInt64(digit.hexDigitValue ?? 0)
            if position < 16 {
                low |= nibble << (4 * UInt64(position))
            } else {
                for bit in 0..<4 where nibble & (1 << UInt64(bit)) != 0 { extended.append(position * 4 + bit) }
            }
        }
        self.init(rawValue: low, extendedBits: extended)
    }
}
