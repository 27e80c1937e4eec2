import Foundation

/// How the tool writes JSON, and reads back what it wrote (the matrix store): sorted keys,
/// unescaped slashes, and non-finite numbers (a broken file's frame rate, a hostile playlist's
/// duration) as the strings "inf", "-inf" and "nan", the only values JSON cannot hold.
public enum JSONDocument {
    public enum Dates: Sendable {
        /// Foundation's default (seconds since 2001), for data only the tool reads back.
        case numeric
        /// `2026-11-21T13:30:03Z`.
        case iso8601
        /// `2026-11-21T13:30:03.250Z`, as playlists write them.
        case iso8601Milliseconds
    }

    public static func encoder(pretty: Bool = true, dates: Dates = .numeric) -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = pretty ? [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        switch dates {
        case .numeric: break
        case .iso8601: encoder.dateEncodingStrategy = .iso8601
        case .iso8601Milliseconds:
            encoder.dateEncodingStrategy = .custom { date, encoder in
                var container = encoder.singleValueContainer()
                try container.encode(HLSDate.format(date))
            }
        }
        return encoder
    }

    /// The bytes `encoder(pretty:dates:).encode(value)` gives, written by `JSONDocumentWriter`
    /// (Foundation's encoder only for what that writer leaves to it).
    public static func encode<T: Encodable>(_ value: T, pretty: Bool = true, dates: Dates = .numeric) throws -> [UInt8] {
        if let bytes = try JSONDocumentWriter(pretty: pretty, dates: dates).encode(value) { return bytes }
        return Array(try encoder(pretty: pretty, dates: dates).encode(value))
    }

    /// Reads what `encoder(dates: .numeric)` wrote.
    public static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return decoder
    }
}
