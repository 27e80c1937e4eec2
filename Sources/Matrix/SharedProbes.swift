import Foundation
import HLS
import MediaProbe

/// One run's probes: each distinct input probed once across every case (through one
/// `ProbeSession`), and a case that stops waiting does not stop the probe for the others.
///
/// `ProbeSession.describe` cancels the probe when its caller is cancelled, which is right for
/// one audit but wrong here: a case that times out would cancel a probe other cases share. So
/// each probe runs in a task of its own, and a waiter that is cancelled only stops waiting.
/// `cancelAll()` (on Ctrl-C) stops the probes themselves.
public actor SharedProbes {
    public let session: ProbeSession
    private var tasks: [InputLocation: Task<Result<MediaDescription, ProbeError>, Never>] = [:]

    public init(session: ProbeSession) {
        self.session = session
    }

    /// The description of `location`, or why it could not be had; `CancellationError` when the
    /// calling task is cancelled first.
    public func describe(_ location: InputLocation) async throws -> MediaDescription {
        let task = probe(location)
        let waiter = Waiter()
        let result: Result<MediaDescription, ProbeError> = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                waiter.install(continuation)
                Task { waiter.resume(with: .success(await task.value)) }
            }
        } onCancel: {
            waiter.resume(with: .failure(CancellationError()))
        }
        return try result.get()
    }

    /// Probes performed so far (failed ones included): one per distinct input requested.
    public var probesPerformed: Int {
        get async { await session.probesPerformed }
    }

    /// Distinct inputs requested so far.
    public var distinctInputs: Int { tasks.count }

    /// Stops every probe still running; their waiters get `ProbeError.cancelled`.
    public func cancelAll() {
        for task in tasks.values { task.cancel() }
    }

    private func probe(_ location: InputLocation) -> Task<Result<MediaDescription, ProbeError>, Never> {
        if let task = tasks[location] { return task }
        let session = self.session
        let task = Task<Result<MediaDescription, ProbeError>, Never> {
            do throws(ProbeError) { return .success(try await session.describe(location)) } catch { return .failure(error) }
        }
        tasks[location] = task
        return task
    }
}

/// Resumes a continuation once: with the probe's result, or with cancellation, whichever comes first.
private final class Waiter: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<Result<MediaDescription, ProbeError>, Error>?
    private var early: Result<Result<MediaDescription, ProbeError>, Error>?
    private var done = false

    func install(_ continuation: CheckedContinuation<Result<MediaDescription, ProbeError>, Error>) {
        let pending: Result<Result<MediaDescription, ProbeError>, Error>? = lock.withLock {
            if let early { done = true; return early }
            self.continuation = continuation
            return nil
        }
        if let pending { continuation.resume(with: pending) }
    }

    func resume(with result: Result<Result<MediaDescription, ProbeError>, Error>) {
        let target: CheckedContinuation<Result<MediaDescription, ProbeError>, Error>? = lock.withLock {
            guard !done else { return nil }
            guard let continuation else { early = result; return nil }
            done = true
            self.continuation = nil
            return continuation
        }
        target?.resume(with: result)
    }
}
