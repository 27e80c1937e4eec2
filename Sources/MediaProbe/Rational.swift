import Foundation

/// An exact rate such as 30000/1001, encoded as the string "30000/1001".
public struct Rational: Codable, Sendable, Hashable, CustomStringConvertible {
    public let numerator: Int
    public let denominator: Int

    /// Reduces the fraction; a zero denominator is kept so that "unknown" stays visible.
    public init(_ numerator: Int, _ denominator: Int) {
        let g = gcd(abs(numerator), abs(denominator))
        let sign = denominator < 0 ? -1 : 1
        self.numerator = g > 0 ? sign * numerator / g : numerator
        self.denominator = g > 0 ? sign * denominator / g : denominator
    }

    public var doubleValue: Double? {
        denominator == 0 ? nil : Double(numerator) / Double(denominator)
    }

    public var description: String { "\(numerator)/\(denominator)" }

    public init(from decoder: Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let parsed = Rational(parsing: text, separator: "/") else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath,
                                                    debugDescription: "expected N/D, got \(text)"))
        }
        self = parsed
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(description)
    }

    init?(parsing text: String, separator: Character) {
        let parts = text.split(separator: separator)
        guard parts.count == 2, let n = Int(parts[0]), let d = Int(parts[1]) else { return nil }
        self.init(n, d)
    }
}

/// An aspect ratio such as 16:9, encoded as the string "16:9".
public struct Ratio: Codable, Sendable, Hashable, CustomStringConvertible {
    public let width: Int
    public let height: Int

    public init(_ width: Int, _ height: Int) {
        let g = gcd(abs(width), abs(height))
        self.width = g > 0 ? width / g : width
        self.height = g > 0 ? height / g : height
    }

    public var doubleValue: Double? { height == 0 ? nil : Double(width) / Double(height) }
    public var description: String { "\(width):\(height)" }

    /// Display aspect ratio: (width x SAR.num) : (height x SAR.den), reduced.
    public static func displayAspect(width: Int, height: Int, sar: Ratio) -> Ratio {
        Ratio(width * sar.width, height * sar.height)
    }

    public init(from decoder: Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        let parts = text.split(separator: ":")
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath,
                                                    debugDescription: "expected W:H, got \(text)"))
        }
        self.init(w, h)
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(description)
    }
}

func gcd(_ a: Int, _ b: Int) -> Int {
    var (x, y) = (a, b)
    while y != 0 { (x, y) = (y, x % y) }
    return x
}
