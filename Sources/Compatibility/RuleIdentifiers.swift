/// Every rule identifier of docs/interface.md. Users script against these names: never rename one.
///
/// A profile may set the severity of any of them, including rules whose checks are not in the
/// catalog yet, so that profiles written today keep working as the catalog grows.
public enum RuleIdentifiers {
    public static let transition = [
        "video-codec-mismatch", "frame-rate-mismatch", "aspect-ratio-mismatch", "dynamic-range-mismatch",
        "audio-codec-mismatch", "sample-rate-mismatch", "audio-bit-depth-mismatch", "channel-layout-mismatch",
        "track-set-mismatch", "av-start-misaligned", "rendition-language-mismatch",
        "frame-rate-multiple", "scan-type-mismatch", "ladder-mismatch", "loudness-mismatch",
        // Catalog v3 (issue 24): what else changes at the switch.
        "resolution-change", "container-change", "encryption-change", "segment-duration-change", "playlist-version-change",
    ]
    public static let capability = [
        "unsupported-video-codec", "unsupported-dynamic-range", "unsupported-audio-codec", "unsupported-channel-count",
        "resolution-exceeds-device", "frame-rate-exceeds-device", "no-playable-variant", "interlaced-video",
    ]
    public static let declared = [
        "declared-codecs-mismatch", "declared-resolution-mismatch", "declared-frame-rate-mismatch",
        "declared-video-range-mismatch", "declared-channels-mismatch",
    ]
    public static let spec = [
        "daterange-missing-id", "daterange-missing-start-date", "daterange-dates-invalid", "daterange-id-conflict",
        "end-on-next-invalid", "missing-program-date-time", "interstitial-asset-source", "interstitial-asset-uri-relative",
        "asset-list-invalid", "asset-unreachable", "cue-pre-and-post", "unknown-enumerated-value",
        "skip-control-label-invalid", "interstitial-not-vod", "interstitial-duration-mismatch",
        "daterange-inconsistent-across-renditions",
        // Seamcheck's additions to docs/interface.md's group: the parser's own diagnostics as findings,
        // interstitials a VOD timeline never reaches, SCTE35 and client values that are not hexadecimal.
        "playlist-syntax", "interstitial-outside-timeline", "daterange-hexadecimal-invalid",
        // A media playlist below the input that cannot be loaded (a finding, not the end of the run).
        "media-playlist-unreachable",
        // Draft -22: Appendix F; X-CUE, the pre-standard CUE that players still read; a date read as UTC.
        "preload-daterange-invalid", "x-cue-attribute", "date-without-time-zone",
    ]
    /// Playlist audits: media that no rule could look at (unreachable, encrypted, refused), never counted as seamless.
    public static let audit = ["media-not-probed"]
    /// Where a break sits on the primary's timeline (no device class; profiles grade it).
    public static let schedule = ["break-off-segment-boundary"]
    /// What the interstitial offers of the primary's languages and accessibility tracks (playlists
    /// alone: `lint` reports them without a class, `audit` per class).
    public static let localization = [
        "audio-language-missing", "subtitles-missing", "subtitle-language-missing", "sdh-subtitles-missing",
        "forced-subtitles-missing", "caption-language-missing", "audio-description-missing",
    ]
    public static let all = Set(transition + capability + declared + spec + audit + schedule + localization)
}
