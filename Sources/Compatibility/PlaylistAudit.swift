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
        var declared = DeclaredFindings()

        // Plan, then fetch and probe everything the plan needs in parallel; evaluation below reads the caches.
        let schedule = InterstitialSchedule(primary: timeline.playlist, assetList: { interstitial in
            if case .loaded(let list, _, _)? = presentation.assetList(for: interstitial, in: timeline) { return list }
            return nil
        }, assetDuration: { uri in
            if case .loaded(let summary)? = presentation.asset(uri, from: timeline.location) { return summary.duration }
            return nil
        })
        let plan = AuditPlan(schedule: schedule, presentation: presentation, timeline: timeline)
        var assetPlaylists = AssetPlaylists(loader: loader, presentation: presentation)
        let probes = RenditionProbes(session: session, presentation: presentation)
        let loudnessStep = loudness.map { PlaylistLoudness(options: $0, plan: plan, schedule: schedule, presentation: presentation,
                                                           loader: loader, width: loader.options.concurrency, loaded: probes.loaded) }
        await plan.prefetch(presentation: presentation, profiles: profiles, playlists: &assetPlaylists, probes: probes,
                            width: loader.options.concurrency, loudness: loudnessStep)
        if Task.isCancelled { throw .probe(.cancelled(input.description)) }

        // The primary: what each class plays of it. A class whose selection cannot be read fails
        // over to the next variant it would select; one that can read none is not audited (and
        // says so), the other classes' results stand.
        var primaryPicks: [String: RenditionPick] = [:]
        var primaryProblem: String?
        for profile in profiles {
            let subject = "primary (\(input))"
            switch await RenditionPicker.pick(presentation.root, at: presentation.location, for: profile.plays, probes: probes) {
            case .picked(let pick):
                primaryPicks[profile.id] = pick
                declared.add(pick, subject: "primary (\(pick.rendition))")
                if let finding = AuditFindings.failover(pick, label: "primary", subject: subject, profile: profile) { findings.append(finding) }
            case .noPlayable(let reason):
                if let finding = Self.noPlayable(profile, subject: subject, message: "no variant of the primary is playable: \(reason)") {
                    findings.append(finding)
                }
            case .failed(let error, let skipped):
                if Task.isCancelled { throw .probe(.cancelled(input.description)) }
                primaryProblem = primaryProblem ?? "not probed: \(AuditFindings.reason(error))"
                if let finding = AuditFindings.notProbed(error, skipped: skipped, label: "primary", subject: subject, profile: profile) {
                    findings.append(finding)
                }
            }
        }
        let primarySelections = RenditionPick.grouped(primaryPicks, order: profiles.map(\.id))
        for profile in profiles {
            guard let pick = primaryPicks[profile.id] else { continue }
            findings += auditor.capabilityFindings(pick.media, subject: "primary (\(pick.rendition))", profile: profile)
        }
        let primary = AuditedAsset(role: "primary", input: input.description,
                                   media: primarySelections.first?.media ?? MediaDescription(input: input.description, container: "", duration: nil),
                                   selections: primarySelections,
                                   problem: primarySelections.isEmpty ? (primaryProblem ?? "no device class can play the primary") : nil)

        // Evaluate the interstitials in plan (schedule) order; each asset of an asset list is one interstitial.
        var interstitials: [AuditedAsset] = []
        for asset in plan.assets {
            if Task.isCancelled { throw .probe(.cancelled(input.description)) }
            let (audited, found) = try await auditAsset(asset.uri, base: asset.base, role: asset.role, placement: asset.placement,
                                                        profiles: profiles, primaryPicks: primaryPicks, primaryRoot: presentation.root, probes: probes,
                                                        knownFailure: asset.knownFailure, playlists: &assetPlaylists, declared: &declared,
                                                        loudness: loudnessStep)
            interstitials.append(audited)
            findings += found
        }
        var result = AuditResult(input: input.description, deviceClasses: profiles.map(\.id), primary: primary,
                                 interstitials: interstitials, findings: Self.graded(findings + declared.findings, by: profiles))
        NothingRead.mark(&result)
        if let loudnessStep { await loudnessStep.report(into: &result, order: profiles.map(\.id)) }
        return result
    }

    /// ladder-mismatch per video class, when primary and interstitial are both multivariant.
    static func ladderFindings(_ primary: ParsedPlaylist, _ interstitial: ParsedPlaylist, subject: String,
                               profiles: [DeviceProfile]) -> [Finding] {
        guard case .multivariant(let primaryLadder) = primary.playlist, case .multivariant(let adLadder) = interstitial.playlist
        else { return [] }
        return profiles.compactMap { profile in
            guard profile.plays.video, let severity = profile.severity(for: LadderRule.description),
                  let mismatch = LadderRule.evaluate(primary: LadderRule.tiers(primaryLadder, for: profile.plays),
                                                     interstitial: LadderRule.tiers(adLadder, for: profile.plays)) else { return nil }
            return Finding(rule: LadderRule.description.id, severity: severity, deviceClass: profile.id, subject: subject,
                           expected: mismatch.expected, actual: mismatch.actual, message: mismatch.message, remediation: nil)
        }
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

    private func auditAsset(_ uri: String, base: InputLocation, role: String, placement: Placement, profiles: [DeviceProfile],
                            primaryPicks: [String: RenditionPick], primaryRoot: ParsedPlaylist, probes: RenditionProbes, knownFailure: String?,
                            playlists: inout AssetPlaylists, declared: inout DeclaredFindings,
                            loudness: PlaylistLoudness?) async throws(PlaylistAuditError) -> (AuditedAsset, [Finding]) {
        let label = placement.id.map { "\(role) \"\($0)\"" } ?? role
        func unreachable(_ reason: String) -> (AuditedAsset, [Finding]) {
            let asset = AuditedAsset(role: role, input: uri, media: MediaDescription(input: uri, container: "", duration: nil),
                                     placement: placement, problem: reason)
            guard knownFailure == nil, let rule = SpecCatalog.rule("asset-unreachable")?.description else { return (asset, []) }
            let finding = Finding(rule: rule.id, severity: rule.defaultSeverity, deviceClass: nil, subject: "\(role) (\(uri))",
                                  expected: "a playable asset", actual: reason,
                                  message: "\(label): the asset's media cannot be fetched, so receivers skip it: \(reason)", remediation: nil)
            return (asset, [finding])
        }
        let location: InputLocation, root: ParsedPlaylist, resource: FetchedResource
        do {
            location = try base.resolving(uri)
            (root, resource) = try await playlists.load(location)
        } catch {
            if Task.isCancelled { throw .probe(.cancelled(uri)) }
            return unreachable(error.description)
        }
        var findings = Self.ladderFindings(primaryRoot, root, subject: "\(role) (\(location))", profiles: profiles)
        var picks: [String: RenditionPick] = [:]
        var perClass: [(deviceClass: String, remediations: [Remediation])] = []
        for profile in profiles {
            switch await RenditionPicker.pick(root, at: resource.location, for: profile.plays, probes: probes) {
            case .picked(let pick):
                picks[profile.id] = pick
                let subject = "\(role) (\(pick.rendition))"
                declared.add(pick, subject: subject)
                if let finding = AuditFindings.failover(pick, label: label, subject: subject, profile: profile) { findings.append(finding) }
                findings += auditor.capabilityFindings(pick.media, subject: subject, profile: profile)
                guard let primary = primaryPicks[profile.id] else {
                    if let finding = AuditFindings.primaryNotProbed(label: label, subject: subject, profile: profile) { findings.append(finding) }
                    continue
                }
                let pair = await loudness?.pair(primary: primary, interstitial: pick, role: role, profile: profile)
                let (found, fixes) = auditor.transitionFindings(primary: pair?.primary ?? primary.media, interstitial: pair?.interstitial ?? pick.media,
                                                                subject: subject, profile: profile, loudnessScope: pair?.scope)
                findings += found
                perClass.append((profile.id, fixes))
            case .noPlayable(let reason):
                if let finding = Self.noPlayable(profile, subject: "\(role) (\(location))",
                                                 message: "\(label): no variant is playable, receivers of this class skip it: \(reason)") {
                    findings.append(finding)
                }
            case .failed(let error, let skipped):
                // Nothing this class would select can be read. A playlist that does not load: its
                // receivers skip the interstitial. Media that cannot be probed (encrypted, refused):
                // not audited. The other classes' results stand.
                if Task.isCancelled { throw .probe(.cancelled(uri)) }
                let subject = "\(role) (\(location))"
                if AuditFindings.isPlaylistFailure(error), let rule = SpecCatalog.rule("asset-unreachable")?.description,
                   let severity = profile.severity(for: rule) {
                    // Every media playlist the class tried, each once (its player failed over through them).
                    let tried = skipped.count > 1 ? AuditFindings.tries(skipped) : error.description
                    findings.append(Finding(rule: rule.id, severity: severity, deviceClass: profile.id, subject: subject,
                                            expected: "a readable rendition", actual: tried,
                                            message: "\(label): no rendition this class selects can be read, so its receivers skip it: \(tried)",
                                            remediation: nil))
                } else if let finding = AuditFindings.notProbed(error, skipped: skipped, label: label, subject: subject, profile: profile) {
                    findings.append(finding)
                }
            }
        }
        let selections = RenditionPick.grouped(picks, order: profiles.map(\.id))
        let media = selections.first?.media ?? MediaDescription(input: location.description, container: "", duration: nil)
        let asset = AuditedAsset(role: role, input: location.description, media: media,
                                 remediations: Remediation.grouped(perClass), selections: selections, placement: placement,
                                 problem: selections.isEmpty ? "not audited: no device class audited could probe or play it" : nil)
        return (asset, findings)
    }

    static func noPlayable(_ profile: DeviceProfile, subject: String, message: String) -> Finding? {
        guard let severity = profile.severity(for: PlaylistRules.noPlayableVariant) else { return nil }
        return Finding(rule: PlaylistRules.noPlayableVariant.id, severity: severity, deviceClass: profile.id, subject: subject,
                       expected: "a variant the class plays", actual: "none", message: message, remediation: nil)
    }

    /// Asset URIs resolve against their asset list, or against the media playlist for X-ASSET-URI.
    static func assetBase(_ entry: InterstitialSchedule.Entry, presentation: Presentation, timeline: LoadedMediaPlaylist) -> InputLocation {
        if let reference = entry.assetList, let list = try? timeline.location.resolving(reference),
           case .loaded(_, let finalLocation, _)? = presentation.assetLists[list.description] {
            return finalLocation
        }
        return timeline.location
    }
}

/// Declared-versus-measured findings, once per variant whatever the number of classes choosing it.
struct DeclaredFindings {
    private(set) var findings: [Finding] = []
    private var seen: Set<String> = []

    mutating func add(_ pick: RenditionPick, subject: String) {
        guard let declared = pick.declared, seen.insert(pick.rendition + "\u{1}" + (pick.audioRendition ?? "")).inserted else { return }
        for rule in RuleCatalog.declaredRules {
            guard let mismatch = rule.evaluate(declared, pick.media) else { continue }
            let line = pick.line.map { " (line \($0) of the multivariant playlist)" } ?? ""
            findings.append(Finding(rule: rule.id, severity: rule.description.defaultSeverity, deviceClass: nil,
                                    subject: subject, expected: mismatch.expected, actual: mismatch.actual,
                                    message: mismatch.message + line, remediation: nil))
        }
    }
}

/// The interstitial asset playlists an audit reads: each distinct one once, however many
/// interstitials name it (a VOD can schedule the same ad hundreds of times). The loader fetched
/// every asset already, within the asset limits and in parallel: a loaded one is read from
/// there, one whose own playlist failed is not asked again. One that failed in a variant only is
/// loaded here, so that each class finds out whether the variant it selects is the one that fails.
struct AssetPlaylists {
    let loader: PresentationLoader
    let presentation: Presentation
    private var loaded: [String: Result<(ParsedPlaylist, FetchedResource), LoadError>] = [:]

    init(loader: PresentationLoader, presentation: Presentation) {
        self.loader = loader
        self.presentation = presentation
    }

    /// What is known of `location` without fetching: loaded here, or by the loader.
    func known(_ location: InputLocation) -> Result<(ParsedPlaylist, FetchedResource), LoadError>? {
        let key = location.description
        if let known = loaded[key] { return known }
        switch presentation.assets[key] {
        case .loaded(let summary)? where summary.root != nil:
            return .success((summary.root!, FetchedResource(location: summary.location, data: Data(), contentType: nil, elapsed: summary.elapsed)))
        case .failed(let error)? where error.subject == key:
            return .failure(error)
        default:
            return nil
        }
    }

    /// Loads, `width` at a time, every location not known yet.
    mutating func prefetch(_ locations: [InputLocation], width: Int) async {
        var missing: [InputLocation] = []
        var seen: Set<String> = []
        for location in locations where known(location) == nil && seen.insert(location.description).inserted { missing.append(location) }
        let loader = self.loader
        let results = await PresentationLoader.map(missing, width: width) { location -> Result<(ParsedPlaylist, FetchedResource), LoadError> in
            do throws(LoadError) { return .success(try await loader.loadPlaylist(location, limits: loader.assetPlaylistLimits)) } catch {
                return .failure(error)
            }
        }
        guard !Task.isCancelled else { return }
        for (location, result) in zip(missing, results) { loaded[location.description] = result }
    }

    mutating func load(_ location: InputLocation) async throws(LoadError) -> (ParsedPlaylist, FetchedResource) {
        let key = location.description
        if let known = loaded[key] { return try known.get() }
        let result: Result<(ParsedPlaylist, FetchedResource), LoadError>
        switch presentation.assets[key] {
        case .loaded(let summary)? where summary.root != nil:
            result = .success((summary.root!, FetchedResource(location: summary.location, data: Data(), contentType: nil, elapsed: summary.elapsed)))
        case .failed(let error)? where error.subject == key:
            result = .failure(error)
        default:
            do throws(LoadError) {
                result = .success(try await loader.loadPlaylist(location, limits: loader.assetPlaylistLimits))
            } catch {
                result = .failure(error)
            }
        }
        if !Task.isCancelled { loaded[key] = result }
        return try result.get()
    }
}
