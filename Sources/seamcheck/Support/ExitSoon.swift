import ArgumentParser

/// What lets a one-shot command end sooner: its arguments parsed without the whole command
/// tree, and its big values left for the kernel to take back.
enum ExitSoon {
    /// `lint` and `inspect` parsed on their own: `parseAsRoot` reflects every command of the tree
    /// (the runtime's protocol-conformance lookups over a binary with Hummingbird, NIO and GRDB in
    /// it), a third of a small lint's process. Anything but a clean parse (`--help`, a usage
    /// error) is given to the whole tree, so what is printed is the same.
    static func parse(_ arguments: [String]) -> sending ParsableCommand? {
        guard let name = arguments.first else { return nil }
        let rest = Array(arguments.dropFirst())
        switch name {
        // A parse may also give ArgumentParser's own help command (`--help`): only the command itself counts.
        case LintCommand.configuration.commandName: return (try? LintCommand.parseAsRoot(rest)) as? LintCommand
        case InspectCommand.configuration.commandName: return (try? InspectCommand.parseAsRoot(rest)) as? InspectCommand
        default: return nil
        }
    }

    /// Keeps `value` until the process exits: freeing a 50,000-segment presentation and its
    /// findings node by node (retain counts, `free`) costs milliseconds that nobody waits for, at
    /// the end of a command that exits next.
    static func keep<T>(_ value: T) {
        _ = Unmanaged.passRetained(Kept(value))
    }

    private final class Kept<T> {
        let value: T
        init(_ value: T) { self.value = value }
    }
}
