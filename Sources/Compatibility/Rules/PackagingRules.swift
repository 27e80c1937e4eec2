import HLS
import MediaProbe

/// The ad's media playlist against the primary's: what receivers sized for the primary's
/// playlist meet at the switch. Playlist audits only (file inputs have no playlist).
enum PackagingRules {
    static let segmentDuration = TransitionRule(
        RuleDescription(
            id: "segment-duration-change", title: "The ad's segments are longer than the primary's target duration",
            rationale: "Receivers size their buffers, request timing and reload intervals by the primary's EXT-X-TARGETDURATION; an ad whose EXT-X-TARGETDURATION is larger, or whose segments (EXTINF rounded, as RFC 8216 rounds it) run past the primary's target, makes them wait on longer downloads at the switch. Ad-insertion services cut ads to the content's segment duration.",
            source: "RFC 8216 4.3.3.1 (EXT-X-TARGETDURATION bounds every EXTINF, rounded) and 6.3.4 (reload timing by the target duration); reference/interstitials.md ad-conditioning table: segment duration (Apple HLS Authoring Specification 7.x, AWS MediaTailor, Google DAI)",
            defaultSeverity: .warning, track: .both, inputs: "primary and interstitial media playlists (EXT-X-TARGETDURATION, EXTINF)"),
        examples: [
            RuleExample(name: "2 s primary segments, 6 s ad segments", primary: Example.hls(targetDuration: 2, longestSegment: 2.002),
                        interstitial: Example.hls(targetDuration: 6, longestSegment: 6.006), triggers: true),
            RuleExample(name: "the ad's target is 6 but its segments are 4 s, against a 4 s primary", primary: Example.hls(targetDuration: 4, longestSegment: 4),
                        interstitial: Example.hls(targetDuration: 6, longestSegment: 4), triggers: true),
            RuleExample(name: "6 s primary, 4 s ad segments", primary: Example.hls(), interstitial: Example.hls(targetDuration: 4, longestSegment: 4.004),
                        triggers: false),
            RuleExample(name: "a file ad (no playlist)", primary: Example.hls(), interstitial: Example.media(), triggers: false),
        ]
    ) { context in
        guard let primary = context.primary.playlist, let target = primary.targetDuration, let ad = context.interstitial.playlist else { return nil }
        let adTarget = ad.targetDuration ?? 0
        let longest = ad.longestSegment ?? 0
        guard adTarget > target || longest.rounded() > Double(target) else { return nil }
        // Keyframes every `target` seconds (video re-encoded with the primary's encoder), then cut there.
        let keyframes = context.primary.primaryVideo.map {
            VideoTransitionRules.videoEncoderArguments(for: $0) + ["-force_key_frames", "expr:gte(t,n_forced*\(target))"]
        } ?? []
        let remediation = hlsPackaging(like: context.primary, targetDuration: target).map {
            Remediation(arguments: keyframes + $0.arguments)
        }
        return Mismatch(
            expected: "segments of at most \(target) s (EXT-X-TARGETDURATION:\(target))",
            actual: "segments up to \(HLSNumber.format(longest)) s (EXT-X-TARGETDURATION:\(adTarget))",
            message: "the ad's segments run to \(HLSNumber.format(longest)) s (EXT-X-TARGETDURATION:\(adTarget)) against the primary's target duration of \(target) s: receivers sized for the primary wait on longer segments at the switch. Cut the ad's segments at \(target) s or less (a keyframe every \(target) s; ffmpeg -f hls -hls_time \(target))",
            remediation: remediation)
    }

    /// Settings that write the ad as an HLS VOD rendition packaged as `primary` is (its segment
    /// type, segments of at most `targetDuration` s), named after the output playlist so that no
    /// two fixes share a file: MPEG-TS segments `NAME-matched0.ts`...; fMP4 in one file addressed
    /// by byte ranges, `NAME-matched.m4s` (ffmpeg would name every init section `init.mp4`). TS
    /// stays at EXT-X-VERSION 3 (byte ranges would need 4). Nil when the primary is packed audio
    /// (FFmpeg's HLS muxer writes TS or fMP4 only).
    static func hlsPackaging(like primary: MediaDescription, targetDuration: Int) -> Remediation? {
        let hls = ["-f", "hls", "-hls_segment_type"]
        let cut = ["-hls_time", String(targetDuration), "-hls_playlist_type", "vod"]
        switch SwitchRules.containerFamily(primary.container) {
        case "MPEG-TS": return Remediation(arguments: hls + ["mpegts"] + cut)
        case "MP4 (fMP4)": return Remediation(arguments: hls + ["fmp4"] + cut + ["-hls_flags", "single_file"])
        default: return nil
        }
    }

    static let version = TransitionRule(
        RuleDescription(
            id: "playlist-version-change", title: "The ad's EXT-X-VERSION is newer than the primary's",
            rationale: "A client must not play a playlist whose protocol version it does not support; a receiver that plays the primary may still refuse or misread an ad that declares a newer EXT-X-VERSION, and skip it. Ad-insertion services keep ads at the content's version. fMP4 (EXT-X-MAP) needs version 6 or more, so an MPEG-TS primary at 3 with fMP4 ads is also a container-change.",
            source: "RFC 8216 4.3.1.2 (a client must not attempt playback of a version it does not support) and 7 (protocol version compatibility); reference/interstitials.md ad-conditioning table",
            defaultSeverity: .warning, track: .both, inputs: "primary and interstitial media playlists (EXT-X-VERSION)"),
        examples: [
            RuleExample(name: "version 3 primary, version 7 ad", primary: Example.hls(version: 3), interstitial: Example.hls(version: 7), triggers: true),
            RuleExample(name: "version 7 primary, version 6 ad", primary: Example.hls(version: 7), interstitial: Example.hls(version: 6), triggers: false),
            RuleExample(name: "both version 7", primary: Example.hls(), interstitial: Example.hls(), triggers: false),
        ]
    ) { context in
        guard let primary = context.primary.playlist, let ad = context.interstitial.playlist, ad.version > primary.version else { return nil }
        return Mismatch(
            expected: "EXT-X-VERSION:\(primary.version) or lower", actual: "EXT-X-VERSION:\(ad.version)",
            message: "the ad's playlist is EXT-X-VERSION:\(ad.version), newer than the primary's \(primary.version): a receiver that supports only the primary's version must not play it. Write the ad's playlist at version \(primary.version) or lower (package it as the primary is), or raise the primary's",
            remediation: nil)
    }
}
