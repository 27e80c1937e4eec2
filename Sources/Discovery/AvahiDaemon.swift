import CAvahi
import Foundation

/// The avahi-daemon's state as its clients see it.
public enum AvahiServerState: String, Codable, Sendable {
    case registering, running, collision, failure, connecting, unknown

    init(_ state: AvahiClientState) {
        switch state {
        case AVAHI_CLIENT_S_REGISTERING: self = .registering
        case AVAHI_CLIENT_S_RUNNING: self = .running
        case AVAHI_CLIENT_S_COLLISION: self = .collision
        case AVAHI_CLIENT_FAILURE: self = .failure
        case AVAHI_CLIENT_CONNECTING: self = .connecting
        default: self = .unknown
        }
    }
}

/// What the running avahi-daemon says about itself.
public struct AvahiServerInfo: Codable, Sendable, Equatable {
    /// Such as "avahi 0.8".
    public var version: String
    /// The host name without domain, such as "seamcheck-ci".
    public var hostName: String
    /// Such as "seamcheck-ci.local".
    public var hostNameFQDN: String
    public var domainName: String
    public var state: AvahiServerState

    public init(version: String, hostName: String, hostNameFQDN: String, domainName: String, state: AvahiServerState) {
        self.version = version
        self.hostName = hostName
        self.hostNameFQDN = hostNameFQDN
        self.domainName = domainName
        self.state = state
    }
}

/// The avahi-daemon reached through libavahi-client over the D-Bus system bus.
///
/// The bus is `DBUS_SYSTEM_BUS_ADDRESS` or the system default. libdbus reads that variable
/// once per process, at the first connection: changing it later has no effect.
public enum AvahiDaemon {
    /// Asks the daemon for its version, host name and state.
    ///
    /// Blocks for a few local D-Bus round trips (milliseconds; up to D-Bus's 25 s timeout if the
    /// daemon hangs). Throws `daemonNotRunning` when the daemon or the bus is missing.
    public static func serverInfo() throws(DiscoveryError) -> AvahiServerInfo {
        let connection = try AvahiConnection(callback: { _, _, _ in }, userdata: nil)
        let client = connection.client
        func text(_ pointer: UnsafePointer<CChar>?, _ what: String) throws(DiscoveryError) -> String {
            guard let pointer else { throw connection.lastError(operation: "report its \(what)") }
            return String(cString: pointer)
        }
        return AvahiServerInfo(
            version: try text(avahi_client_get_version_string(client), "version"),
            hostName: try text(avahi_client_get_host_name(client), "host name"),
            hostNameFQDN: try text(avahi_client_get_host_name_fqdn(client), "host name"),
            domainName: try text(avahi_client_get_domain_name(client), "domain name"),
            state: AvahiServerState(avahi_client_get_state(client))
        )
    }
}

/// An Avahi simple poll and a client on it; frees both on deinit. Not thread-safe: confine an
/// instance to one thread.
final class AvahiConnection {
    let poll: OpaquePointer
    let client: OpaquePointer

    /// Connects without AVAHI_CLIENT_NO_FAIL, so a missing daemon fails here at once.
    ///
    /// `callback` may run before this initializer returns: it must use its client argument.
    init(callback: AvahiClientCallback, userdata: UnsafeMutableRawPointer?) throws(DiscoveryError) {
        guard let poll = avahi_simple_poll_new() else {
            throw .avahiFailure(operation: "create an event loop", reason: "out of memory")
        }
        var error: Int32 = 0
        guard let client = avahi_client_new(avahi_simple_poll_get(poll), AvahiClientFlags(0), callback, userdata, &error) else {
            avahi_simple_poll_free(poll)
            throw Self.error(code: error, operation: "accept a client connection")
        }
        self.poll = poll
        self.client = client
    }

    deinit {
        avahi_client_free(client)
        avahi_simple_poll_free(poll)
    }

    /// The client's last error as a `DiscoveryError`.
    func lastError(operation: String) -> DiscoveryError {
        Self.error(code: avahi_client_errno(client), operation: operation)
    }

    /// `daemonNotRunning` for the codes that mean the daemon or the bus is gone.
    static func error(code: Int32, operation: String) -> DiscoveryError {
        let reason = String(cString: avahi_strerror(code))
        switch Int(code) {
        case AVAHI_ERR_NO_DAEMON, AVAHI_ERR_DISCONNECTED, AVAHI_ERR_DBUS_ERROR:
            return .daemonNotRunning(reason: reason)
        default:
            return .avahiFailure(operation: operation, reason: reason)
        }
    }
}
