import ArgumentParser
import Foundation
import Store
import Reporting
import ResultsReporting

@main
struct Seamcheck: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "seamcheck",
        abstract: "Checks that the switch between HLS primary content and interstitials is seamless on AirPlay receivers.",
        discussion: """
        Exit codes: 0 ran with no finding at or above --fail-on; 1 findings at or above --fail-on; \
        2 bad usage or unusable input; 3 a needed service (avahi-daemon, D-Bus) is missing; \
        4 `lab run` could run no receiver at all; 5 `lab run` could not store a cell it played (the run is interrupted, \
        `--resume` completes it); \
        130 / 143 a matrix or lab run interrupted by SIGINT / SIGTERM (finished cases are kept).
        """,
        version: seamcheckVersion,
        subcommands: [AuditCommand.self, LintCommand.self, InspectCommand.self, ProbeCommand.self, DiscoverCommand.self,
                      MatrixCommand.self, LabCommand.self, AirPlayCommand.self, ProfilesCommand.self, RulesCommand.self, ConfigCommand.self,
                      DbCommand.self]
    )

    /// Runs the command and maps every failure to docs/interface.md's exit codes, here and nowhere
    /// else: usage errors are 2 (ArgumentParser's default is 64), an `ExitCoded` error carries
    /// its own code, and any other error of a module is 2 (unusable input) with its description.
    static func main() async {
        // However the command ends (a return, an exit code, a signal it traps): what it wrote is in the .sqlite, not its -wal.
        atexit { SQLiteExecutor.checkpointAllOpen() }
        do {
            if let quick = ExitSoon.quick(Array(CommandLine.arguments.dropFirst())) {
                ExitSoon.tuneAllocator()
                return try await quick.run()
            }
            var command: ParsableCommand
            if let parsed = ExitSoon.parse(Array(CommandLine.arguments.dropFirst())) { command = parsed } else { command = try parseAsRoot() }
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let failure as OutputError {
            fail(failure)
        } catch let error as any ExitCoded {
            Terminal.error(error.description)
            Foundation.exit(error.exitCode)
        } catch where String(reflecting: type(of: error)).hasPrefix("ArgumentParser.") {
            // Usage errors, --help, --version, `ExitCode`: some of these types are ArgumentParser's own.
            endParsing(error)
        } catch {
            Terminal.error(String(describing: error))
            Foundation.exit(CLIFailure.usage)
        }
    }

    /// ArgumentParser's own ends: bad usage (2), --help and --version (0), `ExitCode`.
    static func endParsing(_ error: Error) -> Never {
        let code = exitCode(for: error)
        let message = fullMessage(for: error)
        if code == .success {
            // --help and --version: output like any other.
            if !message.isEmpty {
                do { try Output.writeStandardOutput(message + "\n") } catch { fail(error) }
            }
            Foundation.exit(0)
        }
        if !message.isEmpty { Terminal.writeStderr(message + "\n") }
        Foundation.exit(code == .validationFailure ? CLIFailure.usage : code.rawValue)
    }

    /// Output that could not be written: exit 2 with one line on stderr, or, when the reader of
    /// stdout has gone, the quiet end a SIGPIPE would have made.
    static func fail(_ failure: OutputError) -> Never {
        if failure.isBrokenPipe { Output.endForBrokenPipe() }
        Terminal.error(failure.description)
        Foundation.exit(CLIFailure.usage)
    }
}
