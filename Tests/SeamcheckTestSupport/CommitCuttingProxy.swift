import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A TCP proxy on 127.0.0.1 in front of a PostgreSQL server that, once armed, cuts the connection
/// that sends COMMIT right after the server answered it, before the answer reaches the client: the
/// transaction landed and the client cannot know. The client must say "outcome unknown" rather than
/// run the transaction again (which would write it twice). Plain TCP only (`sslmode=disable`).
public final class CommitCuttingProxy: @unchecked Sendable {
    public let port: Int
    private let upstreamPort: Int
    private let listener: Int32
    private let lock = NSLock()
    private var armed = false
    private var cutCount = 0
    private var closed = false

    public init(upstreamPort: Int) throws {
        self.upstreamPort = upstreamPort
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = Self.loopback(port: 0)
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 16) == 0 else { throw Failure(description: "proxy: cannot listen (errno \(errno))") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listener = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    /// The next COMMIT (of any connection) has its answer cut off.
    public func arm() { lock.withLock { armed = true } }

    /// How many connections were cut after their COMMIT.
    public var cuts: Int { lock.withLock { cutCount } }

    public func close() {
        lock.withLock { closed = true }
        shutdown(listener, Int32(SHUT_RDWR))
        Glibc.close(listener)
    }

    /// `url` (a `postgres://` URL to the upstream) pointed at the proxy.
    public func url(_ url: String) -> String {
        url.replacingOccurrences(of: ":\(upstreamPort)/", with: ":\(port)/")
    }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 { return }
            let server = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = Self.loopback(port: upstreamPort)
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(server, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard connected == 0 else { Glibc.close(client); Glibc.close(server); continue }
            let pair = Pair(client: client, server: server)
            Thread { [self] in clientToServer(pair) }.start()
            Thread { [self] in serverToClient(pair) }.start()
        }
    }

    private func clientToServer(_ pair: Pair) {
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = read(pair.client, &buffer, buffer.count)
            if n <= 0 { pair.shut(); return }
            let chunk = Array(buffer[0..<n])
            // postgres-nio sends COMMIT in a Parse message: its text is in the chunk as it is.
            if Self.contains(chunk, Array("COMMIT".utf8)) {
                lock.withLock {
                    if armed { armed = false; pair.cutAfterAnswer = true }
                }
            }
            if !Self.writeAll(pair.server, chunk) { pair.shut(); return }
        }
    }

    private func serverToClient(_ pair: Pair) {
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = read(pair.server, &buffer, buffer.count)
            if n <= 0 { pair.shut(); return }
            if lock.withLock({ pair.cutAfterAnswer }) {
                // The server answered COMMIT: it has committed. The client never hears it.
                lock.withLock { cutCount += 1 }
                pair.shut()
                return
            }
            if !Self.writeAll(pair.client, Array(buffer[0..<n])) { pair.shut(); return }
        }
    }

    private final class Pair: @unchecked Sendable {
        let client: Int32, server: Int32
        var cutAfterAnswer = false
        private let once = NSLock()
        private var done = false
        init(client: Int32, server: Int32) { self.client = client; self.server = server }
        func shut() {
            once.lock()
            defer { once.unlock() }
            guard !done else { return }
            done = true
            shutdown(client, Int32(SHUT_RDWR))
            shutdown(server, Int32(SHUT_RDWR))
        }
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }

    private static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if n <= 0 { return false }
            offset += n
        }
        return true
    }

    private static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard haystack.count >= needle.count else { return false }
        for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
            if Array(haystack[start..<start + needle.count]) == needle { return true }
        }
        return false
    }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }
}
