import ArgumentParser
import Compatibility
import Foundation
import HLS
import MediaProbe
import Reporting

struct AuditCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audit",
        abstract: "Predict, per device class, whether switching from the primary to each interstitial stalls.",
        discussion: "Each distinct input is probed once. Without --profile, every profile in DeviceProfiles/ is used.")

    @Argument(help: "A primary HLS playlist (multivariant or media). Not available yet: use --primary and --interstitial.")
    var playlist: String?

    @Option(help: "The primary asset: a path, file: URL or http(s) URL.")
    var primary: String?

    @Option(help: "An interstitial asset (repeat for a pod).")
    var interstitial: [String] = []

    @Option(name: .customLong("profile"), help: "A device class id to audit for (repeatable; default: all).")
    var profiles: [String] = []

    @Option(help: "table (default on a terminal), json, markdown, html or junit.")
    var format: ReportFormat?

    @Option(help: "Write the report to this file instead of stdout.")
    var output: String?

    @Option(name: .customLong("fail-on"), help: "Exit 1 when a finding is at or above this severity: error, warning, info or never.")
    var failOn: FailOn = .error

    @OptionGroup var profilesDir: ProfilesDirOption
    @OptionGroup var timeout: TimeoutOption

    func validate() throws {
        if playlist != nil {
            throw ValidationError("auditing a playlist is not available yet; audit the media files with --primary FILE --interstitial FILE")
        }
        guard primary != nil else { throw ValidationError("give the primary asset with --primary INPUT") }
        guard !interstitial.isEmpty else { throw ValidationError("give at least one --interstitial INPUT") }
    }

    func run() async throws {
        // Profiles first: a broken profile stops the run before any file or network access.
        let deviceProfiles = try ProfileLocator.load(explicitDirectory: profilesDir.path, selecting: profiles)
        let inputs = [primary!] + interstitial
        let locations = try ProbeRunner.locations(inputs)
        let session = ProbeSession(options: ProbeOptions(timeout: timeout.timeout))
        let media = try await ProbeRunner.describeAll(locations, with: session)

        let primaryAsset = AuditedAsset(role: "primary", input: inputs[0], media: media[0])
        let interstitials = zip(inputs.dropFirst(), media.dropFirst()).enumerated().map { offset, pair in
            AuditedAsset(role: "interstitial \(offset + 1)", input: pair.0, media: pair.1)
        }
        let result = TransitionAuditor().audit(primary: primaryAsset, interstitials: interstitials, profiles: deviceProfiles)

        let chosen = format ?? (Terminal.stdoutIsTerminal && output == nil ? .table : .json)
        let reporter: any AuditReporter = chosen == .table ? TableReporter(color: output == nil && Terminal.useColor) : chosen.reporter
        try Output.write(reporter.render(result), to: output)
        if result.fails(at: failOn.threshold) { throw ExitCode(CLIFailure.findings) }
    }
}
