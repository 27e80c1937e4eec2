/// How much a finding matters on a device class: error (a stall or a broken MUST), warning, info.
public enum Severity: String, Codable, Sendable, CaseIterable, Comparable {
    case info
    case warning
    case error

    private var rank: Int {
        switch self {
        case .info: return 0
        case .warning: return 1
        case .error: return 2
        }
    }

    public static func < (lhs: Severity, rhs: Severity) -> Bool { lhs.rank < rhs.rank }
}

/// One thing a rule found: on which device class, about what, what was expected and seen.
public struct Finding: Codable, Sendable, Hashable {
    public var rule: String
    public var severity: Severity
    /// The device class id; nil for rules that do not depend on a receiver (spec rules).
    public var deviceClass: String?
    /// What the finding is about: an asset, a track, a tag.
    public var subject: String
    public var expected: String?
    public var actual: String?
    public var message: String
    /// The encoder setting (ffmpeg arguments) that would make the interstitial match, when there is one.
    public var remediation: String?
    /// The playlist and line of the tag, for spec findings; nil for findings about media.
    public var location: SourceLocation?
    /// Why the project accepts this finding (an `accepted` entry of `.seamcheck.yml`); nil when
    /// it is open. An accepted finding is reported but never fails a run.
    public var accepted: String?

    public init(rule: String, severity: Severity, deviceClass: String?, subject: String, expected: String?,
                actual: String?, message: String, remediation: String?, location: SourceLocation? = nil, accepted: String? = nil) {
        self.rule = rule
        self.severity = severity
        self.deviceClass = deviceClass
        self.subject = subject
        self.expected = expected
        self.actual = actual
        self.message = message
        self.remediation = remediation
        self.location = location
        self.accepted = accepted
    }

    enum CodingKeys: String, CodingKey {
        case rule, severity, deviceClass, subject, expected, actual, message, remediation, location, accepted
    }

    // Nulls are written out: scripts test `remediation == null` rather than key presence.
    // Written key by key, not with `encodeEveryKey` (reflection): a lint of 1,000 breaks writes
    // a finding each, and the reflection was a fifth of the whole run. EveryKeyEncodingTests
    // checks that every stored property is written.
    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(rule, forKey: .rule)
        try c.encode(severity, forKey: .severity)
        try c.encode(deviceClass, forKey: .deviceClass)
        try c.encode(subject, forKey: .subject)
        try c.encode(expected, forKey: .expected)
        try c.encode(actual, forKey: .actual)
        try c.encode(message, forKey: .message)
        try c.encode(remediation, forKey: .remediation)
        try c.encode(location, forKey: .location)
        try c.encode(accepted, forKey: .accepted)
    }

    /// Open: not accepted by the project configuration.
    public var isOpen: Bool { accepted == nil }
}

/// Where in a playlist a finding points: the playlist's path or URL, and the tag's line.
public struct SourceLocation: Codable, Sendable, Hashable {
    /// A local path or an http(s) URL, as the playlist was loaded.
    public var uri: String
    /// 1-based; nil when the finding is about the playlist as a whole.
    public var line: Int?

    public init(uri: String, line: Int?) {
        self.uri = uri
        self.line = line
    }
}

/// Counts of findings by severity, as in the JSON `summary` object.
public struct FindingSummary: Codable, Sendable, Equatable {
    public var error: Int
    public var warning: Int
    public var info: Int
    /// Findings the project configuration accepts; they are not in the three counts above.
    public var accepted: Int

    public init(_ findings: [Finding]) {
        let open = findings.filter(\.isOpen)
        error = open.filter { $0.severity == .error }.count
        warning = open.filter { $0.severity == .warning }.count
        info = open.filter { $0.severity == .info }.count
        accepted = findings.count - open.count
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        error = try c.decode(Int.self, forKey: .error)
        warning = try c.decode(Int.self, forKey: .warning)
        info = try c.decode(Int.self, forKey: .info)
        // Documents written before accepted findings existed have no count.
        accepted = try c.decodeIfPresent(Int.self, forKey: .accepted) ?? 0
    }

    /// The most severe level present, if any.
    public var highest: Severity? {
        error > 0 ? .error : warning > 0 ? .warning : info > 0 ? .info : nil
    }
}

/// `--fail-on` and a matrix's `failOn`: the lowest severity that fails an audit, a lint or a matrix cell: `error`, `warning`, `info` or `never`.
public enum FailThreshold: String, Sendable, Codable, CaseIterable {
    case error, warning, info, never

    public var severity: Severity? {
        switch self {
        case .error: return .error
        case .warning: return .warning
        case .info: return .info
        case .never: return nil
        }
    }
}
