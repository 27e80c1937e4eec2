import ArgumentParser
import Compatibility
import Foundation
import HLS
import Matrix
import Reporting
import ResultsReporting

struct LintCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lint",
        abstract: "Check a playlist's date ranges and interstitials against the HLS spec.",
        discussion: """
        Loads the playlist, every media playlist of a multivariant playlist, and what each interstitial \
        names (asset lists and asset playlists); never media segments. A playlist loaded over http(s) may \
        only lead to http(s) URLs. Exit codes: 0 no finding at or above --fail-on, 1 findings, 2 the \
        input cannot be loaded (named with its URL), a bad project file, or output that cannot be written. \
        A .seamcheck.yml in the working folder (or --config) sets failOn, timeout, rules (every-class settings) \
        and accepted findings; options given here win.
        """)

    @Argument(help: "A multivariant or media playlist: a path, file: URL or http(s) URL.")
    var playlist: String

    @Option(help: "table (default on a terminal), json or sarif.")
    var format: LintFormat?

    @OptionGroup var findingsOutput: FindingsOutputOptions

    @Flag(help: "Read the local playlist and its local children only; fetch nothing, and list what was not checked.")
    var offline = false

    @OptionGroup var timeout: TimeoutOption
    @OptionGroup var config: ConfigOption

    func run() async throws {
        // Spec findings have no device class: only the project file's every-class rule settings apply.
        let project = try ProjectFile.load(config, knownProfiles: { try? ProfileLocator.load(explicitDirectory: nil, selecting: []).map(\.id) })
        let presentation = try await PlaylistInput.load(playlist, timeout: timeout.resolved(project), fetchAssets: true, offline: offline)
        // One context: the interstitials are read, and the primary's schedule made, once for every rule.
        let context = SpecContext(presentation)
        var findings = SpecLinter.lint(context) + BoundaryRule.findings(in: context) + LocalizationRules.findings(in: context)
        if let project {
            if !project.rules.everyClass.isEmpty { findings = PlaylistAuditor.graded(findings, by: [project.rules.classless]) }
            let accepted = project.accept(findings, input: presentation.location.description)
            findings = accepted.findings
            ProjectFile.noteUnused(accepted.unused)
        }
        if findingsOutput.writeAccepted { findings = try ProjectFile.writeAccepted(findings, option: config) }
        var document = LintDocument(input: playlist, presentation: presentation, findings: findings)
        document.notChecked = PlaylistInput.notChecked(presentation, offline: offline)
        ExitSoon.keep((context, document))
        switch format ?? (Terminal.stdoutIsTerminal && findingsOutput.output == nil ? .table : .json) {
        case .json: try Output.write(LintJSON.render(document), to: findingsOutput.output)
        case .table: try Output.write(LintTable.render(document), to: findingsOutput.output)
        case .sarif: try Output.write(SARIFReporter().render(findings.map { SARIFItem(finding: $0, input: presentation.location.description) }), to: findingsOutput.output)
        }
        let threshold = (findingsOutput.failOn ?? project?.failOn ?? .error).severity
        if let threshold, findings.contains(where: { $0.isOpen && $0.severity >= threshold }) {
            throw ExitCode(CLIFailure.findings)
        }
    }
}

/// Formats of `lint`.
enum LintFormat: String, ExpressibleByArgument, CaseIterable {
    case table, json, sarif
}

/// The lint JSON: docs/interface.md's audit/lint shape, plus what was checked and the parse diagnostics.
struct LintDocument: Encodable {
    var schemaVersion = jsonSchemaVersion
    var input: String
    var deviceClasses: [String] = []
    var findings: [Finding]
    var summary: FindingSummary
    /// The media playlists checked.
    var playlists: [String]
    /// The media playlists that could not be loaded (each is also a media-playlist-unreachable finding).
    var unreachable: [UnreachablePlaylist]
    /// `--offline`: what was not fetched, so not checked.
    var notChecked: [String] = []
    /// Grammar problems found while parsing, as the parser gives them (they are also findings of
    /// the `playlist-syntax` rule).
    var diagnostics: [PlaylistInput.Diagnostic]

    init(input: String, presentation: Presentation, findings: [Finding]) {
        self.input = input
        self.findings = findings
        summary = FindingSummary(findings)
        playlists = presentation.mediaPlaylists.map(\.location.description)
        unreachable = presentation.mediaFailures.filter { if case .offline = $0.error { return false } else { return true } }
            .map(UnreachablePlaylist.init)
        diagnostics = PlaylistInput.diagnostics(presentation)
    }
}

/// Lines of IDs, URIs and messages from the playlists: their control characters are made visible.
enum LintTable {
    static func render(_ document: LintDocument) -> String {
        var lines = ["\(document.input): \(document.playlists.count) media playlist(s) checked"
                     + (document.unreachable.isEmpty ? "" : ", \(document.unreachable.count) could not be loaded")]
        for finding in document.findings {
            lines.append("")
            lines.append("\(finding.severity.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0))\(finding.rule)  \(finding.subject)")
            lines.append("        \(finding.message)")
            if let reason = finding.accepted { lines.append("        accepted: \(reason)") }
            if let expected = finding.expected, let actual = finding.actual {
                lines.append("        expected \(expected); found \(actual)")
            }
        }
        if !document.notChecked.isEmpty {
            lines.append("")
            lines.append("Not checked (--offline):")
            lines += document.notChecked.map { "  \($0)" }
        }
        if !document.diagnostics.isEmpty {
            lines.append("")
            lines.append("Parse diagnostics:")
            lines += document.diagnostics.map { "  \($0.text)" }
        }
        let s = document.summary
        lines.append("")
        lines.append(document.findings.isEmpty ? "no findings: the date ranges and interstitials follow the spec"
                     : "\(s.error) error(s), \(s.warning) warning(s), \(s.info) info" + (s.accepted > 0 ? ", \(s.accepted) accepted" : ""))
        return VisibleText.escape(lines: lines).joined(separator: "\n") + "\n"
    }
}

/// Loading a PLAYLIST argument for lint and inspect, with every failure mapped to exit code 2.
enum PlaylistInput {
    static func load(_ text: String, timeout: Double, fetchAssets: Bool, offline: Bool = false) async throws -> Presentation {
        let location = try InputLocation(parsing: text)
        if offline, case .remote = location {
            throw CLIFailure.input("\(text): --offline reads a local playlist; give a path (or drop --offline)")
        }
        var options = loaderOptions(timeout: timeout, fetchAssets: fetchAssets && !offline)
        if offline { options.fetchAssetLists = false }
        let loader = offline ? PresentationLoader(fetcher: OfflineFetcher(), options: options) : PresentationLoader(options: options)
        var presentation = try await loader.load(location)
        // Offline nothing is fetched, but the rules still ask for every asset URI: resolved once here.
        if offline && fetchAssets { presentation.rememberAssetReferences() }
        // A media playlist that does not load is a finding (media-playlist-unreachable) and a
        // line of inspect, not the end of the run: only the input itself is exit 2.
        return presentation
    }

    /// `--offline`: what was not fetched, so not checked: remote media playlists, and every
    /// interstitial's asset list and assets.
    static func notChecked(_ presentation: Presentation, offline: Bool) -> [String] {
        guard offline else { return [] }
        var lines = presentation.mediaFailures.compactMap { failure -> String? in
            guard case .offline = failure.error else { return nil }
            return "\(failure.role.rawValue) \(failure.location ?? failure.reference): not fetched"
        }
        let interstitials = Set(presentation.mediaPlaylists.flatMap { $0.playlist.dateRanges.compactMap { $0.isInterstitial ? $0.id : nil } })
        if !interstitials.isEmpty {
            lines.append("asset lists and assets of \(interstitials.count) interstitial(s): not fetched (reachability, VOD, durations not checked)")
        }
        return lines
    }

    /// `--timeout` is every playlist transfer's limit; interstitials keep the players' fixed wait
    /// (lower with a lower --timeout): an ad slower than that is skipped.
    static func loaderOptions(timeout: Double, fetchAssets: Bool) -> PresentationLoader.Options {
        PresentationLoader.Options(timeout: timeout, fetchAssets: fetchAssets)
    }

    struct Diagnostic: Encodable {
        var playlist: String
        var line: Int
        var level: String
        var tag: String?
        var message: String

        var text: String { "\(playlist) line \(line): \(level): " + (tag.map { "\($0): " } ?? "") + message }
    }

    static func diagnostics(_ presentation: Presentation) -> [Diagnostic] {
        var sources: [(String, [PlaylistDiagnostic])] = []
        if presentation.root.playlist.multivariant != nil {
            sources.append((presentation.location.displayName, presentation.root.diagnostics))
        }
        sources += presentation.mediaPlaylists.map { ($0.location.displayName, $0.diagnostics) }
        return sources.flatMap { name, list in
            list.map { Diagnostic(playlist: name, line: $0.line, level: $0.level.rawValue, tag: $0.tag, message: $0.message) }
        }
    }

    /// JSON as every document of the tool is written, with dates as ISO 8601 text.
    static func json<T: Encodable>(_ value: T) throws(CLIFailure) -> String {
        do { return String(decoding: try JSONDocument.encode(value, dates: .iso8601Milliseconds), as: UTF8.self) + "\n" } catch {
            throw CLIFailure(message: "cannot encode the JSON document: \(error)", exitCode: CLIFailure.usage)
        }
    }
}

/// A media playlist of the input that could not be loaded, as lint and inspect show it.
struct UnreachablePlaylist: Encodable {
    var uri: String
    var kind: String
    var url: String?
    var status: Int?
    var reason: String

    init(_ failure: MediaPlaylistFailure) {
        uri = failure.reference
        kind = failure.role.rawValue
        url = failure.location
        status = failure.status
        reason = failure.error.description
    }

    var text: String { "\(uri): NOT LOADED (\(status.map { "HTTP \($0)" } ?? reason))" }
}
