import ArgumentParser
import Compatibility
import MediaProbe
import Reporting

extension ReportFormat: ExpressibleByArgument {}

extension FailThreshold: ExpressibleByArgument {}

/// Table or JSON, for commands that print a model rather than an audit report.
enum ListFormat: String, ExpressibleByArgument, CaseIterable {
    case table, json

    /// Table on a terminal, JSON when piped (INTERFACE.md).
    static func resolve(_ chosen: ListFormat?) -> ListFormat {
        chosen ?? (Terminal.stdoutIsTerminal ? .table : .json)
    }
}

struct ProfilesDirOption: ParsableArguments {
    @Option(name: .customLong("profiles-dir"), help: "Directory of device profile YAML files (default: ./DeviceProfiles, or SEAMCHECK_PROFILES_DIR).")
    var path: String?
}

struct TimeoutOption: ParsableArguments {
    @Option(help: "Seconds allowed to open and analyse one input.")
    var timeout: Double = 15

    func validate() throws {
        guard timeout > 0, timeout <= ProbeOptions.maxTimeout else {
            throw ValidationError("--timeout must be a positive number of seconds (at most \(Int(ProbeOptions.maxTimeout)))")
        }
    }
}
