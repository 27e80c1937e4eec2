import Compatibility
import Foundation
import HLS
import MediaProbe
import Reporting
import ResultsReporting

/// A failure the command says in its own words (what, where, what to do), with one of
/// docs/interface.md's exit codes. A module's error is thrown as it is, not wrapped: see `ExitCoded`.
struct CLIFailure: ExitCoded {
    static let findings: Int32 = 1
    static let usage: Int32 = 2
    static let serviceMissing: Int32 = 3

    var message: String
    var exitCode: Int32

    var description: String { message }

    /// Bad usage or unusable input: exit 2.
    static func input(_ message: String) -> CLIFailure { CLIFailure(message: message, exitCode: usage) }

    init(message: String, exitCode: Int32) {
        self.message = message
        self.exitCode = exitCode
    }

    /// Several probe failures at once: every one is named, one per line.
    init(_ errors: [ProbeError]) {
        self.init(message: errors.map(\.description).joined(separator: "\n"), exitCode: Self.usage)
    }
}

enum Terminal {
    /// Messages for people; a stderr that cannot be written to is ignored (there is nowhere
    /// left to say so).
    static func writeStderr(_ text: String) {
        try? Output.writeAll(text, to: STDERR_FILENO)
    }

    /// One line per line of `message`; messages quote URLs and text from the inputs, so their
    /// control characters are made visible.
    static func error(_ message: String) {
        let lines = message.split(separator: "\n", omittingEmptySubsequences: false)
        writeStderr(lines.map { "seamcheck: error: " + VisibleText.escape(String($0)) }.joined(separator: "\n") + "\n")
    }

    static var stdoutIsTerminal: Bool { isatty(STDOUT_FILENO) != 0 }
    static var stdinIsTerminal: Bool { isatty(STDIN_FILENO) != 0 }

    /// Colour only for people: a terminal, and NO_COLOR unset (no-color.org).
    static var useColor: Bool {
        stdoutIsTerminal && ProcessInfo.processInfo.environment["NO_COLOR"] == nil
    }
}
