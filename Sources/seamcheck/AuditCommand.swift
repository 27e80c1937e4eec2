import ArgumentParser
import Compatibility
import Foundation
import HLS
import Matrix
import MediaProbe
import Reporting
import ResultsReporting

struct AuditCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audit",
        abstract: "Predict, per device class, whether switching from the primary to each interstitial stalls.",
        discussion: """
        Give a primary PLAYLIST: each device class's variant selection is made for the primary and for every \
        interstitial asset it schedules, each selected rendition is probed once (init section and first \
        segment), and the spec, capability, transition and declared-versus-measured rules run; loudness (unless \
        --no-loudness) reads more: each interstitial's audio whole and 10 s of programme each side of its break. Or give media \
        files with --primary and --interstitial. Without --profile, the project file's profiles, else every \
        profile in DeviceProfiles/, are used. A .seamcheck.yml in the working folder (or --config) sets profiles, \
        failOn, timeout, per-rule severities (on top of the profiles) and accepted findings; options given here win.
        """)

    @Argument(help: "A primary HLS playlist (multivariant or media), with its interstitials scheduled in EXT-X-DATERANGE tags.")
    var playlist: String?

    @Option(help: "The primary asset: a path, file: URL or http(s) URL.")
    var primary: String?

    @Option(help: "An interstitial asset (repeat for a pod).")
    var interstitial: [String] = []

    @Option(name: .customLong("profile"), help: "A device class id to audit for (repeatable; default: all).")
    var profiles: [String] = []

    @Option(help: "table (default on a terminal), json, markdown, html, junit or sarif.")
    var format: ReportFormat?

    @OptionGroup var findingsOutput: FindingsOutputOptions

    @Option(help: "Interstitial asset playlists and renditions fetched and probed at once (default 32: they wait on the network, not the processors; docs/benchmarks.md); the report's order does not depend on it.")
    var jobs: Int = 32

    @Flag(name: .customLong("no-loudness"), help: "Do not measure integrated loudness (loudness-mismatch decodes each interstitial's audio whole, and the primary's around each break).")
    var noLoudness = false

    @Option(name: .customLong("loudness-target"), parsing: .unconditional, help: "An integrated loudness every interstitial should meet, in LUFS (-23 EBU R128, -24 ATSC A/85).")
    var loudnessTarget: Double?

    @Option(name: .customLong("loudness-tolerance"), help: "LU between primary and interstitial before loudness-mismatch fires (default 2).")
    var loudnessTolerance: Double = 2

    @OptionGroup var profilesDir: ProfilesDirOption
    @OptionGroup var timeout: TimeoutOption
    @OptionGroup var config: ConfigOption

    func validate() throws {
        try OptionChecks.jobs(jobs)
        try OptionChecks.number(loudnessTolerance, "--loudness-tolerance", in: 0...60, unit: "LU")
        try OptionChecks.number(loudnessTarget, "--loudness-target", in: -70...0, unit: "LUFS")
        if playlist != nil {
            guard primary == nil, interstitial.isEmpty else {
                throw ValidationError("give either a PLAYLIST or --primary/--interstitial media, not both")
            }
            return
        }
        guard primary != nil else { throw ValidationError("give a primary PLAYLIST, or media with --primary INPUT --interstitial INPUT") }
        guard !interstitial.isEmpty else { throw ValidationError("give at least one --interstitial INPUT") }
    }

    func run() async throws {
        // FFmpeg's libraries load while the profiles are read and the first playlists fetched.
        MediaLibraries.loadInBackground(filters: !noLoudness)
        // Profiles and the project file first: a mistake in either stops the run before any file or network access.
        let allProfiles = try ProfileLocator.load(explicitDirectory: profilesDir.path, selecting: [])
        let project = try ProjectFile.load(config, knownProfiles: allProfiles.map(\.id))
        let selected = profiles.isEmpty ? (project?.profiles ?? []) : profiles
        var deviceProfiles = try ProfileLocator.load(explicitDirectory: profilesDir.path, selecting: selected)
        if let rules = project?.rules { deviceProfiles = deviceProfiles.map(rules.apply) }
        let seconds = timeout.resolved(project)
        let session = ProbeSession(options: ProbeOptions(timeout: seconds), maxConcurrent: jobs)
        var result: AuditResult
        if let playlist {
            result = try await auditPlaylist(playlist, profiles: deviceProfiles, session: session, seconds: seconds)
        } else {
            result = try await auditFiles(profiles: deviceProfiles, session: session, seconds: seconds)
        }
        if let project {
            let accepted = project.accept(result.findings, input: result.input)
            result.findings = accepted.findings
            ProjectFile.noteUnused(accepted.unused)
        }
        if findingsOutput.writeAccepted { result.findings = try ProjectFile.writeAccepted(result.findings, option: config) }
        let failOn = findingsOutput.failOn ?? project?.failOn ?? .error
        let chosen = format ?? (Terminal.stdoutIsTerminal && findingsOutput.output == nil ? .table : .json)
        let reporter: any AuditReporter = chosen == .table ? TableReporter(color: findingsOutput.output == nil && Terminal.useColor) : chosen.reporter
        try Output.write(reporter.render(result), to: findingsOutput.output)
        if result.fails(at: failOn.severity) { throw ExitCode(CLIFailure.findings) }
    }

    private func auditPlaylist(_ text: String, profiles: [DeviceProfile], session: ProbeSession,
                               seconds: Double) async throws -> AuditResult {
        let location = try ProbeRunner.locations([text])[0]
        var options = PlaylistInput.loaderOptions(timeout: seconds, fetchAssets: true)
        options.concurrency = jobs
        let loader = PresentationLoader(options: options)
        let auditor = PlaylistAuditor(loader: loader, auditor: TransitionAuditor(loudness: loudnessPolicy),
                                      loudness: noLoudness ? nil : LoudnessOptions(fetchTimeout: seconds))
        var result = try await auditor.audit(location, profiles: profiles, session: session)
        if noLoudness { result.loudness = .off(Self.offReason) }
        return result
    }

    private func auditFiles(profiles deviceProfiles: [DeviceProfile], session: ProbeSession, seconds: Double) async throws -> AuditResult {
        let inputs = [primary!] + interstitial
        let locations = try ProbeRunner.locations(inputs)
        var media = try await ProbeRunner.describeAll(locations, with: session)
        var cost = LoudnessCost.off(Self.offReason)
        if !noLoudness { (media, cost) = await FileLoudness.measure(media, locations: locations, timeout: seconds) }

        let primaryAsset = AuditedAsset(role: "primary", input: inputs[0], media: media[0])
        let interstitials = zip(inputs.dropFirst(), media.dropFirst()).enumerated().map { offset, pair in
            AuditedAsset(role: "interstitial \(offset + 1)", input: pair.0, media: pair.1)
        }
        var result = TransitionAuditor(loudness: loudnessPolicy).audit(primary: primaryAsset, interstitials: interstitials, profiles: deviceProfiles)
        result.loudness = cost
        return result
    }

    var loudnessPolicy: LoudnessPolicy { LoudnessPolicy(tolerance: loudnessTolerance, target: loudnessTarget) }

    static let offReason = "turned off with --no-loudness"
}
