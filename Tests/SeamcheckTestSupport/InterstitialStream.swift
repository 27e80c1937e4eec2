import Foundation

/// A VOD HLS primary with interstitials, written into a folder a test server serves: the
/// primary's multivariant and media playlists (with PROGRAM-DATE-TIME and one EXT-X-DATERANGE per
/// interstitial, on segment boundaries) and one folder per interstitial asset.
///
/// X-ASSET-URI must be absolute, so the playlists are written for one server port.
public struct InterstitialStream: Sendable {
    public struct Ad: Sendable {
        public var id: String
        public var source: MediaFixture?
        /// CODECS for a multivariant playlist around the ad's rendition; nil: X-ASSET-URI names the media playlist.
        public var multivariantCodecs: String?
        /// A path on the server instead of a generated asset (an unreachable one, say).
        public var rawPath: String?
        /// With `rawPath`: the path is an asset list (X-ASSET-LIST), not an asset (X-ASSET-URI).
        public var rawPathIsAssetList = false
        /// Which primary segment boundary it starts at (1 = after the first segment).
        public var boundary: Int

        /// CUE="PRE" or "POST": a pre-roll or post-roll instead of a mid-roll.
        public var cue: String?

        public init(id: String, source: MediaFixture?, multivariantCodecs: String? = nil, rawPath: String? = nil, boundary: Int,
                    cue: String? = nil) {
            self.id = id
            self.source = source
            self.multivariantCodecs = multivariantCodecs
            self.rawPath = rawPath
            self.boundary = boundary
            self.cue = cue
        }

        /// An interstitial whose X-ASSET-LIST is `path` on the server.
        public static func assetList(id: String, path: String, boundary: Int) -> Ad {
            var ad = Ad(id: id, source: nil, rawPath: path, boundary: boundary)
            ad.rawPathIsAssetList = true
            return ad
        }
    }

    public var primary: MediaFixture
    public var primaryCodecs: String
    public var ads: [Ad]
    /// How every rendition is segmented (fMP4 by default), and in how many seconds.
    public var segmentType: HLSFixture.SegmentType
    public var segmentSeconds: Int
    /// The primary's own cut when it differs (MPEG-TS under fMP4 ads), and whether it is one file
    /// addressed with EXT-X-BYTERANGE (and an EXT-X-MAP with BYTERANGE for fMP4).
    public var primarySegmentType: HLSFixture.SegmentType?
    public var primarySingleFile: Bool

    public init(primary: MediaFixture, primaryCodecs: String, ads: [Ad], segmentType: HLSFixture.SegmentType = .fmp4,
                segmentSeconds: Int = 1, primarySegmentType: HLSFixture.SegmentType? = nil, primarySingleFile: Bool = false) {
        self.primary = primary
        self.primaryCodecs = primaryCodecs
        self.ads = ads
        self.segmentType = segmentType
        self.segmentSeconds = segmentSeconds
        self.primarySegmentType = primarySegmentType
        self.primarySingleFile = primarySingleFile
    }

    static let programDateTime = "2026-01-01T00:00:00.000Z"

    /// Writes everything under `root`; returns the server path of the primary multivariant playlist.
    @discardableResult
    public func write(into root: URL, port: Int) throws -> String {
        let primaryFolder = root.appendingPathComponent("primary")
        try Self.copyRendition(HLSFixture(name: "primary", source: primary, segmentType: primarySegmentType ?? segmentType,
                                                  segmentSeconds: segmentSeconds, singleFile: primarySingleFile),
                               to: primaryFolder)
        let media = primaryFolder.appendingPathComponent("index.m3u8")
        let boundaries = try Self.segmentBoundaries(media)
        let ranges = try Self.dateRanges(for: ads, boundaries: boundaries, root: root, port: port,
                                          segmentType: segmentType, segmentSeconds: segmentSeconds)
        let tags = ["#EXT-X-PROGRAM-DATE-TIME:\(Self.programDateTime)"] + ranges
        try Self.insert(tags, beforeFirstSegmentOf: media)
        try Self.multivariant(codecs: primaryCodecs, uri: "index.m3u8", source: primary)
            .write(to: primaryFolder.appendingPathComponent("main.m3u8"), atomically: true, encoding: .utf8)
        return "/files/primary/main.m3u8"
    }

    /// One interstitial EXT-X-DATERANGE per ad, START-DATE on the primary segment boundary it
    /// names; generated ads are written under `root/ID/`.
    public static func dateRanges(for ads: [Ad], boundaries: [Double], root: URL, port: Int,
                                  segmentType: HLSFixture.SegmentType = .fmp4, segmentSeconds: Int = 1) throws -> [String] {
        var tags: [String] = []
        for ad in ads {
            let uri: String
            var duration: Double?
            if let raw = ad.rawPath {
                uri = "http://127.0.0.1:\(port)\(raw)"
            } else if let source = ad.source {
                let folder = root.appendingPathComponent(ad.id)
                try copyRendition(HLSFixture(name: ad.id, source: source, segmentType: segmentType, segmentSeconds: segmentSeconds), to: folder)
                duration = try totalDuration(folder.appendingPathComponent("index.m3u8"))
                if let codecs = ad.multivariantCodecs {
                    try multivariant(codecs: codecs, uri: "index.m3u8", source: source)
                        .write(to: folder.appendingPathComponent("main.m3u8"), atomically: true, encoding: .utf8)
                    uri = "http://127.0.0.1:\(port)/files/\(ad.id)/main.m3u8"
                } else {
                    uri = "http://127.0.0.1:\(port)/files/\(ad.id)/index.m3u8"
                }
            } else {
                continue
            }
            let start = date(offset: boundaries[min(ad.boundary, boundaries.count - 1)])
            let source = ad.rawPathIsAssetList ? "X-ASSET-LIST" : "X-ASSET-URI"
            tags.append("#EXT-X-DATERANGE:ID=\"\(ad.id)\",CLASS=\"com.apple.hls.interstitial\",START-DATE=\"\(start)\""
                + (duration.map { String(format: ",DURATION=%.3f", $0) } ?? "") + ",\(source)=\"\(uri)\",X-RESUME-OFFSET=0"
                + (ad.cue.map { ",CUE=\"\($0)\"" } ?? ""))
        }
        return tags
    }

    /// Segment boundaries of a media playlist, from 0 to its end.
    public static func segmentBoundaries(_ playlist: URL) throws -> [Double] {
        var boundaries = [0.0]
        for line in try String(contentsOf: playlist, encoding: .utf8).components(separatedBy: "\n") where line.hasPrefix("#EXTINF:") {
            boundaries.append(boundaries.last! + (Double(line.dropFirst(8).split(separator: ",")[0]) ?? 0))
        }
        return boundaries
    }

    /// Puts `tags` before the first EXTINF (after EXT-X-MAP and the header).
    public static func insert(_ tags: [String], beforeFirstSegmentOf playlist: URL) throws {
        var lines = try String(contentsOf: playlist, encoding: .utf8).components(separatedBy: "\n")
        let first = lines.firstIndex { $0.hasPrefix("#EXTINF:") } ?? lines.count
        lines.insert(contentsOf: tags, at: first)
        try lines.joined(separator: "\n").write(to: playlist, atomically: true, encoding: .utf8)
    }

    /// A fresh copy of a generated rendition at `folder`.
    public static func copyRendition(_ fixture: HLSFixture, to folder: URL) throws {
        try? FileManager.default.removeItem(at: folder)
        try FileManager.default.copyItem(atPath: try fixture.directory(), toPath: folder.path)
    }

    static func multivariant(codecs: String, uri: String, source: MediaFixture) -> String {
        let size = source.videoSize.map { ",RESOLUTION=\($0)" } ?? ""
        return "#EXTM3U\n#EXT-X-INDEPENDENT-SEGMENTS\n"
            + "#EXT-X-STREAM-INF:BANDWIDTH=500000,CODECS=\"\(codecs)\"\(size),FRAME-RATE=\(source.declaredFrameRate),VIDEO-RANGE=SDR\n\(uri)\n"
    }

    public static func totalDuration(_ playlist: URL) throws -> Double {
        try String(contentsOf: playlist, encoding: .utf8).components(separatedBy: "\n")
            .compactMap { $0.hasPrefix("#EXTINF:") ? Double($0.dropFirst(8).split(separator: ",")[0]) : nil }
            .reduce(0, +)
    }

    public static func date(offset: Double) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: formatter.date(from: programDateTime)!.addingTimeInterval(offset))
    }
}

extension MediaFixture {
    /// "WxH" from the testsrc2 input, when the fixture has video.
    var videoSize: String? {
        arguments.first { $0.hasPrefix("testsrc2=size=") }.map { String($0.dropFirst(14).prefix { $0 != ":" }) }
    }

    /// FRAME-RATE as a playlist writes it (three decimals).
    var declaredFrameRate: String {
        let rate = arguments.first { $0.hasPrefix("testsrc2=") }.flatMap { $0.components(separatedBy: ":rate=").last?.split(separator: ":").first }
        let parts = rate?.split(separator: "/").compactMap { Double($0) } ?? [30]
        return String(format: "%.3f", parts.count == 2 ? parts[0] / parts[1] : parts[0])
    }
}
