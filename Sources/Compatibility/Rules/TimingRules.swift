import MediaProbe

/// Timestamps and languages: what makes the switch glitch even when the codecs match.
enum TimingRules {
    /// Audio and video of one asset may start this far apart (seconds) before the rule fires:
    /// above one AAC frame of encoder priming (23 ms at 44.1 kHz) and one frame at 24 fps (42 ms).
    static let startTolerance = 0.05
    /// An ad whose audio and video start apart exactly as the primary's do is packaged like it
    /// (x264's B-frame delay in separate CMAF renditions: 66 ms at 29.97 fps, 125 ms at 15 fps) and
    /// is not flagged for that, up to this offset; past it, both are off and the ad is flagged.
    static let packagingDelayLimit = 0.15

    static let avStart = TransitionRule(
        RuleDescription(
            id: "av-start-misaligned", title: "Audio and video of the interstitial do not start together",
            rationale: "Presentation units must be accurately timestamped and aligned: when the interstitial's audio starts later or earlier than its video (more than 50 ms, or differently from the primary), the receiver waits for the late stream or drops the early one at the switch. A start is compared only where it is one: a live primary probed from the first segment of its window was cut mid-stream, where audio leads the keyframe by the encoder's B-frame delay (60 ms at 29.97 fps, 125 ms at 15 fps with x264), so the ad is then held to 50 ms alone; a live ad's window says nothing of its start. An ad whose tracks start apart exactly as a VOD primary's do, by no more than a B-frame delay (150 ms), is packaged like it (separate CMAF renditions from x264) and is not flagged for that.",
            source: "WWDC23 Explore AirPlay with interstitials (seeds/000): all presentation units must be accurately timestamped and aligned",
            defaultSeverity: .warning, track: .both, inputs: "stream start times of primary and interstitial (probed), and whether each was probed from a live window"),
        examples: [
            RuleExample(name: "ad audio starts 0.5 s after its video", primary: Example.media(),
                        interstitial: Example.media(audio: { var a = Example.audio(); a.startTime = 0.5; return a }()), triggers: true),
            RuleExample(name: "ad audio starts 0.2 s before its video", primary: Example.media(),
                        interstitial: Example.media(audio: { var a = Example.audio(); a.startTime = -0.2; return a }()), triggers: true),
            RuleExample(name: "21 ms of AAC priming", primary: Example.media(),
                        interstitial: Example.media(audio: { var a = Example.audio(); a.startTime = 0.021; return a }()), triggers: false),
            RuleExample(name: "audio-only ad (nothing to align)", primary: Example.media(),
                        interstitial: Example.media(video: nil), triggers: false),
            RuleExample(name: "VOD primary's audio leads by 0.2 s, the ad's starts with its video", primary: primaryAudioLeading(live: false),
                        interstitial: Example.media(), triggers: true),
            RuleExample(name: "separate CMAF renditions: audio 66 ms before video in the ad and the VOD primary alike (B-frame delay)",
                        primary: Example.media(audio: { var a = Example.audio(); a.startTime = -0.066; return a }()),
                        interstitial: Example.media(audio: { var a = Example.audio(); a.startTime = -0.066; return a }()), triggers: false),
            RuleExample(name: "audio 0.3 s before video in the ad and the VOD primary alike (both off, past any B-frame delay)",
                        primary: Example.media(audio: { var a = Example.audio(); a.startTime = -0.3; return a }()),
                        interstitial: Example.media(audio: { var a = Example.audio(); a.startTime = -0.3; return a }()), triggers: true),
            RuleExample(name: "live primary cut where audio leads by 0.2 s, the ad's starts with its video", primary: primaryAudioLeading(live: true),
                        interstitial: Example.media(), triggers: false),
            RuleExample(name: "live primary, ad audio 0.2 s late", primary: primaryAudioLeading(live: true),
                        interstitial: Example.media(audio: { var a = Example.audio(); a.startTime = 0.2; return a }()), triggers: true),
        ]
    ) { context in
        // Alignment of audio against video means nothing to a receiver that renders no video, nor
        // where the interstitial was probed from a live window (it is not its start).
        guard context.rendersVideo, context.interstitial.liveWindow != true, let offset = avOffset(context.interstitial) else { return nil }
        // The primary's own offset, where it is a start: not a live window's cut.
        let primaryOffset = context.primary.liveWindow == true ? nil : avOffset(context.primary)
        let offCentre = abs(offset) > startTolerance
        let unlikePrimary = primaryOffset.map { abs(offset - $0) > startTolerance } ?? false
        let packagedLikePrimary = primaryOffset != nil && !unlikePrimary && abs(offset) <= packagingDelayLimit
        guard (offCentre && !packagedLikePrimary) || unlikePrimary else { return nil }
        var message = "the interstitial's audio starts \(relation(offset)) its video"
        // The primary is named where its own start is off too: then the difference is the point.
        if unlikePrimary, let primaryOffset, abs(primaryOffset) > startTolerance {
            message += "; the primary's audio starts \(relation(primaryOffset)) its video"
        }
        return Mismatch(
            expected: primaryOffset.map { "audio starts \(relation($0)) video (as in the primary)" }
                ?? "audio starts with video (within \(milliseconds(startTolerance)))",
            actual: "audio starts \(relation(offset)) video",
            message: message,
            remediation: Remediation(arguments: AudioTransitionRules.audioEncoderArguments(
                for: context.primary.primaryAudio ?? context.interstitial.primaryAudio!), audioFilters: ["aresample=async=1:first_pts=0"]))
    }

    /// A primary whose audio starts 0.2 s before its video, probed from a VOD start or a live window.
    private static func primaryAudioLeading(live: Bool) -> MediaDescription {
        var media = Example.media(audio: { var a = Example.audio(); a.startTime = -0.2; return a }())
        media.liveWindow = live
        return media
    }

    static let language = TransitionRule(
        RuleDescription(
            id: "rendition-language-mismatch", title: "Audio language differs from the primary",
            rationale: "When the interstitial's audio is tagged with another language than the primary's, the player's automatic rendition selection can pick nothing or the wrong track at the switch. Untagged audio is not compared.",
            source: "reference/interstitials.md: different languages of the audio/subtitle renditions (automatic selection fails)",
            defaultSeverity: .info, track: .audio, inputs: "audio language tags of primary and interstitial (probed)"),
        examples: [
            RuleExample(name: "English primary, French ad",
                        primary: Example.media(audio: { var a = Example.audio(); a.language = "eng"; return a }()),
                        interstitial: Example.media(audio: { var a = Example.audio(); a.language = "fra"; return a }()), triggers: true),
            RuleExample(name: "ad without a language tag",
                        primary: Example.media(audio: { var a = Example.audio(); a.language = "eng"; return a }()),
                        interstitial: Example.media(), triggers: false),
        ]
    ) { context in
        guard let p = context.primary.primaryAudio?.language, let i = context.interstitial.primaryAudio?.language,
              p != i else { return nil }
        return Mismatch(expected: p, actual: i, message: "audio language changes from \(p) to \(i)",
                        remediation: Remediation(arguments: ["-metadata:s:a:0", "language=\(p)"]))
    }

    /// Audio start minus video start, in seconds, when both tracks have a start time.
    static func avOffset(_ media: MediaDescription) -> Double? {
        guard let video = media.primaryVideo?.startTime, let audio = media.primaryAudio?.startTime else { return nil }
        return audio - video
    }

    static func milliseconds(_ seconds: Double) -> String {
        "\(Int((seconds * 1000).rounded())) ms"
    }

    /// Where audio starts against video, in words whose sign is the offset's: "200 ms after",
    /// "22 ms before", "with" (under half a millisecond apart).
    static func relation(_ offset: Double) -> String {
        let ms = Int((offset * 1000).rounded())
        if ms == 0 { return "with" }
        return ms > 0 ? "\(ms) ms after" : "\(-ms) ms before"
    }
}
