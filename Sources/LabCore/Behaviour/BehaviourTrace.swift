import Foundation

/// One session's requests read against a behaviour case: which are primary segments (and where they
/// sit on the primary timeline), which belong to which interstitial (asset playlists, asset lists,
/// asset segments, failing URIs included), and the query parameters the draft defines.
///
/// Asset segments are named `seg_NNN` by the suite's encoder with the primary's segment duration
/// (the shared encode): segment k of an asset starts k x that duration into the asset.
struct BehaviourTrace: Sendable {
    /// A request with its place in the session.
    struct Fetch: Sendable {
        var index: Int
        var record: LabRequestRecord
        /// Seconds from the session's first request.
        var at: Double
        var path: String { record.path }
        var served: Bool { record.status < 400 }
    }

    let labCase: LabCase
    let behaviour: LabBehaviour
    let timeline: [LabSegment]
    let fetches: [Fetch]
    let origin: Date
    /// The primary's segment duration: also the assets' (one encode).
    let segmentDuration: Double
    private let timelineByFile: [String: Int]
    private let primaryFolder: String

    /// `requests`: one client's, any order (they are sorted by time).
    init(labCase: LabCase, behaviour: LabBehaviour, timeline: [LabSegment], requests: [LabRequestRecord]) {
        self.labCase = labCase
        self.behaviour = behaviour
        self.timeline = timeline
        let sorted = requests.enumerated().sorted { ($0.element.at, $0.offset) < ($1.element.at, $1.offset) }.map(\.element)
        origin = sorted.first?.at ?? Date(timeIntervalSince1970: 0)
        fetches = sorted.enumerated().map { Fetch(index: $0.offset, record: $0.element, at: $0.element.at.timeIntervalSince(sorted[0].at)) }
        segmentDuration = timeline.first?.duration ?? 1
        timelineByFile = Dictionary(timeline.enumerated().map { ($0.element.file, $0.offset) }, uniquingKeysWith: { first, _ in first })
        primaryFolder = "/" + labCase.folder + "primary/"
    }

    // MARK: primary

    /// The primary segment a request fetched (its index in the timeline), served or not.
    func primaryIndex(_ fetch: Fetch) -> Int? {
        guard fetch.path.hasPrefix(primaryFolder) else { return nil }
        return timelineByFile[String(fetch.path.dropFirst(primaryFolder.count))]
    }

    /// Served primary segment fetches, in time order.
    var primarySegments: [(fetch: Fetch, index: Int)] {
        fetches.filter(\.served).compactMap { fetch in primaryIndex(fetch).map { (fetch, $0) } }
    }

    /// The timeline segment holding `seconds` (a boundary belongs to the segment it starts).
    func segment(holding seconds: Double) -> Int? {
        timeline.lastIndex { $0.start <= seconds + Self.epsilon }
    }

    func end(of index: Int) -> Double { timeline[index].start + timeline[index].duration }

    // MARK: interstitials

    /// Every URL path of the interstitial (asset playlists and prefixes, the asset list).
    func belongs(_ fetch: Fetch, to interstitial: LabBehaviourInterstitial) -> Bool {
        if let list = interstitial.assetList, fetch.path == "/" + list { return true }
        return interstitial.assets.contains { fetch.path.hasPrefix("/" + $0.prefix) || fetch.path == "/" + $0.playlist }
    }

    /// The index of the asset the request belongs to.
    func assetIndex(_ fetch: Fetch, in interstitial: LabBehaviourInterstitial) -> Int? {
        interstitial.assets.firstIndex { fetch.path.hasPrefix("/" + $0.prefix) || fetch.path == "/" + $0.playlist }
    }

    /// A media segment: not a playlist, an asset list or an init section (the suite names them init*).
    static func isSegment(_ path: String) -> Bool {
        let file = path.split(separator: "/").last.map(String.init) ?? ""
        return !file.hasSuffix(".m3u8") && !file.hasSuffix(".json") && !file.hasPrefix("init")
    }

    /// The segment's number in its playlist (`seg_001.m4s` is 1).
    static func segmentNumber(_ path: String) -> Int? {
        let file = path.split(separator: "/").last.map(String.init) ?? ""
        let digits = file.split(separator: ".").first.map { $0.reversed().prefix { $0.isNumber }.reversed() } ?? []
        return digits.isEmpty ? nil : Int(String(digits))
    }

    /// Served segment fetches of the interstitial's assets: the asset index and where the segment
    /// starts, in seconds into the interstitial (the assets played one after another).
    func assetSegments(_ interstitial: LabBehaviourInterstitial) -> [(fetch: Fetch, asset: Int, offset: Double)] {
        var before: [Double] = []
        var total = 0.0
        for asset in interstitial.assets {
            before.append(total)
            if !asset.fails { total += asset.duration }
        }
        return fetches.filter { $0.served && Self.isSegment($0.path) }.compactMap { fetch in
            guard let asset = assetIndex(fetch, in: interstitial) else { return nil }
            let number = Self.segmentNumber(fetch.path) ?? 0
            return (fetch, asset, before[asset] + Double(number) * segmentDuration)
        }
    }

    /// Every request of the interstitial, whatever its answer.
    func requests(of interstitial: LabBehaviourInterstitial) -> [Fetch] {
        fetches.filter { belongs($0, to: interstitial) }
    }

    /// The first segment of the interstitial the receiver fetched.
    func firstSegment(_ interstitial: LabBehaviourInterstitial) -> Fetch? { assetSegments(interstitial).first?.fetch }

    /// Where the receiver met the break: its first segment, else its first request of any kind
    /// (an empty or failed asset list has no segment).
    func anchor(_ interstitial: LabBehaviourInterstitial) -> Fetch? { firstSegment(interstitial) ?? requests(of: interstitial).first }

    /// True when the session got to the interstitial's place by playing (a seek over it does not
    /// count): a pre-roll once any primary segment was fetched, a post-roll once the last one was, a
    /// mid-roll once it fetched the segment after START's in order (or joined a live stream there),
    /// or once it requested anything of the interstitial.
    func passed(_ interstitial: LabBehaviourInterstitial) -> Bool {
        if !requests(of: interstitial).isEmpty { return true }
        let fetched = primarySegments.map(\.index)
        guard let first = fetched.first else { return false }
        if interstitial.cue.contains("PRE") { return true }
        if interstitial.cue.contains("POST") { return fetched.contains(timeline.count - 1) }
        guard let holding = segment(holding: interstitial.start) else { return false }
        // START on a boundary is met entering that segment; mid-segment, leaving it.
        let met = abs(timeline[holding].start - interstitial.start) <= Self.epsilon ? holding : holding + 1
        if first >= met { return true }
        return zip(fetched, fetched.dropFirst()).contains { $0 + 1 == $1 && $1 == met }
    }

    /// Served segments in the case folder that are neither the primary's nor any interstitial's
    /// asset the case names (an asset the receiver found elsewhere, or invented).
    var foreignSegments: [Fetch] {
        let folder = "/" + labCase.folder
        return fetches.filter { fetch in
            fetch.served && Self.isSegment(fetch.path) && fetch.path.hasPrefix(folder) && primaryIndex(fetch) == nil
                && !behaviour.interstitials.contains { belongs(fetch, to: $0) }
        }
    }

    /// The furthest primary position the session fetched, for "ended at" sentences.
    var furthest: Double? { primarySegments.map { end(of: $0.index) }.max() }

    // MARK: queries

    static func parameter(_ name: String, in query: String?) -> String? {
        guard let query else { return nil }
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            if parts.first.map(String.init) == name {
                let value = parts.count > 1 ? String(parts[1]) : ""
                return value.removingPercentEncoding ?? value
            }
        }
        return nil
    }

    // MARK: evidence

    func evidence(_ fetch: Fetch) -> BehaviourEvidence {
        BehaviourEvidence(at: (fetch.at * 1000).rounded() / 1000, path: fetch.path, query: fetch.record.query, status: fetch.record.status)
    }

    /// The asset's folder name for sentences ("ad-1").
    static func name(_ asset: LabBehaviourAsset) -> String {
        asset.prefix.split(separator: "/").last.map(String.init) ?? asset.prefix
    }

    /// Seconds in sentences: one decimal.
    static func s(_ value: Double) -> String { String(format: "%.1f s", value) }

    /// Positions on a 2.002 s grid and START written from it agree within this.
    static let epsilon = 0.05
}
