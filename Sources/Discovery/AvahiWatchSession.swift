import CAvahi
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// What an `AvahiWatchSession` reports, always from its own thread and in order.
enum AvahiWatchSignal: Sendable {
    /// Every service resolved so far (sorted): after changes settle, before `browseComplete`,
    /// and empty right before `lost`.
    case services([ResolvedService])
    /// ALL_FOR_NOW from every browser and an answer from every resolver started by then. Once
    /// per connection to the daemon.
    case browseComplete
    /// A service was seen but could not be resolved (`reason` is Avahi's, e.g. "Timeout reached").
    case unresolved(type: String, name: String, reason: String)
    /// The daemon (or the bus) went away; the session reconnects by itself.
    case lost(DiscoveryError)
    /// Connected again after `lost`; browsing restarted.
    case reconnected
    /// The event loop itself broke; `ended` follows.
    case failed(DiscoveryError)
    /// The thread is done (after `stop` or `failed`): the last signal of a started session.
    case ended
}

/// Browses and resolves service types through libavahi-client on a thread of its own, keeps
/// resolvers alive so that TXT changes are seen, and survives daemon restarts.
///
/// The first connection is made without AVAHI_CLIENT_NO_FAIL, so a missing daemon is reported
/// by `start` at once; after a loss it reconnects with NO_FAIL (waiting for the daemon) and,
/// when the bus itself is gone, retries every second. Only `stop` may be called from another
/// thread; everything else runs on the session's thread.
final class AvahiWatchSession: @unchecked Sendable {
    /// Quiet time after the last change before `services` is reported, and the longest a change
    /// waits while resolves keep arriving.
    static let settle: Duration = .milliseconds(20)
    static let maxDelay: Duration = .milliseconds(250)
    static let busRetry: Duration = .seconds(1)

    private let types: [String]
    private let interfaceIndex: AvahiIfIndex
    private let handler: @Sendable (AvahiWatchSignal) -> Void

    private let lock = NSLock()
    private var stopRequested = false
    private var livePoll: OpaquePointer?

    // Touched only on the session's thread.
    private var poll: OpaquePointer?
    private var client: OpaquePointer?
    private var browsersStarted = false
    private var browsersPending = 0
    private var resolvers: [String: OpaquePointer] = [:]
    private var awaitingResolve: Set<String> = []
    private var services: [String: ResolvedService] = [:]
    private var completeReported = false
    private var lostError: DiscoveryError?
    private var reconnecting = false
    private var reconnectAt: ContinuousClock.Instant?
    private var dirtySince: ContinuousClock.Instant?
    private var lastChange: ContinuousClock.Instant?

    init(types: [String], interfaceIndex: AvahiIfIndex, handler: @escaping @Sendable (AvahiWatchSignal) -> Void) {
        self.types = types
        self.interfaceIndex = interfaceIndex
        self.handler = handler
    }

    /// Connects and starts browsing on a new thread; returns once the first connection is made.
    ///
    /// - Throws: `daemonNotRunning` when avahi-daemon or D-Bus is missing, `avahiFailure` when
    ///   the daemon refuses. Nothing is left running then.
    func start() async throws(DiscoveryError) {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<DiscoveryError?, Never>) in
            let thread = Thread { self.run { continuation.resume(returning: $0) } }
            thread.name = "seamcheck.avahi"
            thread.start()
        }
        if let result { throw result }
    }

    /// Ends the session: the thread frees its Avahi objects and returns. Safe from any thread,
    /// any number of times.
    func stop() {
        lock.withLock {
            stopRequested = true
            if let livePoll { avahi_simple_poll_wakeup(livePoll) }
        }
    }

    private var isStopRequested: Bool { lock.withLock { stopRequested } }

    // MARK: The loop

    private func run(started: (DiscoveryError?) -> Void) {
        guard let poll = avahi_simple_poll_new() else {
            return started(.avahiFailure(operation: "create an event loop", reason: "out of memory"))
        }
        self.poll = poll
        if let error = connect(noFail: false) {
            avahi_simple_poll_free(poll)
            return started(error)
        }
        lock.withLock { livePoll = poll }
        started(nil)

        while !isStopRequested {
            if let error = lostError {
                dropConnection(error)
            }
            if client == nil, let at = reconnectAt, ContinuousClock.now >= at {
                reconnect()
            }
            flushIfDue()
            if avahi_simple_poll_iterate(poll, nextWakeup()) < 0, errno != EINTR {
                handler(.failed(.avahiFailure(operation: "run its event loop", reason: String(cString: strerror(errno)))))
                break
            }
        }

        lock.withLock { livePoll = nil }
        if let client { avahi_client_free(client) }  // frees its browsers and resolvers too
        client = nil
        resolvers = [:]
        avahi_simple_poll_free(poll)
        self.poll = nil
        handler(.ended)
    }

    /// Milliseconds until the loop has work of its own (a flush or a reconnect); -1 to block
    /// until Avahi or `stop` wakes it.
    private func nextWakeup() -> Int32 {
        let now = ContinuousClock.now
        var deadlines: [ContinuousClock.Instant] = []
        if let dirtySince, let lastChange {
            deadlines.append(awaitingResolve.isEmpty ? min(dirtySince + Self.maxDelay, lastChange + Self.settle)
                                                     : dirtySince + Self.maxDelay)
        }
        if client == nil, let reconnectAt { deadlines.append(reconnectAt) }
        guard let next = deadlines.min() else { return -1 }
        return Int32(clamping: max(0, Self.milliseconds(next - now)) + 1)
    }

    static func milliseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
    }

    // MARK: Connection

    private func connect(noFail: Bool) -> DiscoveryError? {
        guard let poll else { return .avahiFailure(operation: "connect", reason: "no event loop") }
        var code: Int32 = 0
        let flags = noFail ? AVAHI_CLIENT_NO_FAIL : AvahiClientFlags(0)
        let context = Unmanaged.passUnretained(self).toOpaque()
        guard let client = avahi_client_new(avahi_simple_poll_get(poll), flags, { client, state, userdata in
            guard let userdata, let client else { return }
            AvahiWatchSession.from(userdata).clientStateChanged(client, state)
        }, context, &code) else {
            return AvahiConnection.error(code: code, operation: "accept a client connection")
        }
        self.client = client
        return nil
    }

    private func reconnect() {
        reconnectAt = nil
        if connect(noFail: true) != nil {
            reconnectAt = .now + Self.busRetry  // D-Bus itself is missing: try again later
        }
    }

    /// Frees the dead client (never from inside its own callback), reports every service gone,
    /// and schedules a reconnection.
    private func dropConnection(_ error: DiscoveryError) {
        lostError = nil
        if let client { avahi_client_free(client) }
        client = nil
        resolvers = [:]
        awaitingResolve = []
        browsersStarted = false
        browsersPending = 0
        completeReported = false
        services = [:]
        dirtySince = nil
        lastChange = nil
        handler(.services([]))
        handler(.lost(error))
        reconnecting = true
        reconnectAt = .now
    }

    private func clientStateChanged(_ client: OpaquePointer, _ state: AvahiClientState) {
        switch state {
        case AVAHI_CLIENT_S_RUNNING, AVAHI_CLIENT_S_REGISTERING, AVAHI_CLIENT_S_COLLISION:
            guard !browsersStarted else { return }
            if reconnecting {
                reconnecting = false
                handler(.reconnected)
            }
            startBrowsers(client)
        case AVAHI_CLIENT_FAILURE:
            noteLost(AvahiConnection.error(code: avahi_client_errno(client), operation: "keep its connection"))
        case AVAHI_CLIENT_CONNECTING:
            // A NO_FAIL client whose daemon vanished: its browsers are dead as well.
            if browsersStarted { noteLost(.daemonNotRunning(reason: "Daemon connection failed")) }
        default:
            break
        }
    }

    private func noteLost(_ error: DiscoveryError) {
        if lostError == nil { lostError = error }
        if let poll { avahi_simple_poll_wakeup(poll) }
    }

    private func startBrowsers(_ client: OpaquePointer) {
        browsersStarted = true
        let context = Unmanaged.passUnretained(self).toOpaque()
        for type in types {
            let browser = avahi_service_browser_new(
                client, interfaceIndex, AvahiProtocol(AVAHI_PROTO_UNSPEC), type, nil, AvahiLookupFlags(0),
                { browser, interface, proto, event, name, type, domain, _, userdata in
                    guard let userdata, let browser else { return }
                    AvahiWatchSession.from(userdata).browserEvent(
                        browser, interface: interface, proto: proto, event: event, name: name, type: type, domain: domain)
                }, context)
            guard browser != nil else {
                return noteLost(AvahiConnection.error(code: avahi_client_errno(client), operation: "browse \(type)"))
            }
            browsersPending += 1
        }
    }

    private static func from(_ userdata: UnsafeMutableRawPointer) -> AvahiWatchSession {
        Unmanaged<AvahiWatchSession>.fromOpaque(userdata).takeUnretainedValue()
    }

    // MARK: Browse and resolve

    private func browserEvent(_ browser: OpaquePointer, interface: AvahiIfIndex, proto: AvahiProtocol,
                              event: AvahiBrowserEvent, name: UnsafePointer<CChar>?, type: UnsafePointer<CChar>?,
                              domain: UnsafePointer<CChar>?) {
        switch event {
        case AVAHI_BROWSER_NEW:
            guard let name, let type, let domain else { return }
            let key = Self.key(interface: interface, proto: proto, name: name, type: type, domain: domain)
            guard resolvers[key] == nil, let client = avahi_service_browser_get_client(browser) else { return }
            let resolver = avahi_service_resolver_new(
                client, interface, proto, name, type, domain, AvahiProtocol(AVAHI_PROTO_UNSPEC), AvahiLookupFlags(0),
                { resolver, interface, proto, event, name, type, domain, host, address, port, txt, flags, userdata in
                    guard let userdata, let resolver else { return }
                    AvahiWatchSession.from(userdata).resolverEvent(
                        resolver, interface: interface, proto: proto, event: event, name: name, type: type, domain: domain,
                        host: host, address: address, port: port, txt: txt, flags: flags)
                }, Unmanaged.passUnretained(self).toOpaque())
            if let resolver {
                resolvers[key] = resolver
                awaitingResolve.insert(key)
            } else {
                handler(.unresolved(type: String(cString: type), name: String(cString: name),
                                    reason: String(cString: avahi_strerror(avahi_client_errno(client)))))
            }
        case AVAHI_BROWSER_REMOVE:
            guard let name, let type, let domain else { return }
            let key = Self.key(interface: interface, proto: proto, name: name, type: type, domain: domain)
            if let resolver = resolvers.removeValue(forKey: key) { avahi_service_resolver_free(resolver) }
            awaitingResolve.remove(key)
            if services.removeValue(forKey: key) != nil { markDirty() }
            checkComplete()
        case AVAHI_BROWSER_ALL_FOR_NOW:
            browsersPending = max(0, browsersPending - 1)
            checkComplete()
        case AVAHI_BROWSER_FAILURE:
            if let client = avahi_service_browser_get_client(browser) {
                noteLost(AvahiConnection.error(code: avahi_client_errno(client), operation: "browse"))
            }
        default:
            break  // CACHE_EXHAUSTED
        }
    }

    private func resolverEvent(_ resolver: OpaquePointer, interface: AvahiIfIndex, proto: AvahiProtocol,
                               event: AvahiResolverEvent, name: UnsafePointer<CChar>?, type: UnsafePointer<CChar>?,
                               domain: UnsafePointer<CChar>?, host: UnsafePointer<CChar>?,
                               address: UnsafePointer<AvahiAddress>?, port: UInt16,
                               txt: UnsafeMutablePointer<AvahiStringList>?, flags: AvahiLookupResultFlags) {
        guard let name, let type, let domain else { return }
        let key = Self.key(interface: interface, proto: proto, name: name, type: type, domain: domain)
        awaitingResolve.remove(key)
        if event == AVAHI_RESOLVER_FOUND {
            var text = [CChar](repeating: 0, count: Int(AVAHI_ADDRESS_STR_MAX))
            if let address { avahi_address_snprint(&text, text.count, address) }
            let service = ResolvedService(
                type: String(cString: type), name: String(cString: name), domain: String(cString: domain),
                interface: Self.interfaceName(interface),
                addressFamily: proto == AvahiProtocol(AVAHI_PROTO_INET6) ? "IPv6" : "IPv4",
                hostName: host.map { String(cString: $0) } ?? "", address: String(nulTerminated: text), port: Int(port),
                txt: AvahiTXT.record(txt), isLocal: flags.rawValue & AVAHI_LOOKUP_RESULT_LOCAL.rawValue != 0)
            if services[key] != service {
                services[key] = service
                markDirty()
            }
        } else {
            // A failed resolver stays silent from now on; a later NEW starts a fresh one.
            if resolvers[key] == resolver { resolvers[key] = nil }
            // Read the error before freeing the resolver it hangs off.
            let code = avahi_service_resolver_get_client(resolver).map(avahi_client_errno) ?? Int32(AVAHI_ERR_FAILURE)
            avahi_service_resolver_free(resolver)
            if services[key] == nil {
                handler(.unresolved(type: String(cString: type), name: String(cString: name),
                                    reason: String(cString: avahi_strerror(code))))
            }
        }
        checkComplete()
    }

    private func checkComplete() {
        guard !completeReported, browsersStarted, browsersPending == 0, awaitingResolve.isEmpty else { return }
        completeReported = true
        flush()
        handler(.browseComplete)
    }

    private func markDirty() {
        let now = ContinuousClock.now
        if dirtySince == nil { dirtySince = now }
        lastChange = now
    }

    private func flushIfDue() {
        guard let dirtySince, let lastChange else { return }
        let now = ContinuousClock.now
        if now - dirtySince >= Self.maxDelay || (awaitingResolve.isEmpty && now - lastChange >= Self.settle) {
            flush()
        }
    }

    private func flush() {
        dirtySince = nil
        lastChange = nil
        handler(.services(services.values.sorted {
            ($0.type, $0.name, $0.interface, $0.addressFamily, $0.address) < ($1.type, $1.name, $1.interface, $1.addressFamily, $1.address)
        }))
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
}
