import Foundation
import XCTest
@testable import LabCore
@testable import LabRun
@testable import LabServer

/// The picture's own finding in a cell: an ad the receiver says it played but nobody saw.
final class PictureMeasurementTests: XCTestCase {
    func picture(seen: [String], result: String = "measured", unreadable: Int = 0) -> PictureMeasurement {
        var picture = PictureMeasurement(result: result, input: "x11grab::0")
        picture.streamsSeen = seen
        picture.unreadableFrames = unreadable
        return picture
    }

    func testAnAdPlayedByTheProtocolButNeverOnScreenIsNoted() throws {
        // Kodi and an HEVC ad: its position ran through the ad, the screen showed only the primary.
        var never = picture(seen: ["primary"], unreadable: 64)
        never.noteAdNeverShown(playedThroughAd: true)
        let note = try XCTUnwrap(never.notes.last)
        XCTAssertTrue(note.hasPrefix("no frame of the ad was seen on screen"), note)
        XCTAssertTrue(note.contains("64 frames on screen could not be read"), note)
    }

    func testNoNoteWhenTheAdWasSeenNotPlayedOrNothingWasRead() {
        for (name, seen, played, result) in [("seen", ["primary", "ad of video-codec-hevc"], true, "measured"),
                                             ("not played through", ["primary"], false, "measured"),
                                             ("no codes at all", [], true, "noFrameCodes"),
                                             ("capture failed", [], true, "failed")] {
            var measured = picture(seen: seen, result: result)
            measured.noteAdNeverShown(playedThroughAd: played)
            XCTAssertEqual(measured.notes, [], name)
        }
    }

    func testAPictureStoredBeforeTheseFieldsStillDecodes() throws {
        let old = #"{"result":"measured","input":"x11grab::0","transitions":[],"freezes":[],"notes":[]}"#
        let decoded = try JSONDecoder().decode(PictureMeasurement.self, from: Data(old.utf8))
        XCTAssertNil(decoded.streamsSeen)
    }
}
