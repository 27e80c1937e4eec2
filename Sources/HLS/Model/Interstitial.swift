import Foundation

/// The interstitial attributes of a DATERANGE with CLASS="com.apple.hls.interstitial"
/// (rfc8216bis Appendix D; Apple's "Getting Started with HLS Interstitials").
///
/// Values of the wrong type are nil and named in `problems`; unknown enumerated tokens are kept
/// in the lists' `unknown`. Defaults the spec gives for absent attributes are applied by the
/// `effective...` accessors, not stored, so that "absent" stays visible.
public struct Interstitial: Sendable, Equatable, Codable {
    public enum SnapToken: String, Sendable, Codable, CaseIterable { case out = "OUT", `in` = "IN" }
    public enum RestrictToken: String, Sendable, Codable, CaseIterable { case skip = "SKIP", jump = "JUMP" }
    public enum TimelineOccupies: String, Sendable, Codable, CaseIterable { case point = "POINT", range = "RANGE" }
    public enum TimelineStyle: String, Sendable, Codable, CaseIterable { case highlight = "HIGHLIGHT", primary = "PRIMARY" }

    public var id: String?
    public var startDate: Date?
    public var duration: Double?
    public var endDate: Date?
    public var plannedDuration: Double?
    public var assetURI: String?
    public var assetList: String?
    public var resumeOffset: Double?
    public var playoutLimit: Double?
    public var snap: EnumeratedList<SnapToken>?
    public var restrict: EnumeratedList<RestrictToken>?
    public var cue: EnumeratedList<CueToken>?
    /// True when `cue` comes from X-CUE, the pre-standard name hls.js and Media3 still read,
    /// because the tag has no CUE: it is scheduled as those players schedule it.
    public var cueFromXCue: Bool
    /// X-CONTENT-MAY-VARY: nil when absent or not YES/NO (the default is YES).
    public var contentMayVary: Bool?
    public var timelineOccupies: TimelineOccupies?
    public var timelineStyle: TimelineStyle?
    public var skipControlOffset: Double?
    public var skipControlDuration: Double?
    public var skipControlLabelID: String?
    /// X- attributes that are not interstitial attributes (vendor beacons and the like).
    public var vendorAttributes: [String: AttributeValue]
    public var problems: [AttributeProblem]
    public var line: Int

    public static let labelCharacters = "[A-Za-z_-]"

    public init(_ range: DateRange) {
        id = range.id
        startDate = range.startDate
        duration = range.duration
        endDate = range.endDate
        plannedDuration = range.plannedDuration
        cue = range.cue
        line = range.line
        vendorAttributes = [:]
        problems = []
        assetURI = nil; assetList = nil; resumeOffset = nil; playoutLimit = nil; snap = nil; restrict = nil
        contentMayVary = nil; timelineOccupies = nil; timelineStyle = nil
        skipControlOffset = nil; skipControlDuration = nil; skipControlLabelID = nil
        cueFromXCue = false
        if let cue { noteTokens(cue, attribute: "CUE") }
        // No attribute's reading depends on another's, so the dictionary's order gives the same
        // values; the problems are put in attribute-name order after (each attribute's own in
        // the order found), as reading them sorted did. Sorting every ad's attributes was a
        // third of reading it.
        let before = problems.count
        for (name, value) in range.clientAttributes { read(name, value) }
        if problems.count - before > 1 {
            let found = problems[before...].enumerated().sorted { a, b in
                a.element.attribute != b.element.attribute ? a.element.attribute < b.element.attribute : a.offset < b.offset
            }
            problems.replaceSubrange(before..., with: found.map(\.element))
        }
    }

    private mutating func read(_ name: String, _ value: AttributeValue) {
        switch name {
        case "X-ASSET-URI": assetURI = quoted(name, value)
        case "X-ASSET-LIST": assetList = quoted(name, value)
        case "X-RESUME-OFFSET": resumeOffset = number(name, value, signed: true)
        case "X-PLAYOUT-LIMIT": playoutLimit = number(name, value, signed: false)
        case "X-SNAP":
            if let text = quoted(name, value) { snap = EnumeratedList(text); noteTokens(snap!, attribute: name) }
        case "X-RESTRICT":
            if let text = quoted(name, value) { restrict = EnumeratedList(text); noteTokens(restrict!, attribute: name) }
        case "X-CONTENT-MAY-VARY":
            if let text = quoted(name, value) {
                switch text {
                case "YES": contentMayVary = true
                case "NO": contentMayVary = false
                default: problems.append(.init(attribute: name, kind: .unknownValue("\"\(text)\"", allowed: ["YES", "NO"])))
                }
            }
        case "X-TIMELINE-OCCUPIES": timelineOccupies = quotedEnum(name, value)
        case "X-TIMELINE-STYLE": timelineStyle = quotedEnum(name, value)
        case "X-SKIP-CONTROL-OFFSET": skipControlOffset = integer(name, value)
        case "X-SKIP-CONTROL-DURATION": skipControlDuration = integer(name, value)
        case "X-SKIP-CONTROL-LABEL-ID":
            if let text = quoted(name, value) {
                skipControlLabelID = text
                if !Self.isValidLabel(text) {
                    problems.append(.init(attribute: name, kind: .invalidCharacters(text, allowed: Self.labelCharacters)))
                }
            }
        case "X-CUE" where cue == nil:
            if let text = quoted(name, value) {
                cue = EnumeratedList(text)
                cueFromXCue = true
                noteTokens(cue!, attribute: name)
            }
        default: vendorAttributes[name] = value
        }
    }

    /// A SKIP-CONTROL label id (in the tag or an asset list): non-empty, from `labelCharacters`.
    public static func isValidLabel(_ text: String) -> Bool {
        !text.isEmpty && text.unicodeScalars.allSatisfy(isLabelCharacter)
    }

    static func isLabelCharacter(_ c: Unicode.Scalar) -> Bool {
        (c >= "A" && c <= "Z") || (c >= "a" && c <= "z") || c == "_" || c == "-"
    }

    private mutating func quoted(_ name: String, _ value: AttributeValue) -> String? {
        if let s = value.quotedString { return s }
        problems.append(.init(attribute: name, kind: .wrongType(expected: "quoted-string", actual: value.typeName)))
        return nil
    }

    private mutating func number(_ name: String, _ value: AttributeValue, signed: Bool) -> Double? {
        guard let d = value.number else {
            problems.append(.init(attribute: name, kind: .wrongType(expected: signed ? "signed-decimal-floating-point" : "decimal-floating-point", actual: value.typeName)))
            return nil
        }
        if !signed && d < 0 { problems.append(.init(attribute: name, kind: .negative(d))); return nil }
        return d
    }

    private mutating func integer(_ name: String, _ value: AttributeValue) -> Double? {
        guard let i = value.integer else {
            problems.append(.init(attribute: name, kind: .wrongType(expected: "decimal-integer", actual: value.typeName)))
            return nil
        }
        return Double(i)
    }

    private mutating func quotedEnum<T: RawRepresentable & CaseIterable>(_ name: String, _ value: AttributeValue) -> T? where T.RawValue == String {
        guard let text = quoted(name, value) else { return nil }
        if let known = T(rawValue: text) { return known }
        problems.append(.init(attribute: name, kind: .unknownValue("\"\(text)\"", allowed: T.allCases.map(\.rawValue))))
        return nil
    }

    private mutating func noteTokens<T>(_ list: EnumeratedList<T>, attribute: String) {
        if !list.unknown.isEmpty {
            problems.append(.init(attribute: attribute, kind: .unknownTokens(list.unknown, allowed: EnumeratedList<T>.allowed)))
        }
        if !list.repeated.isEmpty { problems.append(.init(attribute: attribute, kind: .repeatedTokens(list.repeated))) }
    }

    /// DURATION, else END-DATE minus START-DATE, else PLANNED-DURATION: the best length known.
    public var scheduledDuration: Double? {
        if let duration { return duration }
        if let endDate, let startDate { return endDate.timeIntervalSince(startDate) }
        return plannedDuration
    }

    public var isPreRoll: Bool { cue?.contains(.pre) ?? false }
    public var isPostRoll: Bool { cue?.contains(.post) ?? false }
    public var playsOnce: Bool { cue?.contains(.once) ?? false }
    public var restrictsSkip: Bool { restrict?.contains(.skip) ?? false }
    public var restrictsJump: Bool { restrict?.contains(.jump) ?? false }
    public var effectiveContentMayVary: Bool { contentMayVary ?? true }
    public var effectiveTimelineOccupies: TimelineOccupies { timelineOccupies ?? .point }
    public var effectiveTimelineStyle: TimelineStyle { timelineStyle ?? .highlight }

    /// `EXT-X-DATERANGE ID="ad1" (line 12)`.
    public var label: String {
        "EXT-X-DATERANGE " + (id.map { "ID=\"\($0)\"" } ?? "without ID") + " (line \(line))"
    }
}
