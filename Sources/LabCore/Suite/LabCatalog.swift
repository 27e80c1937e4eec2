import Foundation

/// What one side of a case is made of, as the encoder recipes read it. The reference primary is
/// `MediaSpec.reference`; every transition case's interstitial is the reference with one change.
struct MediaSpec: Sendable, Hashable {
    enum VideoCodec: String, Sendable, Hashable { case h264, hevc }
    enum Range: String, Sendable, Hashable { case sdr = "SDR", hdr10 = "HDR10", hlg = "HLG" }
    enum AudioCodec: String, Sendable, Hashable { case aac, ac3, eac3 }

    struct Video: Sendable, Hashable {
        var codec = VideoCodec.h264
        /// Exact frame rate as FFmpeg takes it.
        var rate = "30000/1001"
        /// Display aspect ratio as width:height in whole numbers; pixels are square.
        var aspectWidth = 16
        var aspectHeight = 9
        var range = Range.sdr
        /// The picture's height as a fraction of the scale's (2/3: 720p under a 1080p-like primary).
        var heightFraction = 1.0
    }

    /// How the segments are packaged: fMP4 (an EXT-X-MAP), or MPEG-TS.
    enum Container: String, Sendable, Hashable { case fmp4, mpegts }

    struct Audio: Sendable, Hashable {
        var codec = AudioCodec.aac
        var sampleRate = 48000
        /// FFmpeg channel layout name: "stereo", "5.1".
        var layout = "stereo"
        /// ISO 639-2 tag written into the track.
        var language = "eng"
        /// Seconds the audio starts after the video.
        var delay = 0.0
    }

    var video: Video? = Video()
    var audio: Audio? = Audio()
    var container = Container.fmp4
    /// Segments encrypted with AES-128 (RFC 8216 4.3.2.4; the init section stays clear) under
    /// `LabEncryption`'s published test key.
    var encrypted = false

    /// H.264 High, 29.97 fps, 16:9, SDR, AAC-LC 48 kHz stereo (English).
    static let reference = MediaSpec()

    /// The reference with one change.
    func with(_ change: (inout MediaSpec) -> Void) -> MediaSpec {
        var copy = self
        change(&copy)
        return copy
    }
}

/// One entry of the catalog: a case as data. The encoder recipes, playlists and manifest are
/// derived from it; nothing about a case is written anywhere else.
struct CaseDefinition: Sendable {
    var id: String
    var kind: LabCase.Kind
    var varies: String
    var title: String
    /// Rule ids the case exercises: what `seamcheck audit` raises on it for a class that decodes both sides.
    var rules: [String]
    /// The interstitial (transition cases); nil for capability cases.
    var interstitial: MediaSpec?
    /// For a stitched case, the interstitial case whose primary and ad it splices (no encode of its own).
    var stitchedFrom: String? = nil
    /// For a behaviour case: its feature and expectations (no encode of its own: the primary and the control's ad).
    var behaviour: BehaviourCatalog.Entry? = nil
    /// For a localization case: the audio and subtitle renditions its primary offers beside the
    /// shared primary's muxed English (`LabLocalizedCase`).
    var renditions: [LocalizedRendition] = []
}

/// An alternative rendition of a localization case's primary: audio (encoded, tagged with its
/// language, its own tone) or WebVTT subtitles (written, one file per primary segment).
struct LocalizedRendition: Sendable {
    enum Kind: String, Sendable { case audio, subtitles }
    var kind: Kind
    /// RFC 5646, as LANGUAGE says it ("fr").
    var language: String
    /// ISO 639-2, as the audio track's metadata says it ("fra").
    var iso639: String
    var name: String

    /// The folder under the case (`audio-fr`, `subs-en`).
    var folder: String { (kind == .audio ? "audio-" : "subs-") + language }
}

/// The lab's cases. Ids are stable: recorded verdicts refer to them.
///
/// HDR on Apple receivers is HEVC (or Dolby Vision) only, so the dynamic-range cases change the
/// codec too and list `video-codec-mismatch` as well; `video-codec-hevc` isolates the codec part.
/// `frame-rate-59.94` exercises `frame-rate-multiple` (x2 of the primary: "similar" for AirPlay 2 TVs).
enum LabCatalog {
    /// The interstitial cases, then a stitched variant (`<id>-stitched`) of every transition case
    /// that one media playlist can carry: not an MPEG-TS ad after fMP4 (an EXT-X-MAP holds for
    /// every later segment of the playlist, RFC 8216bis 4.4.4.5).
    /// Then the behaviour cases (`BehaviourCatalog`), which encode nothing.
    static let cases: [CaseDefinition] = scheduled
        + scheduled.filter { $0.kind == .transition && $0.interstitial?.container == MediaSpec.reference.container && $0.renditions.isEmpty }
            .map(stitched)
        + BehaviourCatalog.entries.map(behaviour)

    /// Cases whose ad is scheduled with EXT-X-DATERANGE, and the capability ladder.
    private static let scheduled: [CaseDefinition] = [
        transition("control", "none", "Matching ad: nothing should change but the picture and the tone", rules: []) { _ in },
        transition("video-codec-hevc", "video codec", "HEVC ad in an H.264 primary", rules: ["video-codec-mismatch"]) {
            $0.video?.codec = .hevc
        },
        transition("frame-rate-25", "frame rate", "25 fps ad in a 29.97 fps primary", rules: ["frame-rate-mismatch"]) {
            $0.video?.rate = "25"
        },
        transition("frame-rate-59.94", "frame rate", "59.94 fps ad (x2 of the primary's 29.97)", rules: ["frame-rate-multiple"]) {
            $0.video?.rate = "60000/1001"
        },
        transition("frame-rate-23.976", "frame rate", "23.976 fps ad in a 29.97 fps primary", rules: ["frame-rate-mismatch"]) {
            $0.video?.rate = "24000/1001"
        },
        transition("aspect-ratio-4x3", "aspect ratio", "4:3 ad in a 16:9 primary", rules: ["aspect-ratio-mismatch"]) {
            $0.video?.aspectWidth = 4
            $0.video?.aspectHeight = 3
        },
        transition("dynamic-range-hdr10", "dynamic range", "HDR10 (PQ, HEVC Main 10) ad in an SDR primary",
                   rules: ["dynamic-range-mismatch", "video-codec-mismatch"]) {
            $0.video?.codec = .hevc
            $0.video?.range = .hdr10
        },
        transition("dynamic-range-hlg", "dynamic range", "HLG (HEVC Main 10) ad in an SDR primary",
                   rules: ["dynamic-range-mismatch", "video-codec-mismatch"]) {
            $0.video?.codec = .hevc
            $0.video?.range = .hlg
        },
        transition("audio-codec-ac3", "audio codec", "Dolby Digital (AC-3) stereo ad in an AAC primary", rules: ["audio-codec-mismatch"]) {
            $0.audio?.codec = .ac3
        },
        transition("audio-codec-eac3", "audio codec", "Dolby Digital Plus (E-AC-3) stereo ad in an AAC primary", rules: ["audio-codec-mismatch"]) {
            $0.audio?.codec = .eac3
        },
        transition("sample-rate-44.1", "sample rate", "44.1 kHz ad in a 48 kHz primary", rules: ["sample-rate-mismatch"]) {
            $0.audio?.sampleRate = 44100
        },
        transition("channel-layout-5.1", "channel layout", "5.1 AAC ad in a stereo primary", rules: ["channel-layout-mismatch"]) {
            $0.audio?.layout = "5.1"
        },
        transition("track-set-audio-only", "track set", "Audio-only ad in an audio+video primary", rules: ["track-set-mismatch"]) {
            $0.video = nil
        },
        transition("track-set-video-only", "track set", "Silent video-only ad in an audio+video primary", rules: ["track-set-mismatch"]) {
            $0.audio = nil
        },
        transition("av-start-200ms", "audio/video start", "Ad whose audio starts 200 ms after its video", rules: ["av-start-misaligned"]) {
            $0.audio?.delay = 0.2
        },
        transition("language-fra", "language", "French-tagged ad audio in an English primary", rules: ["rendition-language-mismatch"]) {
            $0.audio?.language = "fra"
        },
        // Catalog v3: what else changes at the switch.
        transition("resolution-2-3", "resolution", "Ad at 2/3 of the primary's height, same 16:9 (a 1080p tier and a 720p ad)",
                   rules: ["resolution-change"]) {
            $0.video?.heightFraction = 2.0 / 3.0
        },
        transition("container-mpegts", "container", "MPEG-TS ad in an fMP4 primary", rules: ["container-change"]) {
            $0.container = .mpegts
        },
        transition("encryption-aes-128", "encryption", "AES-128 encrypted ad (test key) in a clear primary", rules: ["encryption-change"]) {
            $0.encrypted = true
        },
        CaseDefinition(id: "capability-ladder", kind: .capability, varies: "variant choice",
                       title: "Equal tiers H.264 SDR, HEVC SDR, HEVC HDR10, HEVC HLG with AAC stereo and E-AC-3 5.1: the variant fetched is what the receiver decodes",
                       rules: [], interstitial: nil),
        // Localization: after the ladder, so that no earlier stream id moves. No stitched variant
        // (one media playlist carries no alternative renditions).
        CaseDefinition(id: "localization-en-only", kind: .transition, varies: "rendition languages",
                       title: "Primary with audio en, fr and subtitles en, fr; an English-only ad with no subtitles: which audio and subtitles the receiver fetches before and after the ad",
                       rules: ["audio-language-missing", "subtitles-missing"], interstitial: .reference,
                       renditions: [LocalizedRendition(kind: .audio, language: "fr", iso639: "fra", name: "Français"),
                                    LocalizedRendition(kind: .subtitles, language: "en", iso639: "eng", name: "English"),
                                    LocalizedRendition(kind: .subtitles, language: "fr", iso639: "fra", name: "Français")]),
    ]

    static var ids: [String] { cases.map(\.id) }

    static func definition(_ id: String) -> CaseDefinition? { cases.first { $0.id == id } }

    /// `definition` spliced into the primary between two EXT-X-DISCONTINUITY tags: what receivers that
    /// ignore interstitials (and every server-side ad insertion) meet. `control-stitched` splices the
    /// matching ad, so what a receiver loses there is the discontinuity itself, not a change of media.
    private static func stitched(_ definition: CaseDefinition) -> CaseDefinition {
        var copy = definition
        copy.id = definition.id + "-stitched"
        copy.title = definition.title + ", stitched: spliced between two discontinuities, no interstitial"
        copy.stitchedFrom = definition.id
        return copy
    }

    /// A behaviour case: kind `.behaviour`, `varies` = its feature.
    private static func behaviour(_ entry: BehaviourCatalog.Entry) -> CaseDefinition {
        CaseDefinition(id: BehaviourCatalog.id(entry.feature), kind: .behaviour, varies: entry.feature, title: entry.title, rules: [],
                       interstitial: nil, behaviour: entry)
    }

    private static func transition(_ id: String, _ varies: String, _ title: String, rules: [String],
                                   _ change: (inout MediaSpec) -> Void) -> CaseDefinition {
        CaseDefinition(id: id, kind: .transition, varies: varies, title: title, rules: rules,
                       interstitial: MediaSpec.reference.with(change))
    }
}

/// The tiers of a capability ladder: equal resolution and declared bandwidth, different codec and range.
enum CapabilityLadder {
    struct VideoTier: Sendable {
        var name: String
        var label: String
        var video: MediaSpec.Video
    }

    struct AudioGroup: Sendable {
        var name: String
        var label: String
        var audio: MediaSpec.Audio
    }

    static let videoTiers: [VideoTier] = [
        VideoTier(name: "h264-sdr", label: "H.264 SDR", video: MediaSpec.Video()),
        VideoTier(name: "hevc-sdr", label: "HEVC SDR", video: { var v = MediaSpec.Video(); v.codec = .hevc; return v }()),
        VideoTier(name: "hevc-hdr10", label: "HEVC HDR10", video: { var v = MediaSpec.Video(); v.codec = .hevc; v.range = .hdr10; return v }()),
        VideoTier(name: "hevc-hlg", label: "HEVC HLG", video: { var v = MediaSpec.Video(); v.codec = .hevc; v.range = .hlg; return v }()),
    ]

    static let audioGroups: [AudioGroup] = [
        AudioGroup(name: "aac-stereo", label: "AAC stereo", audio: MediaSpec.Audio()),
        AudioGroup(name: "eac3-5.1", label: "E-AC-3 5.1", audio: { var a = MediaSpec.Audio(); a.codec = .eac3; a.layout = "5.1"; return a }()),
    ]
}
