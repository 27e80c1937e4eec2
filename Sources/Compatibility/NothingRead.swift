/// An asset of which nothing could be read once its own playlist loaded (every rendition's
/// playlist, init section, segment or key failed: 404s, 5xx, timeouts, not media) is an origin
/// that serves nothing, not a partial failure: the audit cannot pass. Each such asset gets one error finding (media-not-probed, no
/// device class) on top of the per-class warnings, so `audit` exits 1 at the default fail-on and a
/// matrix case is an error cell. An asset some class could read, or one only refused for a
/// reason of Seamcheck's (a sample-encryption method), stays a warning.
public enum NothingRead {
    /// `expected` of the error finding: how scripts and the matrix tell it from the per-class ones.
    public static let expected = "at least one rendition of the asset read"

    /// Adds the error finding for each asset of `result` of which nothing was read.
    public static func mark(_ result: inout AuditResult) {
        for asset in [result.primary] + result.interstitials {
            guard let reason = unreadReason(asset, in: result) else { continue }
            let label = asset.placement?.id.map { "\(asset.role) \"\($0)\"" } ?? asset.role
            result.findings.append(Finding(
                rule: PlaylistRules.mediaNotProbed.id, severity: .error, deviceClass: nil, subject: subject(asset),
                expected: expected, actual: reason,
                message: "\(label): nothing of it could be read (\(reason)): the origin serves none of its renditions, "
                    + "so it was not audited on any device class; fix the origin (or the URL) and run again",
                remediation: nil))
        }
    }

    /// The error findings `mark` added: one per asset of which nothing was read.
    public static func findings(in result: AuditResult) -> [Finding] {
        result.findings.filter { $0.rule == PlaylistRules.mediaNotProbed.id && $0.deviceClass == nil && $0.expected == expected }
    }

    /// The assets `mark` found unread, each with its finding's message (what and what to do).
    public static func unread(in result: AuditResult) -> [(input: String, message: String)] {
        let marked = findings(in: result)
        return ([result.primary] + result.interstitials).compactMap { asset in
            marked.first { $0.subject == subject(asset) }.map { (asset.input, $0.message) }
        }
    }

    static func subject(_ asset: AuditedAsset) -> String { "\(asset.role) (\(asset.input))" }

    /// Why nothing of `asset` was read, or nil when something was (or what stopped it is not the origin).
    static func unreadReason(_ asset: AuditedAsset, in result: AuditResult) -> String? {
        guard asset.selections.isEmpty, asset.problem != nil else { return nil }
        // An interstitial whose own playlist failed has no finding of its own: it is the spec
        // rule asset-unreachable's (players skip the ad), graded as the profiles say.
        let own = result.findings.filter { $0.subject == subject(asset) }
        var reasons: [String] = []
        for finding in own {
            switch finding.rule {
            case PlaylistRules.mediaNotProbed.id where finding.deviceClass != nil:
                guard finding.expected == AuditFindings.unreadExpected else { return nil }
            case "asset-unreachable":
                break
            default:
                continue
            }
            if let actual = finding.actual, !reasons.contains(actual) { reasons.append(actual) }
        }
        guard !reasons.isEmpty else { return nil }
        return reasons.joined(separator: "; ")
    }
}
