import Foundation

/// Threads of the store's own for async callers: a store call blocks its thread (on SQLite's lock,
/// on a PostgreSQL answer, on a reconnect's backoff), so an async caller hands it here instead of
/// blocking one of Swift's cooperative threads (two on a two-core machine: two blocked calls would
/// stall every task of the process, the lab server's segment answers included).
public final class StoreThreads: @unchecked Sendable {
    public static let shared = StoreThreads(count: 4)

    private let condition = NSCondition()
    private var jobs: [@Sendable () -> Void] = []

    init(count: Int) {
        for index in 0..<max(1, count) {
            let thread = Thread { [unowned self] in self.loop() }
            thread.name = "seamcheck.store.\(index)"
            thread.start()
        }
    }

    private func loop() {
        while true {
            condition.lock()
            while jobs.isEmpty { condition.wait() }
            let job = jobs.removeFirst()
            condition.unlock()
            job()
        }
    }

    /// Runs `body` on one of the store's threads and returns what it returned or threw.
    public func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            condition.lock()
            jobs.append { continuation.resume(with: Result { try body() }) }
            condition.signal()
            condition.unlock()
        }
    }
}

extension SQLExecutor {
    /// `read`, from async code: the blocking work runs on `StoreThreads`.
    public func asyncRead<T: Sendable>(_ body: @escaping @Sendable (any SQLConnection) throws -> T) async throws -> T {
        try await StoreThreads.shared.run { try self.read(body) }
    }

    /// `write`, from async code: the blocking work runs on `StoreThreads`.
    public func asyncWrite<T: Sendable>(_ body: @escaping @Sendable (any SQLConnection) throws -> T) async throws -> T {
        try await StoreThreads.shared.run { try self.write(body) }
    }
}

extension StoreThreads {
    /// A store call (`LabStore`, `ResultStore`) from async code, run on the store's threads, its
    /// `StoreError` kept as it is.
    public func call<T: Sendable>(_ body: @escaping @Sendable () throws(StoreError) -> T) async throws(StoreError) -> T {
        do { return try await run { try body() } } catch let error as StoreError { throw error } catch {
            throw .failed(path: "", operation: "use the results database", reason: "\(error)")
        }
    }
}
