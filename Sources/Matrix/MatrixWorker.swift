import Foundation
import Store

/// One worker of a run shared through the results database (`matrix run --worker`): claims cases
/// from the run's queue, at most `runner.jobs` at a time, audits them as `MatrixRunner` does, and
/// records each as it finishes. Its claims are renewed every lease interval on a thread of their
/// own; it ends when every case of the run is done (by any worker), so each worker's report is
/// the whole run's. Cancelled (a signal), or its store failing after the executor's retries, it
/// gives back the cases it holds and stops; cases it could not give back are claimed again by
/// another worker once its lease lapses.
public struct MatrixWorker: Sendable {
    public var runner: MatrixRunner
    public var store: ResultStore
    public var runId: Int64
    /// This worker's name in the queue: host, PID and a random part.
    public var worker: String
    public var lease: RunLease

    public init(runner: MatrixRunner, store: ResultStore, runId: Int64, lease: RunLease,
                worker: String = "\(ProcessInfo.processInfo.hostName):\(getpid()):\(UInt32.random(in: 0...UInt32.max))") {
        self.runner = runner
        self.store = store
        self.runId = runId
        self.lease = lease
        self.worker = worker
    }

    public func run(probes: SharedProbes, progress: @escaping @Sendable (MatrixProgress) -> Void = { _ in }) async throws -> MatrixRunTotals {
        let store = self.store, runId = self.runId, worker = self.worker, lease = self.lease
        let heartbeat = RunHeartbeat(lease: lease, beat: { date in try store.renew(runId: runId, worker: worker, lease: lease, at: date) })
        heartbeat.start()
        defer { heartbeat.stop() }
        let cases = Dictionary(runner.cases.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        var counts: [CellStatus: Int] = [:]
        var finished = 0
        var failure: (any Error)?
        var holding = Set<String>()
        let total = runner.cases.count
        await withTaskGroup(of: (String, CaseResult?).self) { group in
            func fill() {
                guard failure == nil, !Task.isCancelled else { return }
                do {
                    for id in try store.claim(runId: runId, worker: worker, count: runner.jobs - holding.count, lease: lease) {
                        guard let matrixCase = cases[id] else { continue }
                        holding.insert(id)
                        group.addTask { (id, await runner.runCase(matrixCase, probes: probes)) }
                    }
                } catch {
                    failure = error
                }
            }
            fill()
            while true {
                if holding.isEmpty {
                    guard failure == nil, !Task.isCancelled else { break }
                    // Nothing to claim: done, or other workers hold the rest (wait for them, or for their leases).
                    // A claim whose commit was lost with the connection (and so retried) may hold cases this
                    // worker never heard of: given back, or its heartbeat would keep them forever.
                    do {
                        try store.release(runId: runId, worker: worker)
                        if try store.queueState(runId: runId).done >= total { break }
                    } catch {
                        failure = error
                        break
                    }
                    try? await Task.sleep(for: .milliseconds(Int64(min(lease.interval, 0.25) * 1000)))
                    fill()
                    continue
                }
                guard let (id, result) = await group.next() else { break }
                if let result, failure == nil {
                    do {
                        try store.complete(result, runId: runId, worker: worker)
                        holding.remove(id)
                        finished += 1
                        for cell in result.cells { counts[cell.status, default: 0] += 1 }
                    } catch {
                        failure = error
                        group.cancelAll()
                    }
                } else if result == nil {
                    // Interrupted before it finished: not recorded; given back below.
                    continue
                }
                fill()
                progress(MatrixProgress(total: total, finished: finished, running: holding.count, cells: counts,
                                        probesPerformed: await probes.probesPerformed))
            }
        }
        if !holding.isEmpty || failure != nil || Task.isCancelled {
            try? store.release(runId: runId, worker: worker)
        }
        if let failure { throw failure }
        let interrupted = Task.isCancelled && ((try? store.queueState(runId: runId).done) ?? 0) < total
        return MatrixRunTotals(total: total, finished: finished, interrupted: interrupted, cells: counts,
                               probesPerformed: await probes.probesPerformed, distinctInputs: await probes.distinctInputs)
    }
}
