import MediaProbe

/// What changes at the switch beyond the decoder parameters Apple lists: the coded picture size,
/// the container (the demuxer) and the protection (the decryption session). Ad-insertion
/// services condition all three; players' trackers show what happens when they differ.
enum SwitchRules {
    static let all = [resolution, container, encryption, PackagingRules.segmentDuration, PackagingRules.version]

    static let resolution = TransitionRule.video(
        RuleDescription(
            id: "resolution-change", title: "Coded picture size changes at the switch",
            rationale: "A different coded size at the same display aspect ratio (a 1920x1080 primary and a 1280x720 ad, or an anamorphic 1440x1080 one) makes receivers whose video decoders are not adaptive release and re-create the decoder: a visible glitch. In playlist audits each class's selections are compared, what it would play on each side. A change of display aspect ratio is aspect-ratio-mismatch instead.",
            source: "ExoPlayer issue #2672 (HLS: the decoder is freed and created again on every resolution change, a visible glitch, on a decoder that is not adaptive); Apple HLS Authoring Specification 3.3; ad-insertion services condition ads to the content's RESOLUTION (reference/interstitials.md)",
            defaultSeverity: .warning, track: .video, inputs: "primary and interstitial video (probed): width, height, sample aspect ratio"),
        examples: [
            RuleExample(name: "1080p primary, 720p ad", primary: Example.media(),
                        interstitial: Example.media(video: Example.video(width: 1280, height: 720)), triggers: true),
            RuleExample(name: "anamorphic 1440x1080 SAR 4:3 ad: the same 16:9, another coded size", primary: Example.media(),
                        interstitial: Example.media(video: Example.video(width: 1440, height: 1080, sar: Ratio(4, 3))), triggers: true),
            RuleExample(name: "both 1920x1080", primary: Example.media(), interstitial: Example.media(), triggers: false),
            RuleExample(name: "4:3 ad (aspect-ratio-mismatch covers it)", primary: Example.media(),
                        interstitial: Example.media(video: Example.video(width: 640, height: 480)), triggers: false),
        ]
    ) { primary, interstitial in
        guard primary.width != interstitial.width || primary.height != interstitial.height,
              let p = primary.displayAspectRatio.doubleValue, let i = interstitial.displayAspectRatio.doubleValue,
              abs(p - i) / p <= VideoTransitionRules.aspectTolerance else { return nil }
        let sar = primary.sampleAspectRatio
        return Mismatch(
            expected: "\(primary.width)x\(primary.height)", actual: "\(interstitial.width)x\(interstitial.height)",
            message: "the coded picture changes from \(primary.width)x\(primary.height) to \(interstitial.width)x\(interstitial.height) (both display at \(primary.displayAspectRatio)): receivers without adaptive video decoders re-create theirs",
            remediation: Remediation(arguments: VideoTransitionRules.videoEncoderArguments(for: primary),
                                     videoFilters: ["scale=\(primary.width):\(primary.height)", "setsar=\(sar.width)/\(sar.height)"]))
    }

    static let container = TransitionRule(
        RuleDescription(
            id: "container-change", title: "Container changes at the switch (MPEG-TS, fMP4, packed audio)",
            rationale: "An MPEG-TS primary and an fMP4 ad (or the reverse, or packed audio against fMP4) make the receiver switch demuxers; many TVs reset their whole media pipeline for it. Ad-insertion services transcode ads into the content's container for this reason. Compares container families (FFmpeg's format name): MPEG-TS, MP4 (fMP4), packed audio.",
            source: "Shaka Player issue #3630 (Tizen TVs of 2016-2020 freeze after the first SSAI ad break in live HLS); Google Ad Manager DAI encoding profiles name the container; AWS MediaTailor transcodes ads to the content's packaging",
            defaultSeverity: .warning, track: .both, inputs: "primary and interstitial container (probed)"),
        examples: [
            RuleExample(name: "MPEG-TS primary, fMP4 ad", primary: Example.media(container: "mpegts"), interstitial: Example.media(), triggers: true),
            RuleExample(name: "packed AAC primary, fMP4 audio ad", primary: Example.media(video: nil, container: "aac"),
                        interstitial: Example.media(video: nil), triggers: true),
            RuleExample(name: "both fMP4", primary: Example.media(), interstitial: Example.media(), triggers: false),
            RuleExample(name: "both MPEG-TS", primary: Example.media(container: "mpegts"), interstitial: Example.media(container: "mpegts"),
                        triggers: false),
        ]
    ) { context in
        let (primary, interstitial) = (context.primary, context.interstitial)
        guard let p = containerFamily(primary.container), let i = containerFamily(interstitial.container), p != i else { return nil }
        // An HLS ad is packaged again as the primary's renditions are; a file is remuxed.
        let remediation = interstitial.playlist != nil
            ? PackagingRules.hlsPackaging(like: primary, targetDuration: primary.playlist?.targetDuration ?? 6)
            : muxer(for: primary.container).map { format in
                Remediation(arguments: ["-f", format] + (format != "mpegts" && format != "mp4" && !interstitial.video.isEmpty ? ["-vn"] : []))
            }
        return Mismatch(
            expected: p, actual: i,
            message: "the container changes from \(p) to \(i): the receiver switches demuxers, and many TVs reset their pipeline for it"
                + (remediation == nil ? " (package the ad in the primary's container)" : ""),
            remediation: remediation)
    }

    /// The family a receiver's demuxer sees, from FFmpeg's format name; nil when not known.
    static func containerFamily(_ format: String) -> String? {
        if format.isEmpty { return nil }
        if format == "mpegts" { return "MPEG-TS" }
        if format.hasPrefix("mov") || format.contains("mp4") { return "MP4 (fMP4)" }
        if ["aac", "mp3", "ac3", "eac3"].contains(format) { return "packed audio" }
        return format
    }

    /// The muxer (`-f`) that writes the primary's container; nil when FFmpeg has none to name here.
    static func muxer(for format: String) -> String? {
        switch containerFamily(format) {
        case "MPEG-TS": return "mpegts"
        case "MP4 (fMP4)": return "mp4"
        case "packed audio": return format == "aac" ? "adts" : format
        default: return nil
        }
    }

    static let encryption = TransitionRule(
        RuleDescription(
            id: "encryption-change", title: "Encryption changes at the switch",
            rationale: "A protected primary and a clear ad, a clear primary and a protected ad, or different methods or key systems (AES-128 against SAMPLE-AES, FairPlay against none) make the receiver tear down its decryption session and build another (or start one): players reset their buffers, detach the media, or fail to re-create a secure decoder. Read from the media playlists' EXT-X-KEY tags (method and KEYFORMAT) and the probe's `encryption`; no key is needed to see it.",
            source: "hls.js issue #7608 (a DRM pre-roll forces a buffer reset and detaches the media); ExoPlayer issues #9095 and #8696 (decoder init fails switching from DRM-protected to clear content, ads among them); RFC 8216bis 4.4.4.4 (EXT-X-KEY METHOD, KEYFORMAT)",
            defaultSeverity: .warning, track: .both, inputs: "the media playlists' EXT-X-KEY (playlist audits) or the probe's encryption"),
        examples: [
            RuleExample(name: "AES-128 primary, clear ad",
                        primary: Example.hls(keys: [.init(method: "AES-128")]), interstitial: Example.hls(), triggers: true),
            RuleExample(name: "FairPlay SAMPLE-AES primary, AES-128 ad",
                        primary: Example.hls(keys: [.init(method: "SAMPLE-AES", keyFormat: "com.apple.streamingkeydelivery")]),
                        interstitial: Example.hls(keys: [.init(method: "AES-128")]), triggers: true),
            RuleExample(name: "both AES-128 (other key URIs)", primary: Example.hls(keys: [.init(method: "AES-128")]),
                        interstitial: Example.hls(keys: [.init(method: "AES-128")]), triggers: false),
            RuleExample(name: "both clear", primary: Example.hls(), interstitial: Example.hls(), triggers: false),
        ]
    ) { context in
        let p = protection(context.primary), i = protection(context.interstitial)
        guard Set(p) != Set(i) else { return nil }
        let expected = describe(p), actual = describe(i)
        return Mismatch(
            expected: expected, actual: actual,
            message: "encryption changes from \(expected) to \(actual): the receiver tears down its decryption session at the switch"
                + " (package the ad as the primary is, \(expected); no encode here can)",
            remediation: nil)
    }

    /// The key systems a receiver needs for the media: the playlist's keys, else the probe's method.
    static func protection(_ media: MediaDescription) -> [RenditionPlaylist.KeySystem] {
        if let playlist = media.playlist { return playlist.keys }
        return media.encryption.map { [RenditionPlaylist.KeySystem(method: $0)] } ?? []
    }

    static func describe(_ keys: [RenditionPlaylist.KeySystem]) -> String {
        keys.isEmpty ? "clear" : keys.map(\.description).joined(separator: " + ")
    }
}

extension Example {
    /// Example media as an HLS rendition with its playlist's packaging.
    static func hls(version: Int = 7, targetDuration: Int = 6, longestSegment: Double = 6.006,
                    keys: [RenditionPlaylist.KeySystem] = [], container: String = "mov,mp4,m4a,3gp,3g2,mj2") -> MediaDescription {
        var media = Example.media(container: container)
        media.playlist = RenditionPlaylist(version: version, targetDuration: targetDuration, longestSegment: longestSegment, keys: keys)
        return media
    }
}
