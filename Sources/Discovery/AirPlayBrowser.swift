import CAvahi
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// What one browse found.
public struct BrowseResult: Sendable, Equatable {
    /// Merged receivers, sorted by name.
    public var receivers: [Receiver]
    /// False when the timeout (or cancellation) came before Avahi reported the initial browse
    /// complete: `receivers` may then lack some.
    public var isComplete: Bool
    /// Services seen but not resolved, as "name (type): reason".
    public var unresolved: [String]

    public init(receivers: [Receiver], isComplete: Bool, unresolved: [String] = []) {
        self.receivers = receivers
        self.isComplete = isComplete
        self.unresolved = unresolved
    }
}

/// Discovery of AirPlay receivers through avahi-daemon: a one-shot browse, or a watch.
///
/// Avahi runs on a thread of its own (`AvahiWatchSession`), never on Swift's cooperative pool.
/// The daemon is reached over the D-Bus system bus (`DBUS_SYSTEM_BUS_ADDRESS`, read once per
/// process by libdbus).
public enum AirPlayBrowser {
    /// The service types browsed, merged into receivers by device id.
    public static let serviceTypes = ["_airplay._tcp", "_raop._tcp"]

    /// Browses, resolves and merges `serviceTypes` until Avahi reports the initial browse
    /// complete (ALL_FOR_NOW for every type and every resolve answered: about 1 s), or until
    /// `timeout`, or until the task is cancelled; the last two return what was resolved by then
    /// with `isComplete` false.
    ///
    /// `timeout` starts once connected: a daemon that accepts the D-Bus connection but hangs
    /// can hold the connection up to D-Bus's own 25 s timeout.
    ///
    /// - Parameter interface: an interface name (`eth0`) to browse on; nil for all.
    /// - Throws: `daemonNotRunning` when avahi-daemon or D-Bus is missing (or dies meanwhile),
    ///   `unknownInterface` for a bad `interface`.
    public static func discover(timeout: Duration, interface: String? = nil) async throws(DiscoveryError) -> BrowseResult {
        let snapshot = try await snapshot(types: serviceTypes, timeout: timeout, interface: interface)
        return BrowseResult(receivers: Receiver.merge(snapshot.services), isComplete: snapshot.isComplete,
                            unresolved: snapshot.unresolved)
    }

    /// The receivers of `discover`, without its completeness flag.
    public static func browse(timeout: Duration, interface: String? = nil) async throws(DiscoveryError) -> [Receiver] {
        try await discover(timeout: timeout, interface: interface).receivers
    }

    /// Browses and resolves `types` (such as `_airplay._tcp`) without merging: one entry per
    /// instance, interface and address family. Same return rules as `discover`.
    public static func resolveServices(types: [String], timeout: Duration,
                                       interface: String? = nil) async throws(DiscoveryError) -> [ResolvedService] {
        try await snapshot(types: types, timeout: timeout, interface: interface).services
    }

    /// Starts watching `types` and returns the running watch: `added` events for what is found,
    /// `browseComplete` at the end of the initial browse, then changes until `stop()`.
    ///
    /// A daemon that dies meanwhile is reported (`daemonLost`, after a `removed` for each
    /// receiver) and reconnected to when it is back; only a daemon missing at the start throws.
    ///
    /// - Throws: `daemonNotRunning`, `avahiFailure`, `unknownInterface`.
    public static func watch(interface: String? = nil, types: [String] = serviceTypes) async throws(DiscoveryError) -> ReceiverWatch {
        try await ReceiverWatch(types: types, interfaceIndex: interfaceIndex(interface))
    }

    static func interfaceIndex(_ interface: String?) throws(DiscoveryError) -> AvahiIfIndex {
        guard let interface else { return AvahiIfIndex(AVAHI_IF_UNSPEC) }
        let index = if_nametoindex(interface)
        guard index != 0 else { throw .unknownInterface(interface) }
        return AvahiIfIndex(index)
    }

    private struct Snapshot {
        var services: [ResolvedService] = []
        var isComplete = false
        var unresolved: [String] = []
        var error: DiscoveryError?
    }

    /// Runs a session until browse completion, timeout, cancellation or failure.
    private static func snapshot(types: [String], timeout: Duration, interface: String?) async throws(DiscoveryError) -> Snapshot {
        let index = try interfaceIndex(interface)
        let collector = SnapshotCollector()
        let session = AvahiWatchSession(types: types, interfaceIndex: index) { collector.receive($0) }
        try await session.start()
        let timer = Task {
            try? await Task.sleep(for: timeout)
            session.stop()
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { collector.wait($0) }
        } onCancel: {
            session.stop()
        }
        timer.cancel()
        session.stop()
        let snapshot = collector.snapshot
        if let error = snapshot.error { throw error }
        return snapshot
    }

    /// Gathers a session's signals for `snapshot`; resumes its waiter once, at completion, at
    /// the end of the session, or at a failure.
    private final class SnapshotCollector: @unchecked Sendable {
        private let lock = NSLock()
        private var state = Snapshot()
        private var done = false
        private var waiter: CheckedContinuation<Void, Never>?

        var snapshot: Snapshot { lock.withLock { state } }

        func wait(_ continuation: CheckedContinuation<Void, Never>) {
            let resumeNow = lock.withLock {
                if done { return true }
                waiter = continuation
                return false
            }
            if resumeNow { continuation.resume() }
        }

        func receive(_ signal: AvahiWatchSignal) {
            let waiter: CheckedContinuation<Void, Never>? = lock.withLock {
                guard !done else { return nil }
                switch signal {
                case .services(let services): state.services = services
                case let .unresolved(type, name, reason): state.unresolved.append("\(name) (\(type)): \(reason)")
                case .browseComplete: state.isComplete = true
                case .lost(let error), .failed(let error): state.error = error
                case .reconnected: return nil
                case .ended: break
                }
                switch signal {
                case .browseComplete, .lost, .failed, .ended:
                    done = true
                    defer { self.waiter = nil }
                    return self.waiter
                default:
                    return nil
                }
            }
            waiter?.resume()
        }
    }
}

/// Reading TXT records out of Avahi's string lists.
enum AvahiTXT {
    /// The TXT strings as a dictionary; the first occurrence of a key wins (RFC 6763 6.4).
    /// Values that are not UTF-8 are decoded with replacement characters, never dropped.
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
        return firstOccurrence(pairs)
    }

    /// TXT keys are case-insensitive and the first occurrence wins (RFC 6763 6.4): later keys
    /// that differ only in case are dropped here, in wire order, so decoding is repeatable.
    static func firstOccurrence(_ pairs: [(String, String?)]) -> TXTRecord {
        var record: TXTRecord = [:]
        var seen: Set<String> = []
        for (key, value) in pairs where seen.insert(key.lowercased()).inserted { record[key] = value }
        return record
    }
}

extension String {
    /// The text before the first NUL of a C buffer.
    init(nulTerminated buffer: [CChar]) {
        self = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
