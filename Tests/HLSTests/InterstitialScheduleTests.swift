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
            ("{\"ASSETS\": {}}", .assetsNotAnArray),
            ("{\"ASSETS\": [{\"DURATION\": 5}]}", .invalidAsset(index: 0, reason: "has no \"URI\"")),
            ("{\"ASSETS\": [{\"URI\": \"u\", \"DURATION\": \"5\"}]}", .invalidAsset(index: 0, reason: "\"DURATION\" is not a number of seconds")),
            ("{\"ASSETS\": [{\"URI\": \"u\", \"DURATION\": true}]}", .invalidAsset(index: 0, reason: "\"DURATION\" is not a number of seconds")),
        ]
        for (text, expected) in bad {
            XCTAssertThrowsError(try AssetList.decode(Data(text.utf8)), text) { XCTAssertEqual($0 as? AssetListError, expected, text) }
        }
        XCTAssertThrowsError(try AssetList.decode(Data("ASSETS=1".utf8))) { error in
            guard case .notJSON? = error as? AssetListError else { return XCTFail("\(error)") }
        }
    }
}
