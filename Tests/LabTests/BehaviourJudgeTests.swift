import AirPlay
import Compatibility
import Foundation
import XCTest
@testable import LabCore
@testable import LabRun
@testable import LabServer

/// The judge on whole sessions: conforming sequences, each deviation's sentence, ignores, not
/// judged, not applicable, and the JSON spelling docs/interface.md fixes.
final class BehaviourJudgeTests: XCTestCase {
    typealias X = BehaviourExample

    private func judge(_ preset: X.Preset, _ sketch: String) throws -> BehaviourJudgement {
        try XCTUnwrap(X("session", preset, sketch, .conforms).judge())
    }

    func testConformingSessionsConformOnEveryPreset() throws {
        let conforming: [(X.Preset, String)] = [
            (.midRoll, "m p0 p1 ad-1 ad-1:0 ad-1:1 p2 p3 p4 p5"),
            (.emptyList, "m p0 p1 list-1.json p2 p3"),
            (.failingAsset, "m p0 p1 list-1.json ad-1 ad-1:0 ad-1:1 missing-ad/master.m3u8! ad-3 ad-3:0 ad-3:1 p2 p3"),
            (.playoutLimit, "m p0 p1 ad-1 ad-1:0 p3 p4"),
            (.preRoll, "m ad-1 ad-1:0 ad-1:1 p0 p1 p2"),
            (.postRoll, "m p0 p1 p2 p3 p4 p5 ad-1 ad-1:0 ad-1:1"),
            (.once, "m p0 p1 ad-1:0 ad-1:1 p2 p3 p4 scrub=2 p1 p2 p3"),
            (.jump, "m p0 scrub=9 ad-1:0 ad-1:1 p4 p5"),
            (.skip, "m p0 p1 ad-1:0 ~1 rate=2 ~1 ad-1:1 ~1 p2 p3"),
            (.twoBreaks, "m p0 ad-1?_HLS_primary_id=A ad-1:0 ad-1:1 p1 p2 list-2.json?_HLS_primary_id=A ad-2?_HLS_primary_id=A ad-2:0 p3"),
            (.liveJoin, "m list-1.json?_HLS_start_offset=1.0 ad-1:0 ad-1:1 p4 p5"),
            (.snap, "m p1 ad-1:0 ad-1:1 p4 p5"),
        ]
        for (preset, sketch) in conforming {
            let judgement = try judge(preset, sketch)
            XCTAssertEqual(judgement.outcome, .conforms, "\(preset): \(judgement.why ?? "") \(judgement.checks.map(\.observed))")
            XCTAssertNil(judgement.why)
            XCTAssertFalse(judgement.evidence.isEmpty, "\(preset): no evidence")
            XCTAssertEqual(judgement.checks.count, preset.behaviour.expectations.count)
        }
    }

    func testAWrongResumeNamesBothPositionsAndTheAttribute() throws {
        let judgement = try judge(.midRoll, "m p0 p1 ad-1:0 ad-1:1 p4 p5")
        XCTAssertEqual(judgement.outcome, .deviates)
        XCTAssertEqual(judgement.why, "resumed at 8.0 s, expected 4.0 s (X-RESUME-OFFSET=0)")
        XCTAssertEqual(judgement.evidence.map(\.path), ["/cases/behaviour-example/ad-1/seg_000.m4s", "/cases/behaviour-example/primary/seg_004.m4s"])
        XCTAssertEqual(judgement.evidence.map(\.at), [3, 5])
    }

    func testEachDeviationIsNamed() throws {
        let deviations: [(X.Preset, String, String)] = [
            (.playoutLimit, "m p0 p1 ad-1:0 ad-1:1 p4", "fetched seg_001.m4s, 2.0 s into ad, at 4.0 s: played past X-PLAYOUT-LIMIT=2"),
            (.preRoll, "m p0 p1 ad-1:0 ad-1:1 p2", "the primary first (seg_000.m4s at 1.0 s), ad at 3.0 s"),
            (.once, "m p0 p1 ad-1:0 ad-1:1 p2 p3 p4 scrub=2 p1 ad-1:0 ad-1:1 p2", "ad played 2 times (its first segment at 3.0 s, 10.0 s)"),
            (.jump, "m p0 scrub=9 p4 p5", "landed on 9.0 s (seg_004.m4s at 3.0 s) without playing ad: the seek skipped the JUMP-restricted ad"),
            (.skip, "m p0 p1 ad-1:0 ~1 rate=2 ~2 ad-1:1 ~2 p2", "rate 2 reported at 6.0 s while ad played, expected 1 (X-RESTRICT=SKIP; rate 2 sent at 5.0 s)"),
            (.twoBreaks, "m p0 ad-1 ad-1:0 p1 p2 list-2.json ad-2:0 p3", "2 of 2 interstitial request(s) without _HLS_primary_id (ad-1/master.m3u8 at 2.0 s)"),
            (.liveJoin, "m list-1.json ad-1:0 ad-1:1 p4", "the asset list requested at 1.0 s without _HLS_start_offset, expected 1"),
            (.snap, "m p1 p2 ad-1:0 ad-1:1 p4", "left the primary at 6.0 s (after seg_002.m4s), expected at the boundary 4.0 s (X-SNAP=OUT)"),
            (.postRoll, "m p0 p1 ad-1:0 ad-1:1 p2 p3 p4 p5", "ad at 3.0 s, before the last primary segment (8.0 s)"),
        ]
        for (preset, sketch, sentence) in deviations {
            let judgement = try judge(preset, sketch)
            XCTAssertEqual(judgement.outcome, .deviates, "\(preset)")
            XCTAssert(judgement.why?.contains(sentence) == true, "\(preset): \(judgement.why ?? "nil")")
        }
    }

    func testNoInterstitialRequestIsIgnores() throws {
        let judgement = try judge(.midRoll, "m p0 p1 p2 p3 p4 p5")
        XCTAssertEqual(judgement.outcome, .ignores)
        XCTAssertEqual(judgement.why, "no interstitial request in 7 requests: the receiver ignored EXT-X-DATERANGE (played the primary to 12.0 s)")
        XCTAssertTrue(judgement.checks.isEmpty)
        // Live-join, ignored: it joined inside the break and played on.
        XCTAssertEqual(try judge(.liveJoin, "m p2 p3 p4").outcome, .ignores)
    }

    func testASessionThatStopsEarlyIsNotJudged() throws {
        let judgement = try judge(.midRoll, "m p0")
        XCTAssertEqual(judgement.outcome, .notJudged)
        XCTAssertEqual(judgement.why, "played not judged: the session ended at 2.0 s of the primary, before ad (START 4.0 s)")
        // Stopped during the ad: played conforms, the resume is not judged.
        let during = try judge(.midRoll, "m p0 p1 ad-1:0")
        XCTAssertEqual(during.outcome, .notJudged)
        XCTAssertEqual(during.checks.map(\.outcome), [.conforms, .notJudged])
        XCTAssert(during.why?.hasPrefix("resumesAt not judged: no primary segment fetched after ad") == true, during.why ?? "")
        XCTAssertEqual(try judge(.midRoll, "").outcome, .notJudged)
    }

    func testASeekOverTheAdIsNotIgnoringIt() throws {
        // A seek from 2 s to 9 s never met the ad at 6 s in play: the jump case deviates, it does not "ignore".
        let judgement = try judge(.jump, "m p0 scrub=9 p4 p5")
        XCTAssertEqual(judgement.outcome, .deviates)
        let played = try XCTUnwrap(judgement.checks.first { $0.kind == .played })
        XCTAssertEqual(played.outcome, .notJudged)
        XCTAssertTrue(played.observed.contains("never played up to ad (START 6.0 s): it reached 12.0 s of the primary by a seek over it"),
                      "not 'ended before' a point it passed: \(played.observed)")
    }

    func testRateHeldNeedsTheSeries() throws {
        // A person's session from the lab page has no series: the rest conforms, rateHeld is not judged.
        let judgement = try judge(.skip, "m p0 p1 ad-1:0 ad-1:1 p2 p3")
        XCTAssertEqual(judgement.outcome, .notJudged)
        XCTAssertEqual(judgement.checks.map(\.outcome), [.conforms, .notJudged, .conforms])
        XCTAssert(judgement.why?.contains("needs the playback series") == true)
    }

    func testAnAudioOnlyClassIsNotApplicable() throws {
        let speaker = DeviceProfile(id: "speaker-audio-only", name: "Speaker",
                                    plays: Capabilities(video: false, videoCodecs: [], maxWidth: nil, maxHeight: nil, maxFrameRate: nil,
                                                        dynamicRanges: [], audioCodecs: ["aac"], maxChannels: 2, sampleRates: [48000]),
                                    )
        let example = X("speaker", .midRoll, "m p0 p1 p2", .conforms)
        let judgement = try XCTUnwrap(BehaviourJudge.judge(case: example.labCase, primaryTimeline: X.timeline, requests: example.requests(),
                                                           deviceClass: "speaker-audio-only", profile: speaker))
        XCTAssertEqual(judgement.outcome, .notApplicable)
        XCTAssertEqual(judgement.why, "class speaker-audio-only plays no video; the case needs video")
    }

    func testANonBehaviourCaseHasNoJudgement() {
        var labCase = X.labCase(X.Preset.midRoll.behaviour)
        labCase.behaviour = nil
        XCTAssertNil(BehaviourJudge.judge(case: labCase, primaryTimeline: X.timeline, requests: []))
    }

    func testJSONSpellsOutcomesWithASpace() throws {
        let judgement = try judge(.midRoll, "m p0")
        let json = String(decoding: try JSONEncoder().encode(judgement), as: UTF8.self)
        XCTAssert(json.contains("\"outcome\":\"not judged\""), json)
        XCTAssertEqual(try JSONDecoder().decode(BehaviourJudgement.self, from: Data(json.utf8)), judgement)
        XCTAssertEqual(BehaviourOutcome.notApplicable.rawValue, "not applicable")
    }
}
