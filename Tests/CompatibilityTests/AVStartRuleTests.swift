@testable import Compatibility
import Foundation
import MediaProbe
import XCTest

/// `av-start-misaligned`'s words against its numbers: audio before, with or after video, whatever
/// the sign, and nothing where a start is missing or is a live window's cut.
final class AVStartRuleTests: XCTestCase {
    /// Media whose audio starts `audio` seconds and whose video starts `video` seconds in (nil: no such track).
    func media(audio: Double?, video: Double? = 0, liveWindow: Bool? = nil) -> MediaDescription {
        var media = Example.media(video: video.map { var v = Example.video(); v.startTime = $0; return v },
                                  audio: audio.map { var a = Example.audio(); a.startTime = $0; return a })
        media.liveWindow = liveWindow
        return media
    }

    func evaluate(primary: MediaDescription = Example.media(), _ interstitial: MediaDescription, rendersVideo: Bool = true) -> Mismatch? {
        TimingRules.avStart.evaluate(TransitionContext(primary: primary, interstitial: interstitial, rendersVideo: rendersVideo))
    }

    func testRelationWordsFollowTheSign() {
        XCTAssertEqual(TimingRules.relation(0.2), "200 ms after")
        XCTAssertEqual(TimingRules.relation(-0.022), "22 ms before")
        XCTAssertEqual(TimingRules.relation(0), "with")
        XCTAssertEqual(TimingRules.relation(-0.0004), "with", "rounds to 0 ms: neither before nor after")
        XCTAssertEqual(TimingRules.relation(0.0006), "1 ms after")
    }

    func testNegativeZeroAndPositiveOffsetsOfTheAd() throws {
        let before = try XCTUnwrap(evaluate(media(audio: 1.3, video: 1.5)))
        XCTAssertEqual(before.message, "the interstitial's audio starts 200 ms before its video")
        XCTAssertEqual(before.actual, "audio starts 200 ms before video")
        XCTAssertEqual(before.expected, "audio starts with video (as in the primary)")

        let after = try XCTUnwrap(evaluate(media(audio: 0.2)))
        XCTAssertEqual(after.message, "the interstitial's audio starts 200 ms after its video")

        // The ad starts together; the VOD primary's audio leads by 200 ms: they differ, and both are named.
        let together = try XCTUnwrap(evaluate(primary: media(audio: -0.2), media(audio: 0)))
        XCTAssertEqual(together.message, "the interstitial's audio starts with its video; the primary's audio starts 200 ms before its video")
        XCTAssertEqual(together.expected, "audio starts 200 ms before video (as in the primary)")
        XCTAssertEqual(together.actual, "audio starts with video")

        let opposite = try XCTUnwrap(evaluate(primary: media(audio: -0.2), media(audio: 0.3)))
        XCTAssertEqual(opposite.message, "the interstitial's audio starts 300 ms after its video; the primary's audio starts 200 ms before its video")

        XCTAssertNil(evaluate(media(audio: -0.022)), "22 ms of lead is within tolerance")
        XCTAssertNil(evaluate(primary: media(audio: -0.022), media(audio: 0.021)), "43 ms apart: within tolerance")
    }

    func testMissingTracksOnEitherSide() {
        XCTAssertNil(evaluate(media(audio: nil, video: nil)), "both tracks missing: nothing to align")
        XCTAssertNil(evaluate(media(audio: 0.5, video: nil)), "no video")
        XCTAssertNil(evaluate(media(audio: nil, video: 0.5)), "no audio")
        XCTAssertNil(evaluate(media(audio: 0.5), rendersVideo: false), "an audio-only receiver")
        // A primary without a start to compare: the ad is held to its own alignment.
        XCTAssertNil(evaluate(primary: media(audio: nil, video: nil), media(audio: 0.03)))
        XCTAssertEqual(evaluate(primary: media(audio: nil, video: nil), media(audio: 0.3))?.expected, "audio starts with video (within 50 ms)")
    }

    func testALiveWindowIsNoStart() throws {
        // The live primary's cut has audio 125 ms ahead: a clean ad (21 ms of priming) is not compared with it.
        XCTAssertNil(evaluate(primary: media(audio: -0.125, liveWindow: true), media(audio: -0.021, liveWindow: false)))
        // The same primary as VOD: its start is a start, and the ad differs from it by 104 ms.
        XCTAssertNotNil(evaluate(primary: media(audio: -0.125, liveWindow: false), media(audio: -0.021, liveWindow: false)))
        // An ad that is late on its own fires against a live primary, with the ad's own numbers.
        let late = try XCTUnwrap(evaluate(primary: media(audio: -0.125, liveWindow: true), media(audio: 0.178)))
        XCTAssertEqual(late.message, "the interstitial's audio starts 178 ms after its video")
        XCTAssertEqual(late.expected, "audio starts with video (within 50 ms)")
        // A live ad's window (against the spec already: interstitial-not-vod) says nothing of its start.
        XCTAssertNil(evaluate(media(audio: 0.5, liveWindow: true)))
    }
}
