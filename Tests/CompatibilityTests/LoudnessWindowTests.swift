@testable import Compatibility
import Foundation
import HLS
import MediaProbe
import XCTest

/// Which programme segments loudness measures around a break, and how spans combine.
final class LoudnessWindowTests: XCTestCase {
    /// Twelve 2 s segments (24 s), no PROGRAM-DATE-TIME.
    static let programme: MediaPlaylist = {
        let text = "#EXTM3U\n#EXT-X-TARGETDURATION:2\n" + (0..<12).map { "#EXTINF:2.0,\nseg\($0).ts\n" }.joined() + "#EXT-X-ENDLIST\n"
        guard case .media(let playlist)? = try? PlaylistParser.parse(Data(text.utf8)).playlist else { fatalError("the programme playlist parses") }
        return playlist
    }()

    func windows(_ kind: InterstitialSchedule.Placement, at offset: Double?, resume: Double? = 0, seconds: Double = 10)
        -> (before: Range<Int>?, after: Range<Int>?, problem: String?) {
        LoudnessBreak(id: "b", kind: kind, startDate: nil, offset: offset, resumeDelta: resume).windows(in: Self.programme, seconds: seconds)
    }

    func testAMidRollOnABoundaryTakesTenSecondsOfWholeSegmentsEachSide() {
        let found = windows(.midRoll, at: 12)
        XCTAssertEqual(found.before, 1..<6)
        XCTAssertEqual(found.after, 6..<11)
        XCTAssertNil(found.problem)
    }

    func testNearTheStartOrTheEndTheWindowIsWhatTheProgrammeHas() {
        XCTAssertEqual(windows(.midRoll, at: 4).before, 0..<2)
        XCTAssertEqual(windows(.midRoll, at: 20).after, 10..<12)
        XCTAssertNil(windows(.midRoll, at: 0).before, "a mid-roll at 0 s has no programme before it")
    }

    func testABreakInsideASegmentCountsThatSegmentOnBothSides() {
        let found = windows(.midRoll, at: 7)
        XCTAssertEqual(found.before, 0..<4)
        XCTAssertEqual(found.after, 3..<8)
    }

    func testPreRollsHaveOnlyAfterAndPostRollsOnlyBefore() {
        let pre = windows(.preRoll, at: 0)
        XCTAssertNil(pre.before)
        XCTAssertEqual(pre.after, 0..<5)
        let post = windows(.postRoll, at: nil, resume: nil)
        XCTAssertEqual(post.before, 7..<12)
        XCTAssertNil(post.after)
    }

    func testTheAfterSideStartsWhereThePrimaryResumes() {
        XCTAssertEqual(windows(.midRoll, at: 6, resume: 4).after, 5..<10, "X-RESUME-OFFSET=4: the programme resumes at 10 s")
        XCTAssertEqual(windows(.midRoll, at: 6, resume: 4).before, 0..<3)
    }

    func testAMidRollWithoutAPlaceIsNotMeasuredAndSaysWhy() {
        let found = windows(.midRoll, at: nil)
        XCTAssertNil(found.before)
        XCTAssertNil(found.after)
        XCTAssertEqual(found.problem, "the break has no place on the programme's timeline (no EXT-X-PROGRAM-DATE-TIME)")
    }

    func testABreakOutsideTheSegmentsIsNotMeasuredAndSaysWhy() {
        for (offset, position) in [(-30.0, "30 s before the first segment listed"), (40, "at 40 s")] {
            let found = windows(.midRoll, at: offset)
            XCTAssertNil(found.before)
            XCTAssertNil(found.after)
            XCTAssertEqual(found.problem, "the break (\(position)) is outside the programme's segments (0-24.0 s)")
        }
    }

    func testTheRenditionsOwnProgramDateTimePlacesTheBreak() {
        var shifted = Self.programme
        let origin = Date(timeIntervalSince1970: 1_767_225_600)
        shifted.segments[0].programDateTime = origin.addingTimeInterval(-4)  // this rendition starts 4 s earlier
        let brk = LoudnessBreak(id: "b", kind: .midRoll, startDate: origin.addingTimeInterval(12), offset: 12, resumeDelta: 0)
        XCTAssertEqual(brk.windows(in: shifted, seconds: 10).after, 8..<12, "16 s into this rendition")
    }

    func testSpansCombineByTheirPowerWeightedByDuration() throws {
        XCTAssertEqual(try XCTUnwrap(SegmentsLoudness.combined([(-23, 6), (-23, 10)])), -23, accuracy: 1e-9)
        // Equal durations 12 LU apart: the mean power is (1 + 10^1.2) / 2 of the quieter one's.
        XCTAssertEqual(try XCTUnwrap(SegmentsLoudness.combined([(-23, 10), (-11, 10)])), -23 + 10 * log10((1 + pow(10, 1.2)) / 2), accuracy: 1e-9)
        XCTAssertNil(SegmentsLoudness.combined([]))
        XCTAssertNil(SegmentsLoudness.combined([(-23, 0)]))
    }
}
