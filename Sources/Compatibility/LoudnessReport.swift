import MediaProbe

/// One measured span of a rendition: a side of a break, or a whole interstitial asset.
public struct LoudnessSpan: Codable, Sendable, Equatable {
    /// The media playlist whose segments were measured.
    public var rendition: String
    /// Integrated loudness in LUFS; nil when not measured (`problem` says why).
    public var integrated: Double?
    /// Seconds of audio measured.
    public var seconds: Double
    public var segments: Int
    public var segmentsAsked: Int
    /// Segments left out, each "URI: reason" (a 404, a timeout); the rest was measured.
    public var skipped: [String]
    public var problem: String?

    public init(rendition: String, _ measured: SegmentsLoudness) {
        self.rendition = rendition
        integrated = measured.integrated
        seconds = measured.seconds
        segments = measured.segmentsMeasured
        segmentsAsked = measured.segmentsAsked
        skipped = measured.skipped
        problem = measured.problem
    }
}

/// Playlist audits: the loudness of one interstitial against the programme around its break,
/// for the device classes that play the same renditions of both.
public struct AssetLoudness: Codable, Sendable, Equatable {
    public var deviceClasses: [String]
    /// "before", "after" or both: the sides of the break the programme has (a pre-roll has no before).
    public var sides: [String]
    public var interstitial: LoudnessSpan?
    public var before: LoudnessSpan?
    public var after: LoudnessSpan?
    /// The programme's level around the break: the sides measured, heard as one (LUFS).
    public var programme: Double?
    /// Interstitial minus programme, in LU.
    public var difference: Double?
    /// Why there is no comparison, when there is none.
    public var problem: String?
}

/// What measuring loudness cost an audit, beyond the probes (init section and first segment per
/// rendition): every byte the loudness step fetched and the time its measurements took.
public struct LoudnessCost: Codable, Sendable, Equatable {
    public var measured: Bool
    /// Why nothing was measured (turned off).
    public var reason: String?
    /// Seconds of programme measured on each side of a break (whole segments, at least this much when there is).
    public var programmeSeconds: Double?
    /// Spans measured (each distinct rendition and window once) and spans without a value.
    public var measurements: Int
    public var notMeasured: Int
    /// Segments measured, summed over measurements (one that two windows share counts twice, and is fetched once).
    public var segments: Int
    /// Bytes fetched: segments, init sections, keys, and interstitial media playlists read again.
    public var bytesRead: Int64
    /// Milliseconds of fetching and decoding, summed over measurements (they run in parallel).
    public var milliseconds: Int

    public init(measured: Bool, reason: String? = nil, programmeSeconds: Double? = nil, measurements: Int = 0, notMeasured: Int = 0,
                segments: Int = 0, bytesRead: Int64 = 0, milliseconds: Int = 0) {
        self.measured = measured
        self.reason = reason
        self.programmeSeconds = programmeSeconds
        self.measurements = measurements
        self.notMeasured = notMeasured
        self.segments = segments
        self.bytesRead = bytesRead
        self.milliseconds = milliseconds
    }

    /// Nothing measured, and why.
    public static func off(_ reason: String) -> LoudnessCost { LoudnessCost(measured: false, reason: reason) }

    /// One line for people: what loudness read and how long it took.
    public var summary: String {
        guard measured else { return "loudness: not measured (\(reason ?? "off"))" }
        let megabytes = String(format: "%.2f", Double(bytesRead) / 1_000_000)
        var text = "loudness: \(measurements) measurement(s)" + (segments > 0 ? " of \(segments) segment(s)" : "")
            + ", \(megabytes) MB read and \(milliseconds) ms beyond the probes"
        if let programmeSeconds { text += "; programme measured over \(LoudnessRule.format(programmeSeconds)) s each side of a break" }
        if notMeasured > 0 { text += "; \(notMeasured) span(s) not measured (see each interstitial)" }
        return text
    }
}

// Written with every key, null where there is no value, as the rest of the audit JSON is.
extension LoudnessSpan {
    enum CodingKeys: String, CodingKey { case rendition, integrated, seconds, segments, segmentsAsked, skipped, problem }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeEveryKey(of: self)
    }
}

extension AssetLoudness {
    enum CodingKeys: String, CodingKey { case deviceClasses, sides, interstitial, before, after, programme, difference, problem }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeEveryKey(of: self)
    }
}

extension LoudnessCost {
    enum CodingKeys: String, CodingKey {
        case measured, reason, programmeSeconds, measurements, notMeasured, segments, bytesRead, milliseconds
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeEveryKey(of: self)
    }
}
