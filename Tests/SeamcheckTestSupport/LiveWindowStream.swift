import Foundation

/// A live primary as a packager serves it: the test server's /live route cuts a window out of a
/// VOD source (6 segments of 1.001 s with PROGRAM-DATE-TIME and interstitial date ranges), and
/// the multivariant playlist names two variants refreshed one segment apart (variant A at
/// MEDIA-SEQUENCE `sequence`, variant B at `sequence + 1`), as a CDN serves renditions fetched
/// at different moments.
public struct LiveWindowStream: Sendable {
    /// An interstitial date range of the source, placed by offset (seconds from the first segment).
    public struct Range: Sendable {
        public var id: String
        public var offset: Double
        public var duration: Double

        public init(id: String, offset: Double, duration: Double) {
            self.id = id
            self.offset = offset
            self.duration = duration
        }
    }

    /// With a window of 3 at sequence 2 and 3, variant A covers 2.002-5.005 s and B 3.003-6.006 s:
    /// "left" is only in A's window (it has left B's), "both" in both, "entering" only in B's.
    /// Each lasts as long as the ad (1.001 s).
    public static let ranges = [Range(id: "left", offset: 1.5, duration: 1.001), Range(id: "both", offset: 3.5, duration: 1.001),
                                Range(id: "entering", offset: 5.5, duration: 1.001)]

    public var folder: String
    public var ranges: [Range]
    public var sequence: Int
    public var windowSize: Int
    /// Date ranges variant B's packager loses although they are in its window (`?drop=`).
    public var droppedFromB: [String]

    public init(folder: String = "live", ranges: [Range] = LiveWindowStream.ranges, sequence: Int = 2, windowSize: Int = 3,
                droppedFromB: [String] = []) {
        self.folder = folder
        self.ranges = ranges
        self.sequence = sequence
        self.windowSize = windowSize
        self.droppedFromB = droppedFromB
    }

    /// The source's segments: the playlist tests' 6 s primary, a keyframe every second.
    public static let source = Fixtures.primaryWithSegments

    /// Server path of variant A's and B's windows.
    public var variantA: String { "/live/\(sequence)/\(windowSize)/\(folder)/index.m3u8" }
    public var variantB: String {
        "/live/\(sequence + 1)/\(windowSize)/\(folder)/index.m3u8" + (droppedFromB.isEmpty ? "" : "?drop=" + droppedFromB.joined(separator: ","))
    }

    /// Writes the VOD source, one matching 1 s ad every range names and the multivariant
    /// playlist; returns the server path of the multivariant playlist.
    @discardableResult
    public func write(into root: URL, port: Int) throws -> String {
        let base = root.appendingPathComponent(folder)
        try InterstitialStream.copyRendition(HLSFixture(name: "primary", source: Self.source, segmentType: .fmp4), to: base)
        let ad = root.appendingPathComponent("live-ad")
        try InterstitialStream.copyRendition(HLSFixture(name: "live-ad", source: Fixtures.primary, segmentType: .fmp4), to: ad)
        var tags = ["#EXT-X-PROGRAM-DATE-TIME:\(InterstitialStream.programDateTime)"]
        for range in ranges {
            tags.append("#EXT-X-DATERANGE:ID=\"\(range.id)\",CLASS=\"com.apple.hls.interstitial\","
                + "START-DATE=\"\(InterstitialStream.date(offset: range.offset))\",DURATION=\(range.duration),"
                + "X-ASSET-URI=\"http://127.0.0.1:\(port)/files/live-ad/index.m3u8\",X-SNAP=\"OUT,IN\"")
        }
        try InterstitialStream.insert(tags, beforeFirstSegmentOf: base.appendingPathComponent("index.m3u8"))
        let codecs = "avc1.64000d,mp4a.40.2"
        try """
        #EXTM3U
        #EXT-X-INDEPENDENT-SEGMENTS
        #EXT-X-STREAM-INF:BANDWIDTH=600000,CODECS="\(codecs)",RESOLUTION=320x180,FRAME-RATE=29.970
        \(variantA)
        #EXT-X-STREAM-INF:BANDWIDTH=500000,CODECS="\(codecs)",RESOLUTION=320x180,FRAME-RATE=29.970
        \(variantB)

        """.write(to: base.appendingPathComponent("main.m3u8"), atomically: true, encoding: .utf8)
        return "/files/\(folder)/main.m3u8"
    }
}
