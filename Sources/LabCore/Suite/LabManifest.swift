import Foundation

/// The lab's test-stream suite as `lab.json` describes it (docs/interface.md, "lab streams manifest").
///
/// Folder layout of a suite (paths are relative to the suite folder, which is also the server root):
/// ```
/// lab.json
/// primary/                    the reference primary, encoded once and shared by every case
/// cases/<id>/master.m3u8      the case's multivariant playlist: what a sender AirPlays
/// cases/<id>/...              its primary media playlist(s), with the case's EXT-X-DATERANGE
/// cases/<id>/primary          symlink to ../../primary, so that every request names its case
/// cases/<id>/ad/...           the interstitial asset (playlists, init sections, segments)
/// ```
/// Interstitial asset URIs must be absolute (`interstitial-asset-uri-relative`), and the suite does
/// not know the address it will be served from: playlists and asset lists carry
/// `originPlaceholder`, which `lab serve` replaces with the origin each client used.
public struct LabManifest: Codable, Sendable, Equatable {
    public static let fileName = "lab.json"
    /// A manifest lists a suite's streams: far below this, however many.
    public static let maxBytes = 16 << 20
    public static let currentSchemaVersion = 1
    public static let defaultOriginPlaceholder = "{LAB_ORIGIN}"

    public var schemaVersion: Int
    /// What made the suite ("seamcheck 0.1.0, ffmpeg 5.1.6"), for the lab's records.
    public var generator: String
    /// The text that `lab serve` replaces with `http://HOST:PORT` in `.m3u8` and `.json` files.
    public var originPlaceholder: String
    /// "full" (1280x720, 60 s primary) or "small" (320x180, 12 s: for tests); nil in suites made before it was recorded.
    public var scale: String?
    /// The shared primary's segments, in order: how a segment request maps to a time on the
    /// primary timeline (a session's resume point).
    public var primaryTimeline: [LabSegment]
    public var cases: [LabCase]
    /// The code drawn into every frame (`LabFrameCode`); nil in suites made before frame codes.
    public var frameCode: LabFrameCode?
    /// Every stream of the catalog with its code id, generated or not (ids never depend on which
    /// cases a run made); nil in suites made before frame codes.
    public var streams: [LabCodedStream]?

    public init(schemaVersion: Int = LabManifest.currentSchemaVersion, generator: String,
                originPlaceholder: String = LabManifest.defaultOriginPlaceholder,
                primaryTimeline: [LabSegment], cases: [LabCase]) {
        self.schemaVersion = schemaVersion
        self.generator = generator
        self.originPlaceholder = originPlaceholder
        self.primaryTimeline = primaryTimeline
        self.cases = cases
    }

    public func `case`(_ id: String) -> LabCase? { cases.first { $0.id == id } }

    /// The coded stream with this id.
    public func stream(_ id: Int) -> LabCodedStream? { streams?.first { $0.id == id } }
}

/// One segment of the shared primary: its file name under `primary/` and where it sits.
public struct LabSegment: Codable, Sendable, Equatable {
    public var file: String
    /// Seconds from the start of the primary.
    public var start: Double
    public var duration: Double

    public init(file: String, start: Double, duration: Double) {
        self.file = file
        self.start = start
        self.duration = duration
    }
}

/// One test case: a primary and an interstitial that differ in exactly one parameter
/// (`transition`), or a ladder whose chosen variant shows what a receiver decodes (`capability`).
public struct LabCase: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable, CaseIterable {
        case transition, capability
        /// One interstitial feature (X-RESUME-OFFSET, CUE, X-RESTRICT...) on matching media: `behaviour` says what a conforming receiver does.
        case behaviour
    }

    /// How the interstitial reaches the player: scheduled with EXT-X-DATERANGE (`interstitial`), or
    /// spliced into the primary's media playlist between two EXT-X-DISCONTINUITY tags (`stitched`,
    /// as server-side ad insertion does), which players that ignore interstitials still meet.
    public enum Delivery: String, Codable, Sendable, CaseIterable {
        case interstitial, stitched
    }

    public var id: String
    public var kind: Kind
    /// The parameter the interstitial changes ("video codec", "frame rate"...), or "none" for the control.
    public var varies: String
    /// One line for the lab page: what to look and listen for.
    public var title: String
    /// Rule ids the case exercises (empty for the control and capability cases).
    public var rules: [String]
    /// The case's multivariant playlist, relative to the suite folder (and so the URL path under the server root).
    public var playlist: String
    /// Path prefix (relative, ending in "/") of everything the interstitial asset consists of.
    public var interstitialPrefix: String?
    /// Where the interstitial is scheduled on the primary timeline, in seconds (nil: no interstitial).
    public var interstitialStart: Double?
    /// The interstitial's duration in seconds.
    public var interstitialDuration: Double?
    /// X-RESUME-OFFSET of the interstitial: where on the primary timeline, after `interstitialStart`,
    /// playback should come back (0 for an ad inserted between two seconds of content).
    public var resumeOffset: Double?
    /// nil in suites made before stitched cases existed: read as `.interstitial`.
    public var delivery: Delivery?
    /// For a stitched case, the id of the interstitial case it splices (`frame-rate` for
    /// `frame-rate-stitched`). In a stitched case `interstitialStart` is where the ad starts on the
    /// playback timeline (the stitched playlist's own), and the primary resumes after
    /// `interstitialDuration` seconds of it.
    public var stitchedFrom: String?
    public var primary: LabMedia
    public var interstitial: LabMedia?
    /// Every media playlist of the case, with what it carries: which one a receiver fetched is
    /// what it chose (its capability, in capability cases).
    public var variants: [LabVariant]
    /// For a behaviour case: its feature, interstitials, scripted commands and expectations.
    public var behaviour: LabBehaviour?
    /// For a localization case: the primary's audio and subtitle renditions (absent elsewhere).
    public var renditions: [LabRendition]?

    public init(id: String, kind: Kind, varies: String, title: String, rules: [String], playlist: String,
                interstitialPrefix: String? = nil, interstitialStart: Double? = nil, interstitialDuration: Double? = nil,
                resumeOffset: Double? = nil, delivery: Delivery? = nil, stitchedFrom: String? = nil,
                primary: LabMedia, interstitial: LabMedia? = nil, variants: [LabVariant], behaviour: LabBehaviour? = nil) {
        self.behaviour = behaviour
        self.id = id
        self.kind = kind
        self.varies = varies
        self.title = title
        self.rules = rules
        self.playlist = playlist
        self.interstitialPrefix = interstitialPrefix
        self.interstitialStart = interstitialStart
        self.interstitialDuration = interstitialDuration
        self.resumeOffset = resumeOffset
        self.delivery = delivery
        self.stitchedFrom = stitchedFrom
        self.primary = primary
        self.interstitial = interstitial
        self.variants = variants
    }

    /// The folder of the case (`cases/<id>/`).
    public var folder: String { "cases/\(id)/" }
}

/// What a side of a case carries: enough for a person to read, and for rules to be named.
public struct LabMedia: Codable, Sendable, Equatable {
    public var videoCodec: String?
    public var videoProfile: String?
    public var width: Int?
    public var height: Int?
    /// Exact frame rate, "30000/1001".
    public var frameRate: String?
    public var displayAspectRatio: String?
    /// "SDR", "HDR10", "HLG".
    public var dynamicRange: String?
    public var scanType: String?
    public var audioCodec: String?
    public var sampleRate: Int?
    public var channels: Int?
    public var channelLayout: String?
    public var language: String?
    /// Seconds the audio starts after the video (0 when aligned).
    public var audioDelay: Double?
    /// How the segments are packaged: "fMP4" or "MPEG-TS" (absent in suites made before).
    public var container: String?
    /// "AES-128" when the segments are encrypted; absent when clear.
    public var encryption: String?
    public var duration: Double

    public init(videoCodec: String? = nil, videoProfile: String? = nil, width: Int? = nil, height: Int? = nil,
                frameRate: String? = nil, displayAspectRatio: String? = nil, dynamicRange: String? = nil,
                scanType: String? = nil, audioCodec: String? = nil, sampleRate: Int? = nil, channels: Int? = nil,
                channelLayout: String? = nil, language: String? = nil, audioDelay: Double? = nil, duration: Double) {
        self.videoCodec = videoCodec
        self.videoProfile = videoProfile
        self.width = width
        self.height = height
        self.frameRate = frameRate
        self.displayAspectRatio = displayAspectRatio
        self.dynamicRange = dynamicRange
        self.scanType = scanType
        self.audioCodec = audioCodec
        self.sampleRate = sampleRate
        self.channels = channels
        self.channelLayout = channelLayout
        self.language = language
        self.audioDelay = audioDelay
        self.duration = duration
    }
}

/// An audio or subtitle rendition of a localization case's primary (EXT-X-MEDIA): which of them a
/// receiver fetched before and after the ad is its language choice (`LabSession.renditionsBefore`).
public struct LabRendition: Codable, Sendable, Equatable {
    /// "audio" or "subtitles".
    public var type: String
    /// RFC 5646 ("fr").
    public var language: String
    public var name: String
    public var isDefault: Bool
    /// Its media playlist relative to the suite folder; nil for the audio muxed in the primary's variant.
    public var path: String?
    /// Where its segments are, relative to the suite folder (ending in "/"); nil when muxed.
    public var segments: String?

    public init(type: String, language: String, name: String, isDefault: Bool, path: String?, segments: String?) {
        self.type = type
        self.language = language
        self.name = name
        self.isDefault = isDefault
        self.path = path
        self.segments = segments
    }

    /// "audio fr", "subtitles en": how sessions name it.
    public var label: String { "\(type) \(language)" }
}

/// One media playlist of a case.
public struct LabVariant: Codable, Sendable, Equatable {
    public enum Role: String, Codable, Sendable {
        case primary, interstitial
    }

    /// The media playlist, relative to the suite folder.
    public var path: String
    public var role: Role
    /// CODECS as the multivariant playlist declares it ("avc1.64001f,mp4a.40.2").
    public var codecs: String?
    /// "h264", "hevc" (FFmpeg names), or nil for audio-only playlists.
    public var videoCodec: String?
    /// "SDR", "HDR10", "HLG", or nil.
    public var dynamicRange: String?
    /// "aac", "eac3", "ac3"... or nil for video-only playlists.
    public var audioCodec: String?
    public var channels: Int?
    public var bandwidth: Int?
    /// "1280x720".
    public var resolution: String?
    /// The playlist's last media segment, relative to the suite folder (the URL path under the server
    /// root): a receiver that fetched it had the whole timeline. nil in suites made before it existed.
    public var lastSegment: String?

    public init(path: String, role: Role, codecs: String? = nil, videoCodec: String? = nil, dynamicRange: String? = nil,
                audioCodec: String? = nil, channels: Int? = nil, bandwidth: Int? = nil, resolution: String? = nil,
                lastSegment: String? = nil) {
        self.lastSegment = lastSegment
        self.path = path
        self.role = role
        self.codecs = codecs
        self.videoCodec = videoCodec
        self.dynamicRange = dynamicRange
        self.audioCodec = audioCodec
        self.channels = channels
        self.bandwidth = bandwidth
        self.resolution = resolution
    }
}
