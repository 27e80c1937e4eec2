import AirPlay
import Foundation
import XCTest
@testable import LabCore
@testable import LabRun
@testable import LabServer

/// A behaviour case's scripted commands: when the machine sends them (after playback started,
/// never before), what it records, and what a cell that ended first says.
final class LabRunScriptTests: XCTestCase {
    let limits = CellLimits(pollInterval: .milliseconds(250), caseTimeout: .seconds(30))

    func testACommandGoesOutItsSecondsAfterThePositionFirstMoved() {
        var machine = CellMachine(limits: limits, script: [LabScriptedCommand(kind: .scrub, after: 1, value: 9)])
        _ = machine.playAnswered(at: .milliseconds(10), startPosition: 0, error: nil)
        XCTAssert(machine.polled(at: .milliseconds(250), .success(.at(0))) == .poll(at: .milliseconds(500)))
        XCTAssert(machine.polled(at: .milliseconds(500), .success(.at(0, rate: 0))) == .poll(at: .milliseconds(750)))
        XCTAssertNil(machine.playStarted)
        // Playback starts at 750 ms: the scrub is due at 1750 ms.
        XCTAssert(machine.polled(at: .milliseconds(750), .success(.at(0.2))) == .poll(at: .milliseconds(1000)))
        XCTAssertEqual(machine.playStarted, .milliseconds(750))
        XCTAssert(machine.polled(at: .milliseconds(1000), .success(.at(0.45))) == .poll(at: .milliseconds(1250)))
        XCTAssert(machine.polled(at: .milliseconds(1500), .success(.at(0.95))) == .poll(at: .milliseconds(1750)))
        XCTAssert(machine.polled(at: .milliseconds(1750), .success(.at(1.2))) == .send(LabScriptedCommand(kind: .scrub, after: 1, value: 9)))
        XCTAssert(machine.commandAnswered(sentAt: .milliseconds(1752), at: .milliseconds(1770), LabScriptedCommand(kind: .scrub, after: 1, value: 9),
                                          error: nil) == .poll(at: .milliseconds(2000)))
        // Recorded when it was sent: the receiver may fetch the target before its answer arrives.
        XCTAssert(machine.commands.last == SentCommand(kind: .scrub, atMs: 1752, value: 9))
        XCTAssert(machine.pending.isEmpty)
    }

    func testACommandDueBetweenTicksBringsThePollForward() {
        var machine = CellMachine(limits: CellLimits(pollInterval: .seconds(1), caseTimeout: .seconds(30)),
                                  script: [LabScriptedCommand(kind: .rate, after: 1.5, value: 2)])
        _ = machine.playAnswered(at: .zero, startPosition: 0, error: nil)
        XCTAssert(machine.polled(at: .seconds(1), .success(.at(0.5))) == .poll(at: .seconds(2)))
        // Started at 1 s: due at 2.5 s, before the 3 s tick.
        XCTAssert(machine.polled(at: .seconds(2), .success(.at(1.5))) == .poll(at: .milliseconds(2500)))
        XCTAssert(machine.polled(at: .milliseconds(2500), .success(.at(2))) == .send(LabScriptedCommand(kind: .rate, after: 1.5, value: 2)))
        let failed = AirPlayError.http(endpoint: "tv", path: "/rate", status: 500, reason: "Internal Server Error")
        XCTAssert(machine.commandAnswered(at: .milliseconds(2520), LabScriptedCommand(kind: .rate, after: 1.5, value: 2), error: failed)
            == .poll(at: .seconds(3)))
        XCTAssertEqual(machine.commands.last?.kind, .rate)
        XCTAssertNotNil(machine.commands.last?.failure)
    }

    func testACommandAtAPositionWaitsForTheReceiversPosition() {
        // A receiver playing at twice real time: the scrub goes when the media reaches 6 s, not 6 s of wall time.
        let scrub = LabScriptedCommand(kind: .scrub, after: 6, atPosition: 6, value: 2)
        var machine = CellMachine(limits: limits, script: [scrub])
        _ = machine.playAnswered(at: .zero, startPosition: 0, error: nil)
        XCTAssert(machine.polled(at: .milliseconds(250), .success(.at(0.5))) == .poll(at: .milliseconds(500)))
        XCTAssert(machine.polled(at: .milliseconds(2750), .success(.at(5.5))) == .poll(at: .milliseconds(3000)))
        XCTAssert(machine.polled(at: .milliseconds(3000), .success(.at(6.0))) == .send(scrub))
        XCTAssertEqual(machine.commandAnswered(at: .milliseconds(3010), scrub, error: nil), .poll(at: .milliseconds(3250)))
        XCTAssert(machine.commands.last == SentCommand(kind: .scrub, atMs: 3010, value: 2))
    }

    func testNoCommandBeforePlaybackStarts() {
        var machine = CellMachine(limits: limits, script: [LabScriptedCommand(kind: .rate, after: 0, value: 2)])
        _ = machine.playAnswered(at: .zero, startPosition: 0, error: nil)
        for tick in 1...8 {
            XCTAssert(machine.polled(at: .milliseconds(250 * tick), .success(.at(0, rate: 0))) == .poll(at: .milliseconds(250 * (tick + 1))))
        }
        XCTAssertEqual(machine.pending.count, 1)
    }

    func testACellThatEndsFirstKeepsItsCommandsPending() {
        var machine = CellMachine(limits: limits, script: [LabScriptedCommand(kind: .scrub, after: 20, value: 2)])
        _ = machine.playAnswered(at: .zero, startPosition: 0, error: nil)
        _ = machine.polled(at: .milliseconds(250), .success(.at(0.1)))
        XCTAssert(machine.polled(at: .seconds(10), .success(.at(9.8))) == .stop(CellEnd(kind: .reachedEnd, failure: nil)))
        XCTAssertEqual(machine.pending, [LabScriptedCommand(kind: .scrub, after: 20, value: 2)])
        XCTAssertEqual(LabRunner<ContinuousClock>.Worker.unsentNote(machine.pending),
                       "1 scripted command not sent (scrub to 2.0 s at 20.0 s): the cell ended first")
    }

    func testAPostRollCellWaitsForTheReceiverToDropTheItem() {
        var machine = CellMachine(limits: CellLimits(pollInterval: .milliseconds(250), caseTimeout: .seconds(30), stopAtEnd: false))
        _ = machine.playAnswered(at: .zero, startPosition: 0, error: nil)
        _ = machine.polled(at: .milliseconds(250), .success(.at(0.1)))
        // At the duration: the post-roll plays on.
        XCTAssert(machine.polled(at: .seconds(10), .success(.at(9.9))) == .poll(at: .milliseconds(10_250)))
        XCTAssert(machine.polled(at: .milliseconds(10_250), .success(.at(10))) == .poll(at: .milliseconds(10_500)))
        var action = CellAction.poll(at: .zero)
        for tick in 0..<4 { action = machine.polled(at: .milliseconds(10_500 + 250 * tick), .success(PlaybackInfo())) }
        XCTAssert(action == .stop(CellEnd(kind: .finished, failure: nil)))
    }

    func testALiveCellWithoutADurationIsNotFinishedWhileItsPositionMoves() {
        var machine = CellMachine(limits: CellLimits(pollInterval: .milliseconds(250), caseTimeout: .seconds(30), live: true))
        _ = machine.playAnswered(at: .zero, startPosition: 0, error: nil)
        for tick in 1...12 {
            let info = PlaybackInfo(position: 2 + Double(tick) * 0.25, rate: 1)
            XCTAssert(machine.polled(at: .milliseconds(250 * tick), .success(info)) == .poll(at: .milliseconds(250 * (tick + 1))))
        }
        XCTAssertTrue(machine.hasPlayed)
        // The item dropped: an empty answer, four times.
        var action = CellAction.poll(at: .zero)
        for tick in 13...16 { action = machine.polled(at: .milliseconds(250 * tick), .success(PlaybackInfo())) }
        XCTAssert(action == .stop(CellEnd(kind: .finished, failure: nil)))
    }

    func testTheDriverSendsTheScriptOnTheClock() async throws {
        let clock = JumpingClock()
        let receiver = ScriptedReceiver(clock: clock, script: ScriptedReceiver.playing(10))
        let driver = CellDriver(clock: clock, limits: CellLimits(caseTimeout: .seconds(25))) { _ throws(AirPlayError) in receiver }
        let script = [LabScriptedCommand(kind: .scrub, after: 3, value: 5), LabScriptedCommand(kind: .rate, after: 2, value: 2)]
        let recording = try await driver.run(AirPlayEndpoint(host: "192.0.2.1", port: 7000), url: URL(string: "http://x/cases/c/master.m3u8")!,
                                             script: script)
        XCTAssert(recording.unsent.isEmpty)
        XCTAssertEqual(recording.series.commands.map(\.kind), [.play, .rate, .scrub, .stop])
        // The first poll that moved is at 750 ms (the receiver starts 0.5 s after /play): rate at 2.75 s, scrub at 3.75 s.
        let started = try XCTUnwrap(recording.series.samples.first { ($0.info?.position ?? 0) > 0 }?.atMs)
        let rate = try XCTUnwrap(recording.series.commands.first { $0.kind == .rate })
        let scrub = try XCTUnwrap(recording.series.commands.first { $0.kind == .scrub })
        XCTAssertEqual(rate.atMs - started, 2000, accuracy: 60)
        XCTAssertEqual(scrub.atMs - started, 3000, accuracy: 60)
        XCTAssertEqual(rate.value, 2)
        XCTAssertEqual(scrub.value, 5)
        XCTAssert(receiver.log.contains("rate 2.0") && receiver.log.contains("scrub 5.0"))
        XCTAssertLessThan(receiver.log.firstIndex(of: "rate 2.0")!, receiver.log.firstIndex(of: "scrub 5.0")!)
    }
}

/// The runner judges a behaviour cell from the requests the store gives back and keeps the
/// judgement in the cell's measurement (its JSON, so the store's schema is unchanged).
final class LabRunBehaviourCellTests: XCTestCase {
    /// Gives back a fixed session's requests, as the lab server's log would.
    final class SessionRecorder: LabRunRecording, @unchecked Sendable {
        let requests: [LabRequestRecord]
        private let lock = NSLock()
        private(set) var cells: [LabRunCell] = []
        init(requests: [LabRequestRecord]) { self.requests = requests }
        func record(_ cell: LabRunCell, done: Bool) throws(LabStoreError) { lock.withLock { cells.append(cell) } }
        /// The session as if it began when `/play` was sent (the runner asks from 1 s before it).
        func requests(client: String, from: Date, to: Date) throws(LabStoreError) -> [LabRequestRecord] {
            guard let first = requests.first?.at else { return [] }
            let shift = from.addingTimeInterval(1).timeIntervalSince(first)
            return requests.map { var r = $0; r.at = r.at.addingTimeInterval(shift); return r }
        }
    }

    func testABehaviourCellIsJudgedAndItsScriptSent() async throws {
        let example = BehaviourExample("resumes late", .jump, "m p0 ad-1:0 ad-1:1 p4 p5", .conforms)
        let clock = JumpingClock()
        let receiver = ScriptedReceiver(clock: clock, script: ScriptedReceiver.playing(12))
        let recorder = SessionRecorder(requests: example.requests(client: "192.0.2.1"))
        var options = LabRunner<JumpingClock>.Options()
        options.primaryTimeline = BehaviourExample.timeline
        let runner = LabRunner(clock: clock, options: options, opener: { _ throws(AirPlayError) in receiver }, probe: { _ in true },
                               recorder: recorder)
        let target = RunTarget(name: "tv", endpoint: AirPlayEndpoint(host: "192.0.2.1", port: 7000))
        _ = await runner.run(runId: "r", targets: [target], cases: [example.labCase], url: { _, _ in URL(string: "http://x/m.m3u8")! })
        let cell = try XCTUnwrap(recorder.cells.first)
        XCTAssert(receiver.log.contains("scrub 9.0"), "\(receiver.log)")
        XCTAssertEqual(cell.series.commands.map(\.kind), [.play, .scrub, .stop])
        let judgement = try XCTUnwrap(cell.behaviour)
        XCTAssertEqual(judgement.feature, "restrict-jump")
        XCTAssertEqual(judgement.checks.map(\.kind), [.played, .playedBeforeSeekTarget])
        // The scrub went out about 1.75 s after /play (the position first moved at 0.75 s): the ad (2 s) was
        // fetched before the landing at 9 s (4 s).
        XCTAssertEqual(judgement.outcome, .conforms, judgement.why ?? "")
        XCTAssert(judgement.checks.last?.observed.hasPrefix("ad at 2.0 s, then seg_004.m4s at 4.0 s (seek at 1.") == true,
                  judgement.checks.last?.observed ?? "")

        let stored = try JSONDecoder().decode(StoredMeasurement.self,
                                              from: JSONEncoder().encode(StoredMeasurement(measurement: cell.measurement, behaviour: cell.behaviour)))
        XCTAssertEqual(stored.behaviour, judgement)
    }

    func testATransitionCellHasNoJudgement() async throws {
        let clock = JumpingClock()
        let recorder = SessionRecorder(requests: [])
        let runner = LabRunner(clock: clock, options: .init(), opener: { _ throws(AirPlayError) in
            ScriptedReceiver(clock: clock, script: ScriptedReceiver.playing(10))
        }, probe: { _ in true }, recorder: recorder)
        let target = RunTarget(name: "tv", endpoint: AirPlayEndpoint(host: "192.0.2.1", port: 7000))
        _ = await runner.run(runId: "r", targets: [target], cases: [LabTestData.transition("control", rules: [])],
                             url: { _, _ in URL(string: "http://x/m.m3u8")! })
        XCTAssertNil(try XCTUnwrap(recorder.cells.first).behaviour)
    }
}
