/// A rule of playlist audits that is not a comparison of two media: whether a class can play
/// anything of an asset. (Whether the asset can be reached is the spec rule asset-unreachable.)
public enum PlaylistRules {
    public static let noPlayableVariant = RuleDescription(
        id: "no-playable-variant", title: "Nothing in the playlist is playable by the device class",
        rationale: "When no variant has a codec, dynamic range, resolution, frame rate and audio the class plays, its receivers skip the interstitial (or cannot start the primary). Each variant's reason is listed.",
        source: "RFC 8216bis 6.3.2 (a client must not select a variant it cannot play); DeviceProfiles plays",
        defaultSeverity: .error, track: .both, inputs: "a multivariant playlist and the class's plays")

    public static let mediaNotProbed = RuleDescription(
        id: "media-not-probed", title: "Media no rule could look at",
        rationale: "A rendition that could not be probed (its playlist or first segment unreachable, encrypted with a method or key Seamcheck cannot use, refused) was not audited: no transition or capability rule saw it. It is never counted as seamless; the finding names what was not probed and why, and what the audit used instead where a player would fail over. When nothing of an asset could be read at all (every rendition failed: a broken origin), the asset also gets one error finding with no device class.",
        source: "Seamcheck: what was audited and what was not",
        defaultSeverity: .warning, track: .both, inputs: "the renditions each class selects, as probed")

    /// The playlist-audit rules a profile can grade.
    public static let all = [noPlayableVariant, mediaNotProbed]
}
