import ArgumentParser
import Foundation
import HLS
import MediaProbe
import Reporting

struct ProbeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "probe",
        abstract: "Describe the tracks of media files or URLs (codec, frame rate, aspect ratio, HDR, audio).",
        discussion: "With one input, JSON is the probe object itself; with several, {\"schemaVersion\", \"probes\": [...]}. If any input fails, nothing is printed on stdout and the exit code is 2.")

    @Argument(help: "Local paths, file: URLs or http(s) URLs.")
    var inputs: [String]

    @Option(help: "table (default on a terminal) or json.")
    var format: ListFormat?

    @OptionGroup var timeout: TimeoutOption

    func validate() throws {
        guard !inputs.isEmpty else { throw ValidationError("give at least one INPUT to probe") }
    }

    func run() async throws {
        let locations = try ProbeRunner.locations(inputs)
        let session = ProbeSession(options: ProbeOptions(timeout: timeout.timeout))
        let media = try await ProbeRunner.describeAll(locations, with: session)
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
    static func locations(_ inputs: [String]) throws(CLIFailure) -> [InputLocation] {
        var locations: [InputLocation] = []
        for text in inputs {
            do { locations.append(try InputLocation(parsing: text)) } catch { throw CLIFailure(error) }
        }
        return locations
    }

    static func describeAll(_ locations: [InputLocation], with session: ProbeSession) async throws(CLIFailure) -> [MediaDescription] {
        let results = await withTaskGroup(of: (Int, Result<MediaDescription, ProbeError>).self) { group in
            for (index, location) in locations.enumerated() {
                group.addTask {
                    do throws(ProbeError) {
                        return (index, .success(try await session.describe(location)))
                    } catch {
                        return (index, .failure(error))
                    }
                }
            }
            var collected = [Result<MediaDescription, ProbeError>?](repeating: nil, count: locations.count)
            for await (index, result) in group { collected[index] = result }
            return collected.compactMap { $0 }
        }
        var errors: [ProbeError] = []
        var media: [MediaDescription] = []
        for result in results {
            switch result {
            case .success(let m): media.append(m)
            case .failure(let e): if !errors.contains(e) { errors.append(e) }
            }
        }
        guard errors.isEmpty else { throw CLIFailure(errors) }
        return media
    }
}

enum ProbeTable {
    static func render(_ media: [MediaDescription]) -> String {
        var lines: [String] = []
        for m in media {
            if !lines.isEmpty { lines.append("") }
            let duration = m.duration.map { String(format: "%.3f s", $0) } ?? "unknown duration"
            lines.append("\(m.input)  [\(m.container), \(duration)]")
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
        return lines.joined(separator: "\n") + "\n"
    }
}
