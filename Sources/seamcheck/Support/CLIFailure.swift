import Compatibility
import Foundation
import HLS
import MediaProbe
import Reporting

/// A failure that ends the command with a message on stderr and one of INTERFACE.md's exit codes.
struct CLIFailure: Error {
    static let findings: Int32 = 1
    static let usage: Int32 = 2
    static let serviceMissing: Int32 = 3

    var message: String
    var exitCode: Int32

    static func input(_ message: String) -> CLIFailure { CLIFailure(message: message, exitCode: usage) }

    init(message: String, exitCode: Int32) {
        self.message = message
        self.exitCode = exitCode
    }

    init(_ error: ProbeError) { self.init(message: error.description, exitCode: Self.usage) }
    init(_ error: ProfileError) { self.init(message: error.description, exitCode: Self.usage) }
    init(_ error: InputLocationError) { self.init(message: error.description, exitCode: Self.usage) }

    /// Any error from the modules, with its own message.
    init(any error: Error) {
        if let failure = error as? CLIFailure { self = failure; return }
        self.init(message: String(describing: error), exitCode: Self.usage)
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

    /// Colour only for people: a terminal, and NO_COLOR unset (no-color.org).
    static var useColor: Bool {
        stdoutIsTerminal && ProcessInfo.processInfo.environment["NO_COLOR"] == nil
    }
}
