import HLS
import MediaProbe

/// A variant's attributes next to what probing its rendition found.
public struct DeclaredExample: Sendable {
    public var name: String
    public var declared: DeclaredMedia
    public var media: MediaDescription
    public var triggers: Bool
}

/// A rule comparing what a multivariant playlist declares about a variant with the probed media:
/// players choose variants from these attributes, so a wrong one sends a receiver to a
/// rendition it cannot play, or hides one it could.
public struct DeclaredRule: Sendable {
    public var description: RuleDescription
    public var examples: [DeclaredExample]
    let check: @Sendable (DeclaredMedia, MediaDescription) -> Mismatch?

    public var id: String { description.id }

    public func evaluate(_ declared: DeclaredMedia, _ media: MediaDescription) -> Mismatch? {
        check(declared, media)
    }
}

enum DeclaredRules {
    static let all = [codecs, resolution, frameRate, videoRange, channels]
    static let source = "RFC 8216bis 4.4.6.2 (EXT-X-STREAM-INF) and 4.4.6.1 (EXT-X-MEDIA); Apple HLS authoring spec: declared attributes must match the media"
    static let inputs = "a variant's CODECS, RESOLUTION, FRAME-RATE, VIDEO-RANGE, CHANNELS and its probed rendition"

    static func declared(_ codecs: String, resolution: Resolution? = Resolution(width: 1920, height: 1080), rate: Double? = 29.97,
                         range: String? = "SDR", channels: String? = "2") -> DeclaredMedia {
        DeclaredMedia(codecs: CodecString.list(codecs), resolution: resolution, frameRate: rate, videoRange: range,
                      dynamicRange: nil, channels: channels)
    }

    static let codecs = DeclaredRule(
        description: RuleDescription(id: "declared-codecs-mismatch", title: "CODECS does not match the rendition",
            rationale: "Receivers pick variants by CODECS: an HEVC rendition declared as avc1 is chosen by an H.264-only TV that then cannot decode it. Compares codec, profile and, per RFC 6381, what the string promises beyond them: a level or HEVC tier below the stream's, the AAC object type, the Dolby Vision profile and level, E-AC-3 JOC (Atmos) on other audio.",
            source: source, defaultSeverity: .error, track: .both, inputs: inputs),
        examples: [
            DeclaredExample(name: "declared H.264, probed HEVC", declared: declared("avc1.640028,mp4a.40.2"),
                            media: Example.media(video: Example.video(codec: "hevc")), triggers: true),
            DeclaredExample(name: "declared and probed H.264 High + AAC-LC", declared: declared("avc1.640028,mp4a.40.2"),
                            media: Example.media(video: { var v = Example.video(); v.profile = "High"; return v }(),
                                                 audio: { var a = Example.audio(); a.profile = "LC"; return a }()), triggers: false),
            DeclaredExample(name: "declared Main, probed High", declared: declared("avc1.4d401f,mp4a.40.2"),
                            media: Example.media(video: { var v = Example.video(); v.profile = "High"; return v }()), triggers: true),
            DeclaredExample(name: "declared avc1.42e01e (Constrained Baseline), probed Constrained Baseline",
                            declared: declared("avc1.42e01e,mp4a.40.2"),
                            media: Example.media(video: { var v = Example.video(); v.profile = "Constrained Baseline"; return v }()), triggers: false),
            DeclaredExample(name: "declared avc1.64001f (level 3.1), probed High level 4.0", declared: declared("avc1.64001f,mp4a.40.2"),
                            media: Example.media(video: { var v = Example.video(); v.profile = "High"; v.level = 40; return v }()), triggers: true),
            DeclaredExample(name: "declared level 4.2, probed level 4.0 (a higher promise is safe)", declared: declared("avc1.64002a"),
                            media: Example.media(video: { var v = Example.video(); v.profile = "High"; v.level = 40; return v }()), triggers: false),
            DeclaredExample(name: "declared HEVC Main tier L120, probed High tier", declared: declared("hvc1.1.6.L120.90"),
                            media: Example.media(video: { var v = Example.video(codec: "hevc"); v.profile = "Main"; v.level = 120; v.tier = "High"; return v }()),
                            triggers: true),
            DeclaredExample(name: "declared mp4a.40.5 (HE-AAC), probed AAC-LC", declared: declared("avc1.640028,mp4a.40.5"),
                            media: Example.media(audio: { var a = Example.audio(); a.profile = "LC"; return a }()), triggers: true),
            DeclaredExample(name: "declared dvh1.08.06, probed Dolby Vision 8 level 9", declared: declared("dvh1.08.06"),
                            media: Example.media(video: { var v = Example.video(codec: "hevc", range: .dolbyVision)
                                v.dolbyVision = DolbyVisionConfiguration(profile: 8, level: 9, rpuPresent: true, enhancementLayerPresent: false,
                                                                         baseLayerPresent: true, baseLayerCompatibilityId: 1)
                                return v }()), triggers: true),
            DeclaredExample(name: "CHANNELS 16/JOC (Atmos) on AAC audio", declared: declared("avc1.640028,mp4a.40.2", channels: "16/JOC"),
                            media: Example.media(audio: { var a = Example.audio(); a.profile = "LC"; return a }()), triggers: true),
            DeclaredExample(name: "declared Baseline, probed Constrained Baseline (a subset every Baseline decoder plays)",
                            declared: declared("avc1.42001e,mp4a.40.2"),
                            media: Example.media(video: { var v = Example.video(); v.profile = "Constrained Baseline"; return v }()), triggers: false),
        ]
    ) { declared, media in
        var problems: [(String, String)] = []
        var reasons: [String] = []
        if let video = declared.videoCodec, let track = media.primaryVideo {
            if video.codec != track.codec { problems.append((video.raw, track.codec)) }
            else if let profile = video.profile, let probed = track.profile, profile != probed,
                    !(profile == "Baseline" && probed == "Constrained Baseline") {
                problems.append((video.raw, "\(track.codec) \(probed)"))
            } else {
                let found = CodecFidelity.video(video, track)
                problems += found.map { ($0.declared, $0.probed) }
                reasons += found.map(\.reason)
            }
        }
        if let track = media.primaryAudio, !declared.audioCodecs.isEmpty {
            if !declared.audioCodecs.contains(where: { $0.codec == track.codec }) {
                problems.append((declared.audioCodecs.map(\.raw).joined(separator: ","), track.codec))
            } else {
                let found = CodecFidelity.audio(declared.audioCodecs, track, channels: declared.channels)
                problems += found.map { ($0.declared, $0.probed) }
                reasons += found.map(\.reason)
            }
        }
        guard !problems.isEmpty else { return nil }
        let why = reasons.isEmpty ? "" : ": " + reasons.joined(separator: "; ")
        return Mismatch(expected: problems.map(\.0).joined(separator: ", "), actual: problems.map(\.1).joined(separator: ", "),
                        message: "CODECS declares \(problems.map(\.0).joined(separator: ", ")) but the rendition is \(problems.map(\.1).joined(separator: ", "))" + why
                            + ". Write the string from the stream (level, tier, object type as probed)",
                        remediation: nil)
    }

    static let resolution = DeclaredRule(
        description: RuleDescription(id: "declared-resolution-mismatch", title: "RESOLUTION does not match the rendition",
            rationale: "Receivers filter variants by RESOLUTION against their display: a wrong value makes them pick a rendition they cannot decode or skip one they can.",
            source: source, defaultSeverity: .warning, track: .video, inputs: inputs),
        examples: [
            DeclaredExample(name: "declared 1920x1080, probed 1280x720", declared: declared("avc1.640028"),
                            media: Example.media(video: Example.video(width: 1280, height: 720)), triggers: true),
            DeclaredExample(name: "both 1920x1080", declared: declared("avc1.640028"), media: Example.media(), triggers: false),
        ]
    ) { declared, media in
        guard let size = declared.resolution, let track = media.primaryVideo,
              size.width != track.width || size.height != track.height else { return nil }
        return Mismatch(expected: "\(size.width)x\(size.height)", actual: "\(track.width)x\(track.height)",
                        message: "RESOLUTION declares \(size.width)x\(size.height) but the rendition is \(track.width)x\(track.height)",
                        remediation: nil)
    }

    static let frameRate = DeclaredRule(
        description: RuleDescription(id: "declared-frame-rate-mismatch", title: "FRAME-RATE does not match the rendition",
            rationale: "FRAME-RATE is rounded to three decimals; beyond 0.01 fps the declared and probed rates describe different media, and a receiver limited to 30 fps may pick a 60 fps rendition.",
            source: source, defaultSeverity: .warning, track: .video, inputs: inputs),
        examples: [
            DeclaredExample(name: "declared 29.970, probed 25", declared: declared("avc1.640028"),
                            media: Example.media(video: Example.video(rate: Rational(25, 1))), triggers: true),
            DeclaredExample(name: "declared 29.970, probed 30000/1001", declared: declared("avc1.640028"), media: Example.media(), triggers: false),
        ]
    ) { declared, media in
        guard let rate = declared.frameRate, let probed = media.primaryVideo?.frameRate, abs(rate - probed) > 0.01 else { return nil }
        return Mismatch(expected: VideoTransitionRules.formatRate(rate), actual: VideoTransitionRules.formatRate(probed),
                        message: "FRAME-RATE declares \(VideoTransitionRules.formatRate(rate)) but the rendition runs at \(VideoTransitionRules.formatRate(probed)) fps",
                        remediation: nil)
    }

    static let videoRange = DeclaredRule(
        description: RuleDescription(id: "declared-video-range-mismatch", title: "VIDEO-RANGE does not match the rendition",
            rationale: "An SDR-only receiver takes a variant without VIDEO-RANGE (or SDR) as SDR: PQ or HLG media behind it plays with wrong colours, and HDR media declared SDR hides the HDR ladder from HDR TVs.",
            source: source, defaultSeverity: .error, track: .video, inputs: inputs),
        examples: [
            DeclaredExample(name: "declared SDR, probed HDR10", declared: declared("hvc1.2.4.L153.B0", range: "SDR"),
                            media: Example.media(video: Example.video(codec: "hevc", range: .hdr10)), triggers: true),
            DeclaredExample(name: "declared PQ, probed Dolby Vision", declared: declared("hvc1.2.4.L153.B0", range: "PQ"),
                            media: Example.media(video: Example.video(codec: "hevc", range: .dolbyVision)), triggers: false),
            DeclaredExample(name: "no VIDEO-RANGE (SDR), probed SDR", declared: declared("avc1.640028", range: nil),
                            media: Example.media(), triggers: false),
        ]
    ) { declared, media in
        guard let track = media.primaryVideo else { return nil }
        let range = declared.videoRange ?? "SDR"
        let probed: String
        switch track.dynamicRange {
        case .sdr: probed = "SDR"
        case .hdr10, .dolbyVision: probed = "PQ"
        case .hlg: probed = "HLG"
        }
        guard range != probed else { return nil }
        return Mismatch(expected: range, actual: "\(probed) (\(track.dynamicRange.rawValue))",
                        message: "VIDEO-RANGE declares \(range) but the rendition is \(track.dynamicRange.rawValue)", remediation: nil)
    }

    static let channels = DeclaredRule(
        description: RuleDescription(id: "declared-channels-mismatch", title: "CHANNELS does not match the audio rendition",
            rationale: "Stereo-only receivers choose audio renditions by CHANNELS: 5.1 audio declared as 2 reaches a receiver that cannot render it.",
            source: source, defaultSeverity: .warning, track: .audio, inputs: inputs),
        examples: [
            DeclaredExample(name: "declared 2, probed 5.1", declared: declared("mp4a.40.2", channels: "2"),
                            media: Example.media(audio: Example.audio(channels: 6, layout: "5.1")), triggers: true),
            DeclaredExample(name: "declared 16/JOC (Atmos) is not a channel count to compare", declared: declared("ec-3", channels: "16/JOC"),
                            media: Example.media(audio: Example.audio(codec: "eac3", channels: 6, layout: "5.1(side)")), triggers: false),
            DeclaredExample(name: "declared 2, probed stereo", declared: declared("mp4a.40.2", channels: "2"), media: Example.media(), triggers: false),
        ]
    ) { declared, media in
        guard let channels = declared.channels, !channels.contains("/"), let count = declared.channelCount,
              let track = media.primaryAudio, track.channels != count else { return nil }
        return Mismatch(expected: "\(count) channels", actual: "\(track.channels) channels (\(track.channelLayout ?? "unknown layout"))",
                        message: "CHANNELS declares \(count) but the rendition has \(track.channels)", remediation: nil)
    }
}
