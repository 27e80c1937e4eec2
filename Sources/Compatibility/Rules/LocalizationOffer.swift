import HLS

/// One EXT-X-MEDIA rendition (audio, subtitles or closed captions) as a viewer's language and
/// accessibility settings meet it.
public struct OfferedTrack: Sendable, Equatable {
    public enum Kind: String, Sendable { case audio, subtitles, captions = "closed captions" }

    public static let describesVideo = "public.accessibility.describes-video"
    public static let transcribesDialog = "public.accessibility.transcribes-spoken-dialog"
    public static let describesSound = "public.accessibility.describes-music-and-sound"

    public var kind: Kind
    /// LANGUAGE as written (RFC 5646); nil when the tag has none.
    public var language: String?
    public var name: String?
    public var isDefault: Bool
    public var autoselect: Bool
    public var forced: Bool
    public var characteristics: [String]
    /// CLOSED-CAPTIONS: the channel (CC1, SERVICE1).
    public var instreamID: String?

    public init(kind: Kind, language: String?, name: String? = nil, isDefault: Bool = false, autoselect: Bool = false,
                forced: Bool = false, characteristics: [String] = [], instreamID: String? = nil) {
        self.kind = kind
        self.language = language
        self.name = name
        self.isDefault = isDefault
        self.autoselect = autoselect
        self.forced = forced
        self.characteristics = characteristics
        self.instreamID = instreamID
    }

    init(_ rendition: Rendition, kind: Kind) {
        self.init(kind: kind, language: rendition.language, name: rendition.name, isDefault: rendition.isDefault,
                  autoselect: rendition.autoselect, forced: rendition.forced, characteristics: rendition.characteristics,
                  instreamID: rendition.instreamID)
    }

    /// The language a player matches a preference against: the primary subtag, lower case, with
    /// the common ISO 639-2 codes read as their ISO 639-1 twins ("eng" and "en-US" are "en").
    public var languageKey: String? {
        guard let language, let primary = language.split(separator: "-").first, !primary.isEmpty else { return nil }
        let key = primary.lowercased()
        return Self.twoLetter[key] ?? key
    }

    /// Audio description: a describes-video audio rendition.
    public var isAudioDescription: Bool { kind == .audio && characteristics.contains(Self.describesVideo) }
    /// Subtitles for the deaf and hard of hearing: transcribes dialog and describes sound.
    public var isSDH: Bool {
        kind == .subtitles && characteristics.contains(Self.transcribesDialog) && characteristics.contains(Self.describesSound)
    }

    /// `fr "Français" (DEFAULT=YES)`: how a message names the track.
    public var label: String {
        var text = language ?? "untagged"
        if let name { text += " \"\(name)\"" }
        if let instreamID { text += " \(instreamID)" }
        return text
    }

    static let twoLetter = [
        "eng": "en", "fra": "fr", "fre": "fr", "deu": "de", "ger": "de", "spa": "es", "ita": "it", "por": "pt",
        "nld": "nl", "dut": "nl", "jpn": "ja", "kor": "ko", "zho": "zh", "chi": "zh", "rus": "ru", "ara": "ar",
        "pol": "pl", "swe": "sv", "dan": "da", "nor": "no", "fin": "fi", "tur": "tr", "hin": "hi",
    ]
}

/// What one side of a switch offers a viewer in audio, subtitles and closed captions: the
/// renditions of the groups its variant names, or of every group (lint, which knows no class).
public struct LocalizationOffer: Sendable, Equatable {
    public var audio: [OfferedTrack]
    public var subtitles: [OfferedTrack]
    public var captions: [OfferedTrack]

    public init(audio: [OfferedTrack] = [], subtitles: [OfferedTrack] = [], captions: [OfferedTrack] = []) {
        self.audio = audio
        self.subtitles = subtitles
        self.captions = captions
    }

    /// The renditions `variant`'s AUDIO, SUBTITLES and CLOSED-CAPTIONS groups name; with no
    /// variant, every rendition of the playlist.
    public init(_ playlist: MultivariantPlaylist, variant: Variant? = nil) {
        func members(_ type: Rendition.MediaType, _ group: String?, _ kind: OfferedTrack.Kind) -> [OfferedTrack] {
            playlist.renditions.filter { rendition in
                rendition.type == type && (variant == nil || (group != nil && rendition.groupID == group))
            }.map { OfferedTrack($0, kind: kind) }
        }
        self.init(audio: members(.audio, variant?.audio, .audio), subtitles: members(.subtitles, variant?.subtitles, .subtitles),
                  captions: variant?.closedCaptionsNone == true ? [] : members(.closedCaptions, variant?.closedCaptions, .captions))
    }

    /// What a receiver of a class meets: the groups of the variant its player selects (the
    /// class's first choice); nil when it plays none.
    public static func selected(_ playlist: MultivariantPlaylist, for plays: Capabilities) -> LocalizationOffer? {
        guard case .success(let ranked) = VariantSelector.ranked(from: playlist, for: plays),
              let variant = playlist.variants.first(where: { $0.uri == ranked[0].variantURI && $0.line == ranked[0].line })
        else { return nil }
        return LocalizationOffer(playlist, variant: variant)
    }

    /// What the player plays from `tracks` for a viewer whose language is not among them: the
    /// DEFAULT=YES rendition, else the first AUTOSELECT=YES one, else the first (RFC 8216bis 4.4.6.1).
    public static func fallback(_ tracks: [OfferedTrack]) -> OfferedTrack? {
        tracks.first(where: \.isDefault) ?? tracks.first(where: \.autoselect) ?? tracks.first
    }

    /// Each language key once, in the order first offered.
    static func languages(_ tracks: [OfferedTrack]) -> [String] {
        var seen: Set<String> = []
        return tracks.compactMap(\.languageKey).filter { seen.insert($0).inserted }
    }
}
