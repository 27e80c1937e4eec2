import AirPlayModel
import Foundation

/// One example of a behaviour rule: a small case, a session written as a sketch, and what the
/// rule's check (and, when given, the whole judgement) must say about it.
///
/// The sketch is tokens one second apart: `m` the case's master playlist, `p2` primary segment 2,
/// `ad-1` the asset's master playlist, `ad-1:0` its segment 0, anything else a path in the case
/// folder (`list-1.json`); `?query` adds a query, a trailing `!` makes the answer 404. For a `lab
/// run` cell: `scrub=9` and `rate=2` are commands the sender sent, `~2` a playback report at rate 2.
public struct BehaviourExample: Sendable {
    public let name: String
    public let preset: Preset
    public let sketch: String
    /// The check's outcome for the rule's expectation kind.
    public let outcome: BehaviourOutcome
    /// The whole judgement's outcome, when it differs from the check's.
    public let overall: BehaviourOutcome?

    public init(_ name: String, _ preset: Preset, _ sketch: String, _ outcome: BehaviourOutcome, overall: BehaviourOutcome? = nil) {
        self.name = name
        self.preset = preset
        self.sketch = sketch
        self.outcome = outcome
        self.overall = overall
    }

    /// The examples' primary: 6 segments of 2 s.
    public static let timeline = (0..<6).map { LabSegment(file: String(format: "seg_%03d.m4s", $0), start: Double($0) * 2, duration: 2) }
    public static let caseId = "behaviour-example"
    static let base = Date(timeIntervalSince1970: 1_800_000_000)

    /// The example's case.
    public var labCase: LabCase { Self.labCase(preset.behaviour) }

    public static func labCase(_ behaviour: LabBehaviour, id: String = caseId) -> LabCase {
        LabCase(id: id, kind: .behaviour, varies: "none", title: behaviour.title, rules: [], playlist: "cases/\(id)/master.m3u8",
                primary: LabMedia(duration: 12), variants: [], behaviour: behaviour)
    }

    /// The sketch's requests, from `client`, for the preset played as case `caseId`, from `start`.
    public func requests(client: String = "127.0.0.2", caseId: String = caseId, start: Date? = nil) -> [LabRequestRecord] {
        let requests = Self.parse(sketch, caseId: caseId, client: client).requests
        guard let start else { return requests }
        return requests.map { var r = $0; r.at = start.addingTimeInterval(r.at.timeIntervalSince(Self.base)); return r }
    }

    /// The sketch's playback series, when it has a command or a report (a `lab run` cell).
    public var series: PlaybackSeries? { Self.parse(sketch, caseId: Self.caseId, client: "").series }

    public func judge() -> BehaviourJudgement? {
        BehaviourJudge.judge(case: labCase, primaryTimeline: Self.timeline, requests: requests(), series: series)
    }

    static func parse(_ sketch: String, caseId: String, client: String) -> (requests: [LabRequestRecord], series: PlaybackSeries?) {
        let folder = "/cases/\(caseId)/"
        var requests: [LabRequestRecord] = [], samples: [PlaybackSample] = [], commands: [SentCommand] = []
        for (second, token) in sketch.split(separator: " ").map(String.init).enumerated() {
            let at = base.addingTimeInterval(Double(second)), ms = Double(second) * 1000
            if token.hasPrefix("scrub=") || token.hasPrefix("rate=") {
                let parts = token.split(separator: "=")
                commands.append(SentCommand(kind: parts[0] == "scrub" ? .scrub : .rate, atMs: ms, value: Double(parts[1])))
                continue
            }
            if token.hasPrefix("~") {
                samples.append(PlaybackSample(atMs: ms, info: PlaybackInfo(duration: 12, position: 4, rate: Double(token.dropFirst()))))
                continue
            }
            var text = token
            let failed = text.hasSuffix("!")
            if failed { text.removeLast() }
            let pieces = text.split(separator: "?", maxSplits: 1).map(String.init)
            let name = pieces[0]
            let path: String
            if name == "m" {
                path = "master.m3u8"
            } else if name.hasPrefix("p"), let n = Int(name.dropFirst()) {
                path = String(format: "primary/seg_%03d.m4s", n)
            } else if name.hasPrefix("ad-") {
                let parts = name.split(separator: ":")
                path = parts.count == 2 ? "\(parts[0])/" + String(format: "seg_%03d.m4s", Int(parts[1]) ?? 0) : "\(name)/master.m3u8"
            } else {
                path = name
            }
            requests.append(LabRequestRecord(at: at, client: client, method: "GET", path: folder + path, query: pieces.count > 1 ? pieces[1] : nil,
                                             status: failed ? 404 : 200, bytes: failed ? 0 : 1000, durationMs: 5, caseId: caseId))
        }
        let series = samples.isEmpty && commands.isEmpty ? nil
            : PlaybackSeries(playSentAt: base, pollIntervalMs: 1000, samples: samples,
                             commands: [SentCommand(kind: .play, atMs: 0, value: 0)] + commands)
        return (requests, series)
    }
}

extension BehaviourExample {
    /// The small cases the examples play (positions for the examples' 2 s segments).
    public enum Preset: Sendable {
        case midRoll, emptyList, failingAsset, playoutLimit, preRoll, postRoll, once, jump, skip, twoBreaks, liveJoin, snap

        public var behaviour: LabBehaviour { behaviour(in: BehaviourExample.caseId) }

        /// The preset as case `caseId` (its assets under `cases/<caseId>/`).
        public func behaviour(in caseId: String) -> LabBehaviour {
            func asset(_ n: Int, fails: Bool = false, folder: String? = nil) -> LabBehaviourAsset {
                let name = folder ?? "ad-\(n)"
                return LabBehaviourAsset(playlist: "cases/\(caseId)/\(name)/master.m3u8", prefix: "cases/\(caseId)/\(name)/",
                                         duration: 4, fails: fails)
            }
            func list(_ n: Int) -> String { "cases/\(caseId)/list-\(n).json" }
            typealias I = LabBehaviourInterstitial
            typealias E = LabExpectation
            let because = "draft-pantos-hls-rfc8216bis-22 Appendix D"
            func make(_ feature: String, _ interstitials: [I], _ expectations: [E], live: LabLiveWindow? = nil,
                      commands: [LabScriptedCommand] = []) -> LabBehaviour {
                LabBehaviour(feature: feature, title: feature, live: live, interstitials: interstitials, commands: commands,
                             expectations: expectations)
            }
            let ad = I(id: "ad", start: 4, duration: 4, assets: [asset(1)], resumeOffset: 0)
            switch self {
            case .midRoll:
                return make("resume-offset-zero", [ad], [E(.played, interstitial: "ad", because: because),
                                                         E(.resumesAt, interstitial: "ad", seconds: 4, because: because)])
            case .emptyList:
                let empty = I(id: "ad", start: 4, duration: 4, assets: [], assetList: list(1))
                return make("asset-list-empty", [empty], [E(.notPlayed, interstitial: "ad", because: because),
                                                          E(.resumesAt, interstitial: "ad", seconds: 4, because: because)])
            case .failingAsset:
                let three = I(id: "ad", start: 4, duration: 8, assets: [asset(1), asset(2, fails: true, folder: "missing-ad"), asset(3)],
                              assetList: list(1), resumeOffset: 0)
                return make("asset-list-failed-asset", [three], [E(.played, interstitial: "ad", because: because),
                                                                 E(.assetsInOrder, interstitial: "ad", because: because),
                                                                 E(.resumesAt, interstitial: "ad", seconds: 4, because: because)])
            case .playoutLimit:
                let limited = I(id: "ad", start: 4, duration: 4, assets: [asset(1)], playoutLimit: 2)
                return make("playout-limit", [limited], [E(.played, interstitial: "ad", because: because),
                                                         E(.playedAtMost, interstitial: "ad", seconds: 2, because: because),
                                                         E(.resumesAt, interstitial: "ad", seconds: 6, because: because)])
            case .preRoll:
                let pre = I(id: "ad", start: 4, duration: 4, assets: [asset(1)], resumeOffset: 0, cue: ["PRE"])
                return make("cue-pre", [pre], [E(.beforePrimary, interstitial: "ad", because: because),
                                               E(.resumesAt, interstitial: "ad", seconds: 0, because: because)])
            case .postRoll:
                let post = I(id: "ad", start: 4, duration: 4, assets: [asset(1)], cue: ["POST"])
                return make("cue-post", [post], [E(.afterPrimary, interstitial: "ad", because: because)])
            case .once:
                let once = I(id: "ad", start: 4, duration: 4, assets: [asset(1)], resumeOffset: 0, cue: ["ONCE"])
                return make("cue-once", [once], [E(.played, interstitial: "ad", because: because), E(.playedOnce, interstitial: "ad", because: because)],
                            commands: [LabScriptedCommand(kind: .scrub, after: 10, value: 2)])
            case .jump:
                let jump = I(id: "ad", start: 6, duration: 4, assets: [asset(1)], resumeOffset: 0, restrict: ["JUMP"])
                return make("restrict-jump", [jump], [E(.played, interstitial: "ad", because: because),
                                                      E(.playedBeforeSeekTarget, interstitial: "ad", seconds: 9, because: because)],
                            commands: [LabScriptedCommand(kind: .scrub, after: 1, value: 9)])
            case .skip:
                let skip = I(id: "ad", start: 4, duration: 4, assets: [asset(1)], resumeOffset: 0, restrict: ["SKIP"])
                return make("restrict-skip", [skip], [E(.played, interstitial: "ad", because: because), E(.rateHeld, interstitial: "ad", because: because),
                                                      E(.resumesAt, interstitial: "ad", seconds: 4, because: because)],
                            commands: [LabScriptedCommand(kind: .rate, after: 5, value: 2)])
            case .twoBreaks:
                let first = I(id: "ad-uri", start: 2, duration: 4, assets: [asset(1)], resumeOffset: 0)
                let second = I(id: "ad-list", start: 6, duration: 4, assets: [asset(2)], assetList: list(2), resumeOffset: 0)
                return make("primary-id", [first, second], [E(.played, interstitial: "ad-uri", because: because),
                                                            E(.played, interstitial: "ad-list", because: because),
                                                            E(.primaryIdConstant, because: because)])
            case .liveJoin:
                let join = I(id: "ad", start: 4, duration: 4, assets: [asset(1)], assetList: list(1))
                return make("live-join-start-offset", [join], [E(.startOffset, interstitial: "ad", seconds: 1, tolerance: 0.25, because: because),
                                                               E(.played, interstitial: "ad", because: because),
                                                               E(.resumesAt, interstitial: "ad", seconds: 8, because: because)],
                            live: LabLiveWindow(joinEdge: 8, startOffset: -3))
            case .snap:
                let snap = I(id: "ad", start: 4.6, duration: 4, assets: [asset(1)], snap: ["OUT", "IN"])
                return make("snap-live", [snap], [E(.played, interstitial: "ad", because: because),
                                                  E(.leavesAtBoundary, interstitial: "ad", seconds: 4, because: because)],
                            live: LabLiveWindow(joinEdge: 4, startOffset: -2))
            }
        }
    }
}
