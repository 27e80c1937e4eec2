import Foundation
import HLS

/// Probes inputs for one run: each distinct input at most once, a bounded number at a time.
///
/// FFmpeg calls block their thread, so they run on dedicated threads rather than Swift's
/// cooperative pool; `maxConcurrent` bounds how many run at once. Cancelling the calling task
/// stops the running probe through FFmpeg's interrupt callback.
public actor ProbeSession {
    private let prober: MediaProber
    private let maxConcurrent: Int
    private var running = 0
    private var waiters: [CheckedContinuation<Void, Never>] = []
    private var results: [InputLocation: Task<MediaDescription, Error>] = [:]
    public private(set) var probesPerformed = 0
    private var statistics: [InputLocation: ProbeStatistics] = [:]

    public init(options: ProbeOptions = ProbeOptions(), maxConcurrent: Int = ProcessInfo.processInfo.activeProcessorCount) {
        self.prober = MediaProber(options: options)
        self.maxConcurrent = max(1, maxConcurrent)
    }

    /// The description of `location`, probing it on first request only (failures are cached too).
    public func describe(_ location: InputLocation) async throws(ProbeError) -> MediaDescription {
        let task: Task<MediaDescription, Error>
        if let existing = results[location] {
            task = existing
        } else {
            task = Task { try await self.run(location) }
            results[location] = task
        }
        do {
            return try await withTaskCancellationHandler { try await task.value } onCancel: { task.cancel() }
        } catch let error as ProbeError {
            throw error
        } catch {
            throw .cancelled(location.description)
        }
    }

    private func run(_ location: InputLocation) async throws -> MediaDescription {
        await acquire()
        defer { release() }
        probesPerformed += 1
        let prober = self.prober
        let cancellation = ProbeCancellation()
        let (media, cost) = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<(MediaDescription, ProbeStatistics), Error>) in
                Thread.detachNewThread {
                    continuation.resume(with: Result { try prober.probeWithStatistics(location, cancellation: cancellation) })
                }
            }
        } onCancel: {
            cancellation.cancel()
        }
        statistics[location] = cost
        return media
    }

    /// What probing `location` cost, once it has been probed successfully.
    public func statistics(for location: InputLocation) -> ProbeStatistics? {
        statistics[location]
    }

    private func acquire() async {
        if running < maxConcurrent {
            running += 1
            return
        }
        await withCheckedContinuation { waiters.append($0) }
    }

    private func release() {
        if waiters.isEmpty {
            running -= 1
        } else {
            waiters.removeFirst().resume()
        }
    }
}
