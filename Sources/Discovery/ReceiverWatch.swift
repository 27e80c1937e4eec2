import CAvahi
import Foundation

/// A change seen by `AirPlayBrowser.watch`.
public enum DiscoveryEvent: Sendable, Equatable {
    /// A receiver appeared (its services resolved and merged).
    case added(Receiver)
    /// A listed receiver changed: a second service, a new address, new TXT values (`flags`
    /// change while a device plays).
    case updated(Receiver)
    /// A listed receiver is gone; carries its last known state.
    case removed(Receiver)
    /// Avahi reported ALL_FOR_NOW for every service type and every resolve has answered: the
    /// receivers added so far are the initial list. Once per connection to the daemon.
    case browseComplete
    /// A service was seen but not resolved; it is not listed.
    case unresolved(service: String, type: String, reason: String)
    /// avahi-daemon (or D-Bus) went away; a `removed` for each listed receiver came just before.
    /// The watch reconnects when the daemon is back.
    case daemonLost(DiscoveryError)
    /// Connected to the daemon again after `daemonLost`; `added` events follow.
    case daemonReconnected
    /// The watch cannot go on (its event loop failed); the sequence ends after this.
    case failed(DiscoveryError)
}

/// A running watch of AirPlay receivers: an `AsyncSequence` of `DiscoveryEvent`s, fed from
/// Avahi's thread, that ends after `stop()` (or when iteration is cancelled).
///
/// One iterator only: events are delivered once, to whoever iterates first.
public final class ReceiverWatch: AsyncSequence, Sendable {
    public typealias Element = DiscoveryEvent
    public typealias AsyncIterator = AsyncStream<DiscoveryEvent>.Iterator

    private let stream: AsyncStream<DiscoveryEvent>
    private let session: AvahiWatchSession

    init(types: [String], interfaceIndex: AvahiIfIndex) async throws(DiscoveryError) {
        let (stream, continuation) = AsyncStream.makeStream(of: DiscoveryEvent.self)
        let differ = ReceiverDiffer()
        let session = AvahiWatchSession(types: types, interfaceIndex: interfaceIndex) { signal in
            for event in differ.events(for: signal) { continuation.yield(event) }
            if case .ended = signal { continuation.finish() }
        }
        continuation.onTermination = { _ in session.stop() }
        self.stream = stream
        self.session = session
        do throws(DiscoveryError) {
            try await session.start()
        } catch {
            continuation.finish()
            throw error
        }
    }

    public func makeAsyncIterator() -> AsyncStream<DiscoveryEvent>.Iterator {
        stream.makeAsyncIterator()
    }

    /// Stops watching: Avahi's objects are freed and the sequence ends. Safe from any thread
    /// (a signal handler's queue, say), any number of times.
    public func stop() {
        session.stop()
    }
}

/// Turns the session's service snapshots into receiver events. Used on Avahi's thread only.
final class ReceiverDiffer: @unchecked Sendable {
    private var listed: [String: Receiver] = [:]

    func events(for signal: AvahiWatchSignal) -> [DiscoveryEvent] {
        switch signal {
        case .services(let services):
            let changes = Self.changes(from: listed, to: Receiver.merge(services))
            listed = changes.listed
            return changes.events
        case .browseComplete: return [.browseComplete]
        case let .unresolved(type, name, reason): return [.unresolved(service: name, type: type, reason: reason)]
        case .lost(let error): return [.daemonLost(error)]
        case .reconnected: return [.daemonReconnected]
        case .failed(let error): return [.failed(error)]
        case .ended: return []
        }
    }

    /// The events that take a consumer from `old` to `new`: removals, then additions, then
    /// updates, each sorted by name. Receivers are matched by `Receiver.id`.
    static func changes(from old: [String: Receiver], to new: [Receiver]) -> (events: [DiscoveryEvent], listed: [String: Receiver]) {
        var listed: [String: Receiver] = [:]
        for receiver in new { listed[receiver.id] = receiver }
        let byName = { (a: Receiver, b: Receiver) in (a.name, a.id) < (b.name, b.id) }
        let removed = old.filter { listed[$0.key] == nil }.values.sorted(by: byName)
        let added = new.filter { old[$0.id] == nil }.sorted(by: byName)
        let updated = new.filter { receiver in old[receiver.id].map { $0 != receiver } ?? false }.sorted(by: byName)
        return (removed.map(DiscoveryEvent.removed) + added.map(DiscoveryEvent.added) + updated.map(DiscoveryEvent.updated), listed)
    }
}
