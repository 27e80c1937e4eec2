import Foundation
import LabCore
import Store
import Logging

/// Writes request records to the store in small batches, off the serving path: a request costs an
/// append under a lock; a thread of its own (never one of Swift's cooperative threads: a flush
/// blocks while the database is away) commits what has gathered every `interval` (one transaction
/// a batch, so logging keeps up with loopback load). A batch that failed, or whose outcome is
/// unknown, is written again: its rows are keyed, so none is stored twice. `close()` commits the
/// rest, so a server stopped by SIGINT or SIGTERM keeps every request it answered.
public final class RequestLog: @unchecked Sendable {
    private let store: LabStore
    private let serveId: Int64
    private let logger: Logger
    private let interval: Duration
    /// Past this many records waiting (the database is failing), the oldest are dropped and counted.
    private let maxPending: Int
    private let lock = NSLock()
    /// Held for the whole of a flush: `close()` waits for the background one in flight (a large
    /// batch into PostgreSQL takes a while) before committing the rest, so none is cut off at exit.
    private let flushing = NSLock()
    private var pending: [LabRequestRecord] = []
    private var dropped = 0
    private var flusher: Thread?
    private var stopping = false

    public init(store: LabStore, serveId: Int64, logger: Logger, interval: Duration = .milliseconds(25),
                maxPending: Int = 200_000) {
        self.store = store
        self.serveId = serveId
        self.logger = logger
        self.interval = interval
        self.maxPending = maxPending
    }

    /// Starts the background commits.
    public func start() {
        let (seconds, attoseconds) = interval.components
        let pause = Double(seconds) + Double(attoseconds) / 1e18
        let thread = Thread { [weak self] in
            while true {
                Thread.sleep(forTimeInterval: pause)
                guard let self, !self.lock.withLock({ self.stopping }) else { break }
                self.flush()
            }
        }
        thread.name = "seamcheck.request-log"
        flusher = thread
        thread.start()
    }

    public func append(_ record: LabRequestRecord) {
        lock.lock()
        pending.append(record)
        if pending.count > maxPending {
            dropped += pending.count - maxPending
            pending.removeFirst(pending.count - maxPending)
        }
        lock.unlock()
    }

    /// Commits what is waiting; on failure keeps it for the next try and logs why.
    public func flush() {
        flushing.lock()
        defer { flushing.unlock() }
        lock.lock()
        let batch = pending
        pending.removeAll(keepingCapacity: true)
        let lost = dropped
        dropped = 0
        lock.unlock()
        if lost > 0 { logger.error("request log: \(lost) requests dropped while the database could not be written") }
        guard !batch.isEmpty else { return }
        do { try store.append(batch, serveId: serveId) } catch {
            logger.error("request log: \(error.description); will retry")
            lock.lock()
            pending.insert(contentsOf: batch, at: 0)
            lock.unlock()
        }
    }

    /// Stops the background task and commits everything still waiting, after the flush in flight.
    public func close() {
        lock.withLock { stopping = true }
        flusher = nil
        flush()
    }
}
