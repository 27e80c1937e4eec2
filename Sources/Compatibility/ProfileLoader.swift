import Foundation
import HLS
import Yams

/// Why a device profile could not be used. Names the file, the field and the problem.
public enum ProfileError: Error, Sendable, Equatable, CustomStringConvertible {
    case directoryNotFound(String)
    case noProfiles(String)
    case unreadable(file: String, reason: String)
    case invalid(file: String, field: String, problem: String)
    case unknownProfile(String, available: [String])
    case duplicateId(String, files: [String])

    public var description: String {
        switch self {
        case .directoryNotFound(let dir):
            return "\(dir): device profile directory not found; pass --profiles-dir or set SEAMCHECK_PROFILES_DIR"
        case .noProfiles(let dir):
            return "\(dir): no device profiles (*.yaml) found"
        case .unreadable(let file, let reason):
            return "\(file): cannot read profile (\(reason))"
        case .invalid(let file, let field, let problem):
            return "\(file): \(BoundedText.clip(field)): \(BoundedText.clip(problem, maxBytes: 2_000))"
        case .unknownProfile(let id, let available):
            return "unknown device profile '\(id)'; available: \(available.joined(separator: ", "))"
        case .duplicateId(let id, let files):
            return "profile id '\(id)' is defined twice: \(files.joined(separator: ", "))"
        }
    }
}

/// Reads and validates device profiles. Unknown keys are errors: a typo must not silently
/// leave a rule at its default.
public enum ProfileLoader {
    static let topKeys: Set<String> = ["id", "name", "description", "plays", "rules", "sources", "match"]
    static let playsKeys: Set<String> = ["video", "videoCodecs", "maxWidth", "maxHeight", "maxFrameRate",
                                         "dynamicRanges", "audioCodecs", "maxChannels", "sampleRates"]
    static let dynamicRanges: Set<String> = ["SDR", "HDR10", "HLG", "DolbyVision"]

    /// All profiles of a directory, sorted by id.
    public static func loadDirectory(_ directory: String) throws(ProfileError) -> [DeviceProfile] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw .directoryNotFound(directory)
        }
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [])
            .filter { $0.hasSuffix(".yaml") || $0.hasSuffix(".yml") }
            .sorted()
        guard !names.isEmpty else { throw .noProfiles(directory) }
        var profiles: [DeviceProfile] = []
        var files: [String: String] = [:]
        for name in names {
            let path = PathText.appending(name, to: directory)
            let profile = try loadFile(path)
            if let other = files[profile.id] { throw .duplicateId(profile.id, files: [other, path]) }
            files[profile.id] = path
            profiles.append(profile)
        }
        return profiles.sorted { $0.id < $1.id }
    }

    public static func loadFile(_ path: String) throws(ProfileError) -> DeviceProfile {
        let text: String
        do { text = try TextFile.read(path) } catch { throw .unreadable(file: path, reason: error.reason) }
        let expectedId = PathText.deletingExtension(PathText.lastComponent(path))
        return try parse(text, file: path, expectedId: expectedId)
    }

    /// Parses one profile's YAML; `file` is only used in error messages.
    public static func parse(_ text: String, file: String, expectedId: String?) throws(ProfileError) -> DeviceProfile {
        let node: Node?
        do { node = try Yams.compose(yaml: text) } catch {
            throw .invalid(file: file, field: "(document)", problem: "not valid YAML: " + BoundedText.clip("\(error)"))
        }
        guard let mapping = node?.mapping else {
            throw .invalid(file: file, field: "(document)", problem: "expected a mapping with id, name, plays, rules")
        }
        try checkKeys(of: mapping, allowed: topKeys, file: file, prefix: "")
        if let plays = mapping["plays"]?.mapping {
            try checkKeys(of: plays, allowed: playsKeys, file: file, prefix: "plays.")
        }
        if let match = mapping["match"] {
            try ReceiverMatch.validate(match, file: file)
        }
        if let rules = mapping["rules"]?.mapping {
            for key in rules.keys.compactMap(\.string) where !RuleIdentifiers.all.contains(key) {
                throw .invalid(file: file, field: "rules.\(key)", problem: "unknown rule id\(Suggestion.text(for: key, in: RuleIdentifiers.all))")
            }
        }

        let profile: DeviceProfile
        do { profile = try YAMLDecoder().decode(DeviceProfile.self, from: text) } catch let error as DecodingError {
            throw describe(error, file: file)
        } catch {
            throw .invalid(file: file, field: "(document)", problem: "\(error)")
        }
        if let expectedId, profile.id != expectedId {
            throw .invalid(file: file, field: "id", problem: "'\(profile.id)' must equal the file name '\(expectedId)'")
        }
        for range in profile.plays.dynamicRanges where !dynamicRanges.contains(range) {
            throw .invalid(file: file, field: "plays.dynamicRanges",
                           problem: "'\(range)' is not one of \(dynamicRanges.sorted().joined(separator: ", "))")
        }
        if profile.plays.maxChannels < 1 {
            throw .invalid(file: file, field: "plays.maxChannels", problem: "must be at least 1")
        }
        if let rate = profile.plays.maxFrameRate, rate <= 0 {
            throw .invalid(file: file, field: "plays.maxFrameRate", problem: "must be positive")
        }
        return profile
    }

    private static func checkKeys(of mapping: Node.Mapping, allowed: Set<String>, file: String,
                                  prefix: String) throws(ProfileError) {
        for key in mapping.keys.compactMap(\.string) where !allowed.contains(key) {
            throw .invalid(file: file, field: prefix + key, problem: "unknown key\(Suggestion.text(for: key, in: allowed))")
        }
    }

    private static func describe(_ error: DecodingError, file: String) -> ProfileError {
        func path(_ context: DecodingError.Context, extra: String? = nil) -> String {
            let parts = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue } + (extra.map { [$0] } ?? [])
            return parts.isEmpty ? "(document)" : parts.joined(separator: ".").replacingOccurrences(of: ".[", with: "[")
        }
        switch error {
        case .keyNotFound(let key, let context):
            return .invalid(file: file, field: path(context, extra: key.stringValue), problem: "required key is missing")
        case .typeMismatch(let type, let context):
            return .invalid(file: file, field: path(context), problem: "expected \(readable(type))")
        case .valueNotFound(let type, let context):
            return .invalid(file: file, field: path(context), problem: "expected \(readable(type)), found nothing")
        case .dataCorrupted(let context):
            return .invalid(file: file, field: path(context), problem: context.debugDescription)
        @unknown default:
            return .invalid(file: file, field: "(document)", problem: "\(error)")
        }
    }

    private static func readable(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: return "a string"
        case is Int.Type: return "an integer"
        case is Double.Type: return "a number"
        case is Bool.Type: return "true or false"
        default: return String(describing: type).contains("Array") ? "a list" : "a mapping"
        }
    }
}
