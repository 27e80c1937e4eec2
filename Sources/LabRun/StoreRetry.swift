import Foundation
import LabCore
import Store

/// Tries a write again while another writer holds the database (`StoreError.isBusy`), with
/// backoff (0.5 s doubling to 8 s), for at most `patience`; any other failure (a damaged or
/// read-only file, a full disk) is given up at once. Cancellation ends the waiting.
struct StoreRetry<C: Clock>: Sendable where C.Duration == Duration {
    let clock: C
    let patience: Duration

    func run<F: Error>(_ write: () async throws(StoreError) -> Void,
                       failed: (StoreError, Duration) -> F) async throws {
        let start = clock.now
        var wait = Duration.milliseconds(500)
        while true {
            do throws(StoreError) {
                try await write()
                return
            } catch {
                let tried = start.duration(to: clock.now)
                guard error.isBusy, tried + wait <= patience else { throw failed(error, tried) }
                try await clock.sleep(for: wait)
                wait = min(wait * 2, .seconds(8))
            }
        }
    }
}

/// A played cell that could not be stored: its receiver's worker stops, and the run ends
/// interrupted (resumable) rather than finished.
public struct CellWriteFailure: Error, Sendable, CustomStringConvertible {
    public var receiver: String
    public var caseId: String
    public var error: StoreError
    /// How long the write was tried.
    public var tried: Duration

    public var description: String {
        let seconds = Double(tried.components.seconds) + Double(tried.components.attoseconds) / 1e18
        return "cell \(caseId) on \(receiver) was played but could not be stored"
            + (seconds >= 1 ? String(format: " (tried for %.0f s)", seconds) : "") + ": \(error.description)"
    }
}
