import Discovery
import Foundation
import Yams

/// A profile's `match` section: which discovered receivers belong to the class.
///
/// In YAML either one rule (a mapping) or a list of alternative rules; a receiver matches the
/// profile when any rule matches, and scores as its best matching rule (see `MatchRule`).
public struct ReceiverMatch: Codable, Sendable, Equatable {
    public var rules: [MatchRule]

    public init(rules: [MatchRule]) {
        self.rules = rules
    }

    public init(from decoder: any Decoder) throws {
        if let list = try? decoder.singleValueContainer().decode([MatchRule].self) {
            rules = list
        } else {
            rules = [try MatchRule(from: decoder)]
        }
    }

    public func encode(to encoder: any Encoder) throws {
        if rules.count == 1 {
            try rules[0].encode(to: encoder)
        } else {
            var container = encoder.singleValueContainer()
            try container.encode(rules)
        }
    }

    /// The best score of any rule for `facts`, with what matched; nil when no rule matches.
    public func evaluate(_ facts: ReceiverFacts) -> (score: Int, evidence: [String])? {
        rules.compactMap { $0.evaluate(facts) }.max { $0.score < $1.score }
    }
}

/// One rule of a `match` section. Every criterion given must hold; the score adds up what
/// each one is worth, so the rule that says more about a receiver wins:
///
/// | criterion | score |
/// |---|---|
/// | `models`, an exact identifier | 100 |
/// | `models`, a pattern with `*` | 50 + its literal characters (at most 49) |
/// | `manufacturers` | 40 |
/// | `hdrFormats`, per format (needs `--info`) | 30 |
/// | `features`, per bit | 10 |
/// | `video` | 5 |
/// | `services` | 5 |
///
/// `features` and `video` never match a receiver whose features are unknown (a missing or
/// malformed `features` key), and `hdrFormats` never matches without `/info`. The evidence
/// names the TXT record and key (or `/info`) each fact came from, and the bits by number.
public struct MatchRule: Codable, Sendable, Equatable {
    /// Model identifiers or patterns (`AppleTV6,2`, `AppleTV11,*`); any may match. Compared
    /// case-insensitively; `*` stands for any run of characters.
    public var models: [String]?
    /// Manufacturer names; any may match (case-insensitive). Apple devices count as "Apple".
    public var manufacturers: [String]?
    /// Feature bits that must all be set, by name (`SupportsAirPlayVideoV2`) or number (`49`).
    public var features: [String]?
    /// Whether the receiver plays video (feature bit 0 or 49); false for audio-only receivers.
    public var video: Bool?
    /// HDR formats (`HDR10`, `HLG`, `DolbyVision`) that `/info` must report for some display.
    public var hdrFormats: [String]?
    /// The DNS-SD service types the receiver advertises, exactly (any order):
    /// `[_raop._tcp]` holds for a receiver with a RAOP record and no AirPlay one.
    public var services: [String]?

    public init(models: [String]? = nil, manufacturers: [String]? = nil, features: [String]? = nil,
                video: Bool? = nil, hdrFormats: [String]? = nil, services: [String]? = nil) {
        self.models = models
        self.manufacturers = manufacturers
        self.features = features
        self.video = video
        self.hdrFormats = hdrFormats
        self.services = services
    }

    private enum CodingKeys: String, CodingKey, CaseIterable {
        case models, manufacturers, features, video, hdrFormats, services
    }

    static let keys = Set(CodingKeys.allCases.map(\.rawValue))
    static let hdrFormatNames = ["HDR10", "HLG", "DolbyVision"]
    static let serviceTypes = ["_airplay._tcp", "_raop._tcp"]

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        models = try container.decodeIfPresent([String].self, forKey: .models)
        manufacturers = try container.decodeIfPresent([String].self, forKey: .manufacturers)
        // YAML gives bit numbers as integers and names as strings.
        features = try container.decodeIfPresent([FeatureText].self, forKey: .features)?.map(\.text)
        video = try container.decodeIfPresent(Bool.self, forKey: .video)
        hdrFormats = try container.decodeIfPresent([String].self, forKey: .hdrFormats)
        services = try container.decodeIfPresent([String].self, forKey: .services)
    }

    private struct FeatureText: Decodable {
        var text: String
        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let number = try? container.decode(Int.self) { text = String(number) } else { text = try container.decode(String.self) }
        }
    }

    /// The score and the evidence when every criterion holds for `facts`; nil otherwise.
    public func evaluate(_ facts: ReceiverFacts) -> (score: Int, evidence: [String])? {
        var score = 0
        var evidence: [String] = []
        if let models {
            guard let model = facts.model,
                  let best = models.filter({ Self.glob($0, matches: model) }).map({ ($0, Self.modelScore($0)) }).max(by: { $0.1 < $1.1 })
            else { return nil }
            score += best.1
            let seen = facts.modelSource ?? "model \(model)"
            evidence.append(best.0.contains("*") ? "\(seen) ~ \(best.0)" : seen)
        }
        if let manufacturers {
            guard let manufacturer = facts.manufacturer,
                  manufacturers.contains(where: { $0.caseInsensitiveCompare(manufacturer) == .orderedSame }) else { return nil }
            score += 40
            evidence.append("manufacturer \(manufacturer)")
        }
        if let hdrFormats {
            guard let reported = facts.hdrFormats, hdrFormats.allSatisfy(reported.contains) else { return nil }
            score += 30 * hdrFormats.count
            evidence.append("/info reports \(hdrFormats.joined(separator: ", "))")
        }
        if let features {
            guard let known = facts.features else { return nil }
            let bits = features.compactMap(Self.featureBit)
            guard bits.count == features.count, bits.allSatisfy(known.contains(bit:)) else { return nil }
            score += 10 * bits.count
            let named = bits.map(Self.bitText).joined(separator: ", ")
            evidence.append((facts.featuresSource.map { "\($0): " } ?? "") + (bits.count == 1 ? "bit " : "bits ") + named + " set")
        }
        if let video {
            guard let plays = facts.video, plays == video else { return nil }
            score += 5
            let setBits = [AirPlayFeature.supportsAirPlayVideoV1, .supportsAirPlayVideoV2]
                .filter { facts.features?.contains($0) ?? false }.map { Self.bitText($0.bit) }
            let prefix = features == nil ? (facts.featuresSource.map { "\($0): " } ?? "") : ""
            evidence.append(prefix + (video
                ? "plays video" + (setBits.isEmpty ? "" : " (bit \(setBits.joined(separator: ", ")) set)")
                : "no URL video (bits 0 SupportsAirPlayVideoV1 and 49 SupportsAirPlayVideoV2 clear)"))
        }
        if let services {
            guard let seen = facts.services, Set(seen) == Set(services) else { return nil }
            score += 5
            evidence.append(Set(services) == ["_raop._tcp"]
                ? "only a _raop._tcp record, no _airplay._tcp (RAOP carries audio only)"
                : "services " + seen.joined(separator: " + "))
        }
        return (score, evidence)
    }

    /// `7 SupportsAirPlayScreen`, or the bare number for a bit without a name.
    static func bitText(_ bit: Int) -> String {
        AirPlayFeature(rawValue: bit).map { "\(bit) \($0.name)" } ?? String(bit)
    }

    static func modelScore(_ pattern: String) -> Int {
        pattern.contains("*") ? 50 + min(49, pattern.filter { $0 != "*" }.count) : 100
    }

    /// Case-insensitive glob with `*` as the only wildcard.
    static func glob(_ pattern: String, matches text: String) -> Bool {
        Glob.matches(pattern, text, caseInsensitive: true)
    }

    /// The bit of a `features` entry: a name from `AirPlayFeature` (any case) or a number 0...255.
    static func featureBit(_ text: String) -> Int? {
        if let number = Int(text) { return (0...255).contains(number) ? number : nil }
        return AirPlayFeature.allCases.first { $0.name.caseInsensitiveCompare(text) == .orderedSame }?.bit
    }
}

extension ReceiverMatch {
    /// Checks a `match` node before decoding: its shape, unknown keys, and each value. Errors
    /// name the field (`match.features[1]`, `match[0].models`).
    static func validate(_ node: Node, file: String) throws(ProfileError) {
        switch node {
        case .mapping(let mapping):
            try validateRule(mapping, file: file, prefix: "match")
        case .sequence(let sequence):
            guard !sequence.isEmpty else { throw .invalid(file: file, field: "match", problem: "give at least one rule") }
            for (index, element) in sequence.enumerated() {
                guard let mapping = element.mapping else {
                    throw .invalid(file: file, field: "match[\(index)]", problem: "expected a mapping of criteria (models, manufacturers, ...)")
                }
                try validateRule(mapping, file: file, prefix: "match[\(index)]")
            }
        default:
            throw .invalid(file: file, field: "match", problem: "expected a mapping of criteria, or a list of them")
        }
    }

    private static func validateRule(_ mapping: Node.Mapping, file: String, prefix: String) throws(ProfileError) {
        for key in mapping.keys.compactMap(\.string) where !MatchRule.keys.contains(key) {
            throw .invalid(file: file, field: "\(prefix).\(key)", problem: "unknown key\(Suggestion.text(for: key, in: MatchRule.keys))")
        }
        guard !mapping.isEmpty else {
            throw .invalid(file: file, field: prefix, problem: "give at least one of \(MatchRule.keys.sorted().joined(separator: ", "))")
        }
        func list(_ key: String) throws(ProfileError) -> [String]? {
            guard let node = mapping[key] else { return nil }
            guard let items = node.sequence, !items.isEmpty else {
                throw .invalid(file: file, field: "\(prefix).\(key)", problem: "expected a non-empty list")
            }
            var values: [String] = []
            for (index, item) in items.enumerated() {
                guard let text = item.scalar?.string.trimmingCharacters(in: .whitespaces), !text.isEmpty else {
                    throw .invalid(file: file, field: "\(prefix).\(key)[\(index)]", problem: "expected a non-empty string")
                }
                values.append(text)
            }
            return values
        }
        for (index, model) in (try list("models") ?? []).enumerated() where model.allSatisfy({ $0 == "*" }) {
            throw .invalid(file: file, field: "\(prefix).models[\(index)]",
                           problem: "'\(model)' matches every model; leave models out instead")
        }
        _ = try list("manufacturers")
        for (index, feature) in (try list("features") ?? []).enumerated() where MatchRule.featureBit(feature) == nil {
            let names = Set(AirPlayFeature.allCases.map(\.name))
            throw .invalid(file: file, field: "\(prefix).features[\(index)]",
                           problem: "'\(feature)' is neither a feature name\(Suggestion.text(for: feature, in: names)) nor a bit number 0-255")
        }
        for (index, format) in (try list("hdrFormats") ?? []).enumerated() where !MatchRule.hdrFormatNames.contains(format) {
            throw .invalid(file: file, field: "\(prefix).hdrFormats[\(index)]",
                           problem: "'\(format)' is not one of \(MatchRule.hdrFormatNames.joined(separator: ", "))")
        }
        for (index, type) in (try list("services") ?? []).enumerated() where !MatchRule.serviceTypes.contains(type) {
            throw .invalid(file: file, field: "\(prefix).services[\(index)]",
                           problem: "'\(type)' is not one of \(MatchRule.serviceTypes.joined(separator: ", "))")
        }
        if let video = mapping["video"], video.bool == nil {
            throw .invalid(file: file, field: "\(prefix).video", problem: "expected true or false")
        }
    }
}
