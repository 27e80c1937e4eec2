import Foundation

/// A media playlist: segments and the tags that apply to them.
public struct MediaPlaylist: Sendable, Equatable, Codable {
    public enum PlaylistType: String, Sendable, Codable { case vod = "VOD", event = "EVENT" }

    public var version: Int?
    public var targetDuration: Int?
    public var mediaSequence: Int
    public var discontinuitySequence: Int
    public var playlistType: PlaylistType?
    public var endList: Bool
    public var iFramesOnly: Bool
    public var independentSegments: Bool
    public var start: StartPoint?
    public var segments: [Segment]
    public var dateRanges: [DateRange]
    public var definitions: [VariableDefinition]
    /// EXT-X-SERVER-CONTROL and EXT-X-PART-INF as written: low-latency playlists are tolerated,
    /// and their parts counted, not modelled.
    public var serverControl: AttributeList?
    public var partInformation: AttributeList?
    public var partCount: Int
    /// EXT-X-PROGRAM-DATE-TIME tags written without a time zone: read as UTC, as players do.
    public var programDateTimesWithoutTimeZone: [ZonelessDate]

    public init() {
        version = nil
        targetDuration = nil
        mediaSequence = 0
        discontinuitySequence = 0
        playlistType = nil
        endList = false
        iFramesOnly = false
        independentSegments = false
        start = nil
        segments = []
        dateRanges = []
        definitions = []
        serverControl = nil
        partInformation = nil
        partCount = 0
        programDateTimesWithoutTimeZone = []
    }

    /// VOD: ENDLIST present, or PLAYLIST-TYPE:VOD (which promises it never changes).
    public var isVOD: Bool { endList || playlistType == .vod }

    /// The sum of EXTINF durations.
    public var totalDuration: Double {
        var total = 0.0
        // By index: `for segment in` copies each segment (retains its strings) to read a number.
        for index in segments.indices { total += segments[index].duration }
        return total
    }

    /// The date of the first segment: the first EXT-X-PROGRAM-DATE-TIME, moved back by the
    /// durations of the segments before it. nil without any EXT-X-PROGRAM-DATE-TIME.
    public var startDate: Date? {
        var elapsed = 0.0
        for index in segments.indices {
            if let date = segments[index].programDateTime { return date.addingTimeInterval(-elapsed) }
            elapsed += segments[index].duration
        }
        return nil
    }

    public var hasProgramDateTime: Bool { segments.contains { $0.programDateTime != nil } }

    /// Where `date` falls on the playlist's timeline (seconds from its start): measured from the
    /// last EXT-X-PROGRAM-DATE-TIME at or before it, so that a discontinuity that restarts the
    /// clock places later dates correctly. Dates before the first one count back from it.
    /// For many dates, build `ProgramDateTimeIndex` once instead.
    public func offset(of date: Date) -> Double? {
        ProgramDateTimeIndex(self).offset(of: date)
    }

    /// Offsets of segment boundaries from the start of the playlist (0 first, the end last).
    public var segmentBoundaries: [Double] {
        var result = [0.0]
        result.reserveCapacity(segments.count + 1)
        var t = 0.0
        for index in segments.indices {
            t += segments[index].duration
            result.append(t)
        }
        return result
    }
}

/// A media segment: its URI line and the tags before it.
public struct Segment: Sendable, Equatable, Codable {
    /// The URI line (after variable substitution).
    public var uri: String {
        get { uriText.string }
        set { uriText = PlaylistText.Slice(newValue) }
    }
    public var duration: Double
    public var title: String? {
        get { extras?.value.title }
        set { change { $0.title = newValue } }
    }
    public var byteRange: ByteRange? {
        get { extras?.value.byteRange }
        set { change { $0.byteRange = newValue } }
    }
    /// EXT-X-DISCONTINUITY before this segment.
    public var discontinuity: Bool {
        get { extras?.value.discontinuity ?? false }
        set { change { $0.discontinuity = newValue } }
    }
    /// EXT-X-PROGRAM-DATE-TIME written for this segment (not interpolated).
    public var programDateTime: Date? {
        get { extras?.value.programDateTime }
        set { change { $0.programDateTime = newValue } }
    }
    /// The EXT-X-KEY in effect, kept once for the run of segments it applies to (`sharedKey`).
    public var key: EncryptionKey? {
        get { sharedKey?.value }
        set { sharedKey = newValue.map(SharedValue.init) }
    }
    /// The EXT-X-MAP in effect, kept once for the run of segments it applies to (`sharedMap`).
    public var map: MediaInitialization? {
        get { sharedMap?.value }
        set { sharedMap = newValue.map(SharedValue.init) }
    }
    public var gap: Bool {
        get { extras?.value.gap ?? false }
        set { change { $0.gap = newValue } }
    }
    public var bitrate: Int? {
        get { extras?.value.bitrate }
        set { change { $0.bitrate = newValue } }
    }
    /// The line of the URI.
    public var line: Int
    /// The key and map repeat on every segment: held by reference, a 50,000-segment playlist's
    /// array is under half the size (fewer page faults) and a segment copies with two retains
    /// instead of one per string of its key and map (issue 36).
    var sharedKey: SharedValue<EncryptionKey>?
    var sharedMap: SharedValue<MediaInitialization>?
    /// `uri` as the playlist's bytes: made a `String` when read (issue 36).
    var uriText: PlaylistText.Slice
    /// The tags most segments do not have, in one box (nil: none of them): a segment is 56 bytes
    /// instead of 120, the 50,000-segment array 2.8 MB instead of 6 MB (issue 36).
    var extras: SharedValue<SegmentExtras>?

    private mutating func change(_ body: (inout SegmentExtras) -> Void) {
        var value = extras?.value ?? SegmentExtras()
        body(&value)
        extras = SegmentExtras.box(value)
    }

    init(uri: String, duration: Double, title: String?, byteRange: ByteRange?, discontinuity: Bool, programDateTime: Date?,
         sharedKey: SharedValue<EncryptionKey>?, sharedMap: SharedValue<MediaInitialization>?, gap: Bool, bitrate: Int?, line: Int) {
        self.init(uriText: PlaylistText.Slice(uri), duration: duration, title: title, byteRange: byteRange, discontinuity: discontinuity,
                  programDateTime: programDateTime, sharedKey: sharedKey, sharedMap: sharedMap, gap: gap, bitrate: bitrate, line: line)
    }

    init(uriText: PlaylistText.Slice, duration: Double, title: String?, byteRange: ByteRange?, discontinuity: Bool, programDateTime: Date?,
         sharedKey: SharedValue<EncryptionKey>?, sharedMap: SharedValue<MediaInitialization>?, gap: Bool, bitrate: Int?, line: Int) {
        self.uriText = uriText
        self.duration = duration
        extras = SegmentExtras.box(SegmentExtras(title: title, byteRange: byteRange, discontinuity: discontinuity,
                                                 programDateTime: programDateTime, gap: gap, bitrate: bitrate))
        self.sharedKey = sharedKey
        self.sharedMap = sharedMap
        self.line = line
    }

    private enum CodingKeys: String, CodingKey {
        case uri, duration, title, byteRange, discontinuity, programDateTime, key, map, gap, bitrate, line
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(uri: try c.decode(String.self, forKey: .uri), duration: try c.decode(Double.self, forKey: .duration),
                  title: try c.decodeIfPresent(String.self, forKey: .title),
                  byteRange: try c.decodeIfPresent(ByteRange.self, forKey: .byteRange),
                  discontinuity: try c.decode(Bool.self, forKey: .discontinuity),
                  programDateTime: try c.decodeIfPresent(Date.self, forKey: .programDateTime),
                  sharedKey: try c.decodeIfPresent(EncryptionKey.self, forKey: .key).map(SharedValue.init),
                  sharedMap: try c.decodeIfPresent(MediaInitialization.self, forKey: .map).map(SharedValue.init),
                  gap: try c.decode(Bool.self, forKey: .gap), bitrate: try c.decodeIfPresent(Int.self, forKey: .bitrate),
                  line: try c.decode(Int.self, forKey: .line))
    }

    /// As the synthesised conformance wrote it (absent optionals left out).
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(uri, forKey: .uri)
        try c.encode(duration, forKey: .duration)
        try c.encodeIfPresent(title, forKey: .title)
        try c.encodeIfPresent(byteRange, forKey: .byteRange)
        try c.encode(discontinuity, forKey: .discontinuity)
        try c.encodeIfPresent(programDateTime, forKey: .programDateTime)
        try c.encodeIfPresent(key, forKey: .key)
        try c.encodeIfPresent(map, forKey: .map)
        try c.encode(gap, forKey: .gap)
        try c.encodeIfPresent(bitrate, forKey: .bitrate)
        try c.encode(line, forKey: .line)
    }
}

/// A segment's tags that most segments do not have.
struct SegmentExtras: Sendable, Equatable {
    var title: String? = nil
    var byteRange: ByteRange? = nil
    var discontinuity = false
    var programDateTime: Date? = nil
    var gap = false
    var bitrate: Int? = nil

    /// The box a segment holds: nil when it has none of them (so equal segments hold equal boxes).
    static func box(_ value: SegmentExtras) -> SharedValue<SegmentExtras>? {
        value.title == nil && value.byteRange == nil && !value.discontinuity && value.programDateTime == nil && !value.gap
            && value.bitrate == nil ? nil : SharedValue(value)
    }
}

/// One immutable value many model values point to; equal when the values are.
final class SharedValue<Value: Sendable & Equatable>: Sendable, Equatable {
    let value: Value

    init(_ value: Value) { self.value = value }

    static func == (lhs: SharedValue, rhs: SharedValue) -> Bool { lhs === rhs || lhs.value == rhs.value }
}

/// EXT-X-MAP: the media initialization section.
public struct MediaInitialization: Sendable, Equatable, Codable {
    public var uri: String
    public var byteRange: ByteRange?
    /// The EXT-X-KEY in effect where the EXT-X-MAP is written (RFC 8216 4.3.2.5): with METHOD=AES-128
    /// the section itself is encrypted with it, with the key's IV (there is no media sequence
    /// number to use). A key written after the EXT-X-MAP applies to the segments only.
    public var key: EncryptionKey? = nil
}

/// The EXT-X-PROGRAM-DATE-TIME anchors of a media playlist, for placing many dates on its
/// timeline: a binary search when the dates only move forward (the usual case), a scan otherwise.
public struct ProgramDateTimeIndex: Sendable {
    /// (seconds since 1970 of the tag, seconds from the playlist start to its segment), in playlist order.
    private var anchors: [(stamp: Double, elapsed: Double)] = []
    private var ascending = true

    public init(_ playlist: MediaPlaylist) {
        var elapsed = 0.0
        let segments = playlist.segments
        for index in segments.indices {
            if let stamp = segments[index].programDateTime?.timeIntervalSince1970 {
                if let last = anchors.last, stamp < last.stamp { ascending = false }
                anchors.append((stamp, elapsed))
            }
            elapsed += segments[index].duration
        }
    }

    /// See `MediaPlaylist.offset(of:)`; nil without any EXT-X-PROGRAM-DATE-TIME.
    public func offset(of date: Date) -> Double? {
        guard let first = anchors.first else { return nil }
        let target = date.timeIntervalSince1970
        // The last anchor at or before `target` (0.5 ms tolerance), in playlist order.
        var at: Int?
        if ascending {
            var low = 0, high = anchors.count
            while low < high {
                let mid = (low + high) / 2
                if anchors[mid].stamp - target <= 0.0005 { low = mid + 1 } else { high = mid }
            }
            at = low > 0 ? low - 1 : nil
        } else {
            at = anchors.lastIndex { $0.stamp - target <= 0.0005 }
        }
        let anchor = at.map { anchors[$0] } ?? first
        return anchor.elapsed + (target - anchor.stamp)
    }
}

/// A date written without a time zone (`2020-01-02T21:55:44`), read as UTC.
public struct ZonelessDate: Sendable, Equatable, Codable {
    public var text: String
    public var line: Int

    public init(text: String, line: Int) {
        self.text = text
        self.line = line
    }
}
