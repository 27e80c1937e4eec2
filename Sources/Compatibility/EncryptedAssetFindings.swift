import HLS
import MediaProbe

extension AuditEvaluation {
    /// `encryption-change` for a class whose selection of an asset cannot be probed (its samples
    /// encrypted inside MPEG-TS or packed audio, its key unreachable, a segment gone): the keys are
    /// in its media playlist, so the change is seen without media or key. Nil when that playlist
    /// was not loaded, for a class that plays no primary, or for the same protection on both sides.
    func unprobedEncryptionFinding(_ error: ProbeError, skipped: [SkippedRendition], root: ParsedPlaylist, at location: InputLocation,
                                   label: String, subject: String, profile: DeviceProfile) -> Finding? {
        let rule = SwitchRules.encryption
        guard let failed = (skipped.first?.error ?? error).input, let primary = primaryPicks[profile.id],
              let severity = profile.severity(for: rule.description),
              let playlist = RenditionProbes.root(root, at: location)?.playlist
                ?? probes.loaded.values.first(where: { $0.location.description == failed })?.playlist else { return nil }
        var asset = MediaDescription(input: failed, container: "", duration: nil)
        asset.playlist = RenditionPlaylist(playlist)
        guard let mismatch = rule.evaluate(TransitionContext(primary: primary.media, interstitial: asset, rendersVideo: profile.plays.video))
        else { return nil }
        return Finding(rule: rule.id, severity: severity, deviceClass: profile.id, subject: subject, expected: mismatch.expected,
                       actual: mismatch.actual, message: "\(label): " + mismatch.message + " (read from its playlist: its media could not be probed)",
                       remediation: nil)
    }
}
