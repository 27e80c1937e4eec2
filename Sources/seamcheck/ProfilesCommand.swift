import ArgumentParser
import Compatibility
import Foundation
import Reporting
import ResultsReporting

struct ProfilesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "profiles",
        abstract: "List, show and validate device profiles.",
        subcommands: [List.self, Show.self, Validate.self, Calibrate.self])

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the device classes.")
        @OptionGroup var profilesDir: ProfilesDirOption
        @Option(help: "table (default on a terminal) or json.") var format: ListFormat?

        func run() throws {
            let profiles = try ProfileLocator.load(explicitDirectory: profilesDir.path, selecting: [])
            switch ListFormat.resolve(format) {
            case .json:
                try Output.write(JSONOutput.encode(ProfilesDocument(profiles: profiles)), to: nil)
            case .table:
                let width = profiles.map(\.id.count).max() ?? 2
                let lines = profiles.map { p in
                    p.id.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + p.name + "  ["
                        + (p.plays.video ? p.plays.videoCodecs.joined(separator: "/") + " " + p.plays.dynamicRanges.joined(separator: "/") + "; " : "audio only; ")
                        + p.plays.audioCodecs.joined(separator: "/") + " up to \(p.plays.maxChannels) ch]"
                }
                try Output.write(VisibleText.escape(lines: lines).joined(separator: "\n") + "\n", to: nil)
            }
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show one device class: what it plays and its rule severities.")
        @Argument(help: "The device class id.") var id: String
        @OptionGroup var profilesDir: ProfilesDirOption
        @Option(help: "table (default on a terminal) or json.") var format: ListFormat?

        func run() throws {
            let profile = try ProfileLocator.load(explicitDirectory: profilesDir.path, selecting: [id])[0]
            switch ListFormat.resolve(format) {
            case .json:
                try Output.write(JSONOutput.encode(ProfileDocument(profile: profile)), to: nil)
            case .table:
                var lines = ["\(profile.id): \(profile.name)"]
                if let d = profile.description { lines.append(d.trimmingCharacters(in: .whitespacesAndNewlines)) }
                let plays = profile.plays
                lines.append("")
                lines.append("plays:")
                if plays.video {
                    lines.append("  video: \(plays.videoCodecs.joined(separator: ", ")), \(plays.dynamicRanges.joined(separator: ", "))"
                        + (plays.maxWidth.map { " up to \($0)x\(plays.maxHeight ?? 0)" } ?? "")
                        + (plays.maxFrameRate.map { " at \(MediaText.formatNumber($0)) fps" } ?? ""))
                } else {
                    lines.append("  video: none (audio-only receiver)")
                }
                lines.append("  audio: \(plays.audioCodecs.joined(separator: ", ")), up to \(plays.maxChannels) channels, "
                    + plays.sampleRates.map { "\($0) Hz" }.joined(separator: ", "))
                if let match = profile.match, !match.rules.isEmpty {
                    lines.append("")
                    lines.append("matches receivers (any of):")
                    for rule in match.rules {
                        var parts: [String] = []
                        if let models = rule.models { parts.append("model " + models.joined(separator: " | ")) }
                        if let makers = rule.manufacturers { parts.append("manufacturer " + makers.joined(separator: " | ")) }
                        if let features = rule.features { parts.append("features " + features.joined(separator: " + ")) }
                        if let video = rule.video { parts.append(video ? "plays video" : "audio only") }
                        if let hdr = rule.hdrFormats { parts.append("/info HDR " + hdr.joined(separator: " | ")) }
                        lines.append("  - " + parts.joined(separator: ", "))
                    }
                }
                lines.append("")
                lines.append("rules:")
                for rule in RuleCatalog.descriptions {
                    lines.append("  \(rule.id): \(profile.severity(for: rule)?.rawValue ?? "off")")
                }
                if let sources = profile.sources, !sources.isEmpty {
                    lines.append("")
                    lines.append("sources:")
                    lines += sources.map { "  - \($0)" }
                }
                try Output.write(VisibleText.escape(lines: lines).joined(separator: "\n") + "\n", to: nil)
            }
        }
    }

    struct Validate: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Check profile files: a YAML file or a directory of them (default: the profiles directory).")
        @Argument(help: "A profile file or a directory.") var path: String?
        @OptionGroup var profilesDir: ProfilesDirOption

        func run() throws {
            let target = try path ?? ProfileLocator.directory(explicit: profilesDir.path)
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: target, isDirectory: &isDirectory) else {
                throw CLIFailure.input("\(target): no such file or directory")
            }
            let profiles = isDirectory.boolValue ? try ProfileLoader.loadDirectory(target) : [try ProfileLoader.loadFile(target)]
            try Output.writeStandardOutput("ok: \(profiles.count) profile(s) valid: \(profiles.map(\.id).joined(separator: ", "))\n")
        }
    }
}

struct ProfilesDocument: Encodable {
    var schemaVersion = jsonSchemaVersion
    var profiles: [DeviceProfile]
}

struct ProfileDocument: Encodable {
    var schemaVersion = jsonSchemaVersion
    var profile: DeviceProfile
}
