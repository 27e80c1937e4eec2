import Compatibility
import Foundation
import HLS
import MediaProbe

/// Audits one kind of case. The runner picks, for each case, the first auditor that accepts it;
/// a case no auditor accepts is refused before the run (`MatrixPlan.check`).
///
/// A playlist auditor (issue 6) conforms by accepting `.playlist` sources and returning its
/// `AuditResult` with the interstitials' real offsets from the playlist's schedule.
public protocol CaseAuditor: Sendable {
    /// "playlist cases are not supported yet"-style words for a source this auditor refuses are
    /// given by `MatrixPlan`; this only says yes or no.
    func accepts(_ source: CaseSource) -> Bool

    /// Audits `matrixCase` for `profiles`, probing through `probes` (shared by the whole run).
    /// Throws `CaseFailure` when the case cannot be audited: an input that cannot be probed,
    /// a playlist that cannot be loaded. Cancellation must end it promptly.
    func audit(_ matrixCase: MatrixCase, profiles: [DeviceProfile], probes: SharedProbes) async throws(CaseFailure) -> CaseAudit
}

/// What an auditor found for one case, before expected issues are applied.
public struct CaseAudit: Sendable, Equatable {
    public var result: AuditResult
    /// Where each interstitial plays on the primary's timeline, in `result.interstitials` order.
    public var placements: [InterstitialPlacement]

    public init(result: AuditResult, placements: [InterstitialPlacement]) {
        self.result = result
        self.placements = placements
    }
}

/// Where an interstitial plays on its primary's timeline.
public struct InterstitialPlacement: Codable, Sendable, Equatable {
    public enum Basis: String, Codable, Sendable {
        /// Explicit inputs say nothing about timing: the interstitials are assumed to play back
        /// to back as a pod at the primary's start (a pre-roll).
        case assumedPreRollPod
        /// Taken from the playlist's interstitial schedule.
        case schedule
    }

    /// 0-based index in the case's interstitials.
    public var interstitial: Int
    /// Seconds from the primary's start where the interstitial's playback begins; nil when an
    /// earlier interstitial of the pod has no known duration.
    public var offset: Double?
    public var duration: Double?
    public var basis: Basis

    public init(interstitial: Int, offset: Double?, duration: Double?, basis: Basis) {
        self.interstitial = interstitial
        self.offset = offset
        self.duration = duration
        self.basis = basis
    }

    /// The interstitials back to back from 0 s, each after the previous one's duration.
    public static func preRollPod(durations: [Double?]) -> [InterstitialPlacement] {
        var offset: Double? = 0
        return durations.enumerated().map { index, duration in
            defer { offset = offset.flatMap { start in duration.map { start + $0 } } }
            return InterstitialPlacement(interstitial: index, offset: offset, duration: duration, basis: .assumedPreRollPod)
        }
    }
}

/// Why a case could not be audited: every cell of the case is an `error` naming this.
public struct CaseFailure: Error, Sendable, Equatable, Codable, CustomStringConvertible {
    public enum Kind: String, Codable, Sendable {
        /// An input could not be probed or loaded (missing, unreachable, not media).
        case input
        /// The case took longer than the per-case timeout.
        case timeout
        /// The run was interrupted; such cases are not recorded.
        case cancelled
        /// The auditor itself failed.
        case auditor
    }

    public var kind: Kind
    /// The input at fault, when one is.
    public var input: String?
    /// What went wrong and what to do, in the user's terms.
    public var reason: String

    public init(kind: Kind, input: String?, reason: String) {
        self.kind = kind
        self.input = input
        self.reason = reason
    }

    public var description: String { reason }
}

/// Audits cases given as a primary and interstitial inputs: probes each input (through the
/// run's shared probes) and applies `TransitionAuditor`. Interstitials are placed as a
/// pre-roll pod, since explicit inputs carry no timing.
public struct ExplicitInputAuditor: CaseAuditor {
    public var auditor: TransitionAuditor
    /// Seconds a loudness measurement may take; nil: loudness is not measured.
    public var loudnessTimeout: Double?

    public init(auditor: TransitionAuditor = TransitionAuditor(), loudnessTimeout: Double? = nil) {
        self.auditor = auditor
        self.loudnessTimeout = loudnessTimeout
    }

    public func accepts(_ source: CaseSource) -> Bool {
        if case .explicit = source { return true }
        return false
    }

    public func audit(_ matrixCase: MatrixCase, profiles: [DeviceProfile], probes: SharedProbes) async throws(CaseFailure) -> CaseAudit {
        guard case .explicit(let primary, let interstitials) = matrixCase.source else {
            throw CaseFailure(kind: .auditor, input: nil, reason: "not an explicit-input case")
        }
        let inputs = [primary] + interstitials
        let outcomes = await withTaskGroup(of: ProbeOutcome.self) { group in
            // Every distinct input once per case; the run-wide dedup is in SharedProbes.
            for (index, location) in inputs.enumerated() {
                group.addTask { await ProbeOutcome(index: index, location: location, probes: probes) }
            }
            var collected = [ProbeOutcome?](repeating: nil, count: inputs.count)
            for await outcome in group { collected[outcome.index] = outcome }
            return collected
        }
        if Task.isCancelled { throw CaseFailure(kind: .cancelled, input: nil, reason: "cancelled") }
        var media: [MediaDescription] = []
        var failures: [(String, String)] = []
        for (location, outcome) in zip(inputs, outcomes) {
            if let description = outcome?.media {
                media.append(description)
            } else if let error = outcome?.error {
                if !failures.contains(where: { $0.0 == location.description }) { failures.append((location.description, error.description)) }
            } else {
                throw CaseFailure(kind: .cancelled, input: location.description, reason: "cancelled")
            }
        }
        guard failures.isEmpty else {
            throw CaseFailure(kind: .input, input: failures[0].0, reason: failures.map(\.1).joined(separator: "; "))
        }
        var cost: LoudnessCost?
        if let loudnessTimeout { (media, cost) = await FileLoudness.measure(media, locations: inputs, timeout: loudnessTimeout) }
        let primaryAsset = AuditedAsset(role: "primary", input: primary.description, media: media[0])
        let assets = zip(interstitials, media.dropFirst()).enumerated().map { offset, pair in
            AuditedAsset(role: "interstitial \(offset + 1)", input: pair.0.description, media: pair.1)
        }
        var result = auditor.audit(primary: primaryAsset, interstitials: assets, profiles: profiles)
        result.loudness = cost
        return CaseAudit(result: result, placements: InterstitialPlacement.preRollPod(durations: assets.map(\.media.duration)))
    }
}

/// One probe of a case, as a plain struct: a child task returning `(Int, Result<...>)` got a
/// garbage index in -O builds under Swift 6.3 (as ProbeCommand's `Outcome` notes); this shape does not.
struct ProbeOutcome: Sendable {
    var index: Int
    var media: MediaDescription?
    /// Nil with `media` nil: the wait was cancelled.
    var error: ProbeError?

    init(index: Int, location: InputLocation, probes: SharedProbes) async {
        self.index = index
        do {
            media = try await probes.describe(location)
        } catch let failure as ProbeError {
            error = failure
        } catch {}
    }
}
