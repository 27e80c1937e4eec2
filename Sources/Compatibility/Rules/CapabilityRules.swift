import MediaProbe

/// What a device class cannot decode or render at all (from its profile's `plays`).
enum CapabilityRules {
    static let all = [videoCodec, dynamicRange, audioCodec, channelCount, resolution, frameRate, ScanRules.interlacedVideo]
    static let source = "DeviceProfiles (plays) from reference/interstitials.md and Apple's HLS authoring limits"

    static let videoCodec = CapabilityRule(
        RuleDescription(id: "unsupported-video-codec", title: "Video codec the device class cannot decode",
                        rationale: "A low-end AirPlay TV that only decodes H.264 cannot play an HEVC interstitial: the ad is skipped or the screen stays black.",
                        source: source, defaultSeverity: .error, track: .video, inputs: "one asset (probed) and the class's videoCodecs"),
        examples: [
            CapabilityExample(name: "HEVC on an H.264-only TV", media: Example.media(video: Example.video(codec: "hevc")),
                              plays: ExamplePlays.lowEnd, triggers: true),
            CapabilityExample(name: "HEVC on Apple TV 4K", media: Example.media(video: Example.video(codec: "hevc")),
                              plays: ExamplePlays.appleTV4K, triggers: false),
        ]
    ) { media, plays in
        guard plays.video, let video = media.primaryVideo, !plays.videoCodecs.contains(video.codec) else { return nil }
        return Mismatch(expected: plays.videoCodecs.joined(separator: ", "), actual: video.codec,
                        message: "video codec \(video.codec) is not decoded by this device class (\(plays.videoCodecs.joined(separator: ", ")))",
                        remediation: Remediation(arguments: VideoTransitionRules.videoEncoderArguments(for: decodable(video, plays))))
    }

    /// What a re-encode for this class makes: the asset's own codec and profile when the class
    /// decodes it, else H.264 (or the class's first codec), so that no fix writes video the
    /// class cannot decode.
    static func decodable(_ video: VideoTrack, _ plays: Capabilities) -> VideoTrack {
        guard !plays.videoCodecs.contains(video.codec) else { return video }
        let codec = plays.videoCodecs.contains("h264") ? "h264" : plays.videoCodecs.first ?? "h264"
        return VideoTrack(codec: codec, width: video.width, height: video.height, frameRate: nil)
    }

    static let dynamicRange = CapabilityRule(
        RuleDescription(id: "unsupported-dynamic-range", title: "Dynamic range the device class cannot display",
                        rationale: "HDR10, HLG or Dolby Vision on an SDR-only receiver is tone-mapped badly or not played.",
                        source: source, defaultSeverity: .error, track: .video, inputs: "one asset (probed) and the class's dynamicRanges"),
        examples: [
            CapabilityExample(name: "HDR10 on an SDR TV", media: Example.media(video: Example.video(codec: "hevc", range: .hdr10)),
                              plays: ExamplePlays.lowEnd, triggers: true),
            CapabilityExample(name: "HDR10 on Apple TV 4K", media: Example.media(video: Example.video(codec: "hevc", range: .hdr10)),
                              plays: ExamplePlays.appleTV4K, triggers: false),
        ]
    ) { media, plays in
        guard plays.video, let video = media.primaryVideo, !plays.dynamicRanges.contains(video.dynamicRange.rawValue) else { return nil }
        let remediation = dynamicRangeTarget(video, plays).flatMap { VideoTransitionRules.dynamicRangeRemediation(to: $0, from: video) }
        let words = remediation == nil
            ? ": no ffmpeg encode here converts it (deliver a \(plays.dynamicRanges.first ?? "SDR") rendition of the ad from its master)" : ""
        return Mismatch(expected: plays.dynamicRanges.joined(separator: ", "), actual: video.dynamicRange.rawValue,
                        message: "\(video.dynamicRange.rawValue) is not displayed by this device class (\(plays.dynamicRanges.joined(separator: ", ")))" + words,
                        remediation: remediation)
    }

    /// What to convert an asset to for a class that cannot display its dynamic range: SDR when
    /// the class shows SDR (tone mapped), else the first HDR10 or HLG it shows; in the asset's
    /// codec when the class decodes it, else the one `decodable` picks.
    static func dynamicRangeTarget(_ video: VideoTrack, _ plays: Capabilities) -> VideoTrack? {
        guard let range = ["SDR", "HDR10", "HLG"].first(where: plays.dynamicRanges.contains).flatMap(DynamicRange.init(rawValue:)) else { return nil }
        let codec = decodable(video, plays).codec
        return VideoTrack(codec: codec, profile: range == .sdr ? nil : "Main 10", width: video.width, height: video.height, frameRate: nil,
                          bitDepth: range == .sdr ? 8 : 10, dynamicRange: range)
    }

    static let audioCodec = CapabilityRule(
        RuleDescription(id: "unsupported-audio-codec", title: "Audio codec the device class cannot decode",
                        rationale: "AC-3 or E-AC-3 on a receiver that only decodes AAC plays silence or is skipped.",
                        source: source, defaultSeverity: .error, track: .audio, inputs: "one asset (probed) and the class's audioCodecs"),
        examples: [
            CapabilityExample(name: "AC-3 on an AAC-only TV", media: Example.media(audio: Example.audio(codec: "ac3")),
                              plays: ExamplePlays.lowEnd, triggers: true),
            CapabilityExample(name: "AAC everywhere", media: Example.media(), plays: ExamplePlays.lowEnd, triggers: false),
        ]
    ) { media, plays in
        guard let audio = media.primaryAudio, !plays.audioCodecs.contains(audio.codec) else { return nil }
        return Mismatch(expected: plays.audioCodecs.joined(separator: ", "), actual: audio.codec,
                        message: "audio codec \(audio.codec) is not decoded by this device class (\(plays.audioCodecs.joined(separator: ", ")))",
                        remediation: Remediation(arguments: AudioTransitionRules.audioEncoderArguments(for: AudioTrack(
                            codec: plays.audioCodecs.contains("aac") ? "aac" : plays.audioCodecs.first ?? "aac", profile: "LC",
                            sampleRate: audio.sampleRate, bitDepth: audio.bitDepth, channels: audio.channels))))
    }

    static let channelCount = CapabilityRule(
        RuleDescription(id: "unsupported-channel-count", title: "More audio channels than the device class renders",
                        rationale: "5.1 or 7.1 audio on a stereo-only receiver is downmixed on the fly or rejected; the downmix switch itself costs a gap.",
                        source: source, defaultSeverity: .warning, track: .audio, inputs: "one asset (probed) and the class's maxChannels"),
        examples: [
            CapabilityExample(name: "5.1 on a stereo TV", media: Example.media(audio: Example.audio(channels: 6, layout: "5.1")),
                              plays: ExamplePlays.lowEnd, triggers: true),
            CapabilityExample(name: "5.1 on Apple TV 4K", media: Example.media(audio: Example.audio(channels: 6, layout: "5.1")),
                              plays: ExamplePlays.appleTV4K, triggers: false),
        ]
    ) { media, plays in
        guard let audio = media.primaryAudio, audio.channels > plays.maxChannels else { return nil }
        return Mismatch(expected: "at most \(plays.maxChannels) channels", actual: "\(audio.channels) channels",
                        message: "\(audio.channelLayout ?? "\(audio.channels) channels") audio exceeds this device class's \(plays.maxChannels) channels",
                        remediation: Remediation(arguments: AudioTransitionRules.audioEncoderArguments(for: audio) + ["-ac", String(plays.maxChannels)]))
    }

    static let resolution = CapabilityRule(
        RuleDescription(id: "resolution-exceeds-device", title: "Picture larger than the device class decodes",
                        rationale: "A 2160p interstitial on a 1080p receiver fails to decode or is skipped.",
                        source: source, defaultSeverity: .error, track: .video, inputs: "one asset (probed) and the class's maxWidth/maxHeight"),
        examples: [
            CapabilityExample(name: "2160p on a 1080p TV", media: Example.media(video: Example.video(width: 3840, height: 2160)),
                              plays: ExamplePlays.lowEnd, triggers: true),
            CapabilityExample(name: "1080p on a 1080p TV", media: Example.media(), plays: ExamplePlays.lowEnd, triggers: false),
        ]
    ) { media, plays in
        guard plays.video, let video = media.primaryVideo, let maxW = plays.maxWidth, let maxH = plays.maxHeight,
              video.width > maxW || video.height > maxH else { return nil }
        return Mismatch(expected: "at most \(maxW)x\(maxH)", actual: "\(video.width)x\(video.height)",
                        message: "\(video.width)x\(video.height) exceeds this device class's \(maxW)x\(maxH)",
                        remediation: Remediation(arguments: VideoTransitionRules.videoEncoderArguments(for: decodable(video, plays)),
                                                 videoFilters: ["scale=\(maxW):\(maxH):force_original_aspect_ratio=decrease:force_divisible_by=2"]))
    }

    static let frameRate = CapabilityRule(
        RuleDescription(id: "frame-rate-exceeds-device", title: "Frame rate higher than the device class plays",
                        rationale: "A 60 fps interstitial on a receiver limited to 30 fps drops frames or fails to decode.",
                        source: source, defaultSeverity: .error, track: .video, inputs: "one asset (probed) and the class's maxFrameRate"),
        examples: [
            CapabilityExample(name: "60 fps on a 30 fps device", media: Example.media(video: Example.video(rate: Rational(60, 1))),
                              plays: ExamplePlays.lowEnd, triggers: true),
            CapabilityExample(name: "29.97 fps on a 30 fps device", media: Example.media(), plays: ExamplePlays.lowEnd, triggers: false),
        ]
    ) { media, plays in
        guard plays.video, let video = media.primaryVideo, let rate = video.frameRate, let maxRate = plays.maxFrameRate,
              rate > maxRate + VideoTransitionRules.frameRateTolerance else { return nil }
        return Mismatch(expected: "at most \(VideoTransitionRules.formatRate(maxRate)) fps", actual: "\(VideoTransitionRules.formatRate(rate)) fps",
                        message: "\(VideoTransitionRules.formatRate(rate)) fps exceeds this device class's \(VideoTransitionRules.formatRate(maxRate)) fps",
                        remediation: Remediation(arguments: VideoTransitionRules.videoEncoderArguments(for: decodable(video, plays))
                                                     + ["-r", reducedRate(video, max: maxRate)]))
    }

    /// The rate divided by the smallest whole number that brings it within `max`: 120 -> 60,
    /// 59.94 -> 29.97 (30000/1001), 50 -> 25. Dropping every n-th frame keeps the cadence and the
    /// x, 2x, x/2 family the primary is most likely in; the class's maximum itself (30 for a
    /// 59.94 ad) would be a new frame-rate change against a 29.97 primary.
    static func reducedRate(_ video: VideoTrack, max: Double) -> String {
        guard let rate = video.frameRate, rate > 0 else { return VideoTransitionRules.formatRate(max) }
        let divisor = Swift.max(2, Int((rate / (max + VideoTransitionRules.frameRateTolerance)).rounded(.up)))
        if let exact = video.frameRateExact, exact.denominator > 0 {
            let reduced = Rational(exact.numerator, exact.denominator * divisor)
            return reduced.denominator == 1 ? String(reduced.numerator) : reduced.description
        }
        return VideoTransitionRules.formatRate(rate / Double(divisor))
    }
}
