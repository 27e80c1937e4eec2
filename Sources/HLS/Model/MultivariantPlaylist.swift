/// A parsed playlist: either kind. Decided by its tags (EXT-X-STREAM-INF, EXT-X-MEDIA... make
/// it multivariant; EXTINF, EXT-X-TARGETDURATION make it a media playlist).
public enum Playlist: Sendable, Equatable {
    case multivariant(MultivariantPlaylist)
    case media(MediaPlaylist)

    public var multivariant: MultivariantPlaylist? {
        if case .multivariant(let p) = self { return p }
        return nil
    }

    public var media: MediaPlaylist? {
        if case .media(let p) = self { return p }
        return nil
    }
}

/// A multivariant (master) playlist: the variants, renditions and I-frame streams it offers.
public struct MultivariantPlaylist: Sendable, Equatable, Codable {
    public var version: Int?
    public var independentSegments: Bool
    public var start: StartPoint?
    public var variants: [Variant]
    public var renditions: [Rendition]
    public var iFrameStreams: [IFrameStream]
    public var sessionData: [SessionData]
    public var sessionKeys: [EncryptionKey]
    /// EXT-X-CONTENT-STEERING, kept as written.
    public var contentSteering: AttributeList?
    public var definitions: [VariableDefinition]

    public init() {
        version = nil
        independentSegments = false
        start = nil
        variants = []
        renditions = []
        iFrameStreams = []
        sessionData = []
        sessionKeys = []
        contentSteering = nil
        definitions = []
    }
}

/// EXT-X-STREAM-INF and the URI line after it.
public struct Variant: Sendable, Equatable, Codable {
    public var uri: String
    public var bandwidth: Int?
    public var averageBandwidth: Int?
    public var score: Double?
    public var codecs: [String]
    public var supplementalCodecs: [String]
    public var resolution: Resolution?
    public var frameRate: Double?
    public var hdcpLevel: String?
    public var allowedCPC: String?
    public var videoRange: String?
    public var reqVideoLayout: String?
    public var stableVariantID: String?
    public var audio: String?
    public var video: String?
    public var subtitles: String?
    /// A GROUP-ID, or nil for CLOSED-CAPTIONS=NONE (see `closedCaptionsNone`).
    public var closedCaptions: String?
    public var closedCaptionsNone: Bool
    public var pathwayID: String?
    public var programID: Int?
    /// Every attribute as written, including ones this model has no field for.
    public var attributes: AttributeList
    public var line: Int
}

/// EXT-X-MEDIA: an alternative rendition.
public struct Rendition: Sendable, Equatable, Codable {
    public enum MediaType: String, Sendable, Codable {
        case audio = "AUDIO", video = "VIDEO", subtitles = "SUBTITLES", closedCaptions = "CLOSED-CAPTIONS"
    }

    public var type: MediaType?
    public var groupID: String?
    public var name: String?
    public var uri: String?
    public var language: String?
    public var assocLanguage: String?
    public var stableRenditionID: String?
    public var isDefault: Bool
    public var autoselect: Bool
    public var forced: Bool
    public var instreamID: String?
    public var bitDepth: Int?
    public var sampleRate: Int?
    public var characteristics: [String]
    public var channels: String?
    public var attributes: AttributeList
    public var line: Int
}

/// EXT-X-I-FRAME-STREAM-INF.
public struct IFrameStream: Sendable, Equatable, Codable {
    public var uri: String?
    public var bandwidth: Int?
    public var averageBandwidth: Int?
    public var codecs: [String]
    public var resolution: Resolution?
    public var videoRange: String?
    public var video: String?
    public var attributes: AttributeList
    public var line: Int
}

/// EXT-X-SESSION-DATA.
public struct SessionData: Sendable, Equatable, Codable {
    public var dataID: String?
    public var value: String?
    public var uri: String?
    public var language: String?
    public var line: Int
}

/// EXT-X-DEFINE: a variable, or an import of one from the multivariant playlist or the URL query.
public struct VariableDefinition: Sendable, Equatable, Codable {
    public enum Kind: String, Sendable, Codable { case value, `import`, queryParameter }
    public var kind: Kind
    public var name: String
    /// The value in force after this tag (nil when an import or query parameter was missing).
    public var value: String?
    public var line: Int
}

/// EXT-X-START.
public struct StartPoint: Sendable, Equatable, Codable {
    public var timeOffset: Double
    public var precise: Bool
}

/// EXT-X-KEY or EXT-X-SESSION-KEY.
public struct EncryptionKey: Sendable, Equatable, Codable {
    public var method: String
    public var uri: String?
    public var iv: String?
    public var keyFormat: String?
    public var keyFormatVersions: String?
}
