import Foundation

/// Where things fall in a suite, for the behaviour cases: d (the primary's segment duration), A (the
/// ad's duration) and s(k) (the start of primary segment k). Read from the encodes at generation;
/// `nominal` gives the scale's round numbers (what the design's table states).
struct BehaviourGeometry: Sendable, Equatable {
    /// Start of every primary segment, seconds.
    var starts: [Double]
    /// The primary's segment duration.
    var d: Double
    /// The ad's duration (the `control` case's ad).
    var A: Double

    /// Start of primary segment `k` (past the end: extrapolated by d).
    func s(_ k: Int) -> Double {
        k < starts.count ? starts[k] : LabPlaylists.milliseconds((starts.last ?? 0) + Double(k - starts.count + 1) * d)
    }

    static func nominal(_ scale: LabScale) -> BehaviourGeometry {
        let count = Int((scale.primaryDuration / scale.segmentDuration).rounded())
        return BehaviourGeometry(starts: (0..<count).map { Double($0) * scale.segmentDuration }, d: scale.segmentDuration,
                                 A: scale.adDuration)
    }

    static func measured(primary: EncodedRendition, ad: EncodedRendition) -> BehaviourGeometry {
        BehaviourGeometry(starts: primary.segments.indices.map(primary.start(of:)), d: primary.segments.first?.duration ?? 0,
                          A: ad.duration)
    }
}

/// The behaviour cases (issue 22): one interstitial feature each, on the shared primary and the
/// `control` case's matching ad, with what a conforming receiver shows (draft-pantos-hls-rfc8216bis-22
/// Appendix D) as data. Ids are `behaviour-<feature>` and stable: judgements refer to them.
enum BehaviourCatalog {
    /// One case: its feature, title, and how its interstitials, commands and expectations follow from the geometry.
    struct Entry: Sendable {
        var feature: String
        var title: String
        var build: @Sendable (_ caseId: String, _ g: BehaviourGeometry) -> LabBehaviour
    }

    /// The case every behaviour case takes its ad from (through `cases/<id>/ad-N -> ../control/ad`).
    static let adSource = "control"
    static let idPrefix = "behaviour-"

    static func id(_ feature: String) -> String { idPrefix + feature }

    static let entries: [Entry] = [
        vod("resume-offset-absent", "No X-RESUME-OFFSET: resume after the ad's played duration") { c, g in
            let i = mid(c, g, at: g.s(2))
            return (i, [played(i), resumes(i, because: "Appendix D: X-RESUME-OFFSET absent: resume at START-DATE plus the played duration")])
        },
        vod("resume-offset-zero", "X-RESUME-OFFSET=0: resume where the primary was left") { c, g in
            let i = mid(c, g, at: g.s(2), resumeOffset: 0)
            return (i, [played(i), resumes(i, because: "Appendix D: X-RESUME-OFFSET=0: resume at START-DATE, nothing of the primary skipped")])
        },
        vod("resume-offset-positive", "X-RESUME-OFFSET=d: resume one segment after START-DATE") { c, g in
            let i = mid(c, g, at: g.s(2), resumeOffset: g.d)
            return (i, [played(i), resumes(i, because: "Appendix D: resume at START-DATE plus X-RESUME-OFFSET")])
        },
        Entry(feature: "resume-offset-live", title: "Live, no X-RESUME-OFFSET: resume the ad's played duration later") { c, g in
            let i = mid(c, g, at: g.s(3))
            return LabBehaviour(feature: "resume-offset-live", title: "", live: LabLiveWindow(joinEdge: g.s(2), startOffset: -g.d),
                                interstitials: [i], expectations: [played(i), resumes(i, because:
                                    "Appendix D: live, X-RESUME-OFFSET absent: resume at START-DATE plus the played duration (the live edge moved on)")])
        },
        vod("playout-limit", "X-PLAYOUT-LIMIT=d, half the ad: end the ad at the limit") { c, g in
            // DURATION is what plays: the limit (lint's interstitial-duration-mismatch expects so).
            var i = mid(c, g, at: g.s(2), playoutLimit: g.d)
            i.duration = ms(g.d)
            return (i, [played(i),
                        LabExpectation(.playedAtMost, interstitial: i.id, seconds: g.d,
                                       because: "Appendix D: X-PLAYOUT-LIMIT: the client ends the interstitial at this offset"),
                        resumes(i, because: "Appendix D: X-RESUME-OFFSET absent: resume after the played duration, the playout limit")])
        },
        vod("cue-pre", "CUE=PRE: a pre-roll, played before the primary") { c, g in
            let i = mid(c, g, at: g.s(2), resumeOffset: 0, cue: ["PRE"])
            return (i, [LabExpectation(.beforePrimary, interstitial: i.id,
                                       because: "Appendix D: CUE=PRE: play the interstitial before the primary's playback begins"),
                        resumes(i, because: "Appendix D: after a pre-roll the primary starts at its beginning")])
        },
        vod("cue-post", "CUE=POST: a post-roll, played after the primary") { c, g in
            let i = mid(c, g, at: g.s(2), cue: ["POST"])
            return (i, [LabExpectation(.afterPrimary, interstitial: i.id,
                                       because: "Appendix D: CUE=POST: play the interstitial after the primary's playback ends")])
        },
        Entry(feature: "cue-once", title: "CUE=ONCE: seeking back over the ad does not play it again") { c, g in
            let i = mid(c, g, at: g.s(2), resumeOffset: 0, cue: ["ONCE"])
            return LabBehaviour(feature: "cue-once", title: "", interstitials: [i],
                                // 10 s of playback: the primary to START, the ad, one more segment (position s(2) + d).
                                commands: [LabScriptedCommand(kind: .scrub, after: ms(g.s(2) + g.A + g.d), atPosition: ms(g.s(2) + g.d),
                                                              value: g.s(1))],
                                expectations: [played(i), LabExpectation(.playedOnce, interstitial: i.id,
                                    because: "Appendix D: CUE=ONCE: play the interstitial once; a seek back over it does not play it again")])
        },
        // The break ends before the join point (and before the window): a client that reads it as a
        // mid-roll passes it by; only CUE=PRE makes it play.
        Entry(feature: "live-preroll", title: "Live join with a CUE=PRE ad behind the join: the pre-roll plays first") { c, g in
            let i = mid(c, g, at: g.s(0), resumeOffset: 0, cue: ["PRE"])
            return LabBehaviour(feature: "live-preroll", title: "", live: LabLiveWindow(joinEdge: g.s(4), startOffset: -g.d),
                                interstitials: [i], expectations: [played(i), LabExpectation(.beforePrimary, interstitial: i.id,
                                    because: "Appendix D: CUE=PRE on joining a live stream: play the pre-roll before the primary")])
        },
        vod("asset-list-multiple", "X-ASSET-LIST with two assets: both play, in order") { c, g in
            let i = listed(c, g, at: g.s(2), assets: [ad(c, 1, g), ad(c, 2, g)], resumeOffset: 0)
            return (i, [played(i), inOrder(i, because: "Appendix D: the assets of an X-ASSET-LIST play in ASSETS order"),
                        resumes(i, because: "Appendix D: X-RESUME-OFFSET=0: resume at START-DATE")])
        },
        vod("asset-list-empty", "X-ASSET-LIST with an empty ASSETS array: nothing plays") { c, g in
            let i = listed(c, g, at: g.s(2), assets: [], duration: g.A)
            return (i, [LabExpectation(.notPlayed, interstitial: i.id, because: "Appendix D: an empty ASSETS array has nothing to play"),
                        resumes(i, because: "Appendix D: an empty ASSETS array applies X-RESUME-OFFSET, 0 when absent")])
        },
        vod("asset-list-failed-asset", "X-ASSET-LIST whose second asset fails: skip it, play the others") { c, g in
            let i = listed(c, g, at: g.s(2), assets: [ad(c, 1, g), missing(c, g), ad(c, 3, g)], resumeOffset: 0)
            return (i, [played(i), inOrder(i, because: "Appendix D: a failed asset is skipped; the rest of the list plays in order"),
                        resumes(i, because: "Appendix D: X-RESUME-OFFSET=0: resume at START-DATE")])
        },
        vod("asset-list-failed", "X-ASSET-LIST that answers 404: skip the break, resume offset 0") { c, g in
            var i = listed(c, g, at: g.s(2), assets: [], duration: g.A)
            i.assetList = "cases/\(c)/missing-list.json"
            i.assetListFails = true
            return (i, [LabExpectation(.notPlayed, interstitial: i.id, because: "Appendix D: a failed asset-list request skips the interstitial"),
                        resumes(i, because: "Appendix D: a skipped interstitial resumes with offset 0")])
        },
        Entry(feature: "primary-id", title: "_HLS_primary_id: one value on every interstitial request of a session") { c, g in
            let first = mid(c, g, at: g.s(1), resumeOffset: 0)
            let second = listed(c, g, at: g.s(3), assets: [ad(c, 2, g)], resumeOffset: 0, number: 2)
            return LabBehaviour(feature: "primary-id", title: "", interstitials: [first, second],
                                expectations: [played(first), played(second), LabExpectation(.primaryIdConstant,
                                    because: "Appendix D: the client adds _HLS_primary_id, one value per playback session, to every interstitial request")])
        },
        Entry(feature: "live-join-start-offset", title: "Live join 0.5d into a break: _HLS_start_offset on the asset-list request") { c, g in
            let i = listed(c, g, at: g.s(2), assets: [ad(c, 1, g)], duration: g.A)
            return LabBehaviour(feature: "live-join-start-offset", title: "",
                                live: LabLiveWindow(joinEdge: g.s(4), startOffset: -ms(1.5 * g.d)), interstitials: [i],
                                expectations: [LabExpectation(.startOffset, interstitial: i.id, seconds: ms(g.s(4) - 1.5 * g.d - g.s(2)),
                                                              tolerance: 0.25, because: "Appendix D: joining mid-break, the client adds _HLS_start_offset (seconds into the break) to the asset-list request"),
                                               played(i), resumes(i, because: "Appendix D: live, X-RESUME-OFFSET absent: resume at START-DATE plus the ad's duration")])
        },
        Entry(feature: "restrict-jump", title: "X-RESTRICT=JUMP: a seek past the ad plays it first") { c, g in
            let i = mid(c, g, at: g.s(3), resumeOffset: 0, restrict: ["JUMP"])
            let target = ms(g.s(4) + g.d / 2)
            return LabBehaviour(feature: "restrict-jump", title: "", interstitials: [i],
                                commands: [LabScriptedCommand(kind: .scrub, after: ms(g.d / 2), atPosition: ms(g.d / 2), value: target)],
                                expectations: [played(i), LabExpectation(.playedBeforeSeekTarget, interstitial: i.id, seconds: target,
                                    because: "Appendix D: X-RESTRICT=JUMP: no seeking past START-DATE without playing the interstitial")])
        },
        Entry(feature: "restrict-skip", title: "X-RESTRICT=SKIP: rate 2 during the ad is refused") { c, g in
            let i = mid(c, g, at: g.s(2), resumeOffset: 0, restrict: ["SKIP"])
            return LabBehaviour(feature: "restrict-skip", title: "", interstitials: [i],
                                // During a POINT ad the receiver reports START: the first report at START is (nearly always) in the ad.
                                commands: [LabScriptedCommand(kind: .rate, after: ms(g.s(2) + g.d / 2), atPosition: g.s(2), value: 2)],
                                expectations: [played(i), LabExpectation(.rateHeld, interstitial: i.id,
                                    because: "Appendix D: X-RESTRICT=SKIP: no seeking forward and no rate above 1 while the interstitial plays"),
                                               resumes(i, because: "Appendix D: X-RESUME-OFFSET=0: resume at START-DATE")])
        },
        Entry(feature: "snap-live", title: "Live, X-SNAP=OUT,IN, START-DATE 0.3d into a segment: leave at the nearest boundary") { c, g in
            let i = mid(c, g, at: ms(g.s(2) + 0.3 * g.d), snap: ["OUT", "IN"])
            return LabBehaviour(feature: "snap-live", title: "", live: LabLiveWindow(joinEdge: g.s(2), startOffset: -g.d),
                                interstitials: [i], expectations: [played(i), LabExpectation(.leavesAtBoundary, interstitial: i.id,
                                    seconds: g.s(2), because: "Appendix D: X-SNAP=OUT: leave the primary at the segment boundary nearest START-DATE")])
        },
        vod("timeline-range", "X-TIMELINE-OCCUPIES=RANGE: the ad covers its range of the primary") { c, g in
            let i = mid(c, g, at: g.s(2), timelineOccupies: "RANGE")
            return (i, [played(i), resumes(i, because: "Appendix D: RANGE, X-RESUME-OFFSET absent: resume at START-DATE plus the played duration, the range's end")])
        },
    ]

    /// The behaviour of case `feature` at geometry `g`, with the entry's title.
    static func behaviour(_ entry: Entry, geometry g: BehaviourGeometry) -> LabBehaviour {
        var behaviour = entry.build(id(entry.feature), g)
        behaviour.feature = entry.feature
        behaviour.title = entry.title
        return behaviour
    }

    // MARK: - Building blocks

    private static func vod(_ feature: String, _ title: String,
                            _ make: @escaping @Sendable (String, BehaviourGeometry) -> (LabBehaviourInterstitial, [LabExpectation])) -> Entry {
        Entry(feature: feature, title: title) { c, g in
            let (interstitial, expectations) = make(c, g)
            return LabBehaviour(feature: feature, title: title, interstitials: [interstitial], expectations: expectations)
        }
    }

    static func ms(_ value: Double) -> Double { LabPlaylists.milliseconds(value) }

    /// Asset `n` of case `c`: its own folder, a link to the control case's ad.
    static func ad(_ c: String, _ n: Int, _ g: BehaviourGeometry) -> LabBehaviourAsset {
        LabBehaviourAsset(playlist: "cases/\(c)/ad-\(n)/master.m3u8", prefix: "cases/\(c)/ad-\(n)/", duration: g.A)
    }

    /// An asset whose URI answers 404: nothing is written at `cases/<c>/missing-ad/`.
    static func missing(_ c: String, _ g: BehaviourGeometry) -> LabBehaviourAsset {
        LabBehaviourAsset(playlist: "cases/\(c)/missing-ad/master.m3u8", prefix: "cases/\(c)/missing-ad/", duration: g.A, fails: true)
    }

    /// An X-ASSET-URI interstitial (number `number` of its case: `break-<n>`, asset `ad-<n>`).
    private static func mid(_ c: String, _ g: BehaviourGeometry, at start: Double, number: Int = 1, resumeOffset: Double? = nil,
                            playoutLimit: Double? = nil, cue: [String] = [], restrict: [String] = [], snap: [String] = [],
                            timelineOccupies: String? = nil) -> LabBehaviourInterstitial {
        LabBehaviourInterstitial(id: "break-\(number)", start: start, duration: g.A, assets: [ad(c, number, g)],
                                 resumeOffset: resumeOffset.map(ms), playoutLimit: playoutLimit.map(ms), cue: cue, restrict: restrict,
                                 snap: snap, timelineOccupies: timelineOccupies)
    }

    /// An X-ASSET-LIST interstitial: `cases/<c>/list-<n>.json` lists `assets`; DURATION is their sum
    /// unless given (an empty or failing list schedules one ad's duration).
    private static func listed(_ c: String, _ g: BehaviourGeometry, at start: Double, assets: [LabBehaviourAsset],
                               duration: Double? = nil, resumeOffset: Double? = nil, number: Int = 1) -> LabBehaviourInterstitial {
        LabBehaviourInterstitial(id: "break-\(number)", start: start, duration: ms(duration ?? assets.reduce(0) { $0 + $1.duration }),
                                 assets: assets, assetList: "cases/\(c)/list-\(number).json", resumeOffset: resumeOffset.map(ms))
    }

    private static func played(_ i: LabBehaviourInterstitial) -> LabExpectation {
        LabExpectation(.played, interstitial: i.id, because: "Appendix D: playback reaching START-DATE plays the interstitial's assets")
    }

    private static func resumes(_ i: LabBehaviourInterstitial, because: String) -> LabExpectation {
        LabExpectation(.resumesAt, interstitial: i.id, seconds: ms(i.expectedResume), because: because)
    }

    private static func inOrder(_ i: LabBehaviourInterstitial, because: String) -> LabExpectation {
        LabExpectation(.assetsInOrder, interstitial: i.id, because: because)
    }
}
