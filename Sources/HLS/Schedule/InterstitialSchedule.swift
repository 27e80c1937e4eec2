import Foundation

/// The interstitials of a primary media playlist placed on its timeline, as a player would play
/// them (rfc8216bis Appendix D): pre-rolls first, mid-rolls at START-DATE minus the date of the
/// first segment, post-rolls at the end; interstitials at the same START-DATE form a pod played
/// in tag order, whose X-RESUME-OFFSETs add up.
public struct InterstitialSchedule: Sendable, Equatable, Codable {
    public enum Placement: String, Sendable, Codable { case preRoll = "pre-roll", midRoll = "mid-roll", postRoll = "post-roll" }

    public struct Asset: Sendable, Equatable, Codable {
        public var uri: String
        public var duration: Double?
    }

    public struct Entry: Sendable, Equatable, Codable {
        public var id: String?
        public var line: Int
        public var placement: Placement
        public var startDate: Date?
        /// Seconds into the primary timeline; nil for a mid-roll when the playlist has no PROGRAM-DATE-TIME.
        public var offset: Double?
        public var pod: Int
        public var positionInPod: Int
        public var assetURI: String?
        public var assetList: String?
        /// The assets played: the X-ASSET-URI, or the entries of the fetched asset list.
        public var assets: [Asset]
        /// What the fetched asset list has wrong, and what was done with each (an asset skipped, a string read as a number).
        public var assetListProblems: [AssetListProblem] = []
        /// What plays: the asset durations (limited by X-PLAYOUT-LIMIT), else DURATION.
        public var playedDuration: Double?
        /// X-RESUME-OFFSET, or the played duration when absent (nil when neither is known).
        public var resumeOffset: Double?
        public var resumeOffsetIsExplicit: Bool
        /// Where primary playback resumes after this interstitial (cumulative within the pod).
        public var resumesAt: Double?
        public var playoutLimit: Double?
        public var restrictions: [String]
        public var snap: [String]
        public var playsOnce: Bool
        public var timelineOccupies: String
        public var timelineStyle: String
        public var contentMayVary: Bool
        /// The skip button: each of OFFSET, DURATION and LABEL-ID from the asset list's
        /// SKIP-CONTROL when it gives a usable value, else from the tag's X-SKIP-CONTROL-*.
        public var skipControl: AssetList.SkipControl?
        /// The SKIP-CONTROL keys taken from the asset list (`OFFSET`, `DURATION`, `LABEL-ID`).
        public var skipControlFromAssetList: [String] = []
        /// Whether the offset falls on a primary segment boundary (within 1 ms); nil for pre/post-rolls.
        public var onSegmentBoundary: Bool?
    }

    public struct Pod: Sendable, Equatable, Codable {
        public var placement: Placement
        public var offset: Double?
        public var startDate: Date?
        public var ids: [String?]
        /// The sum of the entries' resume offsets.
        public var resumeOffset: Double?
        public var resumesAt: Double?
    }

    /// The date of the first primary segment (nil without EXT-X-PROGRAM-DATE-TIME).
    public var primaryStartDate: Date?
    public var primaryDuration: Double
    public var entries: [Entry]
    public var pods: [Pod]

    /// - Parameters:
    ///   - assetList: the fetched asset list of an interstitial, when there is one.
    ///   - assetDuration: the duration of an asset playlist, when it was loaded.
    public init(primary: MediaPlaylist, assetList: (Interstitial) -> AssetList? = { _ in nil },
                assetDuration: (String) -> Double? = { _ in nil }) {
        // Merge tags of one ID first: later tags usually repeat no CLASS, but add DURATION or END-DATE.
        self.init(primary: primary, interstitials: Self.merged(primary.dateRanges).filter(\.isInterstitial).compactMap(\.interstitial),
                  assetList: assetList, assetDuration: assetDuration)
    }

    /// - Parameter interstitials: `primary`'s interstitials as already read from its merged date
    ///   ranges (`SpecContext` reads them once for every rule), in tag order.
    public init(primary: MediaPlaylist, interstitials: [Interstitial], boundaries: [Double]? = nil,
                assetList: (Interstitial) -> AssetList? = { _ in nil }, assetDuration: (String) -> Double? = { _ in nil }) {
        primaryStartDate = primary.startDate
        let boundaries = boundaries ?? primary.segmentBoundaries
        // The last boundary is the sum of the EXTINFs, added in the same order as totalDuration does.
        primaryDuration = boundaries.last ?? primary.totalDuration

        // Pods: same placement and, for mid-rolls, the same START-DATE; in first-tag order.
        var groups: [(Placement, Date?, [Interstitial])] = []
        var groupIndex: [String: Int] = [:]
        for item in interstitials {
            let placement: Placement = item.isPreRoll ? .preRoll : item.isPostRoll ? .postRoll : .midRoll
            let key = placement == .midRoll ? item.startDate : nil
            let name = "\(placement.rawValue)|\(key?.timeIntervalSince1970 ?? .nan)"
            if let index = groupIndex[name] {
                groups[index].2.append(item)
            } else {
                groupIndex[name] = groups.count
                groups.append((placement, key, [item]))
            }
        }
        let dates = primaryStartDate == nil ? nil : ProgramDateTimeIndex(primary)
        let duration = primaryDuration
        func offset(_ placement: Placement, _ date: Date?) -> Double? {
            switch placement {
            case .preRoll: return 0
            // A live post-roll plays when the stream ends, which is not known yet.
            case .postRoll: return primary.isVOD ? duration : nil
            case .midRoll: return date.flatMap { dates?.offset(of: $0) }.map(Self.millisecond)
            }
        }
        // Each pod's offset once, then sorted by placement, offset (or date), first-tag order.
        let placed = groups.enumerated().map { index, group -> (rank: (Int, Double), index: Int, offset: Double?) in
            let at = offset(group.0, group.1)
            switch group.0 {
            case .preRoll: return ((0, 0), index, at)
            case .midRoll: return ((1, at ?? group.1?.timeIntervalSince1970 ?? .infinity), index, at)
            case .postRoll: return ((2, 0), index, at)
            }
        }.sorted { $0.rank != $1.rank ? $0.rank < $1.rank : $0.index < $1.index }

        entries = []
        pods = []
        for (podIndex, pod) in placed.enumerated() {
            let group = groups[pod.index]
            let podOffset = pod.offset
            var cumulative: Double? = 0
            for (position, item) in group.2.enumerated() {
                var entry = Self.entry(item, placement: group.0, pod: podIndex, position: position,
                                       assetList: assetList(item), assetDuration: assetDuration)
                entry.offset = podOffset
                if let c = cumulative, let r = entry.resumeOffset { cumulative = c + r } else { cumulative = nil }
                // After a post-roll, playback ends: there is nothing to resume.
                entry.resumesAt = group.0 == .postRoll ? nil : podOffset.flatMap { o in cumulative.map { Self.millisecond(o + $0) } }
                // Only within the playlist's segments: a live date range before (or after) the window has no boundary to miss.
                if group.0 == .midRoll, let o = podOffset, o >= -0.001, o <= duration + 0.001 {
                    entry.onSegmentBoundary = Self.isBoundary(o, in: boundaries)
                }
                entries.append(entry)
            }
            pods.append(Pod(placement: group.0, offset: podOffset, startDate: group.1, ids: group.2.map(\.id),
                            resumeOffset: cumulative.map(Self.millisecond),
                            resumesAt: group.0 == .postRoll ? nil : podOffset.flatMap { o in cumulative.map { Self.millisecond(o + $0) } }))
        }
    }

    private static func entry(_ item: Interstitial, placement: Placement, pod: Int, position: Int,
                              assetList: AssetList?, assetDuration: (String) -> Double?) -> Entry {
        var assets: [Asset] = []
        if let uri = item.assetURI { assets = [Asset(uri: uri, duration: assetDuration(uri) ?? item.scheduledDuration)] }
        if let list = assetList { assets = list.assets.map { Asset(uri: $0.uri, duration: $0.duration) } }
        let skip = skipControl(item, assetList?.skipControl)
        var played: Double? = assets.isEmpty || assets.contains { $0.duration == nil } ? item.scheduledDuration
            : assets.reduce(0) { $0 + ($1.duration ?? 0) }
        if let limit = item.playoutLimit { played = played.map { min($0, limit) } ?? limit }
        return Entry(
            id: item.id, line: item.line, placement: placement, startDate: item.startDate, offset: nil, pod: pod,
            positionInPod: position, assetURI: item.assetURI, assetList: item.assetList, assets: assets,
            assetListProblems: assetList?.problems ?? [],
            playedDuration: played, resumeOffset: item.resumeOffset ?? played, resumeOffsetIsExplicit: item.resumeOffset != nil,
            resumesAt: nil, playoutLimit: item.playoutLimit, restrictions: item.restrict?.tokens.map(\.rawValue) ?? [],
            snap: item.snap?.tokens.map(\.rawValue) ?? [], playsOnce: item.playsOnce,
            timelineOccupies: item.effectiveTimelineOccupies.rawValue, timelineStyle: item.effectiveTimelineStyle.rawValue,
            contentMayVary: item.effectiveContentMayVary,
            skipControl: skip.control, skipControlFromAssetList: skip.fromList,
            onSegmentBoundary: nil)
    }

    /// The asset list's SKIP-CONTROL overrides the tag's X-SKIP-CONTROL-* key by key (draft -22
    /// Appendix D); a key it lacks, or whose value was ignored as invalid, keeps the tag's value.
    static func skipControl(_ item: Interstitial, _ list: AssetList.SkipControl?) -> (control: AssetList.SkipControl?, fromList: [String]) {
        let control = AssetList.SkipControl(offset: list?.offset ?? item.skipControlOffset, duration: list?.duration ?? item.skipControlDuration,
                                            labelID: list?.labelID ?? item.skipControlLabelID)
        let fromList = [("OFFSET", list?.offset != nil), ("DURATION", list?.duration != nil), ("LABEL-ID", list?.labelID != nil)].filter(\.1).map(\.0)
        return (control == AssetList.SkipControl() ? nil : control, fromList)
    }

    /// Where a mid-roll at `offset` starts, in words: "at 8.008 s", or, before the first segment
    /// listed (a live window that has moved past the start of a break), "0.502 s before the first
    /// segment listed" rather than a negative time.
    public static func position(offset: Double) -> String {
        offset < -0.0005 ? "\(HLSNumber.format(-offset)) s before the first segment listed" : "at \(HLSNumber.format(offset)) s"
    }

    /// Seconds rounded to the millisecond: offsets come from date arithmetic (8.007999897 for 8.008).
    public static func millisecond(_ seconds: Double) -> Double {
        guard seconds.isFinite, abs(seconds) < 1e12 else { return seconds }
        return (seconds * 1000).rounded() / 1000
    }

    /// Whether `offset` is within 1 ms of one of the sorted `boundaries` (binary search: a
    /// day of 2 s segments has 43,200 of them, and a long VOD hundreds of interstitials).
    static func isBoundary(_ offset: Double, in boundaries: [Double]) -> Bool {
        var low = 0, high = boundaries.count
        while low < high {
            let mid = (low + high) / 2
            if boundaries[mid] < offset { low = mid + 1 } else { high = mid }
        }
        return [low - 1, low].contains { $0 >= 0 && $0 < boundaries.count && abs(boundaries[$0] - offset) < 0.001 }
    }

    /// Tags with the same ID describe one date range (a live playlist adds attributes over
    /// reloads): the first tag's values win, later tags add what it lacked.
    ///
    /// Linear in the number of attributes: each ID's names are kept in a set and each merged tag
    /// is typed once at the end (100 tags of one ID with 254 attributes each took seconds when
    /// every attribute was checked against the merged list and the tag re-typed after each).
    public static func merged(_ ranges: [DateRange]) -> [DateRange] {
        var ids: Set<String> = []
        guard ranges.contains(where: { $0.id.map { !ids.insert($0).inserted } ?? false }) else { return ranges }
        var result: [DateRange] = []
        var index: [String: Int] = [:]
        // Per merged entry that a later tag extends: its attributes so far and their names.
        var extended: [Int: (items: [Attribute], names: Set<String>)] = [:]
        for range in ranges {
            guard let id = range.id, let at = index[id] else {
                if let id = range.id { index[id] = result.count }
                result.append(range)
                continue
            }
            var merging = extended.removeValue(forKey: at) ?? (result[at].attributes.items, Set(result[at].attributes.items.map(\.name)))
            for item in range.attributes.items where merging.names.insert(item.name).inserted { merging.items.append(item) }
            extended[at] = merging
        }
        for (at, merging) in extended where merging.items.count != result[at].attributes.items.count {
            result[at] = DateRange(attributes: AttributeList(merging.items), line: result[at].line)
        }
        return result
    }
}
