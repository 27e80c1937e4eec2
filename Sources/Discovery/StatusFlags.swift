import Foundation

/// A named bit of the AirPlay status flags (`flags` on `_airplay._tcp`, `sf` on `_raop._tcp`).
public enum StatusFlag: Int, CaseIterable, Codable, Sendable {
    case audioCableAttached = 2
    case pinRequired = 3
    case airPlayFromCloud = 6
    case passwordRequired = 7
    case oneTimePairingRequired = 9
    case homeKitAccessControl = 10
    case relay = 11
    case receiverSessionActive = 17

    public var bit: Int { rawValue }

    public var name: String {
        switch self {
        case .audioCableAttached: "AudioCableAttached"
        case .pinRequired: "PINRequired"
        case .airPlayFromCloud: "AirPlayFromCloud"
        case .passwordRequired: "PasswordRequired"
        case .oneTimePairingRequired: "OneTimePairingRequired"
        case .homeKitAccessControl: "HomeKitAccessControl"
        case .relay: "Relay"
        case .receiverSessionActive: "ReceiverSessionActive"
        }
    }
}

/// The status flags of an AirPlay receiver. They change while the device plays.
///
/// Codable as one hex string such as `"0x10644"`.
public struct StatusFlags: Codable, Sendable, Equatable, Hashable {
    public var rawValue: UInt64

    public init(rawValue: UInt64) { self.rawValue = rawValue }

    /// Parses a `flags`/`sf` value: `0x` and 1 to 16 hex digits (a bare decimal number is also
    /// accepted, as some third-party receivers send one).
    public init?(text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.hasPrefix("0x") || trimmed.hasPrefix("0X") {
            let digits = trimmed.dropFirst(2)
            guard (1...16).contains(digits.count), digits.allSatisfy(\.isHexDigit),
                  let value = UInt64(digits, radix: 16) else { return nil }
            rawValue = value
        } else {
            guard !trimmed.isEmpty, trimmed.allSatisfy(\.isASCII), let value = UInt64(trimmed) else { return nil }
            rawValue = value
        }
    }

    /// `0x` and upper-case hex digits without padding, as receivers advertise it.
    public var hex: String { String(format: "0x%llX", rawValue) }

    public func contains(_ flag: StatusFlag) -> Bool { rawValue & (1 << UInt64(flag.bit)) != 0 }

    /// The named flags that are set, by ascending bit.
    public var flags: [StatusFlag] { StatusFlag.allCases.filter(contains) }

    public var names: [String] { flags.map(\.name) }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let value = StatusFlags(text: text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath,
                                                    debugDescription: "not a hex status flags value: \(text)"))
        }
        self = value
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(hex)
    }
}
