import Compatibility
import Foundation
import MediaProbe
import HLS
import Yams

/// Reads and checks a matrix file (docs/matrix.md). Every mistake is an error naming the file
/// and the field: unknown keys (with a "did you mean"), unknown profiles and rules, duplicate
/// case ids, unparsable inputs, expected issues that match nothing.
///
/// Inputs are parsed, not opened: an unreachable input is an `error` cell of the run, not a
/// reason to refuse the file.
public enum MatrixSpecLoader {
    static let topKeys = ["name", "defaults", "deviceClasses", "discovery", "cases", "expectedIssues"]
    static let defaultsKeys = ["failOn", "timeout", "jobs"]
    static let discoveryKeys = ["inventory", "timeout", "interface"]
    static let caseKeys = ["id", "primary", "interstitials", "playlist", "tags"]
    static let issueKeys = ["case", "rule", "class", "reason"]

    /// Reads `path`; `knownProfiles` are the profile ids `deviceClasses` may name.
    public static func load(_ path: String, knownProfiles: [String]) throws(MatrixSpecError) -> MatrixSpec {
        let text: String
        do { text = try TextFile.read(path) } catch { throw .unreadable(file: path, reason: error.reason) }
        let directory = URL(fileURLWithPath: path).standardizedFileURL.deletingLastPathComponent().path
        return try parse(text, file: path, baseDirectory: directory, knownProfiles: knownProfiles)
    }

    /// Parses a matrix; `file` names it in messages, `baseDirectory` anchors relative inputs.
    public static func parse(_ text: String, file: String, baseDirectory: String,
                             knownProfiles: [String]) throws(MatrixSpecError) -> MatrixSpec {
        let reader = NodeReader(file: file)
        let root: Node?
        do { root = try Yams.compose(yaml: text) } catch {
            throw .invalid(file: file, field: "(document)", problem: "not valid YAML: " + BoundedText.clip("\(error)"))
        }
        guard let root, let top = root.mapping else {
            throw .invalid(file: file, field: "(document)", problem: "expected a mapping with name, deviceClasses and cases")
        }
        try reader.checkKeys(top, allowed: topKeys, prefix: "")
        let name = try reader.requiredString(top, "name", prefix: "")
        let defaults = try parseDefaults(top["defaults"], reader: reader)
        let classes = try parseClasses(top["deviceClasses"], reader: reader, knownProfiles: knownProfiles)
        var discovery: DiscoverySettings?
        if let node = top["discovery"] {
            discovery = try parseDiscovery(node, reader: reader, baseDirectory: baseDirectory)
        }
        let cases = try parseCases(top["cases"], reader: reader, baseDirectory: baseDirectory)
        let classNames = classes.contains(.discovered) ? knownProfiles : classes.map(\.description)
        let issues = try parseIssues(top["expectedIssues"], reader: reader, caseIds: cases.map(\.id), classes: classNames)
        return MatrixSpec(name: name, file: file, defaults: defaults, deviceClasses: classes, discovery: discovery,
                          cases: cases, expectedIssues: issues)
    }

    private static func parseDefaults(_ node: Node?, reader: NodeReader) throws(MatrixSpecError) -> MatrixDefaults {
        var defaults = MatrixDefaults()
        guard let node else { return defaults }
        let map = try reader.mapping(node, field: "defaults")
        try reader.checkKeys(map, allowed: defaultsKeys, prefix: "defaults.")
        if let value = try reader.optionalString(map, "failOn", prefix: "defaults.") {
            guard let threshold = FailThreshold(rawValue: value) else {
                throw reader.invalid("defaults.failOn", "'\(value)' is not one of error, warning, info, never"
                    + Suggestion.text(for: value, in: FailThreshold.allCases.map(\.rawValue)))
            }
            defaults.failOn = threshold
        }
        if let timeout = try reader.optionalNumber(map, "timeout", prefix: "defaults.") {
            guard timeout > 0, timeout <= ProbeOptions.maxTimeout else {
                throw reader.invalid("defaults.timeout", "must be a positive number of seconds, at most \(Int(ProbeOptions.maxTimeout))")
            }
            defaults.timeout = timeout
        }
        if let jobs = try reader.optionalNumber(map, "jobs", prefix: "defaults.") {
            guard jobs >= 1, jobs == jobs.rounded(), jobs <= 256 else {
                throw reader.invalid("defaults.jobs", "must be a whole number from 1 to 256")
            }
            defaults.jobs = Int(jobs)
        }
        return defaults
    }

    private static func parseClasses(_ node: Node?, reader: NodeReader,
                                     knownProfiles: [String]) throws(MatrixSpecError) -> [DeviceClassSelector] {
        guard let node else {
            throw reader.invalid("deviceClasses", "required key is missing; list profile ids (\(knownProfiles.joined(separator: ", "))) or discovered")
        }
        let items = try reader.sequence(node, field: "deviceClasses")
        guard !items.isEmpty else { throw reader.invalid("deviceClasses", "list at least one profile id or discovered") }
        var selectors: [DeviceClassSelector] = []
        for (index, item) in items.enumerated() {
            let field = "deviceClasses[\(index)]"
            let id = try reader.string(item, field: field)
            let selector: DeviceClassSelector = id == "discovered" ? .discovered : .profile(id)
            if case .profile = selector, !knownProfiles.contains(id) {
                throw reader.invalid(field, "unknown device profile '\(id)'"
                    + Suggestion.text(for: id, in: knownProfiles + ["discovered"])
                    + "; available: \(knownProfiles.joined(separator: ", ")), discovered")
            }
            guard !selectors.contains(selector) else { throw reader.invalid(field, "'\(id)' is listed twice") }
            selectors.append(selector)
        }
        return selectors
    }

    private static func parseDiscovery(_ node: Node, reader: NodeReader,
                                       baseDirectory: String) throws(MatrixSpecError) -> DiscoverySettings {
        let map = try reader.mapping(node, field: "discovery")
        try reader.checkKeys(map, allowed: discoveryKeys, prefix: "discovery.")
        var settings = DiscoverySettings()
        if let inventory = try reader.optionalString(map, "inventory", prefix: "discovery.") {
            settings.inventory = inventory.hasPrefix("/") ? inventory : baseDirectory + "/" + inventory
        }
        if let timeout = try reader.optionalNumber(map, "timeout", prefix: "discovery.") {
            guard timeout > 0, timeout <= ProbeOptions.maxTimeout else {
                throw reader.invalid("discovery.timeout", "must be a positive number of seconds, at most \(Int(ProbeOptions.maxTimeout))")
            }
            settings.timeout = timeout
        }
        settings.interface = try reader.optionalString(map, "interface", prefix: "discovery.")
        return settings
    }

    private static func parseCases(_ node: Node?, reader: NodeReader,
                                   baseDirectory: String) throws(MatrixSpecError) -> [MatrixCase] {
        guard let node else { throw reader.invalid("cases", "required key is missing; list the cases to run") }
        let items = try reader.sequence(node, field: "cases")
        guard !items.isEmpty else { throw reader.invalid("cases", "list at least one case") }
        var cases: [MatrixCase] = []
        var fields: [String: String] = [:]
        for (index, item) in items.enumerated() {
            let field = "cases[\(index)]"
            let map = try reader.mapping(item, field: field)
            try reader.checkKeys(map, allowed: caseKeys, prefix: field + ".")
            let id = try reader.requiredString(map, "id", prefix: field + ".")
            guard id.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "._-/:".contains($0)) }) else {
                throw reader.invalid(field + ".id", "'\(id)' may only hold letters, digits and . _ - / : (it names the case in reports and diffs)")
            }
            if let other = fields[id] { throw reader.invalid(field + ".id", "'\(id)' is already the id of \(other)") }
            fields[id] = field
            func location(_ text: String, _ at: String) throws(MatrixSpecError) -> InputLocation {
                do { return try InputLocation(parsing: text, relativeTo: baseDirectory) } catch {
                    throw reader.invalid(at, error.description)
                }
            }
            let primary = try reader.optionalString(map, "primary", prefix: field + ".")
            let playlist = try reader.optionalString(map, "playlist", prefix: field + ".")
            let source: CaseSource
            switch (primary, playlist) {
            case (.some, .some):
                throw reader.invalid(field, "give either primary (with interstitials) or playlist, not both")
            case (nil, nil):
                throw reader.invalid(field, "give primary and interstitials, or playlist")
            case (.some(let primary), nil):
                guard let list = map["interstitials"] else {
                    throw reader.invalid(field + ".interstitials", "required key is missing; list the interstitial inputs")
                }
                let texts = try reader.sequence(list, field: field + ".interstitials")
                guard !texts.isEmpty else { throw reader.invalid(field + ".interstitials", "list at least one interstitial") }
                var interstitials: [InputLocation] = []
                for (n, item) in texts.enumerated() {
                    let at = "\(field).interstitials[\(n)]"
                    interstitials.append(try location(try reader.string(item, field: at), at))
                }
                source = .explicit(primary: try location(primary, field + ".primary"), interstitials: interstitials)
            case (nil, .some(let playlist)):
                if map["interstitials"] != nil {
                    throw reader.invalid(field + ".interstitials", "a playlist case takes its interstitials from the playlist; remove this key")
                }
                source = .playlist(try location(playlist, field + ".playlist"))
            }
            var tags: [String] = []
            if let node = map["tags"] {
                for (n, item) in try reader.sequence(node, field: field + ".tags").enumerated() {
                    tags.append(try reader.string(item, field: "\(field).tags[\(n)]"))
                }
            }
            cases.append(MatrixCase(id: id, source: source, tags: tags, field: field))
        }
        return cases
    }

    private static func parseIssues(_ node: Node?, reader: NodeReader, caseIds: [String],
                                    classes: [String]) throws(MatrixSpecError) -> [ExpectedIssue] {
        guard let node else { return [] }
        var issues: [ExpectedIssue] = []
        for (index, item) in try reader.sequence(node, field: "expectedIssues").enumerated() {
            let field = "expectedIssues[\(index)]"
            let map = try reader.mapping(item, field: field)
            try reader.checkKeys(map, allowed: issueKeys, prefix: field + ".")
            let caseId = try reader.requiredString(map, "case", prefix: field + ".")
            let rule = try reader.requiredString(map, "rule", prefix: field + ".")
            let deviceClass = try reader.requiredString(map, "class", prefix: field + ".")
            let reason = try reader.requiredString(map, "reason", prefix: field + ".")
            for (key, pattern, names, what) in [("case", caseId, caseIds, "case id"),
                                                ("rule", rule, Array(RuleIdentifiers.all).sorted(), "rule id"),
                                                ("class", deviceClass, classes, "device class of this matrix")]
            where !names.contains(where: { Glob.matches(pattern, $0) }) {
                let hint = pattern.contains("*") ? "" : Suggestion.text(for: pattern, in: names)
                throw reader.invalid("\(field).\(key)", "'\(pattern)' matches no \(what)\(hint)")
            }
            guard !reason.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw reader.invalid(field + ".reason", "say why the issue is accepted (a ticket, a date, a vendor)")
            }
            issues.append(ExpectedIssue(caseId: caseId, rule: rule, deviceClass: deviceClass, reason: reason))
        }
        return issues
    }
}
