import Foundation

/// EXT-X-DATERANGE: a span of time on the playlist's date timeline, with typed standard
/// attributes and the client-defined `X-` attributes kept with the type they were written in.
///
/// Standard attributes with a value of the wrong type are left nil here and reported in
/// `typeProblems`; the raw list in `attributes` always has everything as written.
public struct DateRange: Sendable, Equatable, Codable {
    public static let interstitialClass = "com.apple.hls.interstitial"

    public var id: String?
    public var classification: String?
    public var startDate: Date?
    /// START-DATE as written (kept so that an unparseable date can be named).
    public var startDateText: String?
    public var cue: EnumeratedList<CueToken>?
    public var endDate: Date?
    public var endDateText: String?
    public var duration: Double?
    public var plannedDuration: Double?
    public var endOnNext: Bool
    public var scte35Command: String?
    public var scte35Out: String?
    public var scte35In: String?
    /// Every `X-` attribute, by name, as written (quoted-string, hexadecimal-sequence or decimal).
    public var clientAttributes: [String: AttributeValue]
    public var attributes: AttributeList
    public var typeProblems: [AttributeProblem]
    /// START-DATE and END-DATE when written without a time zone: read as UTC, as players do.
    public var datesWithoutTimeZone: [String]
    public var line: Int

    public init(attributes: AttributeList, line: Int) {
        self.attributes = attributes
        self.line = line
        id = nil
        classification = nil
        startDate = nil
        startDateText = nil
        cue = nil
        endDate = nil
        endDateText = nil
        duration = nil
        plannedDuration = nil
        endOnNext = false
        scte35Command = nil
        scte35Out = nil
        scte35In = nil
        clientAttributes = [:]
        typeProblems = []
        datesWithoutTimeZone = []
        type()
    }

    public var isInterstitial: Bool { classification == Self.interstitialClass }

    /// The typed interstitial attributes, for CLASS="com.apple.hls.interstitial".
    public var interstitial: Interstitial? { isInterstitial ? Interstitial(self) : nil }

    /// `EXT-X-DATERANGE ID="ad1" (line 12)`: how findings and diagnostics name the tag.
    public var label: String {
        let name = id.map { "ID=\"\($0)\"" } ?? "without ID"
        return "EXT-X-DATERANGE \(name) (line \(line))"
    }

    /// END-DATE, or START-DATE + DURATION.
    public var effectiveEndDate: Date? {
        if let endDate { return endDate }
        if let startDate, let duration { return startDate.addingTimeInterval(duration) }
        return nil
    }

    private mutating func type() {
        for attribute in attributes.items {
            let value = attribute.value
            switch attribute.name {
            case "ID": id = string(attribute)
            case "CLASS": classification = string(attribute)
            case "START-DATE":
                startDateText = string(attribute)
                if let text = startDateText { startDate = date(attribute.name, text) }
            case "END-DATE":
                endDateText = string(attribute)
                if let text = endDateText { endDate = date(attribute.name, text) }
            case "CUE":
                if let text = string(attribute) { cue = EnumeratedList(text) }
            case "DURATION": duration = number(attribute)
            case "PLANNED-DURATION": plannedDuration = number(attribute)
            case "END-ON-NEXT":
                if value.enumeratedString == "YES" {
                    endOnNext = true
                } else {
                    typeProblems.append(.init(attribute: "END-ON-NEXT", kind: .unknownValue(value.text, allowed: ["YES"])))
                }
            case "SCTE35-CMD": scte35Command = hex(attribute)
            case "SCTE35-OUT": scte35Out = hex(attribute)
            case "SCTE35-IN": scte35In = hex(attribute)
            default:
                if attribute.name.hasPrefix("X-") {
                    clientAttributes[attribute.name] = value
                    if case .enumerated = value {
                        typeProblems.append(.init(attribute: attribute.name, kind: .wrongType(
                            expected: "quoted-string, hexadecimal-sequence or decimal-floating-point", actual: value.typeName)))
                    }
                }
            }
        }
    }

    /// A date without a time zone is read as UTC (Media3 does; the rule date-without-time-zone warns).
    private mutating func date(_ name: String, _ text: String) -> Date? {
        guard let read = HLSDate.parseAssumingUTC(text) else {
            typeProblems.append(.init(attribute: name, kind: .invalidDate(text)))
            return nil
        }
        if !read.hasTimeZone { datesWithoutTimeZone.append(name) }
        return read.date
    }

    private mutating func string(_ attribute: Attribute) -> String? {
        if let s = attribute.value.quotedString { return s }
        typeProblems.append(.init(attribute: attribute.name, kind: .wrongType(expected: "quoted-string", actual: attribute.value.typeName)))
        return nil
    }

    private mutating func number(_ attribute: Attribute) -> Double? {
        if let d = attribute.value.number { return d }
        typeProblems.append(.init(attribute: attribute.name, kind: .wrongType(expected: "decimal-floating-point", actual: attribute.value.typeName)))
        return nil
    }

    private mutating func hex(_ attribute: Attribute) -> String? {
        if case .hexadecimal(let s) = attribute.value { return s }
        typeProblems.append(.init(attribute: attribute.name, kind: .wrongType(expected: "hexadecimal-sequence", actual: attribute.value.typeName)))
        return nil
    }
}

/// Something wrong with one attribute's value: a fact for rules to grade, not a verdict.
public struct AttributeProblem: Sendable, Equatable, Codable {
    public enum Kind: Sendable, Equatable, Codable {
        case wrongType(expected: String, actual: String)
        case invalidDate(String)
        case negative(Double)
        case unknownValue(String, allowed: [String])
        case unknownTokens([String], allowed: [String])
        case invalidCharacters(String, allowed: String)
        case repeatedTokens([String])
    }

    public var attribute: String
    public var kind: Kind

    public init(attribute: String, kind: Kind) {
        self.attribute = attribute
        self.kind = kind
    }

    public var description: String {
        switch kind {
        case .wrongType(let expected, let actual): return "\(attribute) must be a \(expected), not a \(actual)"
        case .invalidDate(let text): return "\(attribute)=\"\(text)\" is not an ISO 8601 date (YYYY-MM-DDThh:mm:ss.sssZ)"
        case .negative(let value): return "\(attribute)=\(HLSNumber.format(value)) must not be negative"
        case .unknownValue(let value, let allowed):
            return "\(attribute)=\(value) is not one of \(allowed.joined(separator: ", "))"
        case .unknownTokens(let tokens, let allowed):
            return "\(attribute) has unknown token(s) \(tokens.joined(separator: ", ")) (known: \(allowed.joined(separator: ", ")))"
        case .invalidCharacters(let value, let allowed):
            return "\(attribute)=\"\(value)\" has characters outside \(allowed)"
        case .repeatedTokens(let tokens): return "\(attribute) repeats \(tokens.joined(separator: ", "))"
        }
    }
}

/// The tokens of an enumerated-string-list: the known ones typed, the unknown ones kept (clients
/// must ignore them, a linter must name them).
public struct EnumeratedList<Token: RawRepresentable & Hashable & Sendable & Codable & CaseIterable>: Sendable, Equatable, Codable
where Token.RawValue == String {
    public var tokens: [Token]
    public var unknown: [String]
    public var repeated: [String]

    public init(_ text: String) {
        tokens = []
        unknown = []
        repeated = []
        var seen: Set<String> = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let token = part.trimmingSpaces()
            if !seen.insert(token).inserted { repeated.append(token); continue }
            if let known = Token(rawValue: token) { tokens.append(known) } else { unknown.append(token) }
        }
    }

    public func contains(_ token: Token) -> Bool { tokens.contains(token) }

    public static var allowed: [String] { Token.allCases.map(\.rawValue) }
}

/// CUE tokens (rfc8216bis 4.4.5.1).
public enum CueToken: String, Sendable, Codable, CaseIterable { case pre = "PRE", post = "POST", once = "ONCE" }
