import MediaProbe

/// Which track a rule looks at; video rules do not apply to audio-only device classes.
public enum TrackKind: String, Codable, Sendable {
    case video, audio, both
}

/// What a rule is: shown by `seamcheck rules list|show` and in reports.
public struct RuleDescription: Sendable, Equatable, Codable {
    public var id: String
    public var title: String
    /// Why the rule exists, in a sentence or two.
    public var rationale: String
    /// Where the rationale comes from (seed, spec section, Apple guidance).
    public var source: String
    public var defaultSeverity: Severity
    public var track: TrackKind
    /// What the rule needs to run.
    public var inputs: String
}

/// What a transition rule saw when primary and interstitial differ.
public struct Mismatch: Sendable, Equatable {
    public var expected: String
    public var actual: String
    public var message: String
    /// Encoder settings that make the interstitial match the primary.
    public var remediation: Remediation?
}

/// The two sides of a switch, and what the receiver renders.
public struct TransitionContext: Sendable {
    public var primary: MediaDescription
    public var interstitial: MediaDescription
    /// False on audio-only receivers: a missing video track is not a switch there.
    public var rendersVideo: Bool
    /// Playlist audits: where the loudness levels were measured (a break's sides, the whole asset).
    public var loudnessScope: LoudnessScope?

    public init(primary: MediaDescription, interstitial: MediaDescription, rendersVideo: Bool = true, loudnessScope: LoudnessScope? = nil) {
        self.primary = primary
        self.interstitial = interstitial
        self.rendersVideo = rendersVideo
        self.loudnessScope = loudnessScope
    }
}

/// A primary/interstitial pair that shows a rule firing (or not): documentation and test at once.
public struct RuleExample: Sendable {
    public var name: String
    public var primary: MediaDescription
    public var interstitial: MediaDescription
    public var triggers: Bool
}

/// A rule comparing the primary with one interstitial, as the receiver sees the switch.
public struct TransitionRule: Sendable {
    public var description: RuleDescription
    public var examples: [RuleExample]
    /// nil when the pair matches, or when the tracks the rule compares are not both present.
    let check: @Sendable (TransitionContext) -> Mismatch?

    public init(_ description: RuleDescription, examples: [RuleExample],
                check: @escaping @Sendable (TransitionContext) -> Mismatch?) {
        self.description = description
        self.examples = examples
        self.check = check
    }

    public var id: String { description.id }

    public func evaluate(_ context: TransitionContext) -> Mismatch? {
        check(context)
    }

    /// A rule over the first video track of each side.
    static func video(_ description: RuleDescription, examples: [RuleExample],
                      _ compare: @escaping @Sendable (VideoTrack, VideoTrack) -> Mismatch?) -> TransitionRule {
        TransitionRule(description, examples: examples) { context in
            guard let p = context.primary.primaryVideo, let i = context.interstitial.primaryVideo else { return nil }
            return compare(p, i)
        }
    }

    /// A rule over the first audio track of each side.
    static func audio(_ description: RuleDescription, examples: [RuleExample],
                      _ compare: @escaping @Sendable (AudioTrack, AudioTrack) -> Mismatch?) -> TransitionRule {
        TransitionRule(description, examples: examples) { context in
            guard let p = context.primary.primaryAudio, let i = context.interstitial.primaryAudio else { return nil }
            return compare(p, i)
        }
    }
}

/// All rules that run on probed media, in the order reports list them.
public enum RuleCatalog {
    public static let transitionRules: [TransitionRule] = VideoTransitionRules.all + AudioTransitionRules.all
        + [TrackSetRule.rule, TimingRules.avStart, TimingRules.language, LoudnessRule.rule] + SwitchRules.all

    public static let capabilityRules: [CapabilityRule] = CapabilityRules.all

    public static let declaredRules: [DeclaredRule] = DeclaredRules.all

    public static func rule(_ id: String) -> TransitionRule? {
        transitionRules.first { $0.id == id }
    }

    public static func capabilityRule(_ id: String) -> CapabilityRule? {
        capabilityRules.first { $0.id == id }
    }

    public static func declaredRule(_ id: String) -> DeclaredRule? {
        declaredRules.first { $0.id == id }
    }

    /// Every rule a device profile can grade: transition, capability (with no-playable-variant),
    /// then declared-versus-measured.
    public static var descriptions: [RuleDescription] {
        transitionRules.map(\.description) + [LadderRule.description, BoundaryRule.description] + capabilityRules.map(\.description)
            + PlaylistRules.all + LocalizationRules.all.map(\.description)
            + declaredRules.map(\.description)
    }

    /// Every rule: the media rules, then the interstitial spec rules.
    public static var allDescriptions: [RuleDescription] {
        descriptions + SpecCatalog.rules.map(\.description)
    }
}

/// Builders for example media, so that rule examples read as one line each.
enum Example {
    static func media(video: VideoTrack? = Example.video(), audio: AudioTrack? = Example.audio(),
                      name: String = "example.mp4", container: String = "mov,mp4,m4a,3gp,3g2,mj2") -> MediaDescription {
        MediaDescription(input: name, container: container, duration: 30,
                         video: video.map { [$0] } ?? [], audio: audio.map { [$0] } ?? [])
    }

    static func video(codec: String = "h264", width: Int = 1920, height: Int = 1080, rate: Rational = Rational(30000, 1001),
                      sar: Ratio = Ratio(1, 1), range: DynamicRange = .sdr) -> VideoTrack {
        VideoTrack(index: 0, codec: codec, width: width, height: height, frameRate: rate, sampleAspectRatio: sar,
                   bitDepth: range == .sdr ? 8 : 10, pixelFormat: range == .sdr ? "yuv420p" : "yuv420p10le",
                   dynamicRange: range)
    }

    static func audio(codec: String = "aac", rate: Int = 48000, channels: Int = 2, layout: String? = "stereo",
                      bitDepth: Int? = nil) -> AudioTrack {
        AudioTrack(index: 1, codec: codec, sampleRate: rate, bitDepth: bitDepth, channels: channels, channelLayout: layout)
    }
}
