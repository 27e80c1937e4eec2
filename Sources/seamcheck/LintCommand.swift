import ArgumentParser
import Compatibility
import Foundation
import HLS
import Reporting

struct LintCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lint",
        abstract: "Check a playlist's date ranges and interstitials against the HLS spec.",
        discussion: """
        Loads the playlist, every media playlist of a multivariant playlist, and what each interstitial \
        names (asset lists and asset playlists); never media segments. A playlist loaded over http(s) may \
        only lead to http(s) URLs. Exit codes: 0 no finding at or above --fail-on, 1 findings, 2 the \
        input cannot be loaded (named with its URL).
        """)

    @Argument(help: "A multivariant or media playlist: a path, file: URL or http(s) URL.")
    var playlist: String

    @Option(help: "table (default on a terminal) or json.")
    var format: ListFormat?

    @Option(name: .customLong("fail-on"), help: "Exit 1 when a finding is at or above this severity: error, warning, info or never.")
    var failOn: FailThreshold = .error

    @OptionGroup var timeout: TimeoutOption

    func run() async throws {
        let presentation = try await PlaylistInput.load(playlist, timeout: timeout.timeout, fetchAssets: true)
        let findings = SpecLinter.lint(presentation)
        let document = LintDocument(input: playlist, presentation: presentation, findings: findings)
        switch ListFormat.resolve(format) {
        case .json: try Output.write(try PlaylistInput.json(document), to: nil)
        case .table: try Output.write(LintTable.render(document), to: nil)
        }
        if let threshold = failOn.severity, findings.contains(where: { $0.severity >= threshold }) {
            throw ExitCode(CLIFailure.findings)
        }
    }
}

/// The lint JSON: INTERFACE.md's audit/lint shape, plus what was checked and the parse diagnostics.
struct LintDocument: Encodable {
    var schemaVersion = jsonSchemaVersion
    var input: String
    var deviceClasses: [String] = []
    var findings: [Finding]
    var summary: FindingSummary
    /// The media playlists checked.
    var playlists: [String]
    /// Grammar problems found while parsing, as the parser gives them (they are also findings of
    /// the `playlist-syntax` rule).
    var diagnostics: [PlaylistInput.Diagnostic]

    init(input: String, presentation: Presentation, findings: [Finding]) {
        self.input = input
        self.findings = findings
        summary = FindingSummary(findings)
        playlists = presentation.mediaPlaylists.map(\.location.description)
        diagnostics = PlaylistInput.diagnostics(presentation)
    }
}

/// Lines of IDs, URIs and messages from the playlists: their control characters are made visible.
enum LintTable {
    static func render(_ document: LintDocument) -> String {
        var lines = ["\(document.input): \(document.playlists.count) media playlist(s) checked"]
        for finding in document.findings {
            lines.append("")
            lines.append("\(finding.severity.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0))\(finding.rule)  \(finding.subject)")
            lines.append("        \(finding.message)")
            if let expected = finding.expected, let actual = finding.actual {
                lines.append("        expected \(expected); found \(actual)")
            }
        }
        if !document.diagnostics.isEmpty {
            lines.append("")
            lines.append("Parse diagnostics:")
            lines += document.diagnostics.map { "  \($0.text)" }
        }
        let s = document.summary
        lines.append("")
        lines.append(document.findings.isEmpty ? "no findings: the date ranges and interstitials follow the spec"
                     : "\(s.error) error(s), \(s.warning) warning(s), \(s.info) info")
        return VisibleText.escape(lines: lines).joined(separator: "\n") + "\n"
    }
}

/// Loading a PLAYLIST argument for lint and inspect, with every failure mapped to exit code 2.
enum PlaylistInput {
    static func load(_ text: String, timeout: Double, fetchAssets: Bool) async throws(CLIFailure) -> Presentation {
        let location: InputLocation
        do { location = try InputLocation(parsing: text) } catch { throw CLIFailure(error) }
        let presentation: Presentation
        do throws(LoadError) {
            presentation = try await PresentationLoader(options: loaderOptions(timeout: timeout, fetchAssets: fetchAssets)).load(location)
        } catch {
            throw CLIFailure.input(error.description)
        }
        guard presentation.mediaFailures.isEmpty else {
            throw CLIFailure.input(presentation.mediaFailures.map {
                "media playlist \($0.reference) of \(presentation.location): \($0.error)"
            }.joined(separator: "\n"))
        }
        return presentation
    }

    /// `--timeout` is every transfer's total time; the wait for response headers stays at most 10 s.
    static func loaderOptions(timeout: Double, fetchAssets: Bool) -> PresentationLoader.Options {
        var options = PresentationLoader.Options()
        options.playlistLimits.totalTimeout = timeout
        options.playlistLimits.connectTimeout = min(10, timeout)
        options.assetLimits.totalTimeout = timeout
        options.assetLimits.connectTimeout = min(10, timeout)
        options.fetchAssets = fetchAssets
        return options
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
        do { return String(decoding: try JSONDocument.encoder(dates: .iso8601Milliseconds).encode(value), as: UTF8.self) + "\n" } catch {
            throw CLIFailure(message: "cannot encode the JSON document: \(error)", exitCode: CLIFailure.usage)
        }
    }
}
