import Foundation
import HLS
import MediaProbe

/// One run's probes: each distinct input probed once across every case, through one
/// `ProbeSession`. The session already keeps a probe running while any case still waits for it
/// and stops it when the last waiter is cancelled; this adds the run's count of distinct inputs
/// and tells a case that was cancelled (timeout, Ctrl-C) from an input that failed.
public actor SharedProbes {
    public let session: ProbeSession
    private var requested: Set<InputLocation> = []

    public init(session: ProbeSession) {
        self.session = session
    }

    /// The description of `location`, or the `ProbeError` that says why it could not be had;
    /// `CancellationError` when the calling task was cancelled.
    public func describe(_ location: InputLocation) async throws -> MediaDescription {
        requested.insert(location)
        do throws(ProbeError) {
            return try await session.describe(location)
        } catch {
            if case .cancelled = error, Task.isCancelled { throw CancellationError() }
            throw error
        }
    }

    /// Probes performed so far (failed ones included).
    public var probesPerformed: Int {
        get async { await session.probesPerformed }
    }

    /// Distinct inputs requested so far.
    public var distinctInputs: Int { requested.count }
}
