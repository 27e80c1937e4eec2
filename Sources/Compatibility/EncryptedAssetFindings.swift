import HLS
import MediaProbe

extension AuditEvaluation {
    /// `encryption-change` for a class whose selection of an asset cannot be probed because its
    /// samples are encrypted inside MPEG-TS or packed audio: the keys are in the media playlist,
    /// so the change is seen without media or key. Nil for other failures, a class that plays no
    /// primary, or the same protection on both sides.
    func unprobedEncryptionFinding(_ error: ProbeError, skipped: [SkippedRendition], root: ParsedPlaylist, at location: InputLocation,
                                   label: String, subject: String, profile: DeviceProfile) -> Finding? {
        let rule = SwitchRules.encryption
        guard case .encryptedRendition(let failed, _) = skipped.first?.error ?? error, let primary = primaryPicks[profile.id],
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
