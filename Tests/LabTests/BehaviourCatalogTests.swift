import Foundation
import HLS
import XCTest
@testable import LabCore
@testable import LabRun
@testable import LabServer

/// The behaviour cases as data, at the scales' round numbers (the design's table for issue 22):
/// where each interstitial sits, what it states, the sender's commands and the expectations.
final class BehaviourCatalogTests: XCTestCase {
    func behaviours(_ scale: LabScale) -> [String: LabBehaviour] {
        Dictionary(uniqueKeysWithValues: BehaviourCatalog.entries.map {
            ($0.feature, BehaviourCatalog.behaviour($0, geometry: .nominal(scale)))
        })
    }

    /// The table's resume points (small: d = 2, A = 4, s(k) = 2k) for every case that has one.
    static let smallResumes: [String: Double] = [
        "resume-offset-absent": 8, "resume-offset-zero": 4, "resume-offset-positive": 6, "resume-offset-live": 10,
        "playout-limit": 6, "cue-pre": 0, "asset-list-multiple": 4, "asset-list-empty": 4, "asset-list-failed-asset": 4,
        "asset-list-failed": 4, "live-join-start-offset": 8, "restrict-skip": 4, "timeline-range": 8,
    ]

    func testTheCatalogHasTheNineteenFeaturesAsBehaviourCasesThatEncodeNothing() {
        let features = BehaviourCatalog.entries.map(\.feature)
        XCTAssertEqual(features, [
            "resume-offset-absent", "resume-offset-zero", "resume-offset-positive", "resume-offset-live", "playout-limit",
            "cue-pre", "cue-post", "cue-once", "live-preroll", "asset-list-multiple", "asset-list-empty",
            "asset-list-failed-asset", "asset-list-failed", "primary-id", "live-join-start-offset", "restrict-jump",
            "restrict-skip", "snap-live", "timeline-range",
        ])
        let cases = LabCatalog.cases.filter { $0.kind == .behaviour }
        XCTAssertEqual(cases.map(\.id), features.map { "behaviour-" + $0 })
        XCTAssertEqual(cases.map(\.varies), features)
        XCTAssertTrue(cases.allSatisfy { $0.rules.isEmpty && $0.interstitial == nil && $0.behaviour != nil })
        // No encode of their own: the stream numbering is the one without them.
        let plans = LabStreamPlans.all(scale: .small)
        XCTAssertFalse(plans.contains { $0.stream.caseId.hasPrefix("behaviour-") })
        XCTAssertEqual(LabStreamsGenerator(scale: .small).jobs(for: cases[0]).map(\.folder), ["cases/control/ad"])
    }

    func testEveryResumePointIsTheTablesAndComesFromExpectedResume() throws {
        let all = behaviours(.small)
        for (feature, behaviour) in all {
            let first = try XCTUnwrap(behaviour.interstitials.first, feature)
            let resumes = behaviour.expectations.filter { $0.kind == .resumesAt }
            if let expected = Self.smallResumes[feature] {
                XCTAssertEqual(first.expectedResume, expected, accuracy: 0.0005, feature)
                XCTAssertEqual(resumes.map(\.seconds), [expected], feature)
            } else {
                XCTAssertEqual(resumes, [], "\(feature): the table expects no resume point")
            }
            XCTAssertTrue(behaviour.expectations.allSatisfy { !$0.because.isEmpty }, feature)
            XCTAssertEqual(behaviour.needs, ["video"])
        }
        XCTAssertEqual(Set(all.keys).subtracting(Self.smallResumes.keys),
                       ["cue-post", "cue-once", "live-preroll", "primary-id", "restrict-jump", "snap-live"])
    }

    func testPositionsCommandsAndLiveWindowsFollowTheTable() throws {
        let all = behaviours(.small)
        func first(_ feature: String) throws -> LabBehaviourInterstitial { try XCTUnwrap(all[feature]?.interstitials.first) }
        XCTAssertEqual(try first("restrict-jump").start, 6)
        XCTAssertEqual(try first("snap-live").start, 4.6, accuracy: 0.0005)
        XCTAssertEqual(try first("live-preroll").start, 0, "the break ends before the join: only CUE=PRE plays it")
        XCTAssertEqual(all["primary-id"]?.interstitials.map(\.start), [2, 6])
        XCTAssertEqual(all["primary-id"]?.interstitials.map(\.assetList), [nil, "cases/behaviour-primary-id/list-2.json"])
        XCTAssertEqual(try first("playout-limit").playoutLimit, 2)
        XCTAssertEqual(try first("asset-list-multiple").duration, 8, "DURATION 2A")

        XCTAssertEqual(all["cue-once"]?.commands, [LabScriptedCommand(kind: .scrub, after: 10, atPosition: 6, value: 2)])
        XCTAssertEqual(all["restrict-jump"]?.commands, [LabScriptedCommand(kind: .scrub, after: 1, atPosition: 1, value: 9)])
        XCTAssertEqual(all["restrict-skip"]?.commands, [LabScriptedCommand(kind: .rate, after: 5, atPosition: 4, value: 2)])

        XCTAssertEqual(all["resume-offset-live"]?.live, LabLiveWindow(joinEdge: 4, startOffset: -2))
        XCTAssertEqual(all["live-preroll"]?.live, LabLiveWindow(joinEdge: 8, startOffset: -2))
        XCTAssertEqual(all["live-join-start-offset"]?.live, LabLiveWindow(joinEdge: 8, startOffset: -3))
        XCTAssertEqual(all["snap-live"]?.live, LabLiveWindow(joinEdge: 4, startOffset: -2))
        XCTAssertEqual(all.values.filter { $0.live != nil }.count, 4)

        let offset = try XCTUnwrap(all["live-join-start-offset"]?.expectations.first { $0.kind == .startOffset })
        XCTAssertEqual(offset.seconds, 1)
        XCTAssertEqual(offset.tolerance, 0.25)
        XCTAssertEqual(all["snap-live"]?.expectations.first { $0.kind == .leavesAtBoundary }?.seconds, 4)
        XCTAssertEqual(all["playout-limit"]?.expectations.first { $0.kind == .playedAtMost }?.seconds, 2)
        XCTAssertEqual(all["restrict-jump"]?.expectations.first { $0.kind == .playedBeforeSeekTarget }?.seconds, 9)
        XCTAssertEqual(all["primary-id"]?.expectations.map(\.kind), [.played, .played, .primaryIdConstant])
        XCTAssertNil(all["primary-id"]?.expectations.last?.interstitial, "session-wide")

        // Failing URIs: an asset with `fails`, a list with `assetListFails`.
        let failedAsset = try first("asset-list-failed-asset")
        XCTAssertEqual(failedAsset.assets.map(\.fails), [false, true, false])
        XCTAssertEqual(failedAsset.assets.map(\.prefix), ["cases/behaviour-asset-list-failed-asset/ad-1/",
                                                          "cases/behaviour-asset-list-failed-asset/missing-ad/",
                                                          "cases/behaviour-asset-list-failed-asset/ad-3/"])
        let failedList = try first("asset-list-failed")
        XCTAssertTrue(failedList.assetListFails)
        XCTAssertEqual(failedList.assetList, "cases/behaviour-asset-list-failed/missing-list.json")
    }

    func testTheFullScaleScalesEveryPosition() throws {
        let full = behaviours(.full)
        XCTAssertEqual(full["resume-offset-absent"]?.interstitials.first?.expectedResume, 24, "s(2) + A = 12 + 12")
        XCTAssertEqual(full["resume-offset-positive"]?.interstitials.first?.expectedResume, 18, "s(2) + d")
        XCTAssertEqual(full["resume-offset-live"]?.interstitials.first?.expectedResume, 30, "s(3) + A")
        XCTAssertEqual(full["live-join-start-offset"]?.expectations.first?.seconds, 3, "0.5d")
        XCTAssertEqual(full["live-join-start-offset"]?.live, LabLiveWindow(joinEdge: 24, startOffset: -9))
        XCTAssertEqual(full["cue-once"]?.commands.first, LabScriptedCommand(kind: .scrub, after: 30, atPosition: 18, value: 6))
        XCTAssertEqual(full["snap-live"]?.interstitials.first?.start ?? 0, 13.8, accuracy: 0.0005)
    }

    /// Each DATERANGE carries exactly the attributes its interstitial states, in the spec's spelling.
    func testTheDaterangesCarryExactlyTheStatedAttributes() throws {
        let expected: [String: [[String]]] = [
            "resume-offset-absent": [["X-ASSET-URI"]], "resume-offset-zero": [["X-ASSET-URI", "X-RESUME-OFFSET"]],
            "resume-offset-positive": [["X-ASSET-URI", "X-RESUME-OFFSET"]], "resume-offset-live": [["X-ASSET-URI"]],
            "playout-limit": [["X-ASSET-URI", "X-PLAYOUT-LIMIT"]], "cue-pre": [["X-ASSET-URI", "X-RESUME-OFFSET", "CUE"]],
            "cue-post": [["X-ASSET-URI", "CUE"]], "cue-once": [["X-ASSET-URI", "X-RESUME-OFFSET", "CUE"]],
            "live-preroll": [["X-ASSET-URI", "X-RESUME-OFFSET", "CUE"]], "asset-list-multiple": [["X-ASSET-LIST", "X-RESUME-OFFSET"]],
            "asset-list-empty": [["X-ASSET-LIST"]], "asset-list-failed-asset": [["X-ASSET-LIST", "X-RESUME-OFFSET"]],
            "asset-list-failed": [["X-ASSET-LIST"]],
            "primary-id": [["X-ASSET-URI", "X-RESUME-OFFSET"], ["X-ASSET-LIST", "X-RESUME-OFFSET"]],
            "live-join-start-offset": [["X-ASSET-LIST"]], "restrict-jump": [["X-ASSET-URI", "X-RESUME-OFFSET", "X-RESTRICT"]],
            "restrict-skip": [["X-ASSET-URI", "X-RESUME-OFFSET", "X-RESTRICT"]], "snap-live": [["X-ASSET-URI", "X-SNAP"]],
            "timeline-range": [["X-ASSET-URI", "X-TIMELINE-OCCUPIES"]],
        ]
        for (feature, behaviour) in behaviours(.small) {
            let names = behaviour.interstitials.map { interstitial -> [String] in
                let text = "#EXTM3U\n" + BehaviourPlaylists.daterange(interstitial) + "\n"
                return Array(Self.attributes(text).names.dropFirst(4))
            }
            XCTAssertEqual(names, expected[feature], feature)
        }
        let jump = try XCTUnwrap(behaviours(.small)["restrict-jump"]?.interstitials.first)
        let line = BehaviourPlaylists.daterange(jump)
        XCTAssertTrue(line.hasPrefix("#EXT-X-DATERANGE:ID=\"break-1\",CLASS=\"com.apple.hls.interstitial\",START-DATE=\"2026-01-01T00:00:06.000Z\",DURATION=4.000,"), line)
        XCTAssertTrue(line.contains("X-ASSET-URI=\"{LAB_ORIGIN}/cases/behaviour-restrict-jump/ad-1/master.m3u8?_HLS_interstitial_id=break-1\""), line)
        XCTAssertTrue(line.hasSuffix(",X-RESUME-OFFSET=0.000,X-RESTRICT=\"JUMP\""), line)
    }

    func testARequestForAFailingURIIsStillAnInterstitialRequest() {
        let labCase = LabCase(id: "behaviour-asset-list-failed-asset", kind: .behaviour, varies: "asset-list-failed-asset", title: "t",
                              rules: [], playlist: "cases/behaviour-asset-list-failed-asset/master.m3u8",
                              primary: LabMedia(duration: 12), variants: [])
        for path in ["/cases/behaviour-asset-list-failed-asset/ad-1/seg_000.m4s", "/cases/behaviour-asset-list-failed-asset/missing-ad/master.m3u8",
                     "/cases/behaviour-asset-list-failed-asset/list-1.json", "cases/behaviour-asset-list-failed-asset/missing-list.json"] {
            XCTAssertTrue(labCase.isInterstitialRequest(path), path)
        }
        for path in ["/cases/behaviour-asset-list-failed-asset/master.m3u8", "/cases/behaviour-asset-list-failed-asset/primary.m3u8",
                     "/cases/behaviour-asset-list-failed-asset/primary/seg_001.m4s", "/cases/behaviour-asset-list-failed-asset/",
                     "/cases/control/ad/seg_000.m4s", "/cases/behaviour-asset-list-failed-asset-x/ad-1/seg_000.m4s"] {
            XCTAssertFalse(labCase.isInterstitialRequest(path), path)
        }
    }

    static func attributes(_ text: String) -> AttributeList {
        let parsed = try? PlaylistParser.parse(text + "#EXTINF:2,\nseg.m4s\n")
        return parsed?.playlist.media?.dateRanges.first?.attributes ?? AttributeList()
    }
}
