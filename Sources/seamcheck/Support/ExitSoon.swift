import ArgumentParser
import Compatibility
#if canImport(Glibc)
import Glibc
#endif

/// What lets a one-shot command end sooner: its arguments parsed without the whole command
/// tree, and its big values left for the kernel to take back.
enum ExitSoon {
    /// `lint` and `inspect` in the shapes scripts give them (a playlist, `--offline`, `--format`,
    /// lint's `--fail-on`), read here without ArgumentParser: its parse of the command alone still
    /// reflected every option and looked up their conformances in a binary with NIO, Hummingbird
    /// and GRDB in it (6 % of the 50,000-segment lint). Any other shape (another option, `--x=y`,
    /// a repeated option, help, a usage error) is nil and goes to `parse`, so what is printed is
    /// the same. `ExitSoonTests` compares every field with ArgumentParser's parse.
    static func quick(_ arguments: [String]) -> QuickCommand? {
        guard let name = arguments.first, name == "lint" || name == "inspect" else { return nil }
        var playlist: String?, format: String?, failOn: FailThreshold?, offline = false
        var index = 1
        while index < arguments.count {
            let word = arguments[index]
            index += 1
            switch word {
            case "--offline":
                guard !offline else { return nil }
                offline = true
            case "--format":
                guard format == nil, index < arguments.count else { return nil }
                format = arguments[index]
                index += 1
            case "--fail-on" where name == "lint":
                guard failOn == nil, index < arguments.count, let threshold = FailThreshold(rawValue: arguments[index]) else { return nil }
                failOn = threshold
                index += 1
            default:
                // A path; "help" and anything like an option are ArgumentParser's to read.
                guard playlist == nil, !word.isEmpty, !word.hasPrefix("-"), word != "help" else { return nil }
                playlist = word
            }
        }
        guard let playlist else { return nil }
        if name == "lint" {
            var lintFormat: LintFormat?
            if let format { guard let known = LintFormat(rawValue: format) else { return nil }; lintFormat = known }
            var command = LintCommand()
            command.playlist = playlist
            command.format = lintFormat
            command.offline = offline
            var output = FindingsOutputOptions()
            output.output = nil
            output.failOn = failOn
            output.writeAccepted = false
            command.findingsOutput = output
            command.timeout = TimeoutOption.given(nil)
            var config = ConfigOption()
            config.path = nil
            command.config = config
            return .lint(command)
        }
        var listFormat: ListFormat?
        if let format { guard let known = ListFormat(rawValue: format) else { return nil }; listFormat = known }
        var command = InspectCommand()
        command.playlist = playlist
        command.format = listFormat
        command.offline = offline
        command.timeout = TimeoutOption.given(nil)
        command.benchParse = nil
        return .inspect(command)
    }

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

    /// The allocator set for one command that builds a big model and exits: one arena (the work
    /// runs on a concurrency thread, whose own arena grew by ~1,500 `mprotect` calls), the heap
    /// grown 64 MiB at a time, never given back, and its pages 2 MiB ones where the kernel has them
    /// (`madvise`: a 50,000-segment lint took ~4,500 page faults of 4 KiB). Only `lint` and
    /// `inspect` (`quick`) ask for it: a server keeps glibc's per-thread arenas.
    static func tuneAllocator() {
        #if canImport(Glibc)
        // glibc's mallopt (<malloc.h> is not in the Glibc module) and its parameters' fixed values.
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return }
        let mallopt = unsafeBitCast(symbol, to: (@convention(c) (Int32, Int32) -> Int32).self)
        let arenaMax: Int32 = -8, mmapThreshold: Int32 = -3, trimThreshold: Int32 = -1, topPad: Int32 = -2
        let pad: Int32 = 64 << 20
        _ = mallopt(arenaMax, 1)
        _ = mallopt(mmapThreshold, pad)
        _ = mallopt(trimThreshold, Int32.max)
        _ = mallopt(topPad, pad)
        // Grow the heap now (by the pad), then mark what was added for huge pages.
        let before = UInt(bitPattern: sbrk(0))
        reserve = malloc(1 << 20)
        let after = UInt(bitPattern: sbrk(0))
        let huge: UInt = 2 << 20
        let start = (before + huge - 1) & ~(huge - 1), end = after & ~(huge - 1)
        if before != UInt(bitPattern: -1), end > start {
            _ = madvise(UnsafeMutableRawPointer(bitPattern: start), Int(end - start), MADV_HUGEPAGE)
        }
        #endif
    }

    /// The block that made the heap grow in `tuneAllocator`, kept (its pages are never touched).
    nonisolated(unsafe) private static var reserve: UnsafeMutableRawPointer?

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

/// A command `ExitSoon.quick` read.
enum QuickCommand {
    case lint(LintCommand)
    case inspect(InspectCommand)

    func run() async throws {
        switch self {
        case .lint(let command): try await command.run()
        case .inspect(let command): try await command.run()
        }
    }
}

extension TimeoutOption {
    /// The option as ArgumentParser would have read `--timeout` (nil: not given).
    static func given(_ seconds: Double?) -> TimeoutOption {
        var option = TimeoutOption()
        option.given = seconds
        return option
    }
}
