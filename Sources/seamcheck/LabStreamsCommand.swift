import ArgumentParser
import Foundation
import LabCore
import LabRun
import LabServer

/// `seamcheck lab streams`: generates the lab's test-stream suite (docs/interface.md).
struct LabStreamsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "streams",
        abstract: "Generate the lab test-stream suite with ffmpeg; DIR/lab.json is its manifest.",
        discussion: "Cases: \(LabStreamsGenerator.caseIds.joined(separator: ", ")). Encodes are cached: a second run re-encodes only what changed.")

    @Option(help: "The suite folder (the lab server's root).") var output: String = "lab-streams"
    @Option(name: .customLong("case"), help: "Generate only this case (repeatable); the shared primary is always made.")
    var cases: [String] = []
    @Option(help: "full (1280x720, 60 s primary) or small (320x180, 12 s: for tests).") var scale: LabScale = .full
    @Option(help: "ffmpeg processes at once.") var jobs: Int = 2

    func validate() throws {
        try OptionChecks.jobs(jobs)
    }

    func run() async throws {
        let generator = LabStreamsGenerator(scale: scale, jobs: jobs)
        let result = try await generator.generate(output: output, caseIds: cases)
        let summary = "\(result.manifest.cases.count) cases in \(result.root) (\(result.encoded) encoded, \(result.cached) cached); manifest \(result.root)/\(LabManifest.fileName)\n"
        try Output.write(summary, to: nil)
    }
}

extension LabScale: ExpressibleByArgument {}
