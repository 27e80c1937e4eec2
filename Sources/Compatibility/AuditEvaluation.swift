import HLS
import MediaProbe

/// The third step of a playlist audit (after `AuditPlan`'s plan and fetch+probe): evaluation,
/// the primary first, then each asset in plan order. It holds what the run shares: the classes,
/// the caches the plan filled, what each class plays of the primary (every asset's transitions
/// are measured against it), and the findings so far. Reads caches, so it fetches only what a
/// class's failover reaches.
struct AuditEvaluation {
    /// What stays fixed for the run.
    struct Configuration {
        var profiles: [DeviceProfile]
        var auditor: TransitionAuditor
        /// The primary's root playlist, for the ladder comparison.
        var primaryRoot: ParsedPlaylist
    }

    init(_ configuration: Configuration, probes: RenditionProbes, loudness: PlaylistLoudness?, playlists: AssetPlaylists) {
        self.configuration = configuration
        self.probes = probes
        self.loudness = loudness
        self.playlists = playlists
    }

    let configuration: Configuration
    let probes: RenditionProbes
    let loudness: PlaylistLoudness?
    /// The asset playlists; `AuditPlan.prefetch` fills it before evaluation.
    var playlists: AssetPlaylists
    /// What each class plays of the primary, by class id; set by `auditPrimary`.
    private(set) var primaryPicks: [String: RenditionPick] = [:]
    /// For a class whose primary could not be probed: that rendition as its media playlist alone
    /// describes it (its keys), so `encryption-change` is still seen.
    private(set) var unprobedPrimaries: [String: MediaDescription] = [:]
    /// Capability, transition and per-class findings, in evaluation order.
    private(set) var findings: [Finding] = []
    private(set) var declared = DeclaredFindings()

    private var profiles: [DeviceProfile] { configuration.profiles }

    /// The primary: what each class plays of it. A class whose selection cannot be read fails
    /// over to the next variant it would select; one that can read none is not audited (and
    /// says so), the other classes' results stand.
    mutating func auditPrimary(_ presentation: Presentation, input: InputLocation) async throws(PlaylistAuditError) -> AuditedAsset {
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
                unprobedPrimaries[profile.id] = Self.playlistOnly(error, skipped: skipped, root: presentation.root,
                                                                  at: presentation.location, probes: probes)
                if let finding = AuditFindings.notProbed(error, skipped: skipped, label: "primary", subject: subject, profile: profile) {
                    findings.append(finding)
                }
            }
        }
        let primarySelections = RenditionPick.grouped(primaryPicks, order: profiles.map(\.id))
        for profile in profiles {
            guard let pick = primaryPicks[profile.id] else { continue }
            findings += configuration.auditor.capabilityFindings(pick.media, subject: "primary (\(pick.rendition))", profile: profile)
        }
        return AuditedAsset(role: "primary", input: input.description,
                            media: primarySelections.first?.media ?? MediaDescription(input: input.description, container: "", duration: nil),
                            selections: primarySelections,
                            problem: primarySelections.isEmpty ? (primaryProblem ?? "no device class can play the primary") : nil)
    }

    /// One interstitial asset: its playlist, what each class selects of it, and its transitions
    /// from the primary. An asset that cannot be fetched is reported, not thrown: only
    /// cancellation ends the run.
    mutating func audit(_ asset: AuditPlan.Asset) async throws(PlaylistAuditError) -> AuditedAsset {
        let (uri, role, placement) = (asset.uri, asset.role, asset.placement)
        let label = placement.id.map { "\(role) \"\($0)\"" } ?? role
        let location: InputLocation, root: ParsedPlaylist, resource: FetchedResource
        do {
            location = try asset.base.resolving(uri)
            (root, resource) = try await playlists.load(location)
        } catch {
            if Task.isCancelled { throw .probe(.cancelled(uri)) }
            return unreachable(asset, label: label, reason: error.description)
        }
        findings += Self.ladderFindings(configuration.primaryRoot, root, subject: "\(role) (\(location))", profiles: profiles)
        var picks: [String: RenditionPick] = [:]
        var perClass: [(deviceClass: String, remediations: [Remediation])] = []
        for profile in profiles {
            switch await RenditionPicker.pick(root, at: resource.location, for: profile.plays, probes: probes) {
            case .picked(let pick):
                picks[profile.id] = pick
                let subject = "\(role) (\(pick.rendition))"
                declared.add(pick, subject: subject)
                if let finding = AuditFindings.failover(pick, label: label, subject: subject, profile: profile) { findings.append(finding) }
                findings += configuration.auditor.capabilityFindings(pick.media, subject: subject, profile: profile)
                guard let primary = primaryPicks[profile.id] else {
                    if let finding = AuditFindings.primaryNotProbed(label: label, subject: subject, profile: profile) { findings.append(finding) }
                    if let finding = unprobedPrimaryEncryptionFinding(pick.media, label: label, subject: subject, profile: profile) {
                        findings.append(finding)
                    }
                    continue
                }
                let pair = await loudness?.pair(primary: primary, interstitial: pick, role: role, profile: profile)
                let (found, fixes) = configuration.auditor.transitionFindings(
                    primary: pair?.primary ?? primary.media, interstitial: pair?.interstitial ?? pick.media,
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
                } else {
                    if let finding = AuditFindings.notProbed(error, skipped: skipped, label: label, subject: subject, profile: profile) {
                        findings.append(finding)
                    }
                    if let finding = unprobedEncryptionFinding(error, skipped: skipped, root: root, at: resource.location, label: label,
                                                                subject: subject, profile: profile) {
                        findings.append(finding)
                    }
                }
            }
        }
        findings += LocalizationRules.findings(configuration.primaryRoot, root, subject: "\(role) (\(location))", profiles: profiles,
                                               adAudioLanguage: { picks[$0.id]?.media.primaryAudio?.language })
        let selections = RenditionPick.grouped(picks, order: profiles.map(\.id))
        let media = selections.first?.media ?? MediaDescription(input: location.description, container: "", duration: nil)
        return AuditedAsset(role: role, input: location.description, media: media,
                            remediations: Remediation.grouped(perClass), selections: selections, placement: placement,
                            problem: selections.isEmpty ? "not audited: no device class audited could probe or play it" : nil)
    }

    /// An asset whose playlist cannot be fetched: receivers skip it. The finding is not repeated
    /// when the loader's spec finding (asset-unreachable) already says so.
    private mutating func unreachable(_ asset: AuditPlan.Asset, label: String, reason: String) -> AuditedAsset {
        let (uri, role) = (asset.uri, asset.role)
        if asset.knownFailure == nil, let rule = SpecCatalog.rule("asset-unreachable")?.description {
            findings.append(Finding(rule: rule.id, severity: rule.defaultSeverity, deviceClass: nil, subject: "\(role) (\(uri))",
                                    expected: "a playable asset", actual: reason,
                                    message: "\(label): the asset's media cannot be fetched, so receivers skip it: \(reason)", remediation: nil))
        }
        return AuditedAsset(role: role, input: uri, media: MediaDescription(input: uri, container: "", duration: nil),
                            placement: asset.placement, problem: reason)
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

    static func noPlayable(_ profile: DeviceProfile, subject: String, message: String) -> Finding? {
        guard let severity = profile.severity(for: PlaylistRules.noPlayableVariant) else { return nil }
        return Finding(rule: PlaylistRules.noPlayableVariant.id, severity: severity, deviceClass: profile.id, subject: subject,
                       expected: "a variant the class plays", actual: "none", message: message, remediation: nil)
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
