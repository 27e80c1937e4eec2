/// A device class: what its receivers play and how hard they take each transition.
///
/// Loaded from `DeviceProfiles/<id>.yaml`; the schema is documented in DeviceProfiles/README.md.
public struct DeviceProfile: Codable, Sendable, Equatable {
    public var id: String
    public var name: String
    public var description: String?
    public var plays: Capabilities
    /// Severity per rule id; a rule not listed here uses the rule's default severity.
    public var rules: [String: RuleSetting]
    /// Where the values come from (talks, specs, device documentation).
    public var sources: [String]?
    /// Which discovered receivers belong to this class (`seamcheck discover`); nil when none do
    /// by themselves, only receivers pinned to it in a lab inventory.
    public var match: ReceiverMatch?

    public init(id: String, name: String, description: String? = nil, plays: Capabilities,
                rules: [String: RuleSetting] = [:], sources: [String]? = nil, match: ReceiverMatch? = nil) {
        self.id = id
        self.name = name
        self.description = description
        self.plays = plays
        self.rules = rules
        self.sources = sources
        self.match = match
    }

    /// The severity this class gives `rule`, or nil when the profile turns the rule off.
    public func severity(for rule: RuleDescription) -> Severity? {
        severity(for: rule, default: rule.defaultSeverity)
    }

    /// The same, for a finding already graded `fallback` (class-independent findings).
    public func severity(for rule: RuleDescription, default fallback: Severity) -> Severity? {
        if rule.track == .video && !plays.video { return nil }
        switch rules[rule.id] {
        case .none: return fallback
        case .some(.off): return nil
        case .some(.severity(let severity)): return severity
        }
    }
}

/// What a device class can decode and render.
public struct Capabilities: Codable, Sendable, Equatable {
    /// False for audio-only receivers (speakers): video rules do not apply to them.
    public var video: Bool
    /// FFmpeg codec names: h264, hevc, aac, ac3, eac3, alac, flac...
    public var videoCodecs: [String]
    public var maxWidth: Int?
    public var maxHeight: Int?
    public var maxFrameRate: Double?
    public var dynamicRanges: [String]
    public var audioCodecs: [String]
    public var maxChannels: Int
    public var sampleRates: [Int]

    public init(video: Bool, videoCodecs: [String], maxWidth: Int?, maxHeight: Int?, maxFrameRate: Double?,
                dynamicRanges: [String], audioCodecs: [String], maxChannels: Int, sampleRates: [Int]) {
        self.video = video
        self.videoCodecs = videoCodecs
        self.maxWidth = maxWidth
        self.maxHeight = maxHeight
        self.maxFrameRate = maxFrameRate
        self.dynamicRanges = dynamicRanges
        self.audioCodecs = audioCodecs
        self.maxChannels = maxChannels
        self.sampleRates = sampleRates
    }
}

/// A profile's setting for one rule: a severity, or `off`.
public enum RuleSetting: Codable, Sendable, Equatable {
    case severity(Severity)
    case off

    public init(from decoder: Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        if text == "off" {
            self = .off
        } else if let severity = Severity(rawValue: text) {
            self = .severity(severity)
        } else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath,
                                                    debugDescription: "'\(text)' is not one of error, warning, info, off"))
        }
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .off: try c.encode("off")
        case .severity(let s): try c.encode(s.rawValue)
        }
    }
}
