import Foundation
@testable import HLS
import XCTest

/// X-CUE, the pre-standard CUE: scheduled as hls.js and Media3 schedule it, when CUE is absent.
final class XCueTests: XCTestCase {
    func playlist(_ attributes: String) throws -> MediaPlaylist {
        let text = """
            #EXTM3U
            #EXT-X-TARGETDURATION:6
            #EXT-X-PLAYLIST-TYPE:VOD
            #EXT-X-PROGRAM-DATE-TIME:2020-01-02T21:55:40.000Z
            #EXTINF:6,
            main0.ts
            #EXTINF:6,
            main1.ts
            #EXT-X-DATERANGE:ID="ad1",CLASS="com.apple.hls.interstitial",START-DATE="2020-01-02T21:55:44.000Z",\(attributes),X-ASSET-URI="https://ads.example/ad1.m3u8"
            #EXT-X-ENDLIST

            """
        return try XCTUnwrap(try PlaylistParser.parse(text).playlist.media)
    }

    func testXCueAloneSchedulesAPreRollAndSaysWhereItCameFrom() throws {
        let media = try playlist("X-CUE=\"PRE\"")
        let interstitial = try XCTUnwrap(media.dateRanges.first?.interstitial)
        XCTAssertTrue(interstitial.cueFromXCue)
        XCTAssertNil(interstitial.vendorAttributes["X-CUE"])
        XCTAssertEqual(InterstitialSchedule(primary: media).entries.first?.placement, .preRoll)
    }

    func testCueWinsOverXCue() throws {
        let media = try playlist("CUE=\"POST\",X-CUE=\"PRE\"")
        let interstitial = try XCTUnwrap(media.dateRanges.first?.interstitial)
        XCTAssertFalse(interstitial.cueFromXCue)
        XCTAssertEqual(InterstitialSchedule(primary: media).entries.first?.placement, .postRoll)
    }
}
