import ArgumentParser
import Foundation
import Matrix

struct ConfigCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "The project file (.seamcheck.yml): write a starting one, or check one.",
        subcommands: [ConfigInitCommand.self, ConfigCheckCommand.self])
}

struct ConfigInitCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Write a commented starting .seamcheck.yml (refuses to replace one unless --force).")

    @Option(help: "Where to write it.")
    var output: String = ProjectConfig.defaultFileName

    @Flag(help: "Replace an existing file.")
    var force = false

    func run() async throws {
        if !force, FileManager.default.fileExists(atPath: output) {
            throw CLIFailure.input("\(output): already exists; edit it, or pass --force to replace it")
        }
        try Output.write(ProjectFileTemplate.text, to: output)
        Terminal.writeStderr("seamcheck: wrote \(output)\n")
    }
}

struct ConfigCheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Read the project file and report its first mistake (exit 2), or print what it sets.")

    @OptionGroup var profilesDir: ProfilesDirOption
    @OptionGroup var config: ConfigOption

    func run() async throws {
        let profiles = try ProfileLocator.load(explicitDirectory: profilesDir.path, selecting: []).map(\.id)
        guard let project = try ProjectFile.load(config, knownProfiles: profiles) else {
            throw CLIFailure.input("no \(ProjectConfig.defaultFileName) in \(FileManager.default.currentDirectoryPath); pass --config PATH, or run `seamcheck config init`")
        }
        var lines = ["\(project.file): ok"]
        lines.append("  profiles: " + (project.profiles?.joined(separator: ", ") ?? "(all)"))
        lines.append("  failOn: " + (project.failOn?.rawValue ?? "(error)"))
        lines.append("  timeout: " + (project.timeout.map { "\($0) s" } ?? "(15 s)"))
        lines.append("  rules: \(project.rules.everyClass.count) for every class, \(project.rules.perClass.count) per class")
        lines.append("  accepted: \(project.accepted.count) entr\(project.accepted.count == 1 ? "y" : "ies")")
        try Output.write(lines.joined(separator: "\n") + "\n", to: nil)
    }
}

/// The file `config init` writes: every key, commented, with the values that change nothing.
enum ProjectFileTemplate {
    static let text = """
    # Seamcheck project file: defaults for `seamcheck lint`, `audit` and `matrix run` in this folder.
    # Options on the command line win over this file. Format: docs/ci.md.

    # Device classes `audit` checks when no --profile is given (default: every profile).
    # profiles: [apple-tv-4k, smart-tv-low-end]

    # Exit 1 when an open finding is at or above this severity: error, warning, info or never.
    failOn: error

    # Seconds allowed to open and analyse one input (lint, audit).
    timeout: 15

    # Per-rule severities on top of the device profiles: off, info, warning or error,
    # for every class, or per class. `seamcheck rules list` shows the rule ids.
    rules:
    #  audio-bit-depth-mismatch: off
    #  frame-rate-mismatch:
    #    smart-tv-low-end: warning

    # Findings the team accepts, each with a reason: reported as accepted, never failing the run.
    # rule and class take * patterns; subject matches the finding's subject, url the playlist
    # (or the audited input), case a matrix case. `--write-accepted` adds today's findings here.
    accepted:
    #  - rule: interstitial-duration-mismatch
    #    class: "*"
    #    subject: "EXT-X-DATERANGE ID=\\"preroll\\"*"
    #    url: "https://staging.example/*"
    #    reason: "ADS-123: the ad server rounds DURATION; fixed in the next release"

    """
}
