import CAvahi
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One-shot discovery of AirPlay receivers through avahi-daemon.
public enum AirPlayBrowser {
    /// The service types browsed, merged into receivers by device id.
    public static let serviceTypes = ["_airplay._tcp", "_raop._tcp"]

    /// Browses and resolves `serviceTypes`, and merges the results into receivers.
    ///
    /// Returns once Avahi reports ALL_FOR_NOW for every type and every resolve has answered
    /// (about 1 s on a quiet network), or at `timeout` with what was resolved by then. Task
    /// cancellation also returns early with the partial result. Avahi runs on a thread of its
    /// own, never on Swift's cooperative pool.
    ///
    /// - Parameter interface: an interface name (`eth0`) to browse on; nil for all.
    /// - Throws: `daemonNotRunning` when avahi-daemon or D-Bus is missing (or dies meanwhile),
    ///   `unknownInterface` for a bad `interface`.
    public static func browse(timeout: Duration, interface: String? = nil) async throws(DiscoveryError) -> [Receiver] {
        Receiver.merge(try await resolveServices(types: serviceTypes, timeout: timeout, interface: interface))
    }

    /// Browses and resolves `types` (such as `_airplay._tcp`) without merging: one entry per
    /// instance, interface and address family. Same return rules as `browse`.
    public static func resolveServices(types: [String], timeout: Duration,
                                       interface: String? = nil) async throws(DiscoveryError) -> [ResolvedService] {
        var interfaceIndex = AvahiIfIndex(AVAHI_IF_UNSPEC)
        if let interface {
            let index = if_nametoindex(interface)
            guard index != 0 else { throw .unknownInterface(interface) }
            interfaceIndex = AvahiIfIndex(index)
        }
        let session = BrowseSession(types: types, interfaceIndex: interfaceIndex, timeout: timeout)
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<[ResolvedService], DiscoveryError>, Never>) in
                let thread = Thread { continuation.resume(returning: session.run()) }
                thread.name = "seamcheck.avahi-browse"
                thread.start()
            }
        } onCancel: {
            session.cancel()
        }
        return try result.get()
    }
}

/// The Avahi side of one browse: created, run and torn down on one dedicated thread, except
/// `cancel`, which any thread may call.
final class BrowseSession: @unchecked Sendable {
    private let types: [String]
    private let interfaceIndex: AvahiIfIndex
    private let timeout: Duration

    private let lock = NSLock()
    private var cancelled = false
    private var livePoll: OpaquePointer?

    // Touched only on the session's thread (from `run` and the callbacks it drives).
    private var services: [String: ResolvedService] = [:]
    private var browsersPending = 0
    private var resolversPending = 0
    private var failure: DiscoveryError?
    /// The client the browsers belong to, for creating resolvers from their callbacks.
    private var currentClient: OpaquePointer?

    init(types: [String], interfaceIndex: AvahiIfIndex, timeout: Duration) {
        self.types = types
        self.interfaceIndex = interfaceIndex
        self.timeout = timeout
    }

    /// Wakes the loop and makes `run` return what it has.
    func cancel() {
        lock.withLock {
            cancelled = true
            if let livePoll { avahi_simple_poll_wakeup(livePoll) }
        }
    }

    private var isCancelled: Bool { lock.withLock { cancelled } }

    /// Blocks the calling thread until done, timed out, cancelled or failed.
    func run() -> Result<[ResolvedService], DiscoveryError> {
        let deadline = ContinuousClock.now + timeout
        let context = Unmanaged.passUnretained(self).toOpaque()
        let connection: AvahiConnection
        do {
            connection = try AvahiConnection(callback: { client, state, userdata in
                guard let userdata, state == AVAHI_CLIENT_FAILURE, let client else { return }
                BrowseSession.from(userdata).failed(AvahiConnection.error(code: avahi_client_errno(client), operation: "browse"))
            }, userdata: context)
        } catch {
            return .failure(error)
        }
        lock.withLock { livePoll = connection.poll }
        defer {
            lock.withLock { livePoll = nil }
            withExtendedLifetime(connection) {}  // the poll must outlive any `cancel` that saw it
        }
        currentClient = connection.client
        defer { currentClient = nil }

        for type in types {
            let browser = avahi_service_browser_new(
                connection.client, interfaceIndex, AvahiProtocol(AVAHI_PROTO_UNSPEC), type, nil, AvahiLookupFlags(0),
                { _, interface, proto, event, name, type, domain, flags, userdata in
                    guard let userdata else { return }
                    BrowseSession.from(userdata).browserEvent(
                        interface: interface, proto: proto, event: event, name: name, type: type, domain: domain, flags: flags)
                }, context)
            guard browser != nil else { return .failure(connection.lastError(operation: "browse \(type)")) }
            browsersPending += 1
        }

        while failure == nil, browsersPending > 0 || resolversPending > 0, !isCancelled {
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero else { break }
            let milliseconds = min(500, max(1, remaining.components.seconds * 1000
                + remaining.components.attoseconds / 1_000_000_000_000_000 + 1))
            if avahi_simple_poll_iterate(connection.poll, Int32(milliseconds)) != 0 { break }
        }
        if let failure { return .failure(failure) }
        return .success(services.values.sorted { ($0.type, $0.name, $0.interface, $0.address) < ($1.type, $1.name, $1.interface, $1.address) })
    }

    private static func from(_ userdata: UnsafeMutableRawPointer) -> BrowseSession {
        Unmanaged<BrowseSession>.fromOpaque(userdata).takeUnretainedValue()
    }

    private func failed(_ error: DiscoveryError) {
        if failure == nil { failure = error }
    }

    private func browserEvent(interface: AvahiIfIndex, proto: AvahiProtocol, event: AvahiBrowserEvent,
                              name: UnsafePointer<CChar>?, type: UnsafePointer<CChar>?, domain: UnsafePointer<CChar>?,
                              flags: AvahiLookupResultFlags) {
        switch event {
        case AVAHI_BROWSER_NEW:
            guard let client = currentClient, let name, let type, let domain else { return }
            let resolver = avahi_service_resolver_new(
                client, interface, proto, name, type, domain, AvahiProtocol(AVAHI_PROTO_UNSPEC), AvahiLookupFlags(0),
                { resolver, interface, proto, event, name, type, domain, host, address, port, txt, flags, userdata in
                    if let userdata {
                        BrowseSession.from(userdata).resolverEvent(
                            interface: interface, proto: proto, event: event, name: name, type: type, domain: domain,
                            host: host, address: address, port: port, txt: txt, flags: flags)
                    }
                    avahi_service_resolver_free(resolver)
                }, Unmanaged.passUnretained(self).toOpaque())
            if resolver != nil { resolversPending += 1 }
        case AVAHI_BROWSER_REMOVE:
            guard let name, let type, let domain else { return }
            let prefix = Self.key(interface: interface, proto: proto, name: name, type: type, domain: domain)
            services[prefix] = nil
        case AVAHI_BROWSER_ALL_FOR_NOW:
            browsersPending -= 1
        case AVAHI_BROWSER_FAILURE:
            if let client = currentClient {
                failed(AvahiConnection.error(code: avahi_client_errno(client), operation: "browse"))
            }
        default:
            break  // CACHE_EXHAUSTED
        }
    }

    private func resolverEvent(interface: AvahiIfIndex, proto: AvahiProtocol, event: AvahiResolverEvent,
                               name: UnsafePointer<CChar>?, type: UnsafePointer<CChar>?, domain: UnsafePointer<CChar>?,
                               host: UnsafePointer<CChar>?, address: UnsafePointer<AvahiAddress>?, port: UInt16,
                               txt: UnsafeMutablePointer<AvahiStringList>?, flags: AvahiLookupResultFlags) {
        resolversPending -= 1
        guard event == AVAHI_RESOLVER_FOUND, let name, let type, let domain else { return }
        var text = [CChar](repeating: 0, count: Int(AVAHI_ADDRESS_STR_MAX))
        if let address { avahi_address_snprint(&text, text.count, address) }
        let service = ResolvedService(
            type: String(cString: type), name: String(cString: name), domain: String(cString: domain),
            interface: Self.interfaceName(interface), addressFamily: proto == AvahiProtocol(AVAHI_PROTO_INET6) ? "IPv6" : "IPv4",
            hostName: host.map { String(cString: $0) } ?? "", address: String(nulTerminated: text), port: Int(port),
            txt: Self.record(txt), isLocal: flags.rawValue & AVAHI_LOOKUP_RESULT_LOCAL.rawValue != 0)
        services[Self.key(interface: interface, proto: proto, name: name, type: type, domain: domain)] = service
    }

    private static func key(interface: AvahiIfIndex, proto: AvahiProtocol, name: UnsafePointer<CChar>,
                            type: UnsafePointer<CChar>, domain: UnsafePointer<CChar>) -> String {
        "\(interface)|\(proto)|\(String(cString: type))|\(String(cString: domain))|\(String(cString: name))"
    }

    private static func interfaceName(_ index: AvahiIfIndex) -> String {
        var buffer = [CChar](repeating: 0, count: Int(IF_NAMESIZE) + 1)
        guard index >= 0, if_indextoname(UInt32(index), &buffer) != nil else { return String(index) }
        return String(nulTerminated: buffer)
    }

    /// The TXT strings as a dictionary; the first occurrence of a key wins (RFC 6763 6.4).
    static func record(_ list: UnsafeMutablePointer<AvahiStringList>?) -> TXTRecord {
        var pairs: [(String, String?)] = []
        var node = list
        while let current = node {
            var key: UnsafeMutablePointer<CChar>?
            var value: UnsafeMutablePointer<CChar>?
            var size = 0
            if avahi_string_list_get_pair(current, &key, &value, &size) == 0, let key {
                let text = value.map { pointer in
                    String(decoding: UnsafeRawBufferPointer(start: pointer, count: size), as: UTF8.self)
                }
                pairs.append((String(cString: key), text))
            }
            avahi_free(key)
            avahi_free(value)
            node = avahi_string_list_get_next(current)
        }
        // libavahi-client hands the strings over in wire order (avahi-browse prints them reversed).
        var record: TXTRecord = [:]
        for (key, value) in pairs where record[key] == nil { record[key] = value }
        return record
    }
}

extension String {
    /// The text before the first NUL of a C buffer.
    init(nulTerminated buffer: [CChar]) {
        self = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
