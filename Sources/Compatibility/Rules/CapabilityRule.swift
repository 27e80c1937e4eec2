import MediaProbe

/// An asset (primary or interstitial) that works as a sample for a capability rule example.
public struct CapabilityExample: Sendable {
    public var name: String
    public var media: MediaDescription
    public var plays: Capabilities
    public var triggers: Bool
}

/// A rule comparing one asset with what a device class can play: the receiver may not play the
/// interstitial at all, whatever the primary is.
public struct CapabilityRule: Sendable {
    public var description: RuleDescription
    public var examples: [CapabilityExample]
    let check: @Sendable (MediaDescription, Capabilities) -> Mismatch?

    init(_ description: RuleDescription, examples: [CapabilityExample],
         check: @escaping @Sendable (MediaDescription, Capabilities) -> Mismatch?) {
        self.description = description
        self.examples = examples
        self.check = check
    }

    public var id: String { description.id }

    public func evaluate(_ media: MediaDescription, on plays: Capabilities) -> Mismatch? {
        check(media, plays)
    }
}

/// What a device class plays, for rule examples.
enum ExamplePlays {
    static let lowEnd = Capabilities(video: true, videoCodecs: ["h264"], maxWidth: 1920, maxHeight: 1080, maxFrameRate: 30,
                                     dynamicRanges: ["SDR"], audioCodecs: ["aac"], maxChannels: 2, sampleRates: [44100, 48000])
    static let appleTV4K = Capabilities(video: true, videoCodecs: ["h264", "hevc"], maxWidth: 3840, maxHeight: 2160,
                                        maxFrameRate: 60, dynamicRanges: ["SDR", "HDR10", "HLG", "DolbyVision"],
                                        audioCodecs: ["aac", "ac3", "eac3"], maxChannels: 8, sampleRates: [44100, 48000])
}
