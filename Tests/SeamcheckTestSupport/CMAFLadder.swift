import Foundation

/// A CMAF title as catalog packagers write one: three H.264 video tiers in fMP4 without audio,
/// two audio groups (AAC stereo in English and French; E-AC-3 5.1 in English), WebVTT subtitles,
/// one I-frame playlist per tier (EXT-X-I-FRAMES-ONLY, byte ranges over each segment's
/// keyframe, as ffmpeg cannot write them), and the same interstitial date ranges in every media
/// playlist. Media are 2 s clips made by the ffmpeg command, cut into 1 s segments, cached like
/// ``HLSFixture``; the playlists are written for one server port.
public struct CMAFLadder: Sendable {
    public struct Tier: Sendable {
        public var name: String
        public var width: Int
        public var height: Int
        /// BANDWIDTH of the tier's video; each variant adds its audio group's.
        public var bandwidth: Int
    }

    public struct AudioRendition: Sendable {
        public var folder: String
        public var group: String
        public var name: String
        public var language: String
        public var channels: Int
        public var isDefault: Bool
        public var source: MediaFixture
    }

    public static let tiers = [Tier(name: "180p", width: 320, height: 180, bandwidth: 350_000),
                               Tier(name: "270p", width: 480, height: 270, bandwidth: 600_000),
                               Tier(name: "360p", width: 640, height: 360, bandwidth: 900_000)]

    /// GROUP-ID, the CODECS entry and the BANDWIDTH its renditions add to a variant.
    public static let audioGroups = [(id: "aac", codec: "mp4a.40.2", bandwidth: 130_000), (id: "ec3", codec: "ec-3", bandwidth: 390_000)]

    public static let audio = [
        AudioRendition(folder: "audio-aac-en", group: "aac", name: "English", language: "en", channels: 2, isDefault: true,
                       source: audioClip("ladder-aac-eng", encoder: "aac", layout: "stereo", language: "eng")),
        AudioRendition(folder: "audio-aac-fr", group: "aac", name: "Français", language: "fr", channels: 2, isDefault: false,
                       source: audioClip("ladder-aac-fra", encoder: "aac", layout: "stereo", language: "fra")),
        AudioRendition(folder: "audio-ec3-en", group: "ec3", name: "English 5.1", language: "en", channels: 6, isDefault: true,
                       source: audioClip("ladder-ec3-eng", encoder: "eac3", layout: "5.1", language: "eng")),
    ]

    /// The folder under the server root ("/files/FOLDER/main.m3u8" is the multivariant playlist).
    public var folder: String
    public var ads: [InterstitialStream.Ad]
    /// Whether the I-frame playlists carry the interstitial date ranges too (packagers differ).
    public var dateRangesInIFramePlaylists: Bool

    public init(folder: String = "ladder", ads: [InterstitialStream.Ad], dateRangesInIFramePlaylists: Bool = true) {
        self.folder = folder
        self.ads = ads
        self.dateRangesInIFramePlaylists = dateRangesInIFramePlaylists
    }

    public static func video(_ tier: Tier) -> MediaFixture {
        MediaFixture.clip("ladder-\(tier.name)", duration: 2, video: {
            var v = MediaFixture.Video()
            v.width = tier.width
            v.height = tier.height
            v.extra = ["-g", "30", "-keyint_min", "30"]
            return v
        }(), audio: nil)
    }

    static func audioClip(_ name: String, encoder: String, layout: String, language: String) -> MediaFixture {
        MediaFixture.clip(name, duration: 2, video: nil, audio: {
            var a = MediaFixture.Audio()
            a.encoder = encoder
            a.layout = layout
            a.extra = ["-metadata:s:a:0", "language=\(language)"]
            return a
        }())
    }

    /// Writes the title under `root/folder`; returns the server path of its multivariant playlist.
    @discardableResult
    public func write(into root: URL, port: Int) throws -> String {
        let base = root.appendingPathComponent(folder)
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        var renditions: [URL] = []
        var videoCodecs: [String: String] = [:]
        for tier in Self.tiers {
            let target = base.appendingPathComponent("video-\(tier.name)")
            try InterstitialStream.copyRendition(HLSFixture(name: "ladder-\(tier.name)", source: Self.video(tier), segmentType: .fmp4), to: target)
            videoCodecs[tier.name] = try Self.avcCodecString(try Self.video(tier).path())
            try Self.iFramePlaylist(for: target.appendingPathComponent("index.m3u8"))
                .write(to: target.appendingPathComponent("iframes.m3u8"), atomically: true, encoding: .utf8)
            renditions.append(target.appendingPathComponent("index.m3u8"))
        }
        for rendition in Self.audio {
            let target = base.appendingPathComponent(rendition.folder)
            try InterstitialStream.copyRendition(HLSFixture(name: rendition.folder, source: rendition.source, segmentType: .fmp4), to: target)
            renditions.append(target.appendingPathComponent("index.m3u8"))
        }
        let subtitles = base.appendingPathComponent("subs-en")
        try FileManager.default.createDirectory(at: subtitles, withIntermediateDirectories: true)
        try Self.webVTT.write(to: subtitles.appendingPathComponent("en.vtt"), atomically: true, encoding: .utf8)
        try Self.subtitlePlaylist.write(to: subtitles.appendingPathComponent("index.m3u8"), atomically: true, encoding: .utf8)
        renditions.append(subtitles.appendingPathComponent("index.m3u8"))

        // The same date ranges, placed on the first tier's segment boundaries, in every media playlist.
        let boundaries = try InterstitialStream.segmentBoundaries(renditions[0])
        let tags = ["#EXT-X-PROGRAM-DATE-TIME:\(InterstitialStream.programDateTime)"]
            + (try InterstitialStream.dateRanges(for: ads, boundaries: boundaries, root: root, port: port))
        for playlist in renditions { try InterstitialStream.insert(tags, beforeFirstSegmentOf: playlist) }
        for tier in Self.tiers {
            let iFrames = base.appendingPathComponent("video-\(tier.name)/iframes.m3u8")
            try InterstitialStream.insert(dateRangesInIFramePlaylists ? tags : [tags[0]], beforeFirstSegmentOf: iFrames)
        }
        try multivariant(videoCodecs: videoCodecs).write(to: base.appendingPathComponent("main.m3u8"), atomically: true, encoding: .utf8)
        return "/files/\(folder)/main.m3u8"
    }

    /// The multivariant playlist: every tier once per audio group, highest bandwidth first, then the I-frame streams.
    func multivariant(videoCodecs: [String: String]) -> String {
        var lines = ["#EXTM3U", "#EXT-X-VERSION:7", "#EXT-X-INDEPENDENT-SEGMENTS"]
        for rendition in Self.audio {
            lines.append("#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"\(rendition.group)\",NAME=\"\(rendition.name)\",LANGUAGE=\"\(rendition.language)\","
                + "DEFAULT=\(rendition.isDefault ? "YES" : "NO"),AUTOSELECT=YES,CHANNELS=\"\(rendition.channels)\",URI=\"\(rendition.folder)/index.m3u8\"")
        }
        lines.append("#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID=\"subs\",NAME=\"English\",LANGUAGE=\"en\",DEFAULT=YES,AUTOSELECT=YES,FORCED=NO,URI=\"subs-en/index.m3u8\"")
        for tier in Self.tiers.reversed() {
            for group in Self.audioGroups {
                lines.append("#EXT-X-STREAM-INF:BANDWIDTH=\(tier.bandwidth + group.bandwidth),AVERAGE-BANDWIDTH=\((tier.bandwidth + group.bandwidth) * 4 / 5),"
                    + "CODECS=\"\(videoCodecs[tier.name]!),\(group.codec)\",RESOLUTION=\(tier.width)x\(tier.height),FRAME-RATE=29.970,"
                    + "VIDEO-RANGE=SDR,AUDIO=\"\(group.id)\",SUBTITLES=\"subs\",CLOSED-CAPTIONS=NONE")
                lines.append("video-\(tier.name)/index.m3u8")
            }
        }
        for tier in Self.tiers.reversed() {
            lines.append("#EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=\(tier.bandwidth / 8),CODECS=\"\(videoCodecs[tier.name]!)\","
                + "RESOLUTION=\(tier.width)x\(tier.height),VIDEO-RANGE=SDR,URI=\"video-\(tier.name)/iframes.m3u8\"")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static let webVTT = """
        WEBVTT
        X-TIMESTAMP-MAP=MPEGTS:0,LOCAL:00:00:00.000

        00:00:00.000 --> 00:00:01.500
        A test card and a tone.

        """

    static let subtitlePlaylist = """
        #EXTM3U
        #EXT-X-VERSION:7
        #EXT-X-TARGETDURATION:2
        #EXT-X-MEDIA-SEQUENCE:0
        #EXT-X-PLAYLIST-TYPE:VOD
        #EXTINF:2.002,
        en.vtt
        #EXT-X-ENDLIST

        """

    /// `avc1.PPCCLL` of the file's H.264 track, read by ffprobe (an init section has no level yet).
    static func avcCodecString(_ path: String) throws -> String {
        let result = try Command.run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=profile,level",
                                                 "-of", "csv=p=0", path])
        let fields = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ",")
        guard result.status == 0, fields.count == 2, let level = Int(fields[1]) else { throw CommandError.failed("ffprobe \(path)", result) }
        let profile = ["High": "64", "Main": "4d", "Constrained Baseline": "42", "Baseline": "42"][String(fields[0])] ?? "64"
        return "avc1.\(profile)00" + String(format: "%02x", level)
    }

    /// EXT-X-I-FRAMES-ONLY over a tier's segments: per segment, a byte range from its moof to the
    /// end of its first sample (the keyframe), with the segment's duration.
    static func iFramePlaylist(for media: URL) throws -> String {
        let folder = media.deletingLastPathComponent()
        let lines = try String(contentsOf: media, encoding: .utf8).components(separatedBy: "\n")
        var out = ["#EXTM3U", "#EXT-X-VERSION:7", "#EXT-X-TARGETDURATION:1", "#EXT-X-MEDIA-SEQUENCE:0", "#EXT-X-PLAYLIST-TYPE:VOD",
                   "#EXT-X-I-FRAMES-ONLY", "#EXT-X-INDEPENDENT-SEGMENTS", "#EXT-X-MAP:URI=\"init.mp4\""]
        var duration: String?
        for line in lines {
            if line.hasPrefix("#EXTINF:") { duration = line }
            guard !line.hasPrefix("#"), !line.isEmpty, let extinf = duration else { continue }
            let data = try Data(contentsOf: folder.appendingPathComponent(line))
            let range = try keyframeRange(data, name: line)
            out += [extinf, "#EXT-X-BYTERANGE:\(range.count)@\(range.lowerBound)", line]
        }
        return (out + ["#EXT-X-ENDLIST"]).joined(separator: "\n") + "\n"
    }

    /// moof up to the end of the first sample its trun describes.
    static func keyframeRange(_ data: Data, name: String) throws -> Range<Int> {
        func be32(_ at: Int) -> Int { data[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
        func boxes(_ range: Range<Int>) -> [(type: String, range: Range<Int>)] {
            var found: [(String, Range<Int>)] = []
            var at = range.lowerBound
            while at + 8 <= range.upperBound {
                let size = be32(at)
                guard size >= 8, at + size <= range.upperBound else { break }
                found.append((String(decoding: data[at + 4..<at + 8], as: UTF8.self), at..<at + size))
                at += size
            }
            return found
        }
        guard let moof = boxes(0..<data.count).first(where: { $0.type == "moof" })?.range,
              let traf = boxes(moof.lowerBound + 8..<moof.upperBound).first(where: { $0.type == "traf" })?.range,
              let trun = boxes(traf.lowerBound + 8..<traf.upperBound).first(where: { $0.type == "trun" })?.range else {
            throw CommandError.notFound("\(name): no moof/traf/trun")
        }
        let flags = be32(trun.lowerBound + 8) & 0xFFFFFF
        var at = trun.lowerBound + 16  // box header, version and flags, sample count
        guard flags & 0x1 != 0, flags & 0x200 != 0 else { throw CommandError.notFound("\(name): trun without data offset or sizes") }
        let dataOffset = be32(at)
        at += 4
        if flags & 0x4 != 0 { at += 4 }
        if flags & 0x100 != 0 { at += 4 }
        let size = be32(at)
        return moof.lowerBound..<(moof.lowerBound + dataOffset + size)
    }
}
