import Foundation
import LabCore
import NIOCore

/// What one connection's socket really took: body bytes are "handed" by the response writer and
/// "settled" when NIO's write promise completes (taken: written into the kernel's send buffer;
/// failed: the connection closed first). The writer waits while more than `limit` bytes are handed
/// and unsettled, so a client that stops reading holds at most that much of the server's memory.
/// NIO's own writability signal cannot do this here: a write from a task reaches the event loop
/// later, so a fast producer hands many chunks before the channel says it is full.
final class SocketMeter: @unchecked Sendable {
    private let lock = NSLock()
    private var handed = 0
    private var taken = 0
    private var failed = 0
    private var closed = false
    private var waiters: [(limit: Int, continuation: CheckedContinuation<Void, Never>)] = []

    struct Reading: Equatable {
        var taken: Int
        var failed: Int
    }

    var reading: Reading { lock.withLock { Reading(taken: taken, failed: failed) } }

    /// Meters by connection (`LabConnectionHandler` registers its own while on the pipeline): found
    /// from a request's task with a lock, not a hop onto the connection's event loop.
    private static let registryLock = NSLock()
    nonisolated(unsafe) private static var registry: [ObjectIdentifier: SocketMeter] = [:]

    static func register(_ meter: SocketMeter, for channel: ObjectIdentifier) {
        registryLock.withLock { registry[channel] = meter }
    }

    static func unregister(_ channel: ObjectIdentifier) {
        registryLock.withLock { registry[channel] = nil }
    }

    /// The meter of `channel`; nil when its connection is gone (or has none).
    static func meter(of channel: any Channel) -> SocketMeter? {
        let id = ObjectIdentifier(channel)
        return registryLock.withLock { registry[id] }
    }

    /// The writer hands `count` body bytes to the channel (call before writing them).
    func hand(_ count: Int) {
        lock.withLock { handed += count }
    }

    /// NIO settled a body write of `count` bytes.
    func settle(_ count: Int, taken wasTaken: Bool) {
        let ready: [CheckedContinuation<Void, Never>] = lock.withLock {
            if wasTaken { taken += count } else { failed += count }
            return resumable()
        }
        ready.forEach { $0.resume() }
    }

    /// The connection is gone: nothing more will settle, so nobody waits.
    func close() {
        let ready: [CheckedContinuation<Void, Never>] = lock.withLock {
            closed = true
            return resumable()
        }
        ready.forEach { $0.resume() }
    }

    /// Returns once at most `limit` handed bytes are unsettled, or the connection is closed.
    func wait(untilUnsettledAtMost limit: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now: Bool = lock.withLock {
                if closed || handed - taken - failed <= limit { return true }
                waiters.append((limit, continuation))
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// Waiters whose condition holds, removed from the list; call under the lock.
    private func resumable() -> [CheckedContinuation<Void, Never>] {
        let unsettled = handed - taken - failed
        var ready: [CheckedContinuation<Void, Never>] = []
        waiters.removeAll { waiter in
            guard closed || unsettled <= waiter.limit else { return false }
            ready.append(waiter.continuation)
            return true
        }
        return ready
    }
}
