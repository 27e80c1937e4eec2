import Foundation
import LabCore
import LabServer
import Logging

/// The lab server started inside `lab run` for the run's length: `LabServer.run` in a task,
/// stopped by cancelling it. Its requests go to the run's database like `lab serve`'s.
public final class LabRunServer: Sendable {
    public let port: Int
    private let task: Task<Void, any Error>
    private let stopping: StopFlag

    private init(port: Int, task: Task<Void, any Error>, stopping: StopFlag) {
        self.port = port
        self.task = task
        self.stopping = stopping
    }

    /// Starts the server and returns once it listens; a bind failure is thrown as `LabServeError`.
    public static func start(_ options: LabServerOptions, store: LabStore, logger: Logger) async throws -> LabRunServer {
        var options = options
        options.stopsOnSignals = false
        let stopping = StopFlag()
        // Cancelling the server's task makes HummingbirdCore log its shutdown as errors; once the
        // run stops it on purpose, those lines are dropped.
        var quiet = Logger(label: logger.label) { _ in QuietOnStop(base: logger, stopping: stopping) }
        quiet.logLevel = logger.logLevel
        let (ports, feed) = AsyncStream.makeStream(of: Int.self)
        let task = Task { [options, quiet] in
            defer { feed.finish() }
            try await LabServer.run(options, store: store, logger: quiet) { port in feed.yield(port) }
        }
        for await port in ports { return LabRunServer(port: port, task: task, stopping: stopping) }
        try await task.value
        throw LabServeError.cannotBind(bind: options.bind, port: options.port, reason: "the server stopped before it listened")
    }

    /// Stops serving; every logged request is in the database when this returns.
    public func stop() async {
        stopping.set()
        task.cancel()
        _ = try? await task.value
    }
}

final class StopFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    func set() { lock.withLock { value = true } }
    var isSet: Bool { lock.withLock { value } }
}

/// Passes log lines to `base` until the server is being stopped.
struct QuietOnStop: LogHandler {
    let base: Logger
    let stopping: StopFlag
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level

    init(base: Logger, stopping: StopFlag) {
        self.base = base
        self.stopping = stopping
        logLevel = base.logLevel
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(level: Logger.Level, message: Logger.Message, metadata: Logger.Metadata?, source: String, file: String,
             function: String, line: UInt) {
        guard !stopping.isSet else { return }
        base.log(level: level, message, metadata: self.metadata.merging(metadata ?? [:]) { $1 }, source: source, file: file,
                 function: function, line: line)
    }
}

/// The local address on the route toward a host: the address a receiver there can reach this
/// machine at (a UDP socket connected to it, read with getsockname; nothing is sent).
public enum LocalRoute {
    public static func source(toward host: String) -> String? {
        var v4 = sockaddr_in(), v6 = sockaddr_in6()
        if inet_pton(AF_INET, host, &v4.sin_addr) == 1 {
            v4.sin_family = sa_family_t(AF_INET)
            v4.sin_port = in_port_t(UInt16(9).bigEndian)
            return withUnsafeBytes(of: &v4) { connected(family: AF_INET, address: $0) }
        }
        if inet_pton(AF_INET6, host, &v6.sin6_addr) == 1 {
            v6.sin6_family = sa_family_t(AF_INET6)
            v6.sin6_port = in_port_t(UInt16(9).bigEndian)
            return withUnsafeBytes(of: &v6) { connected(family: AF_INET6, address: $0) }
        }
        return nil
    }

    private static func connected(family: Int32, address: UnsafeRawBufferPointer) -> String? {
        #if canImport(Glibc)
        let fd = socket(family, Int32(SOCK_DGRAM.rawValue), 0)
        #else
        let fd = socket(family, SOCK_DGRAM, 0)
        #endif
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        let sockaddrPointer = address.baseAddress!.assumingMemoryBound(to: sockaddr.self)
        guard connect(fd, sockaddrPointer, socklen_t(address.count)) == 0 else { return nil }
        var local = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else { return nil }
        var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        let result = withUnsafePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                getnameinfo($0, length, &host, socklen_t(host.count), nil, 0, NI_NUMERICHOST)
            }
        }
        guard result == 0 else { return nil }
        return String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
