import ArgumentParser
import Foundation
import HLS
import MediaProbe
import Reporting
import ResultsReporting

struct ProbeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "probe",
        abstract: "Describe the tracks of media files, URLs or HLS renditions (codec, frame rate, aspect ratio, HDR, audio).",
        discussion: """
        An .m3u8 media playlist is probed from its init section and first segment only; a multivariant \
        playlist is probed rendition by rendition. With one result, JSON is the probe object itself; with \
        several, {"schemaVersion", "probes": [...]}. If any input fails, nothing is printed on stdout and \
        the exit code is 2.
        """)

    @Argument(help: "Local paths, file: URLs or http(s) URLs.")
    var inputs: [String]

    @Option(help: "table (default on a terminal) or json.")
    var format: ListFormat?

    @OptionGroup var timeout: TimeoutOption

    @Flag(help: "Print the bytes read and the time taken for each input on stderr.")
    var stats = false

    func validate() throws {
        guard !inputs.isEmpty else { throw ValidationError("give at least one INPUT to probe") }
    }

    func run() async throws {
        let given = try ProbeRunner.locations(inputs)
        let targets = try await ProbeTargets.expandLoaded(given, timeout: timeout.timeout)
        let locations = targets.map(\.location)
        let session = ProbeSession(options: ProbeOptions(timeout: timeout.timeout))
        let media = try await ProbeRunner.describeAll(targets, with: session)
        if stats {
            for location in locations {
                guard let cost = await session.statistics(for: location) else { continue }
                Terminal.writeStderr("stats: \(location): \(cost.bytesRead) bytes read in "
                    + String(format: "%.1f ms", cost.seconds * 1000) + "\n")
            }
        }
        switch ListFormat.resolve(format) {
        case .json:
            let text = media.count == 1 ? JSONOutput.encode(ProbeDocument(media[0])) : JSONOutput.encode(ProbeListDocument(media))
            try Output.write(text, to: nil)
        case .table:
            try Output.write(ProbeTable.render(media), to: nil)
        }
    }
}

/// Probes inputs concurrently; all succeed, or every failure is reported together.
enum ProbeRunner {
    /// Parses every input before anything is opened, so a typo fails fast.
    static func locations(_ inputs: [String]) throws(InputLocationError) -> [InputLocation] {
        try inputs.map { text throws(InputLocationError) in try InputLocation(parsing: text) }
    }

    static func describeAll(_ locations: [InputLocation], with session: ProbeSession) async throws(CLIFailure) -> [MediaDescription] {
        try await describeAll(locations.map { ProbeTarget(location: $0) }, with: session)
    }

    static func describeAll(_ targets: [ProbeTarget], with session: ProbeSession) async throws(CLIFailure) -> [MediaDescription] {
        let results = await withTaskGroup(of: Outcome.self) { group in
            for (index, target) in targets.enumerated() {
                group.addTask { await Outcome(index: index, target: target, session: session) }
            }
            var collected = [Outcome?](repeating: nil, count: targets.count)
            for await outcome in group { collected[outcome.index] = outcome }
            return collected.compactMap { $0 }
        }
        var errors: [ProbeError] = []
        var media: [MediaDescription] = []
        for outcome in results {
            if let m = outcome.media { media.append(m) }
            if let e = outcome.error, !errors.contains(e) { errors.append(e) }
        }
        guard errors.isEmpty else { throw CLIFailure(errors) }
        return media
    }

    /// One input's probe, as a plain value the task group can return. (A child task returning
    /// `(Int, Result<MediaDescription, ProbeError>)` got a garbage index in -O builds with 50+
    /// inputs under Swift 6.3; this shape does not.)
    struct Outcome: Sendable {
        var index: Int
        var media: MediaDescription?
        var error: ProbeError?

        init(index: Int, target: ProbeTarget, session: ProbeSession) async {
            self.index = index
            do {
                if let loaded = target.loaded {
                    media = try await session.describeRendition(target.location, loaded: loaded)
                } else {
                    media = try await session.describe(target.location)
                }
            } catch let failure {
                error = failure
            }
        }
    }
}

/// Lines of names and metadata from the media: their control characters are made visible.
enum ProbeTable {
    static func render(_ media: [MediaDescription]) -> String {
        var lines: [String] = []
        for m in media {
            if !lines.isEmpty { lines.append("") }
            let duration = m.duration.map { String(format: "%.3f s", $0) } ?? "unknown duration"
            // A live window's start times are those of a cut in mid-stream (MediaDescription.liveWindow).
            lines.append("\(m.input)  [\(m.container), \(duration)\(m.liveWindow == true ? ", live window" : "")"
                + (m.encryption.map { ", samples encrypted (\($0)): container facts only, not decoded" } ?? "") + "]")
            for v in m.video {
                lines.append("  video #\(v.index): \(MediaText.video(v))" + (v.codecTag.map { " tag \($0)" } ?? "")
                    + (v.startTime.map { String(format: " start %.3f s", $0) } ?? ""))
            }
            for a in m.audio {
                lines.append("  audio #\(a.index): \(MediaText.audio(a))" + (a.codecTag.map { " tag \($0)" } ?? "")
                    + (a.startTime.map { String(format: " start %.3f s", $0) } ?? ""))
            }
            for s in m.subtitles {
                lines.append("  subtitle #\(s.index): \(s.codec)" + (s.language.map { " \($0)" } ?? ""))
            }
        }
        return VisibleText.escape(lines: lines).joined(separator: "\n") + "\n"
    }
}
