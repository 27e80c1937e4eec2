import Foundation
import HLS
import MediaProbe

/// Why a playlist audit could not run at all (the primary itself is unusable). Interstitial
/// problems never end up here: they become findings.
public enum PlaylistAuditError: Error, Sendable, Equatable, CustomStringConvertible {
    case load(LoadError)
    case probe(ProbeError)
    /// Every media playlist failed; `failures` says how, one line each.
    case noMediaPlaylist(String, failures: [String])

    public var description: String {
        switch self {
        case .load(let error): return error.description
        case .probe(let error): return "primary rendition: \(error.description)"
        case .noMediaPlaylist(let input, let failures):
            return "\(input): no media playlist of the primary could be loaded" + failures.map { "\n  \($0)" }.joined()
        }
    }

    /// The audit was cancelled (its task, not its input, ended it).
    public var isCancellation: Bool {
        switch self {
        case .load(.cancelled), .probe(.cancelled), .probe(.playlist(.cancelled)): return true
        default: return false
        }
    }
}

/// Audits an HLS primary and the interstitials it schedules, per device class: the class's
/// variant selection for the primary and each asset, each selected rendition probed once per run
/// (init section and first segment), then capability, transition and declared-versus-measured
/// rules. Spec findings come from `specFindings` (the interstitial spec linter by default), which
/// sees the loaded presentation, including every asset and asset-list fetch.
public struct PlaylistAuditor: Sendable {
    public var loader: PresentationLoader
    public var auditor: TransitionAuditor
    public var specFindings: @Sendable (Presentation) -> [Finding]
    /// Measure loudness (interstitials whole, the programme around each break); nil: not measured.
    public var loudness: LoudnessOptions?

    public init(loader: PresentationLoader = PresentationLoader(), auditor: TransitionAuditor = TransitionAuditor(),
                specFindings: @escaping @Sendable (Presentation) -> [Finding] = { SpecLinter.lint($0) }, loudness: LoudnessOptions? = nil) {
        self.loader = loader
        self.auditor = auditor
        self.specFindings = specFindings
        self.loudness = loudness
    }

    public func audit(_ input: InputLocation, profiles: [DeviceProfile], session: ProbeSession) async throws(PlaylistAuditError) -> AuditResult {
        let presentation: Presentation
        do { presentation = try await loader.load(input) } catch { throw .load(error) }
        guard let timeline = presentation.primary else {
            throw .noMediaPlaylist(input.description, failures: presentation.mediaFailures.map { "\($0.reference): \($0.error)" })
        }
        var findings = specFindings(presentation)

        // Plan, then fetch and probe everything the plan needs in parallel; evaluation below reads the caches.
        let schedule = InterstitialSchedule(primary: timeline.playlist, assetList: { interstitial in
            if case .loaded(let list, _, _)? = presentation.assetList(for: interstitial, in: timeline) { return list }
            return nil
        }, assetDuration: { uri in
            if case .loaded(let summary)? = presentation.asset(uri, from: timeline.location) { return summary.duration }
            return nil
        })
        findings += BoundaryRule.findings(schedule, primary: timeline.playlist, uri: timeline.location.description)
        let plan = AuditPlan(schedule: schedule, presentation: presentation, timeline: timeline)
        var assetPlaylists = AssetPlaylists(loader: loader, presentation: presentation)
        let probes = RenditionProbes(session: session, presentation: presentation)
        let loudnessStep = loudness.map { PlaylistLoudness(options: $0, plan: plan, schedule: schedule, presentation: presentation,
                                                           loader: loader, width: loader.options.concurrency, loaded: probes.loaded,
                                                           segments: session.segments) }
        await plan.prefetch(presentation: presentation, profiles: profiles, playlists: &assetPlaylists, probes: probes,
                            width: loader.options.concurrency, loudness: loudnessStep)
        if Task.isCancelled { throw .probe(.cancelled(input.description)) }

        var evaluation = AuditEvaluation(.init(profiles: profiles, auditor: auditor, primaryRoot: presentation.root),
                                         probes: probes, loudness: loudnessStep, playlists: assetPlaylists)
        let primary = try await evaluation.auditPrimary(presentation, input: input)
        // The interstitials in plan (schedule) order; each asset of an asset list is one interstitial.
        var interstitials: [AuditedAsset] = []
        for asset in plan.assets {
            if Task.isCancelled { throw .probe(.cancelled(input.description)) }
            interstitials.append(try await evaluation.audit(asset))
        }
        findings += evaluation.findings
        let declared = evaluation.declared
        var result = AuditResult(input: input.description, deviceClasses: profiles.map(\.id), primary: primary,
                                 interstitials: interstitials, findings: Self.graded(findings + declared.findings, by: profiles))
        NothingRead.mark(&result)
        if let loudnessStep { await loudnessStep.report(into: &result, order: profiles.map(\.id)) }
        return result
    }

    /// Applies the profiles to findings that have no device class (spec and declared rules): a
    /// finding goes when every audited profile turns its rule off; otherwise it takes the highest
    /// severity a profile gives it (a profile that does not name the rule keeps the finding's own).
    public static func graded(_ findings: [Finding], by profiles: [DeviceProfile]) -> [Finding] {
        guard !profiles.isEmpty else { return findings }
        let rules = Dictionary(RuleCatalog.allDescriptions.map { ($0.id, $0) }) { first, _ in first }
        return findings.compactMap { finding in
            guard finding.deviceClass == nil else { return finding }
            // A rule outside the catalog (none today) is graded as concerning every track.
            let rule = rules[finding.rule] ?? RuleDescription(id: finding.rule, title: "", rationale: "", source: "",
                                                              defaultSeverity: finding.severity, track: .both, inputs: "")
            let severities = profiles.compactMap { $0.severity(for: rule, default: finding.severity) }
            guard let highest = severities.max() else { return nil }
            var graded = finding
            graded.severity = highest
            return graded
        }
    }
}
