import Foundation

/// A CMAF title with the audio languages, subtitles and closed captions a test asks for: one
/// H.264 tier (``CMAFLadder``'s 180p), one AAC rendition per audio track (its media tagged with
/// the language), one WebVTT playlist per subtitle track, closed captions as declared (the
/// EXT-X-MEDIA tags only: ffmpeg writes no CEA-608), and the interstitial date ranges of `ads` in
/// every media playlist. Written for one server port; an ad is another title in its own folder
/// (`InterstitialStream.Ad(rawPath: "/files/FOLDER/main.m3u8")`).
public struct LocalizedTitle: Sendable {
    public struct Audio: Sendable {
        public var language: String
        public var name: String
        public var isDefault: Bool
        /// CHARACTERISTICS="public.accessibility.describes-video".
        public var described: Bool

        public init(_ language: String, _ name: String, isDefault: Bool = false, described: Bool = false) {
            self.language = language
            self.name = name
            self.isDefault = isDefault
            self.described = described
        }
    }

    public struct Subtitle: Sendable {
        public var language: String
        public var name: String
        public var isDefault: Bool
        public var forced: Bool
        /// CHARACTERISTICS for the deaf and hard of hearing.
        public var sdh: Bool

        public init(_ language: String, _ name: String, isDefault: Bool = false, forced: Bool = false, sdh: Bool = false) {
            self.language = language
            self.name = name
            self.isDefault = isDefault
            self.forced = forced
            self.sdh = sdh
        }
    }

    public struct Caption: Sendable {
        public var language: String
        public var channel: String

        public init(_ language: String, _ channel: String) {
            self.language = language
            self.channel = channel
        }
    }

    public var folder: String
    public var audio: [Audio]
    public var subtitles: [Subtitle]
    public var captions: [Caption]
    public var ads: [InterstitialStream.Ad]

    public init(folder: String, audio: [Audio], subtitles: [Subtitle] = [], captions: [Caption] = [], ads: [InterstitialStream.Ad] = []) {
        self.folder = folder
        self.audio = audio
        self.subtitles = subtitles
        self.captions = captions
        self.ads = ads
    }

    static let threeLetter = ["en": "eng", "fr": "fra", "de": "deu", "es": "spa"]

    /// Writes the title under `root/folder`; returns the server path of its multivariant playlist.
    @discardableResult
    public func write(into root: URL, port: Int) throws -> String {
        let base = root.appendingPathComponent(folder)
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        let tier = CMAFLadder.tiers[0]
        let video = base.appendingPathComponent("video")
        try InterstitialStream.copyRendition(HLSFixture(name: "ladder-\(tier.name)", source: CMAFLadder.video(tier), segmentType: .fmp4), to: video)
        let videoCodec = try CMAFLadder.avcCodecString(try CMAFLadder.video(tier).path())
        var media = [video.appendingPathComponent("index.m3u8")]
        for track in audio {
            let language = Self.threeLetter[track.language] ?? track.language
            let name = "loc-aac-\(language)" + (track.described ? "-ad" : "")
            let source = CMAFLadder.audioClip(name, encoder: "aac", layout: "stereo", language: language)
            let target = base.appendingPathComponent(audioFolder(track))
            try InterstitialStream.copyRendition(HLSFixture(name: name, source: source, segmentType: .fmp4), to: target)
            media.append(target.appendingPathComponent("index.m3u8"))
        }
        for track in subtitles {
            let target = base.appendingPathComponent(subtitleFolder(track))
            try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
            try CMAFLadder.webVTT.write(to: target.appendingPathComponent("en.vtt"), atomically: true, encoding: .utf8)
            try CMAFLadder.subtitlePlaylist.write(to: target.appendingPathComponent("index.m3u8"), atomically: true, encoding: .utf8)
            media.append(target.appendingPathComponent("index.m3u8"))
        }
        if !ads.isEmpty {
            let boundaries = try InterstitialStream.segmentBoundaries(media[0])
            let tags = ["#EXT-X-PROGRAM-DATE-TIME:\(InterstitialStream.programDateTime)"]
                + (try InterstitialStream.dateRanges(for: ads, boundaries: boundaries, root: root, port: port))
            for playlist in media { try InterstitialStream.insert(tags, beforeFirstSegmentOf: playlist) }
        }
        try multivariant(videoCodec: videoCodec, tier: tier).write(to: base.appendingPathComponent("main.m3u8"), atomically: true, encoding: .utf8)
        return "/files/\(folder)/main.m3u8"
    }

    func audioFolder(_ track: Audio) -> String { "audio-\(track.language)" + (track.described ? "-ad" : "") }

    func subtitleFolder(_ track: Subtitle) -> String {
        "subs-\(track.language)" + (track.forced ? "-forced" : "") + (track.sdh ? "-sdh" : "")
    }

    func multivariant(videoCodec: String, tier: CMAFLadder.Tier) -> String {
        var lines = ["#EXTM3U", "#EXT-X-VERSION:7", "#EXT-X-INDEPENDENT-SEGMENTS"]
        for track in audio {
            lines.append("#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"aud\",NAME=\"\(track.name)\",LANGUAGE=\"\(track.language)\","
                + "DEFAULT=\(track.isDefault ? "YES" : "NO"),AUTOSELECT=YES,CHANNELS=\"2\""
                + (track.described ? ",CHARACTERISTICS=\"public.accessibility.describes-video\"" : "")
                + ",URI=\"\(audioFolder(track))/index.m3u8\"")
        }
        for track in subtitles {
            lines.append("#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID=\"subs\",NAME=\"\(track.name)\",LANGUAGE=\"\(track.language)\","
                + "DEFAULT=\(track.isDefault ? "YES" : "NO"),AUTOSELECT=YES,FORCED=\(track.forced ? "YES" : "NO")"
                + (track.sdh ? ",CHARACTERISTICS=\"public.accessibility.transcribes-spoken-dialog,public.accessibility.describes-music-and-sound\"" : "")
                + ",URI=\"\(subtitleFolder(track))/index.m3u8\"")
        }
        for track in captions {
            lines.append("#EXT-X-MEDIA:TYPE=CLOSED-CAPTIONS,GROUP-ID=\"cc\",NAME=\"\(track.language) captions\",LANGUAGE=\"\(track.language)\","
                + "DEFAULT=NO,AUTOSELECT=YES,INSTREAM-ID=\"\(track.channel)\"")
        }
        lines.append("#EXT-X-STREAM-INF:BANDWIDTH=\(tier.bandwidth + 130_000),CODECS=\"\(videoCodec),mp4a.40.2\","
            + "RESOLUTION=\(tier.width)x\(tier.height),FRAME-RATE=29.970,VIDEO-RANGE=SDR,AUDIO=\"aud\""
            + (subtitles.isEmpty ? "" : ",SUBTITLES=\"subs\"") + (captions.isEmpty ? ",CLOSED-CAPTIONS=NONE" : ",CLOSED-CAPTIONS=\"cc\""))
        lines.append("video/index.m3u8")
        return lines.joined(separator: "\n") + "\n"
    }
}
