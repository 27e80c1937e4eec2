import MediaProbe

/// A track that exists on one side of the switch and not on the other.
enum TrackSetRule {
    static let rule = TransitionRule(
        RuleDescription(
            id: "track-set-mismatch", title: "Audio or video track appears or disappears at the switch",
            rationale: "An interstitial without audio (or without video) next to a primary that has it changes the set of decoders the receiver runs; receivers stall or lose audio sync. Audio-only receivers only look at audio.",
            source: "reference/interstitials.md: a change in the track set stalls real devices",
            defaultSeverity: .error, track: .both, inputs: "primary and interstitial track lists (probed)"),
        examples: [
            RuleExample(name: "ad without audio", primary: Example.media(), interstitial: Example.media(audio: nil), triggers: true),
            RuleExample(name: "audio-only ad in a video primary", primary: Example.media(),
                        interstitial: Example.media(video: nil), triggers: true),
            RuleExample(name: "same tracks", primary: Example.media(), interstitial: Example.media(), triggers: false),
        ]
    ) { context in
        var expected: [String] = [], actual: [String] = []
        if context.rendersVideo {
            if !context.primary.video.isEmpty { expected.append("video") }
            if !context.interstitial.video.isEmpty { actual.append("video") }
        }
        if !context.primary.audio.isEmpty { expected.append("audio") }
        if !context.interstitial.audio.isEmpty { actual.append("audio") }
        guard expected != actual else { return nil }
        let missing = expected.filter { !actual.contains($0) }
        let extra = actual.filter { !expected.contains($0) }
        var parts: [String] = []
        if !missing.isEmpty { parts.append("has no \(missing.joined(separator: " or ")) track") }
        if !extra.isEmpty { parts.append("adds a \(extra.joined(separator: " and ")) track the primary lacks") }
        return Mismatch(
            expected: expected.joined(separator: "+"), actual: actual.isEmpty ? "none" : actual.joined(separator: "+"),
            message: "the interstitial \(parts.joined(separator: " and ")): the receiver changes its set of decoders",
            remediation: nil)
    }
}
