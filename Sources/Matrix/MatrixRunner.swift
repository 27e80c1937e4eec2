import Compatibility
import Foundation
import MediaProbe

/// Receives each finished case before the runner counts it as done (the results database
/// commits it there). A throw stops the run.
public protocol CaseRecorder: Sendable {
    func record(_ result: CaseResult) throws
}

/// Where a run stands, for the progress bar.
public struct MatrixProgress: Sendable, Equatable {
    public var total: Int
    public var finished: Int
    public var running: Int
    public var cells: [CellStatus: Int]
    public var probesPerformed: Int

    public init(total: Int, finished: Int, running: Int, cells: [CellStatus: Int], probesPerformed: Int) {
        self.total = total
        self.finished = finished
        self.running = running
        self.cells = cells
        self.probesPerformed = probesPerformed
    }
}

/// How a run ended.
public struct MatrixRunTotals: Sendable, Equatable {
    public var total: Int
    public var finished: Int
    /// True when the run was cancelled (Ctrl-C) before every case finished.
    public var interrupted: Bool
    public var cells: [CellStatus: Int]
    public var probesPerformed: Int
    public var distinctInputs: Int
}

/// Runs the cases of a matrix: at most `jobs` at a time, each within `caseTimeout` seconds,
/// every input probed once for the whole run (`SharedProbes`), each finished case handed to
/// the recorder as it finishes.
///
/// Cancelling the calling task interrupts the run: running cases stop, and are not recorded;
/// cases already recorded stay. A case that fails (an input unreachable, a timeout) is a
/// result with `error` cells, never the end of the run.
public struct MatrixRunner: Sendable {
    public var cases: [MatrixCase]
    public var profiles: [DeviceProfile]
    public var auditors: [any CaseAuditor]
    public var jobs: Int
    public var caseTimeout: Double
    public var grader: CellGrader

    public init(cases: [MatrixCase], profiles: [DeviceProfile], auditors: [any CaseAuditor], jobs: Int,
                caseTimeout: Double, grader: CellGrader) {
        self.cases = cases
        self.profiles = profiles
        self.auditors = auditors
        self.jobs = max(1, jobs)
        self.caseTimeout = caseTimeout
        self.grader = grader
    }

    public func run(probes: SharedProbes, recorder: any CaseRecorder,
                    progress: @escaping @Sendable (MatrixProgress) -> Void = { _ in }) async throws -> MatrixRunTotals {
        var counts: [CellStatus: Int] = [:]
        var finished = 0
        var recordingError: Error?
        progress(MatrixProgress(total: cases.count, finished: 0, running: min(jobs, cases.count), cells: [:], probesPerformed: 0))
        await withTaskGroup(of: CaseResult?.self) { group in
            var pending = cases.makeIterator()
            var running = 0
            while running < jobs, let next = pending.next() {
                group.addTask { await self.runCase(next, probes: probes) }
                running += 1
            }
            while let result = await group.next() {
                running -= 1
                if let result, recordingError == nil {
                    do {
                        try recorder.record(result)
                        finished += 1
                        for cell in result.cells { counts[cell.status, default: 0] += 1 }
                    } catch {
                        recordingError = error
                        group.cancelAll()
                    }
                }
                if recordingError == nil, !Task.isCancelled, let next = pending.next() {
                    group.addTask { await self.runCase(next, probes: probes) }
                    running += 1
                }
                progress(MatrixProgress(total: cases.count, finished: finished, running: running, cells: counts,
                                        probesPerformed: await probes.probesPerformed))
            }
        }
        if let recordingError { throw recordingError }
        // Cancelled cases stopped waiting; the session stops every probe nobody waits for.
        let interrupted = Task.isCancelled && finished < cases.count
        return MatrixRunTotals(total: cases.count, finished: finished, interrupted: interrupted, cells: counts,
                               probesPerformed: await probes.probesPerformed, distinctInputs: await probes.distinctInputs)
    }

    /// One case, raced against its timeout; nil when the run was interrupted first.
    func runCase(_ matrixCase: MatrixCase, probes: SharedProbes) async -> CaseResult? {
        let startedAt = Date()
        let clock = ContinuousClock.now
        let classes = profiles.map(\.id)
        guard let auditor = auditors.first(where: { $0.accepts(matrixCase.source) }) else {
            return failed(matrixCase, CaseFailure(kind: .auditor, input: nil, reason: "no auditor takes \(matrixCase.source.kind) cases"),
                          startedAt: startedAt, seconds: 0)
        }
        let profiles = self.profiles, timeout = caseTimeout
        let outcome: Result<CaseAudit, CaseFailure>? = await withTaskGroup(of: Result<CaseAudit, CaseFailure>?.self) { group in
            group.addTask {
                do throws(CaseFailure) { return .success(try await auditor.audit(matrixCase, profiles: profiles, probes: probes)) } catch {
                    return .failure(error)
                }
            }
            group.addTask {
                do { try await Task.sleep(for: .milliseconds(Int64(min(timeout, ProbeOptions.maxTimeout) * 1000))) } catch { return nil }
                return .failure(CaseFailure(kind: .timeout, input: nil, reason:
                    "the case took longer than its timeout (\(Self.seconds(timeout)) s); raise defaults.timeout or --timeout, or check the inputs' servers"))
            }
            var first: Result<CaseAudit, CaseFailure>?
            while first == nil, let next = await group.next() { first = next }
            group.cancelAll()
            return first
        }
        let seconds = (ContinuousClock.now - clock).seconds
        switch outcome {
        case .none:
            return nil
        case .failure(let failure) where failure.kind == .cancelled:
            return nil
        case .failure(let failure):
            // A case cut short by Ctrl-C did not fail: it did not finish.
            if Task.isCancelled && failure.kind == .timeout { return nil }
            return failed(matrixCase, failure, startedAt: startedAt, seconds: seconds)
        case .success(let audit):
            let assets = [audit.result.primary] + audit.result.interstitials
            return CaseResult(caseId: matrixCase.id, kind: matrixCase.source.kind, primary: audit.result.primary.input,
                              interstitials: audit.result.interstitials.map(\.input), tags: matrixCase.tags,
                              startedAt: startedAt, seconds: seconds, failure: nil, assets: assets,
                              placements: audit.placements,
                              cells: grader.cells(caseId: matrixCase.id, findings: audit.result.findings, deviceClasses: classes,
                                                 input: audit.result.input))
        }
    }

    private func failed(_ matrixCase: MatrixCase, _ failure: CaseFailure, startedAt: Date, seconds: Double) -> CaseResult {
        let inputs = matrixCase.inputs.map(\.description)
        return CaseResult(caseId: matrixCase.id, kind: matrixCase.source.kind, primary: inputs[0],
                          interstitials: matrixCase.source.kind == "explicit" ? Array(inputs.dropFirst()) : [],
                          tags: matrixCase.tags, startedAt: startedAt, seconds: seconds, failure: failure, assets: [],
                          placements: [], cells: grader.errorCells(deviceClasses: profiles.map(\.id)))
    }

    static func seconds(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}

/// Checks, before anything runs, that some auditor takes every case.
public enum MatrixPlan {
    public static func check(_ spec: MatrixSpec, auditors: [any CaseAuditor]) throws(MatrixSpecError) {
        for matrixCase in spec.cases where !auditors.contains(where: { $0.accepts(matrixCase.source) }) {
            throw .invalid(file: spec.file, field: matrixCase.field, problem: "no auditor takes \(matrixCase.source.kind) cases")
        }
    }
}

extension Duration {
    var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
