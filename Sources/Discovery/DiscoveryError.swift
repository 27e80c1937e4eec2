import Foundation

/// Why discovery could not run; `description` says what happened and what to do.
public enum DiscoveryError: Error, CustomStringConvertible, Equatable, Sendable {
    /// avahi-daemon (or the D-Bus system bus it needs) cannot be reached; `reason` is Avahi's
    /// error text, such as "Daemon not running".
    case daemonNotRunning(reason: String)
    /// The daemon answered but refused an operation (`operation` such as "browse _airplay._tcp").
    case avahiFailure(operation: String, reason: String)
    /// `--interface` named no network interface of this machine.
    case unknownInterface(String)

    public var description: String {
        switch self {
        case let .daemonNotRunning(reason):
            "avahi-daemon is not running (\(reason)). Start D-Bus and avahi-daemon "
                + "(scripts/services.sh start, or `service avahi-daemon start`) and retry."
        case let .avahiFailure(operation, reason):
            "avahi-daemon could not \(operation) (\(reason)). Check the daemon's log; "
                + "restarting it (scripts/services.sh stop && scripts/services.sh start) often helps."
        case let .unknownInterface(name):
            "no network interface is named '\(name)'. List them with `ip -br link` and pass one of those names."
        }
    }

    /// Avahi's (or the system's) own words, without the advice of `description`.
    public var reason: String {
        switch self {
        case let .daemonNotRunning(reason), let .avahiFailure(_, reason): reason
        case let .unknownInterface(name): "no interface named \(name)"
        }
    }

    /// The process exit code for this error (see docs/interface.md): 3 for a missing service, 2 for
    /// bad usage.
    public var exitCode: Int32 {
        switch self {
        case .daemonNotRunning, .avahiFailure: 3
        case .unknownInterface: 2
        }
    }
}
