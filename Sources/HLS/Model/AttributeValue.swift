/// One value of an attribute list, typed by its lexical form (draft-pantos-hls-rfc8216bis 4.2).
///
/// The lexical form decides the case, not the attribute name: `123` is `.decimal` even where a
/// tag expects a quoted-string. Tag handlers and rules check that the case is the one the
/// attribute's definition wants, so a wrong type is a diagnostic rather than a silent coercion.
public enum AttributeValue: Sendable, Hashable {
    /// The text between the quotes, variables already substituted.
    case quotedString(String)
    /// `0x` or `0X` followed by hex digits, as written.
    case hexadecimal(String)
    /// A decimal-integer or (signed) decimal-floating-point; `text` is as written.
    case decimal(Double, text: String)
    /// `WIDTHxHEIGHT`.
    case resolution(width: Int, height: Int)
    /// Any other unquoted token (YES, NO, AUDIO, PQ...).
    case enumerated(String)

    /// The name of the lexical type, as the spec spells it.
    public var typeName: String {
        switch self {
        case .quotedString: return "quoted-string"
        case .hexadecimal: return "hexadecimal-sequence"
        case .decimal(_, let text):
            return text.contains(".") || text.hasPrefix("-") ? "decimal-floating-point" : "decimal-integer"
        case .resolution: return "decimal-resolution"
        case .enumerated: return "enumerated-string"
        }
    }

    public var quotedString: String? {
        if case .quotedString(let s) = self { return s }
        return nil
    }

    public var number: Double? {
        if case .decimal(let d, _) = self { return d }
        return nil
    }

    /// A decimal-integer: digits only, no sign, no point.
    public var integer: Int? {
        guard case .decimal(_, let text) = self, !text.isEmpty, text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
        return Int(text)
    }

    public var enumeratedString: String? {
        if case .enumerated(let s) = self { return s }
        return nil
    }

    /// The value as it would be written in a playlist.
    public var text: String {
        switch self {
        case .quotedString(let s): return "\"\(s)\""
        case .hexadecimal(let s): return s
        case .decimal(_, let text): return text
        case .resolution(let w, let h): return "\(w)x\(h)"
        case .enumerated(let s): return s
        }
    }
}

extension AttributeValue: Codable {
    private enum CodingKeys: String, CodingKey { case type, value }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(typeName, forKey: .type)
        switch self {
        case .decimal(let d, _): try c.encode(d, forKey: .value)
        case .quotedString(let s), .hexadecimal(let s), .enumerated(let s): try c.encode(s, forKey: .value)
        case .resolution: try c.encode(text, forKey: .value)
        }
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let type = try c.decode(String.self, forKey: .type)
        switch type {
        case "quoted-string": self = .quotedString(try c.decode(String.self, forKey: .value))
        case "hexadecimal-sequence": self = .hexadecimal(try c.decode(String.self, forKey: .value))
        case "decimal-integer", "decimal-floating-point":
            let d = try c.decode(Double.self, forKey: .value)
            self = .decimal(d, text: d == d.rounded() && abs(d) < 1e15 ? String(Int(d)) : String(d))
        case "decimal-resolution":
            let text = try c.decode(String.self, forKey: .value)
            let parts = text.split(separator: "x").compactMap { Int($0) }
            guard parts.count == 2 else {
                throw DecodingError.dataCorruptedError(forKey: .value, in: c, debugDescription: "expected WIDTHxHEIGHT")
            }
            self = .resolution(width: parts[0], height: parts[1])
        default: self = .enumerated(try c.decode(String.self, forKey: .value))
        }
    }
}

/// A NAME=value pair of an attribute list.
public struct Attribute: Sendable, Hashable, Codable {
    public var name: String
    public var value: AttributeValue

    public init(name: String, value: AttributeValue) {
        self.name = name
        self.value = value
    }
}

/// An attribute list in the order written; lists are short, so lookup is a linear scan.
public struct AttributeList: Sendable, Hashable, Codable {
    public var items: [Attribute]

    public init(_ items: [Attribute] = []) { self.items = items }

    public subscript(name: String) -> AttributeValue? {
        for item in items where item.name == name { return item.value }
        return nil
    }

    public var names: [String] { items.map(\.name) }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(items)
    }

    public init(from decoder: Decoder) throws {
        items = try decoder.singleValueContainer().decode([Attribute].self)
    }
}

/// WIDTHxHEIGHT of RESOLUTION.
public struct Resolution: Sendable, Hashable, Codable, CustomStringConvertible {
    public var width: Int
    public var height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    public var description: String { "\(width)x\(height)" }
}

/// EXT-X-BYTERANGE or a BYTERANGE attribute: `length[@offset]`.
public struct ByteRange: Sendable, Hashable, Codable {
    public var length: Int
    /// nil: starts where the previous sub-range of the same resource ended.
    public var offset: Int?

    public init(length: Int, offset: Int?) {
        self.length = length
        self.offset = offset
    }
}
