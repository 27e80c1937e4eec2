import MediaProbe

/// One interstitial of an audit, after probing.
public struct AuditedAsset: Codable, Sendable, Equatable {
    /// "primary", or "interstitial 1", "interstitial 2"...
    public var role: String
    public var input: String
    public var media: MediaDescription
    /// The settings that would make this interstitial match the primary on every class audited
    /// (nil for the primary, or when nothing needs to change).
    public var remediation: Remediation?

    public init(role: String, input: String, media: MediaDescription, remediation: Remediation? = nil) {
        self.role = role
        self.input = input
        self.media = media
        self.remediation = remediation
    }
}

/// The result of auditing a primary against its interstitials for a set of device classes.
public struct AuditResult: Sendable, Equatable {
    public var input: String
    public var deviceClasses: [String]
    public var primary: AuditedAsset
    public var interstitials: [AuditedAsset]
    public var findings: [Finding]

    public var summary: FindingSummary { FindingSummary(findings) }

    /// Whether any finding is at or above `threshold` (nil threshold: never fail).
    public func fails(at threshold: Severity?) -> Bool {
        guard let threshold else { return false }
        return findings.contains { $0.severity >= threshold }
    }
}

/// Applies the media rules for each device class: capability rules to every asset, transition
/// rules to each (primary, interstitial) pair.
public struct TransitionAuditor: Sendable {
    public var rules: [TransitionRule]
    public var capabilityRules: [CapabilityRule]

    public init(rules: [TransitionRule] = RuleCatalog.transitionRules,
                capabilityRules: [CapabilityRule] = RuleCatalog.capabilityRules) {
        self.rules = rules
        self.capabilityRules = capabilityRules
    }

    public func audit(primary: AuditedAsset, interstitials: [AuditedAsset], profiles: [DeviceProfile]) -> AuditResult {
        var findings = capabilityFindings(primary, profiles: profiles)
        var audited: [AuditedAsset] = []
        for var interstitial in interstitials {
            findings += capabilityFindings(interstitial, profiles: profiles)
            var remediations: [Remediation] = []
            for profile in profiles {
                let context = TransitionContext(primary: primary.media, interstitial: interstitial.media,
                                                rendersVideo: profile.plays.video)
                for rule in rules {
                    guard let severity = profile.severity(for: rule.description),
                          let mismatch = rule.evaluate(context) else { continue }
                    if let remediation = mismatch.remediation { remediations.append(remediation) }
                    findings.append(Finding(
                        rule: rule.id, severity: severity, deviceClass: profile.id,
                        subject: "\(interstitial.role) (\(interstitial.media.input))",
                        expected: mismatch.expected, actual: mismatch.actual,
                        message: mismatch.message, remediation: mismatch.remediation?.rendered))
                }
            }
            let merged = Remediation.merge(remediations)
            interstitial.remediation = merged == Remediation() ? nil : merged
            audited.append(interstitial)
        }
        return AuditResult(input: primary.input, deviceClasses: profiles.map(\.id), primary: primary,
                           interstitials: audited, findings: findings)
    }

    /// What each class cannot play in this asset at all. Their fixes are not merged into the
    /// asset's matching command: they can pull against it (scale down versus pad to the primary).
    private func capabilityFindings(_ asset: AuditedAsset, profiles: [DeviceProfile]) -> [Finding] {
        var findings: [Finding] = []
        for profile in profiles {
            for rule in capabilityRules {
                guard let severity = profile.severity(for: rule.description),
                      let mismatch = rule.evaluate(asset.media, on: profile.plays) else { continue }
                findings.append(Finding(
                    rule: rule.id, severity: severity, deviceClass: profile.id,
                    subject: "\(asset.role) (\(asset.media.input))",
                    expected: mismatch.expected, actual: mismatch.actual,
                    message: mismatch.message, remediation: mismatch.remediation?.rendered))
            }
        }
        return findings
    }
}
