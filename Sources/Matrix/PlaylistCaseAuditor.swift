import Compatibility
import HLS

/// Audits cases given as a primary playlist with `PlaylistAuditor`: per-class selection,
/// renditions probed through the run's shared session, and each interstitial at its scheduled
/// offset on the primary's timeline.
public struct PlaylistCaseAuditor: CaseAuditor {
    public var auditor: PlaylistAuditor

    public init(auditor: PlaylistAuditor = PlaylistAuditor()) {
        self.auditor = auditor
    }

    public func accepts(_ source: CaseSource) -> Bool {
        if case .playlist = source { return true }
        return false
    }

    public func audit(_ matrixCase: MatrixCase, profiles: [DeviceProfile], probes: SharedProbes) async throws(CaseFailure) -> CaseAudit {
        guard case .playlist(let input) = matrixCase.source else {
            throw CaseFailure(kind: .auditor, input: nil, reason: "not a playlist case")
        }
        let result: AuditResult
        do {
            result = try await auditor.audit(input, profiles: profiles, session: probes.session)
        } catch {
            if error.isCancellation || Task.isCancelled {
                throw CaseFailure(kind: .cancelled, input: input.description, reason: error.description)
            }
            throw CaseFailure(kind: .input, input: input.description, reason: error.description)
        }
        // Interstitial fetches cut short by the cancel became findings; the case did not finish.
        if Task.isCancelled { throw CaseFailure(kind: .cancelled, input: input.description, reason: "cancelled") }
        // An asset of which nothing could be read is an unreachable input: an error cell, as for explicit inputs.
        if let unread = NothingRead.unread(in: result).first {
            throw CaseFailure(kind: .input, input: unread.input, reason: unread.message)
        }
        let placements = result.interstitials.enumerated().map { index, asset in
            InterstitialPlacement(interstitial: index, offset: asset.placement?.offset,
                                  duration: asset.placement?.duration ?? asset.media.duration, basis: .schedule)
        }
        return CaseAudit(result: result, placements: placements)
    }
}
