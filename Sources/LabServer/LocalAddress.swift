import Hummingbird
import NIOCore

/// A request context that knows the address the connection arrived at: where a client that sent
/// no Host header reached the server (the bound port even when it listens on port 0).
public protocol LocalAddressRequestContext: RequestContext {
    var localAddress: SocketAddress? { get }
}

extension SuiteFiles {
    /// `ADDRESS:PORT` (`[ADDRESS]:PORT` for IPv6) of a socket address, or nil without an IP and port.
    static func authority(_ address: SocketAddress?) -> String? {
        guard let address, let ip = address.ipAddress, let port = address.port, port > 0 else { return nil }
        return (ip.contains(":") ? "[\(ip)]" : ip) + ":\(port)"
    }
}
