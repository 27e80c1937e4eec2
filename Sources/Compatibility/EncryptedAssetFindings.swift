import HLS
import MediaProbe

extension AuditEvaluation {
    /// `encryption-change` for a class whose selection of an asset cannot be probed (its samples
    /// encrypted inside MPEG-TS or packed audio, its key unreachable, a segment gone): the keys are
    /// in its media playlist, so the change is seen without media or key. Nil when that playlist
    /// was not loaded, for a class that plays no primary, or for the same protection on both sides.
    func unprobedEncryptionFinding(_ error: ProbeError, skipped: [SkippedRendition], root: ParsedPlaylist, at location: InputLocation,
                                   label: String, subject: String, profile: DeviceProfile) -> Finding? {
        guard let primary = primaryPicks[profile.id]?.media ?? unprobedPrimaries[profile.id],
              let asset = Self.playlistOnly(error, skipped: skipped, root: root, at: location, probes: probes) else { return nil }
        return encryptionFinding(primary: primary, interstitial: asset, label: label, subject: subject, profile: profile,
                                 unprobed: "its media could not be probed")
    }

    /// `encryption-change` for a class whose primary could not be probed and whose selection of the
    /// asset could: the primary's keys are in its media playlist.
    func unprobedPrimaryEncryptionFinding(_ asset: MediaDescription, label: String, subject: String, profile: DeviceProfile) -> Finding? {
        guard let primary = unprobedPrimaries[profile.id] else { return nil }
        return encryptionFinding(primary: primary, interstitial: asset, label: label, subject: subject, profile: profile,
                                 unprobed: "the primary's media could not be probed")
    }

    private func encryptionFinding(primary: MediaDescription, interstitial: MediaDescription, label: String, subject: String,
                                   profile: DeviceProfile, unprobed: String) -> Finding? {
        let rule = SwitchRules.encryption
        guard let severity = profile.severity(for: rule.description),
              let mismatch = rule.evaluate(TransitionContext(primary: primary, interstitial: interstitial, rendersVideo: profile.plays.video))
        else { return nil }
        return Finding(rule: rule.id, severity: severity, deviceClass: profile.id, subject: subject, expected: mismatch.expected,
                       actual: mismatch.actual, message: "\(label): " + mismatch.message + " (read from its playlist: \(unprobed))",
                       remediation: nil)
    }

    /// The rendition a class failed on, described by its media playlist alone (its EXT-X-KEY tags,
    /// target duration, version): what playlist-read rules can still compare. Nil when that
    /// playlist was not loaded.
    static func playlistOnly(_ error: ProbeError, skipped: [SkippedRendition], root: ParsedPlaylist, at location: InputLocation,
                             probes: RenditionProbes) -> MediaDescription? {
        guard let failed = (skipped.first?.error ?? error).input,
              let playlist = RenditionProbes.root(root, at: location)?.playlist
                ?? probes.loaded.values.first(where: { $0.location.description == failed })?.playlist else { return nil }
        var media = MediaDescription(input: failed, container: "", duration: nil)
        media.playlist = RenditionPlaylist(playlist)
        return media
    }
}
