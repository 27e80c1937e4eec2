import HLS
import MediaProbe

/// The findings a playlist audit makes about what it could not look at: never silence, never "seamless".
enum AuditFindings {
    /// The class's preferred renditions failed and its players fail over to `pick`, which was audited instead.
    static func failover(_ pick: RenditionPick, label: String, subject: String, profile: DeviceProfile) -> Finding? {
        guard let first = pick.skipped.first, let severity = profile.severity(for: PlaylistRules.mediaNotProbed) else { return nil }
        let tried = tries(pick.skipped)
        let failed = first.isAudio ? "the audio rendition" : "the variant"
        let target = pick.rendition + (pick.audioRendition.map { " with \($0)" } ?? "")
        return Finding(rule: PlaylistRules.mediaNotProbed.id, severity: severity, deviceClass: profile.id, subject: subject,
                       expected: "\(first.rendition) probed", actual: tried,
                       message: "\(label): \(failed) this class selects cannot be read (\(tried)); its players fail over to \(target), which was audited instead",
                       remediation: nil)
    }

    /// Each failed media playlist once, in the order tried: variants that share a video
    /// playlist (one per audio group) fail on the same URL.
    static func tries(_ skipped: [SkippedRendition]) -> String {
        var seen: Set<String> = []
        return skipped.map { "\($0.rendition) (\(reason($0.error)))" }.filter { seen.insert($0).inserted }.joined(separator: "; ")
    }

    /// Nothing the class would select could be probed.
    static func notProbed(_ error: ProbeError, skipped: [SkippedRendition], label: String, subject: String,
                          profile: DeviceProfile) -> Finding? {
        guard let severity = profile.severity(for: PlaylistRules.mediaNotProbed) else { return nil }
        let tried = skipped.isEmpty ? reason(error) : tries(skipped)
        let unread = (skipped.isEmpty ? [error] : skipped.map(\.error)).allSatisfy(isReadFailure)
        return Finding(rule: PlaylistRules.mediaNotProbed.id, severity: severity, deviceClass: profile.id, subject: subject,
                       expected: unread ? unreadExpected : "a rendition this class selects, probed", actual: tried,
                       message: "\(label): not audited for this class: no rendition it would select could be probed (\(tried))",
                       remediation: nil)
    }

    /// The interstitial was probed but the primary this class plays was not: no transition was compared.
    static func primaryNotProbed(label: String, subject: String, profile: DeviceProfile) -> Finding? {
        guard let severity = profile.severity(for: PlaylistRules.mediaNotProbed) else { return nil }
        return Finding(rule: PlaylistRules.mediaNotProbed.id, severity: severity, deviceClass: profile.id, subject: subject,
                       expected: "the primary this class plays, probed", actual: "not probed",
                       message: "\(label): transition not audited for this class: the primary rendition it plays could not be probed",
                       remediation: nil)
    }

    /// What went wrong, short: an HTTP status, an encryption method, else the error's text.
    static func reason(_ error: ProbeError) -> String {
        switch error {
        case .playlist(.httpStatus(_, let code)): return "HTTP \(code)"
        case .encryptedRendition(_, let method) where ["SAMPLE-AES", "SAMPLE-AES-CTR"].contains(method):
            return "encrypted (\(method) without EXT-X-MAP: stream parameters are not in the clear)"
        case .encryptedRendition(_, let method): return "encrypted (\(method))"
        default: return error.description
        }
    }

    /// `expected` of a media-not-probed finding whose renditions could not be read at all (fetch,
    /// status, timeout, not media), as opposed to read but not usable (an encryption method).
    static let unreadExpected = "a rendition this class selects, readable"

    /// Whether the origin failed to serve the rendition: anything but a method Seamcheck cannot
    /// read through (sample encryption) and a cancelled run.
    static func isReadFailure(_ error: ProbeError) -> Bool {
        switch error {
        case .encryptedRendition, .cancelled, .playlist(.cancelled): return false
        default: return true
        }
    }

    /// Whether the error is the rendition's playlist not loading (asset-unreachable), rather than its media.
    static func isPlaylistFailure(_ error: ProbeError) -> Bool {
        if case .playlist = error { return true }
        return false
    }
}
