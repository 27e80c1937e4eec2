import Compatibility
import Foundation
import HLS
import MediaProbe
import Yams

/// Why a project file cannot be used. Names the file, the key and the problem.
public enum ProjectConfigError: Error, Sendable, Equatable, CustomStringConvertible {
    case unreadable(file: String, reason: String)
    case invalid(file: String, field: String, problem: String)

    public var description: String {
        switch self {
        case .unreadable(let file, let reason): return "\(file): cannot read the project file (\(reason))"
        case .invalid(let file, let field, let problem): return "\(file): \(field): \(problem)"
        }
    }

    init(_ error: MatrixSpecError) {
        switch error {
        case .unreadable(let file, let reason): self = .unreadable(file: file, reason: reason)
        case .invalid(let file, let field, let problem): self = .invalid(file: file, field: field, problem: problem)
        }
    }
}

/// Reads and checks `.seamcheck.yml`. Every mistake is an error naming the file and the key:
/// unknown keys, rule ids and device classes (with a "did you mean"), bad values, accepted
/// entries whose patterns match no rule or class, or that give no reason.
public enum ProjectConfigLoader {
    static let topKeys = ["profiles", "failOn", "timeout", "rules", "accepted"]
    static let acceptedKeys = ["rule", "class", "subject", "url", "case", "reason"]
    static let settingNames = ["off", "info", "warning", "error"]

    /// Every rule id a project file may name: docs/interface.md's and the catalog's.
    public static var knownRules: [String] {
        Array(RuleIdentifiers.all.union(RuleCatalog.allDescriptions.map(\.id))).sorted()
    }

    /// What `lab run --fail-on` finds (LabCore's `LabGateCondition.rules`): `accepted` entries may name them.
    public static let labGateRules = ["lab-failed", "lab-stall", "lab-regression"]

    /// `explicit` (`--config`), else `.seamcheck.yml` in `directory` when there is one, else nil.
    public static func locate(explicit: String?, directory: String = FileManager.default.currentDirectoryPath) -> String? {
        if let explicit { return explicit }
        let path = (directory as NSString).appendingPathComponent(ProjectConfig.defaultFileName)
        return FileManager.default.fileExists(atPath: path) ? path : nil
    }

    /// Reads `path`; `knownProfiles` are the device class ids it may name (nil: not checked,
    /// for `lint`, which may run where there are no profiles).
    public static func load(_ path: String, knownProfiles: [String]?) throws(ProjectConfigError) -> ProjectConfig {
        let text: String
        do { text = try TextFile.read(path) } catch { throw .unreadable(file: path, reason: error.reason) }
        do { return try parse(text, file: path, knownProfiles: knownProfiles) } catch { throw ProjectConfigError(error) }
    }

    public static func parse(_ text: String, file: String, knownProfiles: [String]?) throws(MatrixSpecError) -> ProjectConfig {
        let reader = NodeReader(file: file)
        let root: Node?
        do { root = try Yams.compose(yaml: text) } catch {
            throw .invalid(file: file, field: "(document)", problem: "not valid YAML: " + BoundedText.clip("\(error)"))
        }
        var config = ProjectConfig(file: file)
        // An empty file (or only comments) is a project file with every default.
        guard let root else { return config }
        guard let top = root.mapping else {
            throw .invalid(file: file, field: "(document)", problem: "expected a mapping of \(topKeys.joined(separator: ", "))")
        }
        try reader.checkKeys(top, allowed: topKeys, prefix: "")
        if let node = top["profiles"] {
            var ids: [String] = []
            for (index, item) in try reader.sequence(node, field: "profiles").enumerated() {
                let id = try reader.string(item, field: "profiles[\(index)]")
                try checkClass(id, field: "profiles[\(index)]", knownProfiles: knownProfiles, reader: reader)
                if !ids.contains(id) { ids.append(id) }
            }
            guard !ids.isEmpty else { throw reader.invalid("profiles", "list at least one device class, or remove the key") }
            config.profiles = ids
        }
        if let value = try reader.optionalString(top, "failOn", prefix: "") {
            guard let threshold = FailThreshold(rawValue: value) else {
                throw reader.invalid("failOn", "'\(value)' is not one of error, warning, info, never"
                    + Suggestion.text(for: value, in: FailThreshold.allCases.map(\.rawValue)))
            }
            config.failOn = threshold
        }
        if let timeout = try reader.optionalNumber(top, "timeout", prefix: "") {
            guard timeout > 0, timeout <= ProbeOptions.maxTimeout else {
                throw reader.invalid("timeout", "must be a positive number of seconds, at most \(Int(ProbeOptions.maxTimeout))")
            }
            config.timeout = timeout
        }
        if let node = top["rules"], !isNull(node) { config.rules = try parseRules(node, reader: reader, knownProfiles: knownProfiles) }
        if let node = top["accepted"], !isNull(node) { config.accepted = try parseAccepted(node, reader: reader, knownProfiles: knownProfiles) }
        return config
    }

    /// `rules:` with nothing under it (as `config init` writes it) is an empty section.
    private static func isNull(_ node: Node) -> Bool {
        guard let scalar = node.scalar, scalar.style == .plain else { return false }
        return ["", "~", "null"].contains(scalar.string)
    }

    private static func parseRules(_ node: Node, reader: NodeReader, knownProfiles: [String]?) throws(MatrixSpecError) -> RuleOverrides {
        var overrides = RuleOverrides()
        let rules = knownRules
        for (key, value) in try reader.mapping(node, field: "rules") {
            guard let id = key.string else { throw reader.invalid("rules.(key)", "keys must be rule ids") }
            guard rules.contains(id) else {
                throw reader.invalid("rules.\(id)", "unknown rule id\(Suggestion.text(for: id, in: rules)); `seamcheck rules list` shows them")
            }
            if value.scalar != nil {
                overrides.everyClass[id] = try setting(value, field: "rules.\(id)", reader: reader)
                continue
            }
            guard let perClass = value.mapping else {
                throw reader.invalid("rules.\(id)", "expected off, info, warning or error, or a mapping of device class to one of them")
            }
            for (classKey, classValue) in perClass {
                guard let deviceClass = classKey.string else { throw reader.invalid("rules.\(id).(key)", "keys must be device class ids") }
                let field = "rules.\(id).\(deviceClass)"
                try checkClass(deviceClass, field: field, knownProfiles: knownProfiles, reader: reader)
                overrides.perClass[id, default: [:]][deviceClass] = try setting(classValue, field: field, reader: reader)
            }
        }
        return overrides
    }

    private static func setting(_ node: Node, field: String, reader: NodeReader) throws(MatrixSpecError) -> RuleSetting {
        let text = try reader.string(node, field: field)
        switch text {
        case "off": return .off
        default:
            guard let severity = Severity(rawValue: text) else {
                throw reader.invalid(field, "'\(text)' is not one of off, info, warning, error" + Suggestion.text(for: text, in: settingNames))
            }
            return .severity(severity)
        }
    }

    private static func checkClass(_ id: String, field: String, knownProfiles: [String]?, reader: NodeReader) throws(MatrixSpecError) {
        guard let knownProfiles, !knownProfiles.contains(id) else { return }
        throw reader.invalid(field, "unknown device class '\(id)'\(Suggestion.text(for: id, in: knownProfiles)); "
            + "available: \(knownProfiles.joined(separator: ", "))")
    }

    private static func parseAccepted(_ node: Node, reader: NodeReader, knownProfiles: [String]?) throws(MatrixSpecError) -> [ExpectedIssue] {
        var entries: [ExpectedIssue] = []
        for (index, item) in try reader.sequence(node, field: "accepted").enumerated() {
            let field = "accepted[\(index)]"
            let map = try reader.mapping(item, field: field)
            try reader.checkKeys(map, allowed: acceptedKeys, prefix: field + ".")
            let rule = try reader.requiredString(map, "rule", prefix: field + ".")
            let deviceClass = try reader.optionalString(map, "class", prefix: field + ".") ?? "*"
            let reason = try reader.requiredString(map, "reason", prefix: field + ".")
            for (key, pattern, names, what) in [("rule", rule, knownRules + labGateRules, "rule id"), ("class", deviceClass, knownProfiles ?? [deviceClass], "device class")]
            where !names.contains(where: { Glob.matches(pattern, $0) }) {
                let hint = pattern.contains("*") ? "" : Suggestion.text(for: pattern, in: names)
                throw reader.invalid("\(field).\(key)", "'\(pattern)' matches no \(what)\(hint)")
            }
            entries.append(ExpectedIssue(caseId: try reader.optionalString(map, "case", prefix: field + ".") ?? "*", rule: rule,
                                         deviceClass: deviceClass, reason: reason,
                                         subject: try reader.optionalString(map, "subject", prefix: field + "."),
                                         url: try reader.optionalString(map, "url", prefix: field + "."),
                                         origin: "\(reader.file): \(field)"))
        }
        return entries
    }
}
