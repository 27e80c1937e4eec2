import HLS

/// What a playlist says about the media of a variant and its audio rendition, before probing.
public struct DeclaredMedia: Sendable, Equatable, Codable {
    public var codecs: [CodecString]
    public var resolution: Resolution?
    public var frameRate: Double?
    /// VIDEO-RANGE: SDR, PQ or HLG.
    public var videoRange: String?
    /// The dynamic range the device class gets: PQ is HDR10, or Dolby Vision where the class
    /// decodes the Dolby Vision entry of CODECS or SUPPLEMENTAL-CODECS.
    public var dynamicRange: String?
    /// CHANNELS of the audio rendition ("2", "6", "16/JOC").
    public var channels: String?

    public var videoCodec: CodecString? { codecs.first { $0.kind == .video } }
    public var audioCodecs: [CodecString] { codecs.filter { $0.kind == .audio } }

    /// The leading channel count of CHANNELS ("16/JOC" is 16).
    public var channelCount: Int? { channels.flatMap { Int($0.split(separator: "/").first ?? "") } }
}

/// The variant and audio rendition a device class plays from a multivariant playlist.
public struct RenditionChoice: Sendable, Equatable, Codable {
    /// The media playlist URI of the variant (video, and audio when muxed), as written.
    public var variantURI: String
    /// The audio rendition's media playlist URI, when audio comes from an EXT-X-MEDIA group.
    public var audioURI: String?
    public var declared: DeclaredMedia
    /// The variant's line in the multivariant playlist, for findings.
    public var line: Int?
    public var bandwidth: Int?
}

public enum SelectionOutcome: Sendable, Equatable {
    case selected(RenditionChoice)
    /// Nothing in the playlist is playable by the class; the reason lists why, per variant.
    case noPlayableVariant(reason: String)
}

/// Picks what a receiver of a device class plays, as its player would: the variants it can
/// decode and display, the best dynamic range among them, then the highest bandwidth; within the
/// variant's audio group, a rendition with a codec and channel count it renders, DEFAULT first.
///
/// Audio-only classes ignore video and take the lowest-bandwidth variant with playable audio.
public enum VariantSelector {
    public static func select(from playlist: MultivariantPlaylist, for plays: Capabilities) -> SelectionOutcome {
        switch ranked(from: playlist, for: plays) {
        case .success(let choices): return .selected(choices[0])
        case .failure(let rejection): return .noPlayableVariant(reason: rejection.text)
        }
    }

    /// Every variant the class plays, in the order its player would try them: the selection
    /// first, then the next one it fails over to when that one cannot be loaded. Never empty on success.
    public static func ranked(from playlist: MultivariantPlaylist, for plays: Capabilities) -> Result<[RenditionChoice], Rejection> {
        var candidates: [(choice: RenditionChoice, rank: Int, order: Int)] = []
        var rejections: [String] = []
        for variant in playlist.variants {
            switch evaluate(variant, in: playlist, plays: plays) {
            case .success(let candidate): candidates.append((candidate.choice, candidate.rank, candidates.count))
            case .failure(let reason): rejections.append("line \(variant.line) (\(variant.uri)): \(reason.text)")
            }
        }
        guard !candidates.isEmpty else {
            return .failure(Rejection(text: playlist.variants.isEmpty ? "the playlist has no variants" : rejections.joined(separator: "; ")))
        }
        // Video: best dynamic range, then highest bandwidth; audio-only: lowest bandwidth. Ties keep the written order.
        let sorted = candidates.sorted { a, b in
            if plays.video {
                if (a.rank, a.choice.bandwidth ?? 0) != (b.rank, b.choice.bandwidth ?? 0) {
                    return (a.rank, a.choice.bandwidth ?? 0) > (b.rank, b.choice.bandwidth ?? 0)
                }
            } else if (a.choice.bandwidth ?? .max) != (b.choice.bandwidth ?? .max) {
                return (a.choice.bandwidth ?? .max) < (b.choice.bandwidth ?? .max)
            }
            return a.order < b.order
        }
        return .success(sorted.map(\.choice))
    }

    /// Every variant the class can play, in playlist order.
    public static func playable(from playlist: MultivariantPlaylist, for plays: Capabilities) -> [RenditionChoice] {
        playlist.variants.compactMap { try? evaluate($0, in: playlist, plays: plays).get().choice }
    }

    public struct Rejection: Error, Sendable { public var text: String }

    private static func evaluate(_ variant: Variant, in playlist: MultivariantPlaylist,
                                 plays: Capabilities) -> Result<(choice: RenditionChoice, rank: Int), Rejection> {
        let codecs = variant.codecs.map(CodecString.init)
        let supplemental = variant.supplementalCodecs.map(CodecString.init)
        var declared = DeclaredMedia(codecs: codecs, resolution: variant.resolution, frameRate: variant.frameRate,
                                     videoRange: variant.videoRange, dynamicRange: nil, channels: nil)
        var rank = 0
        if let video = declared.videoCodec, plays.video {
            let range = dynamicRange(video: video, supplemental: supplemental, videoRange: variant.videoRange, plays: plays)
            declared.dynamicRange = range
            guard let codec = video.codec, plays.videoCodecs.contains(codec) else {
                return .failure(Rejection(text: "video codec \(video.raw) is not decoded"))
            }
            guard plays.dynamicRanges.contains(range) else { return .failure(Rejection(text: "\(range) is not displayed")) }
            if let size = variant.resolution, let maxW = plays.maxWidth, let maxH = plays.maxHeight,
               size.width > maxW || size.height > maxH {
                return .failure(Rejection(text: "\(size.width)x\(size.height) exceeds \(maxW)x\(maxH)"))
            }
            if let rate = variant.frameRate, let maxRate = plays.maxFrameRate, rate > maxRate + 0.01 {
                return .failure(Rejection(text: "\(rate) fps exceeds \(maxRate) fps"))
            }
            rank = ["SDR": 0, "HLG": 1, "HDR10": 2, "DolbyVision": 3][range] ?? 0
        }
        var audioURI: String?
        let playableAudio = declared.audioCodecs.filter { $0.codec.map(plays.audioCodecs.contains) ?? false }
        if !declared.audioCodecs.isEmpty && playableAudio.isEmpty {
            return .failure(Rejection(text: "audio \(declared.audioCodecs.map(\.raw).joined(separator: ", ")) is not decoded"))
        }
        if let group = variant.audio {
            // Prefer a rendition the class renders without downmixing; otherwise take the group's
            // default anyway: too many channels is graded by unsupported-channel-count, not here.
            // "16/JOC" (Atmos) is object audio over a 5.1/7.1 bed, not 16 speakers.
            let members = playlist.renditions.filter { $0.type == .audio && $0.groupID == group }
            let fitting = members.filter { rendition in
                guard let channels = rendition.channels, !channels.contains("/"),
                      let count = Int(channels.split(separator: "/").first ?? "") else { return true }
                return count <= plays.maxChannels
            }
            let pool = fitting.isEmpty ? members : fitting
            if let pick = pool.first(where: { $0.isDefault }) ?? pool.first(where: { $0.autoselect }) ?? pool.first {
                audioURI = pick.uri
                declared.channels = pick.channels
            }
        }
        // Without CODECS nothing is declared either way: the probe of the variant says what it has.
        if !plays.video && !codecs.isEmpty && declared.audioCodecs.isEmpty && audioURI == nil {
            return .failure(Rejection(text: "no audio for an audio-only receiver"))
        }
        declared.codecs = codecs.filter { $0.kind != .audio } + (playableAudio.isEmpty ? declared.audioCodecs : playableAudio)
        let choice = RenditionChoice(variantURI: variant.uri, audioURI: audioURI, declared: declared, line: variant.line,
                                     bandwidth: variant.bandwidth)
        return .success((choice, rank))
    }

    /// SDR, HDR10, HLG or DolbyVision as this class would get it from the variant.
    static func dynamicRange(video: CodecString, supplemental: [CodecString], videoRange: String?, plays: Capabilities) -> String {
        let decodesDolbyVision = plays.dynamicRanges.contains("DolbyVision")
        if video.dolbyVisionProfile != nil { return "DolbyVision" }
        if decodesDolbyVision, supplemental.contains(where: { $0.dolbyVisionProfile != nil }) { return "DolbyVision" }
        switch videoRange {
        case "PQ": return "HDR10"
        case "HLG": return "HLG"
        default: return "SDR"
        }
    }
}
