import Foundation
import HLS
import Synchronization

/// What a spec rule saw at one tag.
public struct SpecViolation: Sendable, Equatable {
    /// The tag, e.g. `EXT-X-DATERANGE ID="ad1" (line 12)`.
    public var tag: String
    /// The media playlist it is in, as referenced (named in the subject when there are several).
    public var playlist: String?
    /// The tag's line in `playlist`; nil where the violation is about the playlist as a whole.
    public var line: Int?
    public var expected: String?
    public var actual: String?
    public var message: String
    /// nil: the rule's default severity. Some rules grade cases differently (an empty asset list is info).
    public var severity: Severity?

    public init(tag: String, line: Int? = nil, playlist: String?, expected: String? = nil, actual: String? = nil, message: String,
                severity: Severity? = nil) {
        self.tag = tag
        self.line = line
        self.playlist = playlist
        self.expected = expected
        self.actual = actual
        self.message = message
        self.severity = severity
    }
}

/// A playlist (and the resources it leads to) that shows a spec rule firing or not: the rule's
/// documentation and its test at once. The playlist is read from `SpecExample.baseURL`.
public struct SpecExample: Sendable {
    public static let baseURL = "https://primary.example/main.m3u8"

    public var name: String
    public var playlist: String
    /// Bodies by absolute URL (other playlists, asset lists, asset playlists); any other URL is a 404.
    public var resources: [String: String]
    public var triggers: Bool

    public init(_ name: String, triggers: Bool, playlist: String, resources: [String: String] = [:]) {
        self.name = name
        self.playlist = playlist
        self.resources = resources
        self.triggers = triggers
    }
}

/// The loaded presentation a spec rule looks at, with what several rules derive from it read
/// once: the interstitials, and each media playlist's schedule.
public struct SpecContext: Sendable {
    public var presentation: Presentation {
        didSet { read() }
    }

    public init(_ presentation: Presentation) {
        self.presentation = presentation
        interstitials = []
        readRanges = []
        schedules = ScheduleCache()
        read()
    }

    /// A merged date range and its interstitial as read once (nil for other date ranges).
    public typealias ReadRange = (range: DateRange, interstitial: Interstitial?)

    public var mediaPlaylists: [LoadedMediaPlaylist] { presentation.mediaPlaylists }

    /// Every interstitial with the playlist it is in; tags sharing an ID are merged into one
    /// (a later tag may add attributes), named by the first tag's line. Read once: every rule
    /// walks them (1,000 date ranges, each read from its attributes, per rule, was most of lint).
    public private(set) var interstitials: [(Interstitial, DateRange, LoadedMediaPlaylist)]
    /// Per media playlist (`mediaPlaylists`' indices), each of its `mergedDateRanges` with its
    /// interstitial: made once, so that each rule asking for them gets this array, not a copy of
    /// every date range (~12 retains each).
    private var readRanges: [[ReadRange]]
    private var schedules: ScheduleCache

    private mutating func read() {
        var all: [(Interstitial, DateRange, LoadedMediaPlaylist)] = []
        readRanges = presentation.mediaPlaylists.map { media in
            media.mergedDateRanges.map { range -> ReadRange in
                let item = range.interstitial
                if let item { all.append((item, range, media)) }
                return (range: range, interstitial: item)
            }
        }
        interstitials = all
        schedules = ScheduleCache()
    }

    /// The schedule (no asset lists: the playlist alone) of the media playlist at `index` of
    /// `mediaPlaylists`, and its segment boundaries; made the first time a rule asks for it.
    public func schedule(ofPlaylistAt index: Int) -> (schedule: InterstitialSchedule, boundaries: [Double]) {
        schedules.value(index) {
            let playlist = mediaPlaylists[index].playlist
            let boundaries = playlist.segmentBoundaries
            let interstitials = readRanges[index].compactMap(\.interstitial)
            return (InterstitialSchedule(primary: playlist, interstitials: interstitials, boundaries: boundaries), boundaries)
        }
    }

    /// The date ranges of the media playlist at `index` of `mediaPlaylists`, each with its
    /// interstitial as read once here; `merged`: tags of one ID merged (`mergedDateRanges`), else
    /// every tag as written (`playlist.dateRanges`; a tag that shares its ID is read again).
    public func dateRanges(ofPlaylistAt index: Int, merged: Bool) -> [ReadRange] {
        let media = mediaPlaylists[index]
        // Merging only removes tags; with as many left, every tag is its own merged range.
        if merged || media.mergedDateRanges.count == media.playlist.dateRanges.count { return readRanges[index] }
        return media.playlist.dateRanges.map { ($0, $0.interstitial) }
    }

    /// The primary timeline's index in `mediaPlaylists` (`Presentation.primary`).
    public var primaryIndex: Int? { mediaPlaylists.firstIndex { $0.role != .iFrame } }
}

/// Schedules by media playlist, shared by the copies of one `SpecContext`.
private final class ScheduleCache: Sendable {
    private let cache = Mutex<[Int: (schedule: InterstitialSchedule, boundaries: [Double])]>([:])

    func value(_ index: Int, make: () -> (schedule: InterstitialSchedule, boundaries: [Double]))
        -> (schedule: InterstitialSchedule, boundaries: [Double]) {
        if let made = cache.withLock({ $0[index] }) { return made }
        let made = make()
        cache.withLock { $0[index] = made }
        return made
    }
}

/// A rule of the HLS specification or the interstitial schema, checked on playlists alone
/// (and the asset lists and asset playlists they name): no device class, no media probing.
public struct SpecRule: Sendable {
    public var description: RuleDescription
    /// Made when asked for (tests, `rules`): building every rule's example playlists was 2 % of
    /// a lint, which never reads them.
    public var examples: [SpecExample] { makeExamples() }
    private let makeExamples: @Sendable () -> [SpecExample]
    let check: @Sendable (SpecContext) -> [SpecViolation]

    public init(_ description: RuleDescription, examples: @autoclosure @escaping @Sendable () -> [SpecExample],
                check: @escaping @Sendable (SpecContext) -> [SpecViolation]) {
        self.description = description
        makeExamples = examples
        self.check = check
    }

    public var id: String { description.id }

    public func evaluate(_ context: SpecContext) -> [SpecViolation] { check(context) }

    static func describe(_ id: String, _ title: String, severity: Severity, rationale: String, source: String,
                         inputs: String = "the media playlists") -> RuleDescription {
        RuleDescription(id: id, title: title, rationale: rationale, source: source, defaultSeverity: severity,
                        track: .both, inputs: inputs)
    }
}

/// The spec rules, in the order reports list them.
public enum SpecCatalog {
    public static let rules: [SpecRule] = SyntaxSpecRules.all + LoadSpecRules.all + DateRangeSpecRules.all + InterstitialSpecRules.all + TimelineSpecRules.all + AssetSpecRules.all + DraftSpecRules.all

    public static func rule(_ id: String) -> SpecRule? { rules.first { $0.id == id } }
}

/// Runs spec rules over a loaded presentation and turns violations into findings.
public enum SpecLinter {
    /// Findings in catalog order. The same violation in several media playlists (every rendition
    /// carries the same date ranges) is reported once, naming the first playlist and the count.
    /// Absurd inputs are cut to `limits`, with a `report-truncated` finding saying what was cut.
    public static func lint(_ presentation: Presentation, rules: [SpecRule] = SpecCatalog.rules,
                            limits: ReportLimits = ReportLimits()) -> [Finding] {
        lint(SpecContext(presentation), rules: rules, limits: limits)
    }

    /// The same on a context the caller shares with other rules (`BoundaryRule`, `LocalizationRules`).
    public static func lint(_ context: SpecContext, rules: [SpecRule] = SpecCatalog.rules,
                            limits: ReportLimits = ReportLimits()) -> [Finding] {
        let presentation = context.presentation
        let named = presentation.root.playlist.multivariant != nil
        var findings: [Finding] = []
        for rule in rules {
            var order: [String] = []
            var groups: [String: (SpecViolation, [String])] = [:]
            var occurrences: [String: [String: Int]] = [:]
            for violation in rule.evaluate(context) {
                // Renditions place one tag on different lines (an audio or subtitle playlist has no
                // EXT-X-MAP, an I-frame playlist more header): the nth such tag of each playlist is
                // one violation, whatever its line.
                let tag = String(withoutLine(violation.tag))
                let perPlaylist = tag + "\u{1}" + violation.message + "\u{1}" + (violation.playlist ?? "")
                let seen = occurrences[perPlaylist, default: [:]]
                let occurrence = seen[violation.tag] ?? seen.count
                occurrences[perPlaylist, default: [:]][violation.tag] = occurrence
                let key = tag + "\u{1}" + violation.message + "\u{1}\(occurrence)"
                if groups[key] == nil {
                    order.append(key)
                    groups[key] = (violation, [])
                }
                if let playlist = violation.playlist, !groups[key]!.1.contains(playlist) { groups[key]!.1.append(playlist) }
            }
            for key in order {
                let (violation, playlists) = groups[key]!
                var subject = violation.tag
                if named, let first = playlists.first {
                    subject += " in \(first)" + (playlists.count > 1 ? " and \(playlists.count - 1) other media playlist(s)" : "")
                }
                let location = SourceLocation(uri: playlistLocation(playlists.first, in: presentation), line: violation.line)
                findings.append(Finding(rule: rule.id, severity: violation.severity ?? rule.description.defaultSeverity,
                                        deviceClass: nil, subject: subject, expected: violation.expected,
                                        actual: violation.actual, message: violation.message, remediation: nil,
                                        location: location))
            }
        }
        return limits.apply(findings)
    }

    /// The tag without the " (line 12)" it ends with.
    static func withoutLine(_ tag: String) -> Substring {
        guard tag.hasSuffix(")"), let open = tag.range(of: " (line ", options: .backwards) else { return Substring(tag) }
        let digits = tag[open.upperBound..<tag.index(before: tag.endIndex)]
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return Substring(tag) }
        return tag[..<open.lowerBound]
    }

    /// The path or URL of the playlist a violation names by its reference; the root playlist
    /// when it names none (or one that was not loaded).
    static func playlistLocation(_ reference: String?, in presentation: Presentation) -> String {
        guard let reference else { return presentation.location.description }
        return presentation.mediaPlaylists.first { $0.reference == reference }?.location.description ?? presentation.location.description
    }

    /// Loads an example's playlist and resources from memory and lints it with `rules`.
    public static func run(_ example: SpecExample, rules: [SpecRule] = SpecCatalog.rules) async throws -> [Finding] {
        var options = PresentationLoader.Options()
        options.fetchAssets = true
        let fetcher = InMemoryFetcher(example.resources.merging([SpecExample.baseURL: example.playlist]) { a, _ in a })
        let loader = PresentationLoader(fetcher: fetcher, options: options)
        let presentation = try await loader.load(InputLocation.remote(URL(string: SpecExample.baseURL)!))
        return lint(presentation, rules: rules)
    }
}

/// Serves bodies from a dictionary of absolute URLs; anything else is a 404.
public struct InMemoryFetcher: ResourceFetching {
    public var bodies: [String: String]

    public init(_ bodies: [String: String]) { self.bodies = bodies }

    public func fetch(_ location: InputLocation, limits: FetchLimits) async throws(LoadError) -> FetchedResource {
        guard let body = bodies[location.description] else { throw .httpStatus(location.description, code: 404) }
        let data = Data(body.utf8)
        guard data.count <= limits.maxBytes else { throw .tooLarge(location.description, limit: limits.maxBytes) }
        return FetchedResource(location: location, data: data, contentType: nil, elapsed: 0.01)
    }
}

/// Builders for example playlists, so that each example reads as the tags that matter.
enum SpecPlaylist {
    /// A 30 s VOD media playlist of 6 s segments starting 2020-01-02T21:55:40Z, with `tags` after the segments.
    static func media(_ tags: String..., programDateTime: Bool = true) -> String {
        var lines = ["#EXTM3U", "#EXT-X-TARGETDURATION:6", "#EXT-X-PLAYLIST-TYPE:VOD"]
        if programDateTime { lines.append("#EXT-X-PROGRAM-DATE-TIME:2020-01-02T21:55:40.000Z") }
        for i in 0..<5 { lines += ["#EXTINF:6,", "main\(i).ts"] }
        lines += tags
        lines.append("#EXT-X-ENDLIST")
        return lines.joined(separator: "\n") + "\n"
    }

    /// An interstitial DATERANGE at 4 s; `attributes` are appended to ID, CLASS and START-DATE.
    static func interstitial(_ id: String = "ad1", _ attributes: String = "X-ASSET-URI=\"https://ads.example/ad1.m3u8\"",
                             start: String = "2020-01-02T21:55:44.000Z") -> String {
        "#EXT-X-DATERANGE:ID=\"\(id)\",CLASS=\"com.apple.hls.interstitial\",START-DATE=\"\(start)\"," + attributes
    }

    /// A VOD asset playlist of `seconds` in one segment.
    static func asset(seconds: Double = 15, vod: Bool = true) -> String {
        "#EXTM3U\n#EXT-X-TARGETDURATION:\(Int(seconds.rounded(.up)))\n#EXTINF:\(seconds),\nad.ts\n" + (vod ? "#EXT-X-ENDLIST\n" : "")
    }

    static let ad1 = "https://ads.example/ad1.m3u8"
}
