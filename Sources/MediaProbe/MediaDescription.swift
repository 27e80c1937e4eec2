import Foundation

/// What a probe learned about one input: its container and every audio, video and subtitle track.
///
/// Field names match the probe JSON of docs/interface.md; optional fields encode as `null` so that a
/// missing value is visible rather than silently absent.
public struct MediaDescription: Codable, Sendable, Equatable {
    public var input: String
    public var container: String
    /// Seconds, when the container states it.
    public var duration: Double?
    public var video: [VideoTrack]
    public var audio: [AudioTrack]
    public var subtitles: [SubtitleTrack]
    /// For an HLS rendition: true when it was probed from the first segment of a live window (no
    /// EXT-X-ENDLIST, not an EVENT playlist), so its start times are those of a cut in mid-stream,
    /// not of the stream's start; false for VOD and EVENT playlists; null for other inputs.
    public var liveWindow: Bool?
    /// For an fMP4 HLS rendition whose samples are encrypted (EXT-X-KEY METHOD=SAMPLE-AES or
    /// SAMPLE-AES-CTR, FairPlay included): the method. Only what the container says in the clear
    /// was read; fields that need decoded samples (pixel format, bit depth, field order other
    /// than progressive) are null. Null for clear and AES-128 media.
    public var encryption: String?
    /// For an HLS rendition: its media playlist's packaging (version, target duration, keys);
    /// null for other inputs.
    public var playlist: RenditionPlaylist?

    public init(input: String, container: String, duration: Double?, video: [VideoTrack] = [],
                audio: [AudioTrack] = [], subtitles: [SubtitleTrack] = []) {
        self.input = input
        self.container = container
        self.duration = duration
        self.video = video
        self.audio = audio
        self.subtitles = subtitles
    }

    /// The track a player picks by default: the first one of its kind.
    public var primaryVideo: VideoTrack? { video.first }
    public var primaryAudio: AudioTrack? { audio.first }
}

public enum DynamicRange: String, Codable, Sendable, CaseIterable {
    case sdr = "SDR"
    case hdr10 = "HDR10"
    case hlg = "HLG"
    case dolbyVision = "DolbyVision"
}

/// The Dolby Vision configuration record (dvcC/dvvC) of a stream.
public struct DolbyVisionConfiguration: Codable, Sendable, Equatable {
    public var profile: Int
    public var level: Int
    public var rpuPresent: Bool
    public var enhancementLayerPresent: Bool
    public var baseLayerPresent: Bool
    /// 0 none, 1 HDR10, 2 SDR, 4 HLG: what a non-Dolby-Vision decoder sees.
    public var baseLayerCompatibilityId: Int

    public init(profile: Int, level: Int, rpuPresent: Bool, enhancementLayerPresent: Bool,
                baseLayerPresent: Bool, baseLayerCompatibilityId: Int) {
        self.profile = profile
        self.level = level
        self.rpuPresent = rpuPresent
        self.enhancementLayerPresent = enhancementLayerPresent
        self.baseLayerPresent = baseLayerPresent
        self.baseLayerCompatibilityId = baseLayerCompatibilityId
    }
}

public struct VideoTrack: Codable, Sendable, Equatable {
    public var index: Int
    /// FFmpeg's codec name: "h264", "hevc", "av1"...
    public var codec: String
    /// The sample entry fourcc (avc1, hvc1, hev1, dvh1...); null where the container has none (MPEG-TS).
    public var codecTag: String?
    public var profile: String?
    /// FFmpeg's level number (H.264: 40 = 4.0; HEVC: 120 = 4.0, i.e. level x 30).
    public var level: Int?
    public var width: Int
    public var height: Int
    public var frameRate: Double?
    public var frameRateExact: Rational?
    public var sampleAspectRatio: Ratio
    public var displayAspectRatio: Ratio
    public var bitDepth: Int?
    public var pixelFormat: String?
    public var dynamicRange: DynamicRange
    public var dolbyVision: DolbyVisionConfiguration?
    /// Seconds on the container's timeline.
    public var startTime: Double?
    /// Scan type as ffprobe's `field_order`: "progressive", "tt", "bb", "tb", "bt"; null when the
    /// stream does not say.
    public var fieldOrder: String?
    /// HEVC tier from the hvcC record: "Main" or "High"; null for other codecs or without one.
    public var tier: String?

    public init(index: Int = 0, codec: String, codecTag: String? = nil, profile: String? = nil, level: Int? = nil,
                width: Int, height: Int, frameRate: Rational?, sampleAspectRatio: Ratio = Ratio(1, 1),
                bitDepth: Int? = 8, pixelFormat: String? = "yuv420p", dynamicRange: DynamicRange = .sdr,
                dolbyVision: DolbyVisionConfiguration? = nil, startTime: Double? = 0, fieldOrder: String? = nil,
                tier: String? = nil) {
        self.index = index
        self.codec = codec
        self.codecTag = codecTag
        self.profile = profile
        self.level = level
        self.width = width
        self.height = height
        self.frameRate = frameRate?.doubleValue
        self.frameRateExact = frameRate
        self.sampleAspectRatio = sampleAspectRatio
        self.displayAspectRatio = Ratio.displayAspect(width: width, height: height, sar: sampleAspectRatio)
        self.bitDepth = bitDepth
        self.pixelFormat = pixelFormat
        self.dynamicRange = dynamicRange
        self.dolbyVision = dolbyVision
        self.startTime = startTime
        self.fieldOrder = fieldOrder
        self.tier = tier
    }

    /// True when the stream is coded as interlaced fields (any field order but progressive).
    public var isInterlaced: Bool {
        guard let fieldOrder else { return false }
        return fieldOrder != "progressive"
    }
}

public struct AudioTrack: Codable, Sendable, Equatable {
    public var index: Int
    public var codec: String
    public var codecTag: String?
    public var profile: String?
    public var sampleRate: Int
    /// Sample resolution of lossless and PCM codecs; null for lossy codecs, which have none.
    public var bitDepth: Int?
    public var channels: Int
    /// FFmpeg's layout name: "mono", "stereo", "5.1", "5.1(side)", "7.1"...
    public var channelLayout: String?
    public var language: String?
    public var startTime: Double?
    /// Integrated loudness in LUFS (ITU-R BS.1770 / EBU R128), when it was measured (audit does
    /// for file inputs unless told not to; a probe never does: it reads too little audio).
    public var integratedLoudness: Double?

    public init(index: Int = 1, codec: String, codecTag: String? = nil, profile: String? = nil, sampleRate: Int,
                bitDepth: Int? = nil, channels: Int, channelLayout: String? = nil, language: String? = nil,
                startTime: Double? = 0, integratedLoudness: Double? = nil) {
        self.index = index
        self.codec = codec
        self.codecTag = codecTag
        self.profile = profile
        self.sampleRate = sampleRate
        self.bitDepth = bitDepth
        self.channels = channels
        self.channelLayout = channelLayout
        self.language = language
        self.startTime = startTime
        self.integratedLoudness = integratedLoudness
    }
}

public struct SubtitleTrack: Codable, Sendable, Equatable {
    public var index: Int
    public var codec: String
    public var language: String?
    public var startTime: Double?

    public init(index: Int, codec: String, language: String?, startTime: Double?) {
        self.index = index
        self.codec = codec
        self.language = language
        self.startTime = startTime
    }
}

// Optional fields are written as explicit nulls: a consumer can tell "not present" from "not probed".
extension VideoTrack {
    enum CodingKeys: String, CodingKey {
        case index, codec, codecTag, profile, level, width, height, frameRate, frameRateExact,
             sampleAspectRatio, displayAspectRatio, bitDepth, pixelFormat, dynamicRange, dolbyVision, startTime, fieldOrder, tier
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(index, forKey: .index)
        try c.encode(codec, forKey: .codec)
        try c.encode(codecTag, forKey: .codecTag)
        try c.encode(profile, forKey: .profile)
        try c.encode(level, forKey: .level)
        try c.encode(width, forKey: .width)
        try c.encode(height, forKey: .height)
        try c.encode(frameRate, forKey: .frameRate)
        try c.encode(frameRateExact, forKey: .frameRateExact)
        try c.encode(sampleAspectRatio, forKey: .sampleAspectRatio)
        try c.encode(displayAspectRatio, forKey: .displayAspectRatio)
        try c.encode(bitDepth, forKey: .bitDepth)
        try c.encode(pixelFormat, forKey: .pixelFormat)
        try c.encode(dynamicRange, forKey: .dynamicRange)
        try c.encode(dolbyVision, forKey: .dolbyVision)
        try c.encode(startTime, forKey: .startTime)
        try c.encode(fieldOrder, forKey: .fieldOrder)
        try c.encode(tier, forKey: .tier)
    }
}

extension AudioTrack {
    enum CodingKeys: String, CodingKey {
        case index, codec, codecTag, profile, sampleRate, bitDepth, channels, channelLayout, language, startTime, integratedLoudness
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(index, forKey: .index)
        try c.encode(codec, forKey: .codec)
        try c.encode(codecTag, forKey: .codecTag)
        try c.encode(profile, forKey: .profile)
        try c.encode(sampleRate, forKey: .sampleRate)
        try c.encode(bitDepth, forKey: .bitDepth)
        try c.encode(channels, forKey: .channels)
        try c.encode(channelLayout, forKey: .channelLayout)
        try c.encode(language, forKey: .language)
        try c.encode(startTime, forKey: .startTime)
        try c.encode(integratedLoudness, forKey: .integratedLoudness)
    }
}

extension SubtitleTrack {
    enum CodingKeys: String, CodingKey { case index, codec, language, startTime }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(index, forKey: .index)
        try c.encode(codec, forKey: .codec)
        try c.encode(language, forKey: .language)
        try c.encode(startTime, forKey: .startTime)
    }
}

extension MediaDescription {
    enum CodingKeys: String, CodingKey { case input, container, duration, video, audio, subtitles, liveWindow, encryption, playlist }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(input, forKey: .input)
        try c.encode(container, forKey: .container)
        try c.encode(duration, forKey: .duration)
        try c.encode(video, forKey: .video)
        try c.encode(audio, forKey: .audio)
        try c.encode(subtitles, forKey: .subtitles)
        try c.encode(liveWindow, forKey: .liveWindow)
        try c.encode(encryption, forKey: .encryption)
        try c.encode(playlist, forKey: .playlist)
    }
}
