import AirPlay
import Foundation
import Store
import Logging
import Matrix
import XCTest
@testable import LabCore
@testable import LabRun
@testable import LabServer

/// A whole run through `LabRunSession` on a real SQLite file, with in-process receivers playing
/// one-second media on the real clock: what `lab run` and `lab run --resume` record.
final class LabRunSessionTests: XCTestCase {
    var path = ""
    var store: LabStore!
    let cases = ["control", "frame-rate-25"].map { LabTestData.transition($0, rules: []) }
    let target = RunTarget(name: "Den", deviceClass: "smart-tv-low-end", endpoint: AirPlayEndpoint(host: "192.0.2.7", port: 7000, name: "Den"))

    override func setUpWithError() throws {
        path = LabTestData.temporaryDatabase()
        store = try LabStore(path: path)
    }

    override func tearDown() {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    func plan(resuming: LabRunSummary? = nil, lease: Double = 0.6) -> LabRunSession.Plan {
        var options = LabRunner<ContinuousClock>.Options()
        options.pollInterval = .milliseconds(20)
        options.requestSettle = .zero
        return LabRunSession.Plan(targets: [target], cases: cases, resuming: resuming, origin: .server("http://192.0.2.100:8080/"),
                                  options: options, lease: RunLease(seconds: lease))
    }

    func open(_ plan: LabRunSession.Plan, played: Log) async throws -> LabRunSession {
        try await LabRunSession.open(plan, store: store, logger: Logger(label: "test"), opener: { _ throws(AirPlayError) in
            let receiver = ScriptedReceiver(clock: JumpingClock(), script: ScriptedReceiver.playing(0.6, startsAt: 0.05))
            return LoggedPlayback(receiver, log: played)
        }, probe: { _ in true })
    }

    func testARunPlaysEveryCellFromTheServersBaseAndIsRecordedFinished() async throws {
        let played = Log()
        let session = try await open(plan(), played: played)
        let outcome = await session.play()
        try await session.finish(interrupted: false)

        XCTAssertTrue(outcome.anyPlayed)
        let run = try XCTUnwrap(store.run(session.summary.id))
        XCTAssertEqual(run.state, .finished)
        XCTAssertEqual(run.cellsTotal, 2)
        XCTAssertEqual(run.pollIntervalMs, 20)
        XCTAssertEqual(try store.cells(runId: run.id).map(\.caseId), ["control", "frame-rate-25"])
        // The base's trailing slash is not doubled.
        XCTAssertEqual(played.urls, ["http://192.0.2.100:8080/cases/control/master.m3u8", "http://192.0.2.100:8080/cases/frame-rate-25/master.m3u8"])
    }

    func testAnInterruptedRunIsResumedWithOnlyItsMissingCells() async throws {
        let first = try await open(plan(), played: Log())
        // The operator's SIGINT before anything played: the run is recorded interrupted, no cell done.
        let task = Task { await first.play() }
        task.cancel()
        _ = await task.value
        try await first.finish(interrupted: true)
        let interrupted = try XCTUnwrap(store.run(first.summary.id))
        XCTAssertEqual(interrupted.state, .interrupted)
        let doneBefore = try store.doneCells(runId: interrupted.id)

        let played = Log()
        let second = try await open(plan(resuming: interrupted), played: played)
        XCTAssertEqual(second.summary.id, first.summary.id, "the same run goes on")
        XCTAssertEqual(second.done, doneBefore)
        _ = await second.play()
        try await second.finish(interrupted: false)
        XCTAssertEqual(try store.run(first.summary.id)?.state, .finished)
        XCTAssertEqual(played.urls.count, cases.count - doneBefore.count)
        XCTAssertEqual(Set(try store.cells(runId: first.summary.id).map(\.caseId)), ["control", "frame-rate-25"])
    }

    func testARunStillHeldByItsHeartbeatCannotBeResumedByAnother() async throws {
        // A 3 s lease (a beat every 0.5 s): a heartbeat thread starved on a loaded CI machine still
        // beats within it. Slept past it, so that only the heartbeat keeps the run.
        let session = try await open(plan(lease: 3), played: Log())
        try await Task.sleep(for: .milliseconds(3500))
        let run = try XCTUnwrap(store.run(session.summary.id))
        do {
            _ = try await open(plan(resuming: run, lease: 3), played: Log())
            XCTFail("a running run was taken over")
        } catch {
            XCTAssertTrue("\(error)".contains("still running"), "\(error)")
        }
        try await session.finish(interrupted: true)
    }

    func testTheCaseURLIsThePlaylistPathPercentEncoded() {
        var labCase = cases[0]
        labCase.playlist = "cases/odd name/ü.m3u8"
        XCTAssertEqual(LabRunSession.caseURL("http://10.0.0.1:8080", labCase).absoluteString,
                       "http://10.0.0.1:8080/cases/odd%20name/%C3%BC.m3u8")
    }
}

/// The URLs a session was asked to play, in order.
final class Log: @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [String] = []
    var urls: [String] { lock.withLock { entries } }
    func add(_ url: String) { lock.withLock { entries.append(url) } }
}

/// A playback that notes the URL of `/play` and otherwise is `base`.
struct LoggedPlayback: AirPlayPlayback {
    let base: any AirPlayPlayback
    let log: Log
    init(_ base: any AirPlayPlayback, log: Log) { self.base = base; self.log = log }
    func play(url: URL, startPosition: Double) async throws(AirPlayError) {
        log.add(url.absoluteString)
        try await base.play(url: url, startPosition: startPosition)
    }
    func playbackInfo() async throws(AirPlayError) -> PlaybackInfo { try await base.playbackInfo() }
    func setRate(_ rate: Double) async throws(AirPlayError) { try await base.setRate(rate) }
    func scrub(to seconds: Double) async throws(AirPlayError) { try await base.scrub(to: seconds) }
    func stop() async throws(AirPlayError) { try await base.stop() }
    func close() async { await base.close() }
}
