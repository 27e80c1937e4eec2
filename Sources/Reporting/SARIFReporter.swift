import Compatibility
import Foundation
import HLS

/// SARIF 2.1.0 for code scanning (GitHub, GitLab): the rule catalog as the tool's rules, one
/// result per finding.
///
/// Every result has a physical location, because GitHub refuses results without one: the
/// playlist and the tag's line for spec findings, otherwise the audited input without a region.
/// A local path under the working directory is written relative to `%SRCROOT%` (the working
/// directory), so that code scanning can place it in the repository; another path is a file:
/// URL, a remote playlist its http(s) URL. Accepted findings (`.seamcheck.yml`) and known matrix
/// issues are results with an external suppression and their reason.
public struct SARIFReporter: AuditReporter {
    public var toolVersion: String
    /// The folder relative paths are written against; the working directory by default.
    public var sourceRoot: String

    public init(toolVersion: String = seamcheckVersion, sourceRoot: String = FileManager.default.currentDirectoryPath) {
        self.toolVersion = toolVersion
        self.sourceRoot = sourceRoot
    }

    public func render(_ result: AuditResult) -> String {
        render(result.findings.map { SARIFItem(finding: $0, input: result.input) })
    }

    /// A lint, an audit or a matrix run, as (finding, what was audited) items.
    public func render(_ items: [SARIFItem]) -> String {
        let catalog = RuleCatalog.allDescriptions
        var ids = catalog.map(\.id)
        for item in items where !ids.contains(item.finding.rule) { ids.append(item.finding.rule) }
        let byId = Dictionary(catalog.map { ($0.id, $0) }) { first, _ in first }
        let rules = ids.map { id in byId[id].map(SARIF.Rule.init) ?? SARIF.Rule(uncataloged: id) }
        let index = Dictionary(uniqueKeysWithValues: ids.enumerated().map { ($0.element, $0.offset) })
        let root = sourceRoot.hasSuffix("/") ? sourceRoot : sourceRoot + "/"
        let results = items.map { item in
            SARIF.Result(item, ruleIndex: index[item.finding.rule]!, location: artifact(item.finding.location?.uri ?? item.input, root: root))
        }
        let run = SARIF.Run(tool: .init(driver: .init(version: toolVersion, rules: rules)),
                            originalUriBaseIds: [SARIF.sourceRootId: .init(uri: URL(fileURLWithPath: root, isDirectory: true).absoluteString)],
                            results: results)
        let log = SARIF.Log(runs: [run])
        // Encoding plain value types cannot fail.
        return String(decoding: try! JSONDocument.encoder().encode(log), as: UTF8.self) + "\n"
    }

    /// A URI reference for a path or URL: relative to the source root where it is under it.
    func artifact(_ text: String, root: String) -> SARIF.ArtifactLocation {
        if let scheme = urlScheme(text), scheme != "file" { return .init(uri: text, uriBaseId: nil) }
        let path = urlScheme(text) == "file" ? (URL(string: text)?.path ?? text) : text
        let absolute = path.hasPrefix("/") ? path : root + path
        let standardized = URL(fileURLWithPath: absolute).standardizedFileURL
        if standardized.path.hasPrefix(root) {
            let relative = String(standardized.path.dropFirst(root.count))
            return .init(uri: relative.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? relative, uriBaseId: SARIF.sourceRootId)
        }
        return .init(uri: standardized.absoluteString, uriBaseId: nil)
    }
}

/// One finding for the SARIF log, with what was audited (where a finding without a playlist
/// location points) and how a matrix or the project configuration judged it.
public struct SARIFItem: Sendable {
    public var finding: Finding
    public var input: String
    /// Why the finding is accepted; defaults to the finding's own `accepted`.
    public var acceptedReason: String?
    /// The matrix case, when there is one.
    public var caseId: String?

    public init(finding: Finding, input: String, acceptedReason: String? = nil, caseId: String? = nil) {
        self.finding = finding
        self.input = input
        self.acceptedReason = acceptedReason ?? finding.accepted
        self.caseId = caseId
    }
}

/// The version `seamcheck --version` prints and reports name.
public let seamcheckVersion = "0.1.0"

/// The lowercased scheme of a URL text; nil for a path (a single letter before ":" is a drive, not a scheme).
func urlScheme(_ text: String) -> String? {
    guard let colon = text.firstIndex(of: ":") else { return nil }
    let candidate = text[..<colon]
    guard candidate.count > 1, let first = candidate.first, first.isASCII, first.isLetter,
          candidate.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }) else { return nil }
    return candidate.lowercased()
}

/// The parts of SARIF 2.1.0 Seamcheck writes (OASIS SARIF 2.1.0 Errata 01, section 3).
enum SARIF {
    static let schema = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
    static let sourceRootId = "%SRCROOT%"

    struct Log: Encodable {
        var schema = SARIF.schema
        var version = "2.1.0"
        var runs: [Run]
        enum CodingKeys: String, CodingKey { case schema = "$schema", version, runs }
    }

    struct Run: Encodable {
        var tool: Tool
        var originalUriBaseIds: [String: ArtifactLocation]
        var results: [Result]
        var columnKind = "unicodeCodePoints"
    }

    struct Tool: Encodable { var driver: Driver }

    struct Driver: Encodable {
        var name = "seamcheck"
        var informationUri = "https://github.com/seamcheck/seamcheck"
        var version: String
        var rules: [Rule]
    }

    struct Text: Encodable {
        var text: String
        var markdown: String?
    }

    struct Rule: Encodable {
        var id: String
        var name: String
        var shortDescription: Text
        var fullDescription: Text
        var help: Text
        var defaultConfiguration: Configuration
        var properties: RuleProperties

        init(_ rule: RuleDescription) {
            id = rule.id
            name = Self.camelCase(rule.id)
            shortDescription = Text(text: rule.title.isEmpty ? rule.id : rule.title)
            fullDescription = Text(text: rule.rationale.isEmpty ? rule.title : rule.rationale)
            help = Text(text: "\(rule.rationale)\nSource: \(rule.source)\nInputs: \(rule.inputs)\nMore: seamcheck rules show \(rule.id)",
                        markdown: "\(rule.rationale)\n\n**Source:** \(rule.source)\n\n**Inputs:** \(rule.inputs)\n\n`seamcheck rules show \(rule.id)`")
            defaultConfiguration = Configuration(level: Level(rule.defaultSeverity))
            properties = RuleProperties(tags: ["seamcheck", rule.track.rawValue], source: rule.source)
        }

        /// A finding whose rule is not in the catalog (`report-truncated`).
        init(uncataloged id: String) {
            self.id = id
            name = Self.camelCase(id)
            shortDescription = Text(text: id)
            fullDescription = Text(text: "A Seamcheck finding outside the rule catalog: \(id).")
            help = Text(text: "See the finding's message.", markdown: nil)
            defaultConfiguration = Configuration(level: .warning)
            properties = RuleProperties(tags: ["seamcheck"], source: "Seamcheck")
        }

        /// SARIF's `name` is an identifier-like label: `VideoCodecMismatch`.
        static func camelCase(_ id: String) -> String {
            id.split(separator: "-").map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
        }
    }

    struct RuleProperties: Encodable {
        var tags: [String]
        var source: String
    }

    struct Configuration: Encodable { var level: Level }

    enum Level: String, Encodable {
        case error, warning, note

        init(_ severity: Severity) {
            switch severity {
            case .error: self = .error
            case .warning: self = .warning
            case .info: self = .note
            }
        }
    }

    struct ArtifactLocation: Encodable {
        var uri: String
        var uriBaseId: String?
    }

    struct Region: Encodable { var startLine: Int }

    struct PhysicalLocation: Encodable {
        var artifactLocation: ArtifactLocation
        var region: Region?
    }

    struct Location: Encodable { var physicalLocation: PhysicalLocation }

    struct Suppression: Encodable {
        var kind = "external"
        var justification: String
    }

    struct ResultProperties: Encodable {
        var deviceClass: String?
        var subject: String
        var expected: String?
        var actual: String?
        var remediation: String?
        var severity: String
        var `case`: String?
    }

    struct Result: Encodable {
        var ruleId: String
        var ruleIndex: Int
        var level: Level
        var message: Text
        var locations: [Location]
        var partialFingerprints: [String: String]
        var suppressions: [Suppression]?
        var properties: ResultProperties

        init(_ item: SARIFItem, ruleIndex: Int, location: ArtifactLocation) {
            let finding = item.finding
            ruleId = finding.rule
            self.ruleIndex = ruleIndex
            level = Level(finding.severity)
            var text = finding.message
            if let expected = finding.expected, let actual = finding.actual { text += " (expected \(expected); found \(actual))" }
            if let deviceClass = finding.deviceClass { text = "[\(deviceClass)] " + text }
            message = Text(text: text)
            let line = finding.location?.line.flatMap { $0 >= 1 ? $0 : nil }
            locations = [Location(physicalLocation: PhysicalLocation(artifactLocation: location, region: line.map(Region.init)))]
            // Stable across runs and line moves: what the finding is about, not where.
            partialFingerprints = ["seamcheckFinding/v1": [item.caseId ?? "", finding.rule, finding.deviceClass ?? "*", finding.subject]
                .joined(separator: "|")]
            suppressions = item.acceptedReason.map { [Suppression(justification: $0)] }
            properties = ResultProperties(deviceClass: finding.deviceClass, subject: finding.subject, expected: finding.expected,
                                          actual: finding.actual, remediation: finding.remediation,
                                          severity: finding.severity.rawValue, case: item.caseId)
        }
    }
}
