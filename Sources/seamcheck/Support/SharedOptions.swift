import ArgumentParser
import Compatibility
import Matrix
import MediaProbe
import Reporting
import ResultsReporting

extension ReportFormat: ExpressibleByArgument {}

extension FailThreshold: ExpressibleByArgument {}

/// Table or JSON, for commands that print a model rather than an audit report.
enum ListFormat: String, ExpressibleByArgument, CaseIterable {
    case table, json

    /// Table on a terminal, JSON when piped (docs/interface.md).
    static func resolve(_ chosen: ListFormat?) -> ListFormat {
        chosen ?? (Terminal.stdoutIsTerminal ? .table : .json)
    }
}

struct ProfilesDirOption: ParsableArguments {
    @Option(name: .customLong("profiles-dir"), help: "Directory of device profile YAML files (default: ./DeviceProfiles, or SEAMCHECK_PROFILES_DIR).")
    var path: String?
}

struct TimeoutOption: ParsableArguments {
    static let defaultSeconds: Double = 15

    @Option(name: .customLong("timeout"), help: "Seconds allowed to open and analyse one input (default: the project file's timeout, else 15).")
    var given: Double?

    var timeout: Double { given ?? Self.defaultSeconds }

    /// The command line, else the project file, else 15 s.
    func resolved(_ config: ProjectConfig?) -> Double { given ?? config?.timeout ?? Self.defaultSeconds }

    func validate() throws {
        guard let given else { return }
        guard given > 0, given <= ProbeOptions.maxTimeout else {
            throw ValidationError("--timeout must be a positive number of seconds (at most \(Int(ProbeOptions.maxTimeout)))")
        }
    }
}

/// Where a findings report goes and when it fails the run: `lint` and `audit` alike.
struct FindingsOutputOptions: ParsableArguments {
    @Option(help: "Write the report to this file instead of stdout.")
    var output: String?

    @Option(name: .customLong("fail-on"), help: "Exit 1 when a finding is at or above this severity: error, warning, info or never (default: the project file's failOn, else error).")
    var failOn: FailThreshold?

    @Flag(name: .customLong("write-accepted"), help: "Add every open finding to the project file's accepted list (a start: give each a reason).")
    var writeAccepted = false
}
