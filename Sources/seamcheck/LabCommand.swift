import ArgumentParser

/// `seamcheck lab`: the receiver lab (docs/interface.md, "lab").
struct LabCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lab",
        abstract: "The receiver lab: test streams, a server that records what each receiver fetches, verdicts, predicted versus observed.",
        subcommands: [LabStreamsCommand.self, LabServeCommand.self, LabSessionsCommand.self, LabRecordCommand.self,
                      LabReportCommand.self, LabRunCommand.self, LabRunsCommand.self, LabMeasureCommand.self])
}
