import AirPlay
import Foundation
import XCTest
@testable import LabCore
@testable import LabRun
@testable import LabServer

/// Synthetic series in the shapes a real receiver shows (Kodi: duration, position and rate only,
/// polled every 250 ms), measured against a stitched case with its ad at 6 s for 2 s.
final class CellMeasurerTests: XCTestCase {
    let stitched = MeasurementExample.stitchedCase
    var kodi: PlaybackSketch { PlaybackSketch(duration: 14) }

    func measure(_ sketch: PlaybackSketch, failure: String? = nil, labCase: LabCase? = nil,
                 thresholds: MeasurementThresholds = .defaults) -> CellMeasurement {
        CellMeasurer(thresholds: thresholds).measure(series: sketch.series(), requests: sketch.requestRecords(),
                                                      labCase: labCase ?? stitched, failure: failure)
    }

    func testA1200MsFreezeAtTheAdIsOneTransitionStallOf1200Ms() throws {
        let m = measure(kodi.loads(740).plays(6).freezes(1200).plays(8).ended(600))
        XCTAssertEqual(m.outcome, .stall)
        XCTAssertEqual(m.playToFirstFrameMs ?? -1, 740, accuracy: 1)
        XCTAssertEqual(m.stalls.count, 1, "\(m.stalls)")
        let stall = try XCTUnwrap(m.stalls.first)
        XCTAssertEqual(stall.kind, "position-frozen")
        XCTAssertEqual(stall.durationMs, 1200, accuracy: 1)
        XCTAssertEqual(stall.position, 6, accuracy: 0.01)
        XCTAssertEqual(stall.startMs, 6740, accuracy: 1)
        XCTAssertEqual(stall.transition, "ad start 6 s")
        XCTAssertEqual(m.transitionStallMs ?? -1, 1200, accuracy: 1)
        XCTAssertEqual(m.labVerdict, .stall)
        XCTAssertTrue(m.reason.contains("position frozen 1200 ms at 6 s (ad start 6 s)"), m.reason)
    }

    func testThePreviousItemsAnswersAreNotThisCellsPlayback() throws {
        // Two answers still about the item before (its end, playing), then this one: they say nothing.
        var series = kodi.loads(740).plays(14).ended(600).series()
        let stale = PlaybackInfo.at(13.9, of: 14, rate: 1)
        series.samples.insert(contentsOf: [PlaybackSample(atMs: 120, info: stale, previousItem: true),
                                           PlaybackSample(atMs: 200, info: stale, previousItem: true)], at: 0)
        let m = CellMeasurer(thresholds: .defaults).measure(series: series, requests: kodi.requestRecords(), labCase: stitched, failure: nil)
        XCTAssertEqual(m.playToFirstFrameMs ?? -1, 740, accuracy: 1)
        XCTAssertEqual(m.jumps.count, 0, "\(m.jumps)")
        XCTAssertEqual(m.stalls.count, 0, "\(m.stalls)")
    }

    func testTheFreezeReadsTheSameWhateverThePollInterval() {
        for poll in [100.0, 250, 500, 1000] {
            for firstPoll in [30.0, 110, 240] {
                let sketch = PlaybackSketch(duration: 14, pollMs: poll, firstPollMs: firstPoll)
                    .loads(740).plays(6).freezes(1200).plays(8).ended(1500)
                let m = measure(sketch)
                XCTAssertEqual(m.stalls.count, 1, "poll \(poll)/\(firstPoll): \(m.stalls)")
                XCTAssertEqual(m.stalls.first?.durationMs ?? 0, 1200, accuracy: 1, "poll \(poll)/\(firstPoll)")
                XCTAssertEqual(m.stalls.first?.position ?? 0, 6, accuracy: 0.01, "poll \(poll)/\(firstPoll)")
                XCTAssertEqual(m.playToFirstFrameMs ?? 0, 740, accuracy: 1, "poll \(poll)/\(firstPoll)")
            }
        }
    }

    /// Kodi reports its position in steps of about 0.2 s (measured: deltas of 0.2 and 0.4 s between
    /// 250 ms polls, now and then 0 then 0.4): a poll that shows no movement and the next that
    /// catches up is no freeze; a real one still reads its length.
    func testKodisSteppedPositionsAreNoStallAndARealFreezeStillReadsItsLength() {
        func stepped(_ sketch: PlaybackSketch) -> PlaybackSeries {
            var series = sketch.series()
            for index in series.samples.indices {
                if let position = series.samples[index].info?.position, position > 0 {
                    series.samples[index].info?.position = (position / 0.2).rounded(.down) * 0.2
                }
            }
            return series
        }
        for first in [40.0, 110, 190] {
            let smooth = CellMeasurer().measure(series: stepped(PlaybackSketch(duration: 14, firstPollMs: first).loads(740).plays(14).ended(600)),
                                                requests: [], labCase: stitched, failure: nil)
            XCTAssertEqual(smooth.outcome, .seamless, "first poll \(first): \(smooth.reason) \(smooth.stalls)")
            let frozen = CellMeasurer().measure(
                series: stepped(PlaybackSketch(duration: 14, firstPollMs: first).loads(740).plays(6).freezes(1200).plays(8).ended(600)),
                requests: [], labCase: stitched, failure: nil)
            XCTAssertEqual(frozen.stalls.count, 1, "first poll \(first): \(frozen.stalls)")
            XCTAssertEqual(frozen.stalls.first?.durationMs ?? 0, 1200, accuracy: 200, "first poll \(first)")
            XCTAssertEqual(frozen.stalls.first?.transition, "ad start 6 s")
        }
    }

    func testAFreezeInTheLastSecondsBeforeTheItemIsDroppedIsTheEndNotAStall() {
        let m = measure(kodi.loads(740).plays(13.5).freezes(800).ended(1000))
        XCTAssertEqual(m.outcome, .seamless, m.reason)
    }

    func testAStallAwayFromTheAdIsAStallElsewhereAndTheTransitionReadsZero() throws {
        let m = measure(kodi.loads(500).plays(2).freezes(800).plays(12).ended(600))
        XCTAssertEqual(m.outcome, .stall)
        let stall = try XCTUnwrap(m.stalls.first)
        XCTAssertNil(stall.transition)
        XCTAssertEqual(m.transitionStallMs, 0, "played through both transition points without a stall")
        XCTAssertEqual(m.elsewhereStallMs ?? 0, 800, accuracy: 1)
        XCTAssertTrue(m.reason.contains("away from any transition"), m.reason)
    }

    func testARateDropWithoutACommandIsAStallAndOneAfterRateZeroIsNot() throws {
        let dropped = measure(kodi.loads(700).plays(8).rateZero(1500).plays(6).ended(600))
        XCTAssertEqual(dropped.outcome, .stall)
        let stall = try XCTUnwrap(dropped.stalls.first)
        XCTAssertEqual(stall.kind, "rate-dropped")
        XCTAssertEqual(stall.durationMs, 1500, accuracy: 250, "between the last poll at rate 1 and the first back at rate 1")
        XCTAssertEqual(stall.transition, "ad end 8 s")

        let paused = measure(kodi.loads(700).plays(8).rateZero(1500).plays(6).ended(600)
            .sent(SentCommand(kind: .rate, atMs: 8_700, value: 0)).sent(SentCommand(kind: .rate, atMs: 10_200, value: 1)))
        XCTAssertEqual(paused.outcome, .seamless, paused.reason)
        XCTAssertTrue(paused.stalls.isEmpty)
    }

    func testAJumpBackToZeroIsReportedAndMakesTheVerdictAGlitch() throws {
        let m = measure(kodi.loads(700).plays(6).jumps(to: 0).plays(14).ended(600))
        XCTAssertEqual(m.jumps.count, 1)
        let jump = try XCTUnwrap(m.jumps.first)
        XCTAssertEqual(jump.kind, "backward")
        XCTAssertEqual(jump.from, 6, accuracy: 0.3)
        XCTAssertEqual(jump.to, 0, accuracy: 0.3)
        XCTAssertEqual(jump.transition, "ad start 6 s")
        XCTAssertTrue(m.stalls.isEmpty, "a jump is not a freeze: \(m.stalls)")
        XCTAssertEqual(m.labVerdict, .glitch)
        XCTAssertTrue(m.reason.contains("jumped backward"), m.reason)
    }

    func testAScrubCommandExplainsAJump() {
        let m = measure(kodi.loads(700).plays(3).jumps(to: 9).plays(5).ended(600).sent(SentCommand(kind: .scrub, atMs: 3_720, value: 9)))
        XCTAssertTrue(m.jumps.isEmpty, "\(m.jumps)")
    }

    func testAReceiverThatVanishesMidCaseFailedAsGoneAndItsFailedPollsAreFaultsNotStalls() {
        let m = measure(kodi.loads(700).plays(5).gone(3000))
        XCTAssertEqual(m.outcome, .failed)
        XCTAssertEqual(m.failure, .receiverWentAway)
        XCTAssertTrue(m.reason.hasPrefix("receiver went away"), m.reason)
        XCTAssertEqual(m.failedPolls, 12)
        XCTAssertTrue(m.stalls.isEmpty, "\(m.stalls)")

        let told = measure(kodi.loads(700).plays(5).gone(500), failure: "receiver went away: connection refused")
        XCTAssertEqual(told.failure, .receiverWentAway)
        XCTAssertEqual(told.reason, "receiver went away: connection refused")
    }

    func testAReceiverThatComesBackWithoutTheItemWentAwayRatherThanEndedEarly() {
        // As a stand-in did in a real `lab run`: connection refused for 3 s, then answering with no item.
        let m = measure(kodi.loads(300).plays(0.7).gone(3000).ended(1000))
        XCTAssertEqual(m.failure, .receiverWentAway, m.reason)
        XCTAssertTrue(m.reason.hasPrefix("receiver went away: 12 polls failed from "), m.reason)
        XCTAssertTrue(m.reason.contains("came back without the item (connection refused)"), m.reason)
    }

    func testOneFailedPollMidPlayIsAFaultAndNothingElse() {
        let m = measure(kodi.loads(700).plays(5).gone(260).plays(9).ended(600))
        XCTAssertEqual(m.outcome, .seamless, m.reason)
        XCTAssertEqual(m.failedPolls, 1)
        XCTAssertTrue(m.stalls.isEmpty)
    }

    func testAReceiverThatNeverStartsSaysWhatItDidFetch() {
        let fetchedNothing = measure(kodi.fetchesNothing().loads(6000))
        XCTAssertEqual(fetchedNothing.failure, .neverPlayed)
        XCTAssertEqual(fetchedNothing.reason, "never played: the receiver fetched nothing")
        XCTAssertNil(fetchedNothing.playToFirstRequestMs)

        let fetched = measure(kodi.loads(6000))
        XCTAssertEqual(fetched.reason, "never played: it fetched segments but the position never moved")
        XCTAssertEqual(fetched.playToFirstRequestMs ?? -1, 20, accuracy: 0.5)
        XCTAssertEqual(fetched.playToFirstSegmentMs ?? -1, 55, accuracy: 0.5)
        XCTAssertNil(fetched.playToFirstFrameMs)
        XCTAssertNil(fetched.transitionStallMs, "never reached the transition")
    }

    /// Kodi 20 on a stitched item (measured: lab run on control-stitched): every segment fetched by
    /// 4.8 s, loaded ranges drained to the position, the item dropped 2.2 s before its duration.
    func testAReceiversOwnEndOfStreamShortOfItsDurationIsNotedNotFailed() throws {
        let last = MeasurementExample.lastSegmentPath
        let kodiEnd = kodi.buffers(ahead: 8).fetches(last, at: 4800).loads(700).plays(11.8).ended(1000)
        let noted = measure(kodiEnd)
        XCTAssertNil(noted.failure, noted.reason)
        XCTAssertEqual(noted.outcome, .seamless)
        XCTAssertEqual(noted.labVerdict, .glitch, "content it never showed")
        let short = try XCTUnwrap(noted.shortEnd)
        XCTAssertEqual(short.lastSegment, last)
        XCTAssertEqual(short.lastSegmentAtMs, 4800, accuracy: 0.5)
        XCTAssertEqual(short.duration, 14)
        XCTAssertEqual(try XCTUnwrap(short.loadedEnd), 11.8, accuracy: 0.001, "all it had: up to where it stopped")
        XCTAssertEqual(short.position, 11.66, accuracy: 0.01)
        XCTAssertTrue(noted.reason.hasPrefix("played"), noted.reason)
        XCTAssertTrue(noted.reason.contains("ended by its own end of stream"), noted.reason)
        XCTAssertTrue(noted.reason.contains(last + ", 4.8 s after /play"), noted.reason)
        // Stored and read back with the evidence.
        XCTAssertEqual(try JSONDecoder().decode(CellMeasurement.self, from: try JSONEncoder().encode(noted)), noted)

        // The last frame held before its own end (never resumed) is that end, not a stall (Kodi: 0.2-0.4 s, more under load).
        let drained = measure(kodi.buffers(ahead: 8).fetches(last, at: 4800).loads(700).plays(11.2).freezes(600).ended(1000))
        XCTAssertNotNil(drained.shortEnd, drained.reason)
        XCTAssertEqual(drained.stalls, [], drained.reason)
        XCTAssertEqual(drained.outcome, .seamless, drained.reason)
        // Without its own end (it stopped with the end unfetched), the same held frame is a stall and the end a failure.
        let held = measure(kodi.buffers(ahead: 8).loads(700).plays(11.2).freezes(600).ended(1000))
        XCTAssertEqual(held.failure, .endedEarly, held.reason)

        // Stopped inside the ad (a decoder that gave up there): it drained what it had, and had fetched the
        // end, but never played the switch back: an early end, not its own end of stream.
        let insideTheAd = measure(kodi.buffers(ahead: 8).fetches(last, at: 4800).loads(700).plays(7).ended(1000))
        XCTAssertEqual(insideTheAd.failure, .endedEarly, insideTheAd.reason)
        XCTAssertNil(insideTheAd.shortEnd, insideTheAd.reason)

        // A stall still counts; the note follows its reason.
        let stalled = measure(kodi.buffers(ahead: 8).fetches(last, at: 4800).loads(700).plays(6).freezes(1200).plays(5.8).ended(1000))
        XCTAssertEqual(stalled.outcome, .stall, stalled.reason)
        XCTAssertNotNil(stalled.shortEnd)

        // Not its own end: the last segment fetched but cut off, refused, or only an ad's; fetched after the end;
        // media still loaded past the position; no loaded ranges to tell.
        for (name, sketch, records) in [
            ("cut off", kodiEnd, { (r: [LabRequestRecord]) in r.map { var c = $0; if c.path == last { c.completed = false }; return c } }),
            ("404", kodiEnd, { (r: [LabRequestRecord]) in r.map { var c = $0; if c.path == last { c.status = 404 }; return c } }),
            ("ad's last", kodi.buffers(ahead: 8).fetches("/cases/frame-rate-stitched/ad/seg_001.m4s", at: 4800).loads(700).plays(11.8)
                .ended(1000), { $0 }),
            ("after the end", kodi.buffers(ahead: 8).fetches(last, at: 13_200).loads(700).plays(11.8).ended(1000), { $0 }),
            ("still loaded", kodi.buffers(ahead: 8, upTo: 14).fetches(last, at: 4800).loads(700).plays(11.8).ended(1000), { $0 }),
            ("no ranges", kodi.fetches(last, at: 4800).loads(700).plays(11.8).ended(1000), { $0 }),
        ] as [(String, PlaybackSketch, ([LabRequestRecord]) -> [LabRequestRecord])] {
            let m = CellMeasurer().measure(series: sketch.series(), requests: records(sketch.requestRecords()), labCase: stitched, failure: nil)
            XCTAssertEqual(m.failure, .endedEarly, "\(name): \(m.reason)")
            XCTAssertNil(m.shortEnd, name)
            XCTAssertTrue(m.reason.hasPrefix("ended early: playback stopped at 11."), "\(name): \(m.reason)")
        }
    }

    func testEarlyEndAndTheReceiversErrorDictFailTheCell() {
        let early = measure(kodi.loads(700).plays(6).ended(2000))
        XCTAssertEqual(early.failure, .endedEarly)
        XCTAssertTrue(early.reason.hasPrefix("ended early: playback stopped at 5.9"), early.reason)
        XCTAssertTrue(early.reason.contains(" of 14 s"), early.reason)

        let error = measure(kodi.loads(700).plays(6).error(domain: "AVFoundationErrorDomain", code: -11800, for: 1000))
        XCTAssertEqual(error.failure, .receiverError)
        XCTAssertEqual(error.receiverError, "AVFoundationErrorDomain -11800")
        XCTAssertTrue(error.reason.hasPrefix("receiver error AVFoundationErrorDomain -11800 at "), error.reason)
    }

    func testTheRunLoopsReceiverErrorStaysAReceiverError() {
        let m = measure(kodi.loads(700).plays(6).error(domain: "AVFoundationErrorDomain", code: -11800, for: 300),
                        failure: "the receiver reported an error: AVFoundationErrorDomain -11800")
        XCTAssertEqual(m.failure, .receiverError)
        XCTAssertEqual(m.reason, "the receiver reported an error: AVFoundationErrorDomain -11800")
    }

    func testAReceiversNaNAndInfinityAreNoValueNotACrash() {
        var series = kodi.loads(700).plays(6).freezes(1200).plays(8).ended(600).series()
        for index in [10, 11, 30] { series.samples[index].info?.position = .nan }
        series.samples[40].info?.rate = .infinity
        series.samples[41].info?.duration = -.infinity
        series.samples.append(PlaybackSample(atMs: .nan, info: PlaybackInfo(duration: 14, position: 3, rate: 1)))
        let m = CellMeasurer().measure(series: series, requests: [], labCase: stitched, failure: nil)
        XCTAssertEqual(m.outcome, .stall, m.reason)
        XCTAssertEqual(m.stalls.count, 1, "\(m.stalls)")
        XCTAssertEqual(m.stalls.first?.durationMs ?? 0, 1200, accuracy: 1)
        XCTAssertTrue(m.jumps.isEmpty, "\(m.jumps)")
        XCTAssertEqual(m.failedPolls, 0, "an answer without a usable position is not a failed poll")
    }

    func testAnItemDroppedMidPlayIsAnEarlyEndWhetherThePlistIsEmptyOrSaysDurationZero() {
        // As a stand-in receiver did in a real `lab run`: playing, then an empty plist from 2.75 s.
        let empty = measure(kodi.loads(300).plays(2.2).ended(1000))
        XCTAssertEqual(empty.failure, .endedEarly, empty.reason)
        var series = kodi.loads(300).plays(2.2).ended(1000).series()
        for index in series.samples.indices where series.samples[index].info?.duration == nil {
            series.samples[index].info = PlaybackInfo(duration: 0, position: 0, rate: 0)
        }
        let zero = CellMeasurer().measure(series: series, requests: [], labCase: stitched, failure: nil)
        XCTAssertEqual(zero.failure, .endedEarly, zero.reason)
        XCTAssertTrue(zero.jumps.isEmpty && zero.stalls.isEmpty, "position 0 of a dropped item is no jump: \(zero.jumps)")
    }

    func testTheRunLoopsOwnFailureWinsAndNotRunIsSkipped() {
        let timedOut = measure(kodi.loads(700).plays(14), failure: "timed out after 19 s")
        XCTAssertEqual(timedOut.outcome, .failed)
        XCTAssertEqual(timedOut.failure, .runFailed)
        XCTAssertEqual(timedOut.reason, "timed out after 19 s")
        let skipped = CellMeasurement.notRun("receiver Den did not come back")
        XCTAssertEqual(skipped.outcome, .skipped)
        XCTAssertEqual(skipped.labVerdict, .skipped)
        XCTAssertEqual(skipped.reason, "not run: receiver Den did not come back")
    }

    func testAnInterstitialCaseAlsoWatchesItsResumePoint() {
        var labCase = stitched
        labCase.delivery = .interstitial
        labCase.resumeOffset = 4
        XCTAssertEqual(TransitionPoint.of(labCase).map(\.label), ["ad start 6 s", "ad end 8 s", "resume 10 s"])
        let m = measure(PlaybackSketch(duration: 12).loads(700).plays(10).freezes(600).plays(2).ended(600), labCase: labCase)
        XCTAssertEqual(m.stalls.first?.transition, "resume 10 s")
        XCTAssertEqual(TransitionPoint.of(stitched).map(\.label), ["ad start 6 s", "ad end 8 s"])
    }

    /// Kodi ignores EXT-X-DATERANGE: it plays the primary through and fetches nothing under the
    /// interstitial's prefix, so a freeze at 6 s is a stall elsewhere, not at an ad start it never met.
    func testAnInterstitialTheReceiverNeverFetchedHasNoTransition() throws {
        var labCase = stitched
        labCase.delivery = .interstitial
        labCase.interstitialPrefix = "cases/frame-rate/ad/"
        let sketch = PlaybackSketch(duration: 12).loads(700).plays(6).freezes(600).plays(6).ended(600)
            .fetches("/cases/frame-rate/primary/seg_000.m4s", at: 60)
        let m = measure(sketch, labCase: labCase)
        XCTAssertEqual(m.stalls.count, 1)
        XCTAssertNil(m.stalls.first?.transition, "no transition was met")
        XCTAssertNil(m.transitionStallMs)
        XCTAssertTrue(m.reason.hasSuffix("(away from any transition); interstitial not played (the receiver fetched none of it)"), m.reason)

        let fetched = measure(sketch.fetches("/cases/frame-rate/ad/seg_000.m4s", at: 6_050), labCase: labCase)
        XCTAssertEqual(fetched.stalls.first?.transition, "ad start 6 s")
        XCTAssertEqual(fetched.transitionStallMs ?? -1, 600, accuracy: 1)
        XCTAssertFalse(fetched.reason.contains("not played"), fetched.reason)
    }

    /// A receiver that plays the ad holds the primary's position at START while it does (the
    /// stand-in does, as AVPlayer pauses the primary item): that hold is the ad playing. Only what
    /// lasts beyond the ad is a stall; a receiver that never fetched the ad gets no such allowance.
    func testThePositionHeldAtStartWhileTheAdPlaysIsTheAdNotAStall() throws {
        var labCase = stitched
        labCase.delivery = .interstitial
        labCase.resumeOffset = 0
        labCase.interstitialPrefix = "cases/frame-rate/ad/"
        let ad = "/cases/frame-rate/ad/seg_000.m4s"
        let played = PlaybackSketch(duration: 12).loads(700).plays(6).freezes(2100).plays(6).ended(600).fetches(ad, at: 6_750)
        let m = measure(played, labCase: labCase)
        XCTAssertEqual(m.outcome, .seamless, m.reason)
        XCTAssertEqual(m.adHoldMs ?? -1, 2000, accuracy: 1, "held for the ad's 2 s")
        XCTAssertEqual(m.transitionStallMs ?? -1, 0, accuracy: 1)
        XCTAssertTrue(m.reason.contains("position held at the ad's start 2000 ms while the ad played"), m.reason)

        let late = measure(PlaybackSketch(duration: 12).loads(700).plays(6).freezes(3500).plays(6).ended(600).fetches(ad, at: 6_750),
                           labCase: labCase)
        XCTAssertEqual(late.outcome, .stall, late.reason)
        XCTAssertEqual(late.stalls.first?.durationMs ?? -1, 1500, accuracy: 1, "what lasted beyond the ad")
        XCTAssertEqual(late.stalls.first?.transition, "ad start 6 s")

        let ignored = measure(PlaybackSketch(duration: 12).loads(700).plays(6).freezes(2100).plays(6).ended(600)
            .fetches("/cases/frame-rate/primary/seg_000.m4s", at: 60), labCase: labCase)
        XCTAssertNil(ignored.adHoldMs)
        XCTAssertEqual(ignored.outcome, .stall, "no ad fetched: a freeze is a freeze")
    }

    func testThresholdsChangeWhatCounts() throws {
        let sketch = kodi.loads(700).plays(6).freezes(300).plays(8).ended(600)
        XCTAssertEqual(measure(sketch).outcome, .stall)
        let strict = try MeasurementThresholds.defaults.overriding(["stallMinimumMs=500"])
        XCTAssertEqual(measure(sketch, thresholds: strict).outcome, .seamless)
        XCTAssertEqual(MeasurementThresholds.defaults.grade(stallMs: 1200), .error)
        XCTAssertEqual(MeasurementThresholds.defaults.grade(stallMs: 300), .warning)
        XCTAssertEqual(MeasurementThresholds.defaults.grade(stallMs: 150), .pass)
    }

    func testAMeasurementStoredBeforeTheNewFieldsStillDecodes() throws {
        let old = #"{"stalls":[{"position":6,"startMs":6740,"durationMs":1200,"kind":"position-frozen"}],"outcome":"stall","reason":"x"}"#
        let m = try JSONDecoder().decode(CellMeasurement.self, from: Data(old.utf8))
        XCTAssertEqual(m.stalls.first?.resumed, true)
        XCTAssertEqual(m.jumps, [])
        XCTAssertEqual(m.failedPolls, 0)
    }
}

final class MeasurementThresholdsTests: XCTestCase {
    func testTheBundledFileLoadsAndEqualsTheDefaults() throws {
        let file = LabTests.profilesDirectory + "/" + MeasurementThresholds.relativePath
        XCTAssertEqual(try MeasurementThresholdsLoader.load(file: file), .defaults)
        XCTAssertEqual(try MeasurementThresholdsLoader.load(besideProfiles: LabTests.profilesDirectory), .defaults)
        XCTAssertEqual(try MeasurementThresholdsLoader.load(besideProfiles: "/nonexistent"), .defaults)
    }

    func testAPartialFileKeepsTheOtherDefaultsAndBadKeysNameTheFix() throws {
        let partial = try MeasurementThresholdsLoader.parse("grades:\n  errorMs: 800\n", file: "t.yaml")
        XCTAssertEqual(partial.grades.errorMs, 800)
        XCTAssertEqual(partial.stallMinimumMs, 200)
        XCTAssertThrowsError(try MeasurementThresholdsLoader.parse("stallMinimumMS: 100\n", file: "t.yaml")) {
            XCTAssertTrue("\($0)".contains("t.yaml: stallMinimumMS: unknown threshold (did you mean 'stallMinimumMs'?)"), "\($0)")
        }
        XCTAssertThrowsError(try MeasurementThresholdsLoader.parse("stallMinimumMs: soon\n", file: "t.yaml")) {
            XCTAssertTrue("\($0)".contains("stallMinimumMs: expected a number"), "\($0)")
        }
        XCTAssertThrowsError(try MeasurementThresholdsLoader.parse("grades: {warningMs: 2000, errorMs: 1000}\n", file: "t.yaml")) {
            XCTAssertTrue("\($0)".contains("must not exceed errorMs"), "\($0)")
        }
        XCTAssertThrowsError(try MeasurementThresholds.defaults.overriding(["grades.errorMs"]))
    }
}
