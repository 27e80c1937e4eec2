import MediaProbe

/// Where an interstitial plays on its primary's timeline (playlist audits).
public struct Placement: Codable, Sendable, Equatable {
    /// The EXT-X-DATERANGE ID.
    public var id: String?
    /// The tag's line in the primary media playlist.
    public var line: Int?
    /// pre-roll, mid-roll or post-roll.
    public var kind: String
    /// Seconds from the start of the primary; nil when it cannot be placed (no PROGRAM-DATE-TIME).
    public var offset: Double?
    /// Which pod (tags at one START-DATE) and where in it.
    public var pod: Int
    public var positionInPod: Int
    /// The asset's duration from its playlist or asset list.
    public var duration: Double?

    public init(id: String?, line: Int?, kind: String, offset: Double?, pod: Int, positionInPod: Int, duration: Double?) {
        self.id = id
        self.line = line
        self.kind = kind
        self.offset = offset
        self.pod = pod
        self.positionInPod = positionInPod
        self.duration = duration
    }
}

/// What one set of device classes plays of an asset: the rendition it selects and its media.
public struct RenditionSelection: Codable, Sendable, Equatable {
    public var deviceClasses: [String]
    /// The selected variant's media playlist URL, and the audio rendition's when separate.
    public var rendition: String
    public var audioRendition: String?
    public var media: MediaDescription

    public init(deviceClasses: [String], rendition: String, audioRendition: String?, media: MediaDescription) {
        self.deviceClasses = deviceClasses
        self.rendition = rendition
        self.audioRendition = audioRendition
        self.media = media
    }
}

/// The primary or one interstitial of an audit, after probing.
public struct AuditedAsset: Codable, Sendable, Equatable {
    /// "primary", or "interstitial 1", "interstitial 2"...
    public var role: String
    public var input: String
    /// The probed media. In playlist audits, that of the first selection (see `selections`).
    public var media: MediaDescription
    /// The settings that would make this interstitial match the primary on every class audited
    /// (nil for the primary, when nothing needs to change, or when no single encode serves
    /// every class: then `remediations` has one entry per group of classes).
    public var remediation: Remediation?
    /// The settings per group of classes that want the same encode; several groups mean each
    /// output is a variant of its own.
    public var remediations: [ClassRemediation]
    /// Playlist audits: what each device class plays of this asset. Empty for file audits.
    public var selections: [RenditionSelection]
    /// Playlist audits: where the interstitial is scheduled.
    public var placement: Placement?
    /// Playlist audits: the asset's loudness against the programme around its break, per group of classes.
    public var loudness: [AssetLoudness] = []
    /// Why the asset could not be described (unreachable, nothing playable); its findings say more.
    public var problem: String?

    public init(role: String, input: String, media: MediaDescription, remediation: Remediation? = nil,
                remediations: [ClassRemediation]? = nil,
                selections: [RenditionSelection] = [], placement: Placement? = nil, problem: String? = nil) {
        self.role = role
        self.input = input
        self.media = media
        self.remediations = remediations ?? remediation.map { [ClassRemediation(deviceClasses: [], remediation: $0)] } ?? []
        self.remediation = remediations.map { $0.count == 1 ? $0[0].remediation : nil } ?? remediation
        self.selections = selections
        self.placement = placement
        self.problem = problem
    }

    /// Sets the per-class settings, and the single one when one encode serves every class.
    public mutating func setRemediations(_ groups: [ClassRemediation]) {
        remediations = groups
        remediation = groups.count == 1 ? groups[0].remediation : nil
    }

    /// The subject line findings about this asset carry: role, then what was probed.
    public func subject(for media: MediaDescription? = nil) -> String {
        "\(role) (\((media ?? self.media).input))"
    }
}

/// The result of auditing a primary against its interstitials for a set of device classes.
public struct AuditResult: Sendable, Equatable {
    public var input: String
    public var deviceClasses: [String]
    public var primary: AuditedAsset
    public var interstitials: [AuditedAsset]
    public var findings: [Finding]
    /// What measuring loudness read and took; nil when the audit did not say.
    public var loudness: LoudnessCost?

    public init(input: String, deviceClasses: [String], primary: AuditedAsset, interstitials: [AuditedAsset], findings: [Finding],
                loudness: LoudnessCost? = nil) {
        self.input = input
        self.deviceClasses = deviceClasses
        self.primary = primary
        self.interstitials = interstitials
        self.findings = findings
        self.loudness = loudness
    }

    public var summary: FindingSummary { FindingSummary(findings) }

    /// Whether any finding is at or above `threshold` (nil threshold: never fail).
    public func fails(at threshold: Severity?) -> Bool {
        guard let threshold else { return false }
        return findings.contains { $0.isOpen && $0.severity >= threshold }
    }

    /// The findings about one asset, in audit order: those naming its role, and spec findings
    /// about its EXT-X-DATERANGE tag (by ID).
    public func findings(for asset: AuditedAsset) -> [Finding] {
        let tag = asset.placement?.id.map { "EXT-X-DATERANGE ID=\"\($0)\"" }
        return findings.filter { finding in
            finding.subject.hasPrefix(asset.role + " (")
                || tag.map { finding.subject == $0 || finding.subject.hasPrefix($0 + " ") } ?? false
        }
    }
}

/// Applies the media rules for each device class: capability rules to every asset, transition
/// rules to each (primary, interstitial) pair.
public struct TransitionAuditor: Sendable {
    public var rules: [TransitionRule]
    public var capabilityRules: [CapabilityRule]
    /// Tolerance and optional target of loudness-mismatch.
    public var loudness: LoudnessPolicy

    public init(rules: [TransitionRule] = RuleCatalog.transitionRules,
                capabilityRules: [CapabilityRule] = RuleCatalog.capabilityRules, loudness: LoudnessPolicy = LoudnessPolicy()) {
        self.rules = rules
        self.capabilityRules = capabilityRules
        self.loudness = loudness
    }

    /// File audits: the same media for every class.
    public func audit(primary: AuditedAsset, interstitials: [AuditedAsset], profiles: [DeviceProfile]) -> AuditResult {
        var findings = profiles.flatMap { capabilityFindings(primary.media, subject: primary.subject(), profile: $0) }
        var audited: [AuditedAsset] = []
        for var interstitial in interstitials {
            findings += profiles.flatMap { capabilityFindings(interstitial.media, subject: interstitial.subject(), profile: $0) }
            var perClass: [(deviceClass: String, remediations: [Remediation])] = []
            for profile in profiles {
                let (found, fixes) = transitionFindings(primary: primary.media, interstitial: interstitial.media,
                                                        subject: interstitial.subject(), profile: profile)
                findings += found
                perClass.append((profile.id, fixes))
            }
            interstitial.setRemediations(Remediation.grouped(perClass))
            audited.append(interstitial)
        }
        return AuditResult(input: primary.input, deviceClasses: profiles.map(\.id), primary: primary,
                           interstitials: audited, findings: findings)
    }

    /// What one class's receivers hit when switching from `primary` to `interstitial`, with the
    /// encoder settings that avoid it.
    public func transitionFindings(primary: MediaDescription, interstitial: MediaDescription, subject: String,
                                   profile: DeviceProfile, loudnessScope: LoudnessScope? = nil) -> (findings: [Finding], remediations: [Remediation]) {
        var findings: [Finding] = []
        var remediations: [Remediation] = []
        let context = TransitionContext(primary: primary, interstitial: interstitial, rendersVideo: profile.plays.video,
                                        loudnessScope: loudnessScope)
        // Matching a primary the class cannot play would make the ad unplayable too: no fix then.
        let unplayable = capabilityRules.filter { $0.evaluate(primary, on: profile.plays) != nil }.map(\.id)
        for rule in rules {
            let evaluated = rule.id == LoudnessRule.rule.id ? LoudnessRule.evaluate(context, policy: loudness) : rule.evaluate(context)
            guard let severity = profile.severity(for: rule.description), var mismatch = evaluated else { continue }
            if !unplayable.isEmpty, mismatch.remediation != nil {
                mismatch.remediation = nil
                mismatch.message += " (no fix for this class: it cannot play the primary itself, \(unplayable.joined(separator: ", ")))"
            }
            if let remediation = mismatch.remediation { remediations.append(remediation) }
            findings.append(Finding(rule: rule.id, severity: severity, deviceClass: profile.id, subject: subject,
                                    expected: mismatch.expected, actual: mismatch.actual, message: mismatch.message,
                                    remediation: mismatch.remediation?.rendered))
        }
        return (findings, remediations)
    }

    /// What one class cannot play in this asset at all. These fixes are not merged into the
    /// asset's matching command: they can pull against it (scale down versus pad to the primary).
    public func capabilityFindings(_ media: MediaDescription, subject: String, profile: DeviceProfile) -> [Finding] {
        capabilityRules.compactMap { rule in
            guard let severity = profile.severity(for: rule.description), let mismatch = rule.evaluate(media, on: profile.plays) else {
                return nil
            }
            return Finding(rule: rule.id, severity: severity, deviceClass: profile.id, subject: subject,
                           expected: mismatch.expected, actual: mismatch.actual, message: mismatch.message,
                           remediation: mismatch.remediation?.rendered)
        }
    }
}

extension Remediation {
    /// The merged settings, or nil when nothing needs to change.
    public static func mergedOrNil(_ remediations: [Remediation]) -> Remediation? {
        let merged = merge(remediations)
        return merged == Remediation() ? nil : merged
    }
}
