import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Loopback endpoints that misbehave below HTTP: a port where nothing listens (connections are
/// refused at once) and one whose accept queue is full (SYNs are dropped: connects hang until
/// the client's own timeout, like a firewalled host).
public enum LoopbackPorts {
    /// A port on 127.0.0.1 with no listener: connections to it are refused. Its socket stays bound,
    /// not listening, until the process ends (a few descriptors), so that no other test process
    /// (scripts/test-shards.sh runs three) can take the port and answer on it.
    public static func closed() throws -> Int {
        try port(of: bound(listening: nil))
    }

    static func listener(backlog: Int32) throws -> Int32 {
        try bound(listening: backlog)
    }

    /// A TCP socket bound to 127.0.0.1 on a port the kernel picks, listening when `backlog` is given.
    private static func bound(listening backlog: Int32?) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EMFILE) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, backlog.map({ listen(fd, $0) == 0 }) ?? true else {
            close(fd)
            throw POSIXError(.EADDRINUSE)
        }
        return fd
    }

    static func port(of fd: Int32) throws -> Int {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let rc = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard rc == 0 else { throw POSIXError(.EINVAL) }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

/// A listener on 127.0.0.1 that never accepts, with its queue filled: new connections hang.
public final class LoopbackBlackhole {
    public let port: Int
    private var descriptors: [Int32] = []

    public init() throws {
        let listener = try LoopbackPorts.listener(backlog: 0)
        descriptors = [listener]
        port = try LoopbackPorts.port(of: listener)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        for _ in 0..<3 {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            guard fd >= 0 else { continue }
            _ = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            descriptors.append(fd)
        }
        usleep(200_000)  // let the handshakes that fit complete, so the queue is full
    }

    deinit {
        for fd in descriptors { close(fd) }
    }
}
