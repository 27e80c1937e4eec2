import MediaProbe

/// How loudness is judged: the tolerance between primary and interstitial, and an optional
/// target every interstitial should meet (-23 LUFS EBU R128, -24 LKFS ATSC A/85).
public struct LoudnessPolicy: Sendable, Equatable {
    public var tolerance: Double
    public var target: Double?

    public init(tolerance: Double = 2, target: Double? = nil) {
        self.tolerance = tolerance
        self.target = target
    }
}

/// Where each level of a loudness comparison was measured (playlist audits), for the message.
public struct LoudnessScope: Sendable, Equatable {
    /// "around break \"ad1\" at 30.0 s (before: -23.0 LUFS over 10.0 s; after: ...)".
    public var primary: String
    /// "over the whole asset (10.0 s)".
    public var interstitial: String
    /// The level the fix normalises to: one per asset, whichever class the fix is for.
    public var fixLevel: Double?

    public init(primary: String, interstitial: String, fixLevel: Double? = nil) {
        self.primary = primary
        self.interstitial = interstitial
        self.fixLevel = fixLevel
    }
}

/// `loudness-mismatch`: the ad is louder or quieter than the programme around it.
enum LoudnessRule {
    static func audio(lufs: Double) -> AudioTrack {
        var track = Example.audio()
        track.integratedLoudness = lufs
        return track
    }

    static let rule = TransitionRule(
        RuleDescription(
            id: "loudness-mismatch", title: "Integrated loudness differs from the primary",
            rationale: "An ad louder than the programme is the complaint viewers make (the US CALM Act, EBU R128): fires when the interstitial's integrated loudness (ITU-R BS.1770) is more than 2 LU from the primary's (2 LU apart is audible), or from the target when one is set. Measured only where both sides were measured.",
            source: "Apple HLS Authoring Specification 2.18 (loudness SHOULD be controlled unless all content, ads included, is at equal levels); ITU-R BS.1770-4; EBU R128 (-23 LUFS); ATSC A/85 (-24 LKFS, the CALM Act); AWS MediaTailor normalises ads to -24 LKFS",
            defaultSeverity: .warning, track: .audio, inputs: "primary and interstitial audio, decoded and measured with libavfilter's ebur128"),
        examples: [
            RuleExample(name: "-23 LUFS programme, -11 LUFS ad (12 LU louder)", primary: Example.media(audio: audio(lufs: -23)),
                        interstitial: Example.media(audio: audio(lufs: -11)), triggers: true),
            RuleExample(name: "-23 and -24.5 (within 2 LU)", primary: Example.media(audio: audio(lufs: -23)),
                        interstitial: Example.media(audio: audio(lufs: -24.5)), triggers: false),
            RuleExample(name: "not measured", primary: Example.media(), interstitial: Example.media(audio: audio(lufs: -11)), triggers: false),
        ]
    ) { context in
        evaluate(context, policy: LoudnessPolicy())
    }

    static func evaluate(_ context: TransitionContext, policy: LoudnessPolicy) -> Mismatch? {
        guard let primary = context.primary.primaryAudio, let ad = context.interstitial.primaryAudio,
              let p = primary.integratedLoudness, let i = ad.integratedLoudness else { return nil }
        let reference = policy.target ?? p
        let what = policy.target == nil ? "the primary's \(lufs(p))" : "the \(lufs(reference)) target"
        guard abs(i - reference) > policy.tolerance || abs(i - p) > policy.tolerance else { return nil }
        let offByPrimary = i - p
        let direction = offByPrimary > 0 ? "louder" : "quieter"
        let target = min(max(policy.target ?? context.loudnessScope?.fixLevel ?? p, -70), -5)
        let levels = context.loudnessScope.map { "\(lufs(i)) \($0.interstitial) against \(lufs(p)) \($0.primary)" } ?? "\(lufs(i)) against \(lufs(p))"
        return Mismatch(
            expected: "\(lufs(reference)) (±\(format(policy.tolerance)) LU)", actual: lufs(i),
            message: "the interstitial is \(format(abs(offByPrimary))) LU \(direction) than the primary (\(levels)); normalise it to \(what)",
            remediation: Remediation(
                arguments: AudioTransitionRules.audioEncoderArguments(for: primary),
                // loudnorm works at 192 kHz and drops the layout: both are set back.
                audioFilters: ["loudnorm=I=\(format(target)):TP=-1.5:LRA=11", "aresample=\(primary.sampleRate)",
                               "aformat=channel_layouts=\(primary.channelLayout ?? "\(primary.channels)c")"]))
    }

    static func format(_ value: Double) -> String { String(format: "%.1f", value) }
    static func lufs(_ value: Double) -> String { "\(format(value)) LUFS" }
}
