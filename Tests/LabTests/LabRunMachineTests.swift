import AirPlay
import Foundation
import XCTest
@testable import LabCore
@testable import LabRun
@testable import LabServer

/// The per-cell state machine, driven event by event: no I/O, no clock.
final class LabRunMachineTests: XCTestCase {
    let limits = CellLimits(pollInterval: .milliseconds(250), caseTimeout: .seconds(20))
    let gone = AirPlayError.connectionClosed(endpoint: "tv", path: "/playback-info")

    func testPollsOnTheIntervalGridAndSkipsMissedTicks() {
        var machine = CellMachine(limits: limits)
        XCTAssert(machine.playAnswered(at: .milliseconds(30), startPosition: 0, error: nil) == .poll(at: .milliseconds(250)))
        XCTAssert(machine.polled(at: .milliseconds(400), .success(.at(0))) == .poll(at: .milliseconds(500)))
        // A slow answer (760 ms): the 750 ms tick is gone, the next is 1000 ms.
        XCTAssert(machine.polled(at: .milliseconds(760), .success(.at(0.2))) == .poll(at: .milliseconds(1000)))
        XCTAssert(machine.samples.map(\.atMs) == [400, 760])
        XCTAssert(machine.commands == [SentCommand(kind: .play, atMs: 0, value: 0)])
    }

    func testStopsWhenThePositionReachesTheDuration() {
        var machine = CellMachine(limits: limits)
        _ = machine.playAnswered(at: .milliseconds(10), startPosition: 0, error: nil)
        XCTAssert(machine.polled(at: .milliseconds(250), .success(.at(0))) == .poll(at: .milliseconds(500)))
        XCTAssert(machine.polled(at: .milliseconds(500), .success(.at(0.3))) == .poll(at: .milliseconds(750)))
        XCTAssert(machine.polled(at: .seconds(10), .success(.at(9.6))) == .stop(CellEnd(kind: .reachedEnd, failure: nil)))
        XCTAssert(machine.stopAnswered(at: .milliseconds(10_020), error: nil) == .done(CellEnd(kind: .reachedEnd, failure: nil)))
        XCTAssert(machine.commands.last == SentCommand(kind: .stop, atMs: 10_020))
    }

    func testAPositionAtTheEndBeforePlaybackStartedIsNotTheEnd() {
        // A receiver still showing the previous item's end: not this cell's end until it played.
        var machine = CellMachine(limits: limits)
        _ = machine.playAnswered(at: .zero, startPosition: 0, error: nil)
        XCTAssert(machine.polled(at: .milliseconds(250), .success(.at(10, rate: 0))) == .poll(at: .milliseconds(500)))
    }

    func testThePreviousItemStillPlayingAtItsEndIsNotThisCellsEnd() {
        // Kodi after /stop and the next /play: the old item's end, rate 1, for a poll or two.
        var machine = CellMachine(limits: limits)
        _ = machine.playAnswered(at: .zero, startPosition: 0, error: nil)
        XCTAssert(machine.polled(at: .milliseconds(250), .success(.at(9.8, rate: 1))) == .poll(at: .milliseconds(500)))
        XCTAssert(machine.polled(at: .milliseconds(500), .success(.at(9.8, rate: 1))) == .poll(at: .milliseconds(750)))
        XCTAssertFalse(machine.hasPlayed)
        XCTAssert(machine.polled(at: .milliseconds(750), .success(.at(0.1))) == .poll(at: .milliseconds(1000)))
        XCTAssert(machine.polled(at: .seconds(1), .success(.at(0.35))) == .poll(at: .milliseconds(1250)))
        XCTAssertTrue(machine.hasPlayed)
        XCTAssert(machine.samples.map(\.previousItem) == [true, true, nil, nil])
        XCTAssert(machine.polled(at: .seconds(10), .success(.at(9.7))) == .stop(CellEnd(kind: .reachedEnd, failure: nil)))
    }

    func testAFirstAnswerPastTheStartThatMovesIsThisItem() {
        // The first answers failed; the first one that came is 3 s in, and the next moved on: playing.
        var machine = CellMachine(limits: limits)
        _ = machine.playAnswered(at: .zero, startPosition: 0, error: nil)
        _ = machine.polled(at: .seconds(3), .success(.at(2.6)))
        _ = machine.polled(at: .milliseconds(3250), .success(.at(2.85)))
        XCTAssertTrue(machine.hasPlayed)
        XCTAssert(machine.samples.map(\.previousItem) == [true, nil])
    }

    func testAStartPositionMovesTheWindow() {
        var machine = CellMachine(limits: limits)
        _ = machine.playAnswered(at: .zero, startPosition: 6, error: nil)
        _ = machine.polled(at: .milliseconds(250), .success(.at(6.0, rate: 0)))
        XCTAssert(machine.samples.map(\.previousItem) == [nil])
    }

    func testAReceiverThatNeverStartsTimesOutWithAClearReason() {
        var machine = CellMachine(limits: CellLimits(pollInterval: .seconds(1), caseTimeout: .seconds(5)))
        var action = machine.playAnswered(at: .zero, startPosition: 0, error: nil)
        var polls = 0
        while case .poll(let at) = action {
            polls += 1
            action = machine.polled(at: at, .success(.at(0, of: nil, rate: 0)))
        }
        XCTAssert(polls == 5)
        XCTAssert(action == .stop(CellEnd(kind: .timedOut, failure: "never started playing within 5 s (position did not move)")))
    }

    func testATimeoutWhilePlayingSaysWhereItWas() {
        var machine = CellMachine(limits: CellLimits(pollInterval: .seconds(1), caseTimeout: .seconds(3)))
        _ = machine.playAnswered(at: .zero, startPosition: 0, error: nil)
        _ = machine.polled(at: .seconds(1), .success(.at(0.5, of: 30)))
        _ = machine.polled(at: .seconds(2), .success(.at(1.5, of: 30)))
        XCTAssert(machine.polled(at: .seconds(3), .success(.at(2.5, of: 30)))
            == .stop(CellEnd(kind: .timedOut, failure: "not finished within 3 s (position 2.5 of 30.0 s)")))
    }

    func testPollsFailingForThreeSecondsMeanTheReceiverWentAway() {
        var machine = CellMachine(limits: limits)
        _ = machine.playAnswered(at: .zero, startPosition: 0, error: nil)
        _ = machine.polled(at: .milliseconds(250), .success(.at(0.1)))
        XCTAssert(machine.polled(at: .milliseconds(500), .failure(gone)) == .poll(at: .milliseconds(750)))
        XCTAssert(machine.polled(at: .milliseconds(3250), .failure(gone)) == .poll(at: .milliseconds(3500)))
        guard case .done(let end) = machine.polled(at: .milliseconds(3500), .failure(gone)) else {
            XCTFail("expected the cell to end without /stop")
            return
        }
        XCTAssert(end.kind == .receiverGone)
        XCTAssert(end.failure?.hasPrefix("receiver went away: /playback-info failing for 3 s") == true)
        XCTAssert(machine.samples.last?.failure == gone.description)
    }

    func testAnAnswerBetweenFailuresRestartsTheCount() {
        var machine = CellMachine(limits: limits)
        _ = machine.playAnswered(at: .zero, startPosition: 0, error: nil)
        _ = machine.polled(at: .milliseconds(250), .failure(gone))
        _ = machine.polled(at: .milliseconds(3000), .success(.at(1)))
        XCTAssert(machine.polled(at: .milliseconds(3250), .failure(gone)) == .poll(at: .milliseconds(3500)))
        XCTAssert(machine.polled(at: .milliseconds(6000), .failure(gone)) == .poll(at: .milliseconds(6250)))
    }

    func testAnswersThatAreNotALostConnectionStopTheCellAsFailingPolls() {
        var machine = CellMachine(limits: limits)
        let garbage = AirPlayError.badResponse(endpoint: "tv", path: "/playback-info", reason: "not a plist")
        _ = machine.playAnswered(at: .zero, startPosition: 0, error: nil)
        _ = machine.polled(at: .milliseconds(250), .failure(garbage))
        guard case .stop(let end) = machine.polled(at: .milliseconds(3250), .failure(garbage)) else {
            XCTFail("expected /stop: the receiver is there")
            return
        }
        XCTAssert(end.kind == .pollsFailing)
    }

    func testARefusalOnPlayEndsTheCellWithoutStop() {
        var machine = CellMachine(limits: limits)
        let refusal = AirPlayError.pairingRequired(endpoint: "tv", status: 403)
        XCTAssert(machine.playAnswered(at: .milliseconds(5), startPosition: 0, error: refusal)
            == .done(CellEnd(kind: .refused, failure: refusal.description, refusal: refusal)))
        XCTAssert(machine.commands == [SentCommand(kind: .play, atMs: 0, value: 0, failure: refusal.description)])
    }

    func testAConnectionRefusedOnOpenIsAReceiverThatWentAway() {
        var machine = CellMachine(limits: limits)
        guard case .done(let end) = machine.openFailed(.connect(endpoint: "tv", reason: "Connection refused")) else {
            XCTFail("expected done")
            return
        }
        XCTAssert(end.kind == .receiverGone)
        XCTAssert(end.failure?.hasPrefix(CellEnd.receiverWentAway) == true)
        XCTAssert(machine.commands.isEmpty)
    }

    func testTheItemDroppedAfterPlayingIsTheEnd() {
        // Kodi at the end of a stream: no duration any more (pyatv: polls without duration = finished).
        var machine = CellMachine(limits: limits)
        _ = machine.playAnswered(at: .zero, startPosition: 0, error: nil)
        _ = machine.polled(at: .milliseconds(250), .success(.at(0.2)))
        _ = machine.polled(at: .milliseconds(500), .success(.at(0.45)))
        for tick in 3...5 {
            XCTAssert(machine.polled(at: .milliseconds(250 * tick), .success(PlaybackInfo())) == .poll(at: .milliseconds(250 * (tick + 1))))
        }
        XCTAssert(machine.polled(at: .milliseconds(1500), .success(PlaybackInfo())) == .stop(CellEnd(kind: .finished, failure: nil)))
    }

    func testNoDurationBeforePlaybackStartsIsLoadingNotTheEnd() {
        var machine = CellMachine(limits: limits)
        _ = machine.playAnswered(at: .zero, startPosition: 0, error: nil)
        for tick in 1...12 {
            XCTAssert(machine.polled(at: .milliseconds(250 * tick), .success(PlaybackInfo())) == .poll(at: .milliseconds(250 * (tick + 1))))
        }
        XCTAssert(!machine.hasPlayed)
    }

    func testTheReceiversOwnErrorStopsTheCell() {
        var machine = CellMachine(limits: limits)
        _ = machine.playAnswered(at: .zero, startPosition: 0, error: nil)
        let info = PlaybackInfo(error: .init(domain: "AVFoundationErrorDomain", code: -11800))
        XCTAssert(machine.polled(at: .milliseconds(250), .success(info))
            == .stop(CellEnd(kind: .receiverError, failure: "the receiver reported an error: AVFoundationErrorDomain -11800")))
    }
}

/// The driver with a clock that jumps: a whole cell of polls in microseconds.
final class LabRunDriverTests: XCTestCase {
    func testATenSecondCaseIsPolledEvery250msUntilItsEnd() async throws {
        let clock = JumpingClock()
        let receiver = ScriptedReceiver(clock: clock, script: ScriptedReceiver.playing(10))
        let driver = CellDriver(clock: clock, limits: CellLimits(caseTimeout: .seconds(25))) { _ throws(AirPlayError) in receiver }
        let started = ContinuousClock.now
        let recording = try await driver.run(AirPlayEndpoint(host: "192.0.2.1", port: 7000), url: URL(string: "http://x/cases/control/master.m3u8")!)
        XCTAssert(ContinuousClock.now - started < .seconds(1))
        XCTAssert(recording.end == CellEnd(kind: .reachedEnd, failure: nil))
        // 10.5 s of timeline at 4 polls a second, ending within 0.5 s of the duration.
        XCTAssert((38...43).contains(recording.series.samples.count))
        let times = recording.series.samples.map(\.atMs)
        XCTAssert(zip(times, times.dropFirst()).allSatisfy { abs($1 - $0 - 250) < 1 })
        XCTAssert(receiver.log.first == "play master.m3u8")
        XCTAssert(Array(receiver.log.suffix(2)) == ["stop", "close"])
        XCTAssert(recording.series.commands.map(\.kind) == [.play, .stop])
    }
}
