import MediaProbe

/// Audio parameters that make a receiver reconfigure its audio path when they change between
/// primary and interstitial (WWDC23 "Explore AirPlay with interstitials").
enum AudioTransitionRules {
    static let all = [audioCodec, sampleRate, bitDepth, channelLayout]

    static let wwdc23 = "WWDC23 Explore AirPlay with interstitials (seeds/000): keep audio codec, sampling frequency, resolution and channel layout matching"

    static let audioCodec = TransitionRule.audio(
        RuleDescription(
            id: "audio-codec-mismatch", title: "Audio codec changes at the switch",
            rationale: "Switching between AAC and Dolby Digital (AC-3, E-AC-3) re-creates the audio decoder or changes the receiver's pass-through mode; low-end TVs and soundbars drop audio or stall.",
            source: wwdc23 + "; Apple HLS talk 2019: do not switch between AAC and Dolby Digital",
            defaultSeverity: .error, track: .audio, inputs: "primary and interstitial audio (probed)"),
        examples: [
            RuleExample(name: "AAC primary, AC-3 ad", primary: Example.media(),
                        interstitial: Example.media(audio: Example.audio(codec: "ac3")), triggers: true),
            RuleExample(name: "both AAC", primary: Example.media(), interstitial: Example.media(), triggers: false),
        ]
    ) { primary, interstitial in
        guard primary.codec != interstitial.codec else { return nil }
        return Mismatch(
            expected: primary.codec, actual: interstitial.codec,
            message: "audio codec changes from \(codecName(primary.codec)) to \(codecName(interstitial.codec)): the receiver switches audio decoders",
            remediation: Remediation(arguments: audioEncoderArguments(for: primary)))
    }

    static let sampleRate = TransitionRule.audio(
        RuleDescription(
            id: "sample-rate-mismatch", title: "Audio sample rate changes at the switch",
            rationale: "A different sampling frequency (48 to 44.1 kHz) makes the receiver reclock its audio output; many TVs and speakers mute or click while they do.",
            source: wwdc23, defaultSeverity: .warning, track: .audio, inputs: "primary and interstitial audio (probed)"),
        examples: [
            RuleExample(name: "48 kHz primary, 44.1 kHz ad", primary: Example.media(),
                        interstitial: Example.media(audio: Example.audio(rate: 44100)), triggers: true),
            RuleExample(name: "both 48 kHz", primary: Example.media(), interstitial: Example.media(), triggers: false),
        ]
    ) { primary, interstitial in
        guard primary.sampleRate != interstitial.sampleRate else { return nil }
        return Mismatch(
            expected: "\(primary.sampleRate) Hz", actual: "\(interstitial.sampleRate) Hz",
            message: "audio sample rate changes from \(kHz(primary.sampleRate)) to \(kHz(interstitial.sampleRate))",
            remediation: Remediation(arguments: audioEncoderArguments(for: primary), audioFilters: ["aresample=\(primary.sampleRate)"]))
    }

    static let bitDepth = TransitionRule.audio(
        RuleDescription(
            id: "audio-bit-depth-mismatch", title: "Audio sample resolution changes at the switch",
            rationale: "Lossless audio at a different resolution (16 to 24 bit) reconfigures the output path. Lossy codecs (AAC, AC-3) have no bit depth: the rule only compares tracks that both have one.",
            source: wwdc23, defaultSeverity: .warning, track: .audio, inputs: "primary and interstitial audio (probed)"),
        examples: [
            RuleExample(name: "24-bit ALAC primary, 16-bit ALAC ad",
                        primary: Example.media(audio: Example.audio(codec: "alac", bitDepth: 24)),
                        interstitial: Example.media(audio: Example.audio(codec: "alac", bitDepth: 16)), triggers: true),
            RuleExample(name: "AAC on both sides has no bit depth", primary: Example.media(),
                        interstitial: Example.media(), triggers: false),
            RuleExample(name: "24-bit ALAC primary, AAC ad (audio-codec-mismatch covers it)",
                        primary: Example.media(audio: Example.audio(codec: "alac", bitDepth: 24)),
                        interstitial: Example.media(), triggers: false),
        ]
    ) { primary, interstitial in
        guard let p = primary.bitDepth, let i = interstitial.bitDepth, p != i else { return nil }
        return Mismatch(
            expected: "\(p) bit", actual: "\(i) bit",
            message: "audio sample resolution changes from \(p) to \(i) bit",
            remediation: Remediation(arguments: audioEncoderArguments(for: primary)))
    }

    static let channelLayout = TransitionRule.audio(
        RuleDescription(
            id: "channel-layout-mismatch", title: "Audio channel layout changes at the switch",
            rationale: "Going from stereo to 5.1 (or back) makes the receiver reconfigure its speakers or re-negotiate pass-through. 5.1 and 5.1(side) count as the same layout: decoders place both on the same speakers.",
            source: wwdc23, defaultSeverity: .warning, track: .audio, inputs: "primary and interstitial audio (probed)"),
        examples: [
            RuleExample(name: "stereo primary, 5.1 ad", primary: Example.media(),
                        interstitial: Example.media(audio: Example.audio(channels: 6, layout: "5.1")), triggers: true),
            RuleExample(name: "5.1 and 5.1(side)",
                        primary: Example.media(audio: Example.audio(channels: 6, layout: "5.1")),
                        interstitial: Example.media(audio: Example.audio(codec: "aac", channels: 6, layout: "5.1(side)")), triggers: false),
            RuleExample(name: "both stereo", primary: Example.media(), interstitial: Example.media(), triggers: false),
        ]
    ) { primary, interstitial in
        let sameCount = primary.channels == interstitial.channels
        let sameLayout = normalizedLayout(primary.channelLayout) == normalizedLayout(interstitial.channelLayout)
            || primary.channelLayout == nil || interstitial.channelLayout == nil
        guard !(sameCount && sameLayout) else { return nil }
        let expected = primary.channelLayout ?? "\(primary.channels) channels"
        let actual = interstitial.channelLayout ?? "\(interstitial.channels) channels"
        let filter = primary.channelLayout.map { "aformat=channel_layouts=\($0)" }
        let encoder = audioEncoderArguments(for: primary)
        return Mismatch(
            expected: expected, actual: actual,
            message: "audio channel layout changes from \(expected) to \(actual)",
            remediation: filter.map { Remediation(arguments: encoder, audioFilters: [$0]) }
                ?? Remediation(arguments: encoder + ["-ac", String(primary.channels)]))
    }

    // MARK: - Helpers

    static func normalizedLayout(_ layout: String?) -> String? {
        layout?.replacingOccurrences(of: "(side)", with: "")
    }

    static func codecName(_ codec: String) -> String {
        switch codec {
        case "aac": return "AAC (aac)"
        case "ac3": return "Dolby Digital (ac3)"
        case "eac3": return "Dolby Digital Plus (eac3)"
        case "alac": return "Apple Lossless (alac)"
        default: return codec
        }
    }

    /// The encoder that makes `track`'s codec, with the sample format that gives its bit depth
    /// where it has one (ALAC and FLAC at 16 or 24 bit).
    static func audioEncoderArguments(for track: AudioTrack) -> [String] {
        let deep = (track.bitDepth ?? 16) > 16
        switch track.codec {
        case "aac":
            return ["-c:a", "aac"] + (track.profile == "LC" ? ["-profile:a", "aac_low"] : [])
        case "alac":
            return ["-c:a", "alac", "-sample_fmt", deep ? "s32p" : "s16p"]
        case "flac":
            return ["-c:a", "flac", "-sample_fmt", deep ? "s32" : "s16"] + (deep ? ["-bits_per_raw_sample", "24"] : [])
        case "mp3":
            return ["-c:a", "libmp3lame"]
        case "opus":
            return ["-c:a", "libopus"]
        default:
            return ["-c:a", track.codec]
        }
    }

    static func kHz(_ rate: Int) -> String {
        rate % 1000 == 0 ? "\(rate / 1000) kHz" : "\(Double(rate) / 1000) kHz"
    }
}
