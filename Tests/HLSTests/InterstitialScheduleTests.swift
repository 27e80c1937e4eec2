import Foundation
@testable import HLS
import XCTest

final class InterstitialScheduleTests: XCTestCase {
    private func media(_ text: String) throws -> MediaPlaylist {
        try XCTUnwrap(try PlaylistParser.parse(text).playlist.media)
    }

    func testSpecAd1ExamplePlaysFourSecondsInAndResumesWhereItLeftOff() throws {
        let playlist = try media(SeedPlaylists.specAd1)
        let interstitial = try XCTUnwrap(playlist.dateRanges.first?.interstitial)
        XCTAssertEqual(interstitial.assetURI, "http://example.com/ad1.m3u8")
        XCTAssertEqual(interstitial.resumeOffset, 0)
        XCTAssertTrue(interstitial.restrictsSkip)
        XCTAssertTrue(interstitial.restrictsJump)
        XCTAssertEqual(interstitial.vendorAttributes["X-COM-EXAMPLE-BEACON"], .decimal(123, text: "123"))
        XCTAssertEqual(interstitial.problems, [])

        let schedule = InterstitialSchedule(primary: playlist)
        XCTAssertEqual(schedule.entries.count, 1)
        let entry = schedule.entries[0]
        XCTAssertEqual(entry.placement, .midRoll)
        XCTAssertEqual(entry.offset, 4)
        XCTAssertEqual(entry.playedDuration, 15)
        XCTAssertEqual(entry.resumeOffset, 0)
        XCTAssertEqual(entry.resumesAt, 4)
        XCTAssertEqual(entry.restrictions, ["SKIP", "JUMP"])
        XCTAssertEqual(entry.onSegmentBoundary, false, "4 s is inside the 6 s segment")
    }

    func testWWDC23BackToBackPodPlaysInTagOrderWithCumulativeResumeOffsets() throws {
        let vod = InterstitialSchedule(primary: try media(SeedPlaylists.wwdc23Pod))
        XCTAssertEqual(vod.pods.count, 1)
        XCTAssertEqual(vod.pods[0].ids, ["ad1", "ad2"])
        XCTAssertEqual(vod.pods[0].offset, 5)
        XCTAssertEqual(vod.entries.map(\.positionInPod), [0, 1])
        XCTAssertEqual(vod.entries.map(\.restrictions), [["SKIP"], []])
        XCTAssertEqual(vod.pods[0].resumesAt, 5, "VOD: X-RESUME-OFFSET=0 twice resumes where it left off")

        let live = InterstitialSchedule(primary: try media(SeedPlaylists.wwdc23PodLive))
        XCTAssertEqual(live.entries.map(\.resumeOffsetIsExplicit), [false, false])
        XCTAssertEqual(live.entries.map(\.resumesAt), [15, 25], "live: each ad's played duration is added")
        XCTAssertEqual(live.pods[0].resumeOffset, 20)
    }

    func testCuePreRollsComeFirstAndPostRollsLastWhateverTheirStartDate() throws {
        let schedule = InterstitialSchedule(primary: try media(SeedPlaylists.cuePrePost), assetList: { interstitial in
            interstitial.id == "post" ? AssetList(assets: [.init(uri: "https://ads.example/p1.m3u8", duration: 6),
                                                          .init(uri: "https://ads.example/p2.m3u8", duration: 9)], skipControl: nil) : nil
        })
        XCTAssertEqual(schedule.entries.map(\.id), ["pre", "rating", "post"])
        XCTAssertEqual(schedule.entries.map(\.placement), [.preRoll, .midRoll, .postRoll])
        XCTAssertEqual(schedule.entries.map(\.offset), [0, 20, 30])
        XCTAssertEqual(schedule.entries[1].playsOnce, true)
        XCTAssertEqual(schedule.entries[1].snap, ["OUT", "IN"])
        XCTAssertEqual(schedule.entries[1].onSegmentBoundary, true)
        XCTAssertEqual(schedule.entries[2].assets.map(\.duration), [6, 9])
        XCTAssertEqual(schedule.entries[2].playedDuration, 15, "the asset list's durations add up")
        XCTAssertEqual(schedule.entries[0].resumesAt, 0)
    }

    func testWWDC24TimelineAttributesAreTyped() throws {
        let playlist = try media(SeedPlaylists.timelineAttributes)
        let point = try XCTUnwrap(playlist.dateRanges[0].interstitial)
        let fill = try XCTUnwrap(playlist.dateRanges[1].interstitial)
        XCTAssertEqual(point.timelineOccupies, .point)
        XCTAssertEqual(point.timelineStyle, .highlight)
        XCTAssertNil(point.contentMayVary)
        XCTAssertTrue(point.effectiveContentMayVary)
        XCTAssertEqual(fill.timelineOccupies, .range)
        XCTAssertEqual(fill.timelineStyle, .primary)
        XCTAssertEqual(fill.contentMayVary, false)
        XCTAssertEqual(fill.skipControlOffset, 3)
        XCTAssertEqual(fill.skipControlDuration, 5)
        XCTAssertEqual(fill.skipControlLabelID, "SKIP_AD")
        let schedule = InterstitialSchedule(primary: playlist)
        XCTAssertEqual(schedule.entries.map(\.offset), [5, 10], "offsets across time zones: +02:00 and Z")
        XCTAssertEqual(schedule.entries[1].resumesAt, 20)
        XCTAssertNil(schedule.entries[0].playedDuration, "no DURATION and no asset list: unknown")
    }

    func testUnknownTokensAndWrongTypesAreProblemsNotSilentValues() throws {
        let text = """
            #EXTM3U
            #EXT-X-TARGETDURATION:6
            #EXT-X-PROGRAM-DATE-TIME:2020-01-02T21:55:40Z
            #EXTINF:6,
            a.ts
            #EXT-X-DATERANGE:ID="x",CLASS="com.apple.hls.interstitial",START-DATE="2020-01-02T21:55:44Z",X-ASSET-URI="https://a.example/x.m3u8",X-RESTRICT="SKIP,SEEK",CUE="PRE,PRE",X-PLAYOUT-LIMIT=-1,X-RESUME-OFFSET="0",X-TIMELINE-STYLE="BOLD",X-SKIP-CONTROL-LABEL-ID="skip 1"
            """
        let interstitial = try XCTUnwrap(try media(text).dateRanges.first?.interstitial)
        XCTAssertEqual(interstitial.restrict?.tokens, [.skip])
        XCTAssertEqual(interstitial.restrict?.unknown, ["SEEK"])
        XCTAssertNil(interstitial.playoutLimit)
        XCTAssertNil(interstitial.resumeOffset)
        XCTAssertEqual(Set(interstitial.problems.map(\.attribute)),
                       ["X-RESTRICT", "CUE", "X-PLAYOUT-LIMIT", "X-RESUME-OFFSET", "X-TIMELINE-STYLE", "X-SKIP-CONTROL-LABEL-ID"])
        // In a fixed order, whatever the dictionary's: CUE's first, then by attribute name, each
        // attribute's own in the order found (X-SNAP: unknown tokens, then repeated ones).
        let many = try XCTUnwrap(try media(text.replacingOccurrences(of: "X-RESTRICT=\"SKIP,SEEK\"",
                                                                     with: "X-RESTRICT=\"SKIP,SEEK\",X-SNAP=\"OUT,UP,OUT\",X-CONTENT-MAY-VARY=\"MAYBE\",X-ASSET-LIST=1"))
            .dateRanges.first?.interstitial)
        XCTAssertEqual(many.problems.map(\.attribute), ["CUE", "X-ASSET-LIST", "X-CONTENT-MAY-VARY", "X-PLAYOUT-LIMIT", "X-RESTRICT",
                                                        "X-RESUME-OFFSET", "X-SKIP-CONTROL-LABEL-ID", "X-SNAP", "X-SNAP", "X-TIMELINE-STYLE"])
        XCTAssertEqual(many.problems.filter { $0.attribute == "X-SNAP" }.map(\.kind),
                       [.unknownTokens(["UP"], allowed: ["OUT", "IN"]), .repeatedTokens(["OUT"])])
    }

    func testAssetListsDecodeStrictly() throws {
        let good = try AssetList.decode(Data("""
            {"ASSETS": [{"URI": "https://a.example/1.m3u8", "DURATION": 15}, {"URI": "https://a.example/2.m3u8", "DURATION": 10.5, "X-VENDOR": 1}],
             "SKIP-CONTROL": {"OFFSET": 5, "DURATION": 10, "LABEL-ID": "SKIP"}}
            """.utf8))
        XCTAssertEqual(good.totalDuration, 25.5)
        XCTAssertEqual(good.skipControl, AssetList.SkipControl(offset: 5, duration: 10, labelID: "SKIP"))
        let bad: [(String, AssetListError)] = [
            ("<html><body>500</body></html>", .html),
            ("[1, 2]", .notAnObject),
            ("{\"assets\": []}", .missingAssets(caseMismatch: "assets")),
            ("{\"ASSETS\": {}}", .assetsNotAnArray("{}")),
            ("{\"ASSETS\": \"ad.m3u8\"}", .assetsNotAnArray("\"ad.m3u8\"")),
        ]
        for (text, expected) in bad {
            XCTAssertThrowsError(try AssetList.decode(Data(text.utf8)), text) { XCTAssertEqual($0 as? AssetListError, expected, text) }
        }
        XCTAssertThrowsError(try AssetList.decode(Data("ASSETS=1".utf8))) { error in
            guard case .notJSON? = error as? AssetListError else { return XCTFail("\(error)") }
        }
    }

    /// One wrong value is scheduled as players do: a numeric string read as the number, a bad
    /// entry skipped and the others kept, a bad SKIP-CONTROL value ignored; each named precisely.
    func testAssetListValueTypesAreProblemsScheduledAsPlayersDo() throws {
        func decode(_ text: String) throws -> AssetList { try AssetList.decode(Data(text.utf8)) }
        let cases: [(entry: String, kept: Double?, problem: String, outcome: AssetListProblem.Outcome)] = [
            ("{\"URI\": \"u\", \"DURATION\": \"30\"}", 30, "ASSETS[1] \"DURATION\": \"30\" is a string, not a number", .readAsNumber),
            ("{\"URI\": \"u\", \"DURATION\": \" 7.5 \"}", 7.5, "ASSETS[1] \"DURATION\": \" 7.5 \" is a string", .readAsNumber),
            ("{\"URI\": \"u\", \"DURATION\": -5}", nil, "ASSETS[1] \"DURATION\": -5 is negative", .assetSkipped),
            ("{\"URI\": \"u\", \"DURATION\": \"-5\"}", nil, "ASSETS[1] \"DURATION\": \"-5\" is negative", .assetSkipped),
            ("{\"URI\": \"u\", \"DURATION\": 1e400}", nil, "ASSETS[1] \"DURATION\": 1e400 is beyond any finite number", .assetSkipped),
            ("{\"URI\": \"u\", \"DURATION\": \"thirty\"}", nil, "ASSETS[1] \"DURATION\": \"thirty\" is a string, not a number of seconds", .assetSkipped),
            ("{\"URI\": \"u\", \"DURATION\": true}", nil, "ASSETS[1] \"DURATION\": true is a boolean", .assetSkipped),
            ("{\"URI\": \"u\", \"DURATION\": null}", nil, "ASSETS[1] \"DURATION\": null is null", .assetSkipped),
            ("{\"URI\": 42, \"DURATION\": 5}", nil, "ASSETS[1] \"URI\": 42 is a number, not a string", .assetSkipped),
            ("{\"URI\": [\"u\"], \"DURATION\": 5}", nil, "ASSETS[1] \"URI\": [\"u\"] is an array, not a string", .assetSkipped),
            ("{\"uri\": \"u\", \"DURATION\": 5}", nil, "ASSETS[1] \"URI\" is missing (found \"uri\": keys are case-sensitive)", .assetSkipped),
            ("{\"URI\": \"u\", \"Duration\": 5}", nil, "ASSETS[1] \"DURATION\" is missing (found \"Duration\"", .assetSkipped),
            ("{\"DURATION\": 5}", nil, "ASSETS[1] \"URI\" is missing", .assetSkipped),
            ("\"https://a.example/2.m3u8\"", nil, "ASSETS[1]: \"https://a.example/2.m3u8\" is not a JSON object", .assetSkipped),
        ]
        for (entry, kept, problem, outcome) in cases {
            let list = try decode("{\"ASSETS\": [{\"URI\": \"https://a.example/1.m3u8\", \"DURATION\": 10}, \(entry), {\"URI\": \"https://a.example/3.m3u8\", \"DURATION\": 5}]}")
            XCTAssertEqual(list.assets.map(\.index), kept == nil ? [0, 2] : [0, 1, 2], entry)
            XCTAssertEqual(list.totalDuration, 15 + (kept ?? 0), entry)
            XCTAssertEqual(list.problems.last?.outcome, outcome, entry)
            XCTAssertTrue(list.problems.last?.description.hasPrefix(problem) ?? false, "\(entry): \(list.problems.map(\.description))")
        }
        let skip = try decode("{\"ASSETS\": [], \"SKIP-CONTROL\": {\"OFFSET\": \"five\", \"DURATION\": 2.5, \"LABEL-ID\": 3, \"offset\": 1}}")
        XCTAssertEqual(skip.skipControl, AssetList.SkipControl(offset: nil, duration: 2.5, labelID: nil))
        XCTAssertEqual(skip.problems.map(\.key), ["SKIP-CONTROL.OFFSET", "SKIP-CONTROL.DURATION", "SKIP-CONTROL.LABEL-ID", "SKIP-CONTROL.offset"])
        XCTAssertEqual(skip.problems.map(\.outcome), [.ignored, .readAsNumber, .ignored, .ignored])
        let notObject = try decode("{\"ASSETS\": [], \"SKIP-CONTROL\": [5]}")
        XCTAssertNil(notObject.skipControl)
        XCTAssertEqual(notObject.problems.map(\.description), ["\"SKIP-CONTROL\": [5] is an array, not an object"])
        XCTAssertEqual(try decode("{\"ASSETS\": [], \"skip-control\": {\"OFFSET\": 5}}").problems.map(\.key), ["skip-control"])
    }

    /// The asset list's SKIP-CONTROL overrides the tag's X-SKIP-CONTROL-* key by key.
    func testAssetListSkipControlOverridesTheTagKeyByKey() throws {
        let text = """
            #EXTM3U
            #EXT-X-TARGETDURATION:6
            #EXT-X-PROGRAM-DATE-TIME:2020-01-02T21:55:40.000Z
            #EXTINF:6,
            a.ts
            #EXT-X-DATERANGE:ID="ad1",CLASS="com.apple.hls.interstitial",START-DATE="2020-01-02T21:55:46Z",X-ASSET-LIST="l.json",X-SKIP-CONTROL-OFFSET=3,X-SKIP-CONTROL-DURATION=8,X-SKIP-CONTROL-LABEL-ID="TAG"
            #EXT-X-ENDLIST
            """
        let playlist = try media(text)
        func entry(_ json: String) throws -> InterstitialSchedule.Entry {
            let list = try AssetList.decode(Data(json.utf8))
            return try XCTUnwrap(InterstitialSchedule(primary: playlist, assetList: { _ in list }).entries.first)
        }
        let overridden = try entry("{\"ASSETS\": [{\"URI\": \"https://a.example/1.m3u8\", \"DURATION\": 10}], \"SKIP-CONTROL\": {\"OFFSET\": 5, \"LABEL-ID\": \"LIST\"}}")
        XCTAssertEqual(overridden.skipControl, AssetList.SkipControl(offset: 5, duration: 8, labelID: "LIST"))
        XCTAssertEqual(overridden.skipControlFromAssetList, ["OFFSET", "LABEL-ID"])
        let ignored = try entry("{\"ASSETS\": [], \"SKIP-CONTROL\": {\"OFFSET\": \"x\"}}")
        XCTAssertEqual(ignored.skipControl, AssetList.SkipControl(offset: 3, duration: 8, labelID: "TAG"))
        XCTAssertEqual(ignored.skipControlFromAssetList, [])
        XCTAssertEqual(ignored.assetListProblems.map(\.key), ["SKIP-CONTROL.OFFSET"])
        let stringDuration = try entry("{\"ASSETS\": [{\"URI\": \"https://a.example/1.m3u8\", \"DURATION\": \"30\"}]}")
        XCTAssertEqual(stringDuration.playedDuration, 30)
        XCTAssertEqual(stringDuration.resumesAt, 36)
    }
}
