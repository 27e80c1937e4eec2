import AirPlay
import Foundation
import XCTest
@testable import LabCore
@testable import LabRun
@testable import LabServer

/// The runner with in-process receivers on a jumping clock: faults and retries without waiting.
final class LabRunnerTests: XCTestCase {
    let cases = ["control", "frame-rate-25", "video-codec-hevc"].map { LabTestData.transition($0, rules: []) }

    func target(_ name: String, _ host: String) -> RunTarget {
        RunTarget(name: name, deviceClass: "smart-tv-low-end", endpoint: AirPlayEndpoint(host: host, port: 7000, name: name))
    }

    func runner(clock: JumpingClock, recorder: MemoryRecorder, probe: @escaping @Sendable (AirPlayEndpoint) async -> Bool = { _ in true },
                opener: @escaping AirPlayOpener) -> LabRunner<JumpingClock> {
        var options = LabRunner<JumpingClock>.Options()
        options.comebackWait = .seconds(30)
        return LabRunner(clock: clock, options: options, opener: opener, probe: probe, recorder: recorder)
    }

    static let url: @Sendable (LabCase, RunTarget) -> URL = { labCase, target in
        URL(string: "http://192.0.2.100:8080/\(labCase.playlist)")!
    }

    func testACaseTimesOutAtItsMediaDurationPlusTheMargin() {
        let runner = runner(clock: JumpingClock(), recorder: MemoryRecorder()) { _ throws(AirPlayError) in
            throw .connect(endpoint: "x", reason: "unused")
        }
        // 12 s primary + 4 s interstitial + 15 s margin.
        XCTAssertEqual(runner.timeout(for: cases[0]), .seconds(31))
    }

    func testAReceiverThatGoesAwayHasThatCellFailedAndItsCellsRetriedWhenItComesBack() async throws {
        let clock = JumpingClock()
        let recorder = MemoryRecorder()
        let opens = Counter()
        // The den's second session: the receiver vanishes 2 s into the case (connection refused from then on).
        let opener: AirPlayOpener = { endpoint throws(AirPlayError) in
            let count = opens.next(endpoint.host)
            if endpoint.host == "192.0.2.2", count == 2 {
                let vanishAt = 2.0
                return ScriptedReceiver(clock: clock) { t in
                    t < vanishAt ? .success(.at(max(0, t - 0.5), of: 12)) : .failure(.connectionClosed(endpoint: "den", path: "/playback-info"))
                }
            }
            return ScriptedReceiver(clock: clock, script: ScriptedReceiver.playing(12))
        }
        let probes = Counter()
        let runner = runner(clock: clock, recorder: recorder, probe: { endpoint in probes.next(endpoint.host) >= 2 }, opener: opener)
        let results = await runner.run(runId: "r1", targets: [target("Living Room", "192.0.2.1"), target("Den", "192.0.2.2")],
                                       cases: cases, url: Self.url)

        let living = recorder.cells(of: "Living Room")
        XCTAssertEqual(living.map(\.cell.caseId), ["control", "frame-rate-25", "video-codec-hevc"])
        XCTAssertTrue(living.allSatisfy { $0.cell.measurement.outcome != .failed && $0.done })

        let den = recorder.cells(of: "Den")
        XCTAssertEqual(den.map { "\($0.cell.caseId)#\($0.cell.attempt)" },
                       ["control#1", "frame-rate-25#1", "frame-rate-25#2", "video-codec-hevc#1"])
        let failed = den[1].cell
        XCTAssertEqual(failed.measurement.outcome, .failed)
        XCTAssertTrue(failed.measurement.reason.contains("receiver went away"), failed.measurement.reason)
        XCTAssertTrue(den.allSatisfy(\.done))
        XCTAssertEqual(probes.count("192.0.2.2"), 2, "probed until it answered")
        XCTAssertNil(results[1].problem)
    }

    func testAReceiverBackWithoutTheItemWithinTheFailedPollsHasThatCellRetriedToo() async throws {
        let clock = JumpingClock()
        let recorder = MemoryRecorder()
        let opens = Counter()
        // The second session: refused for 1 s from 2 s in (fewer than the 3 s that mean "gone"), then
        // answering again with no item, as UxPlay does when it restarts within a second.
        let opener: AirPlayOpener = { endpoint throws(AirPlayError) in
            guard opens.next(endpoint.host) == 2 else { return ScriptedReceiver(clock: clock, script: ScriptedReceiver.playing(12)) }
            return ScriptedReceiver(clock: clock) { t in
                t < 2 ? .success(.at(max(0, t - 0.5), of: 12))
                    : t < 3 ? .failure(.connect(endpoint: "den", reason: "Connection refused"))
                    : .success(PlaybackInfo())
            }
        }
        let runner = runner(clock: clock, recorder: recorder, opener: opener)
        let results = await runner.run(runId: "r1", targets: [target("Den", "192.0.2.2")], cases: cases, url: Self.url)
        let den = recorder.cells(of: "Den")
        XCTAssertEqual(den.map { "\($0.cell.caseId)#\($0.cell.attempt)" },
                       ["control#1", "frame-rate-25#1", "frame-rate-25#2", "video-codec-hevc#1"],
                       den.map(\.cell.measurement.reason).joined(separator: "\n"))
        guard den.count == 4 else { return }
        XCTAssertTrue(den[1].cell.measurement.reason.contains("came back without the item"), den[1].cell.measurement.reason)
        XCTAssertNotEqual(den[2].cell.measurement.outcome, .failed, den[2].cell.measurement.reason)
        XCTAssertNil(results[0].problem)
    }

    func testAnAdIsDueOnScreenWhenStitchedOrFetchedAndNeverWithoutAnAssetToFetch() {
        typealias Worker = LabRunner<JumpingClock>.Worker
        var interstitial = LabTestData.transition("control", rules: [])
        interstitial.delivery = .interstitial
        let ad = LabRequestRecord(at: Date(), client: "192.0.2.2", method: "GET", path: "/cases/control/ad/ad.m3u8", status: 200, bytes: 10,
                                   durationMs: 1)
        XCTAssertFalse(Worker.adExpectedOnScreen(interstitial, requests: []), "not fetched")
        XCTAssertTrue(Worker.adExpectedOnScreen(interstitial, requests: [ad]))
        var emptyList = interstitial
        emptyList.interstitialPrefix = nil  // behaviour-asset-list-empty, -failed: no asset to fetch
        XCTAssertFalse(Worker.adExpectedOnScreen(emptyList, requests: [ad]))
        var stitched = interstitial
        stitched.delivery = .stitched
        XCTAssertTrue(Worker.adExpectedOnScreen(stitched, requests: []))
        stitched.interstitial?.videoCodec = nil
        XCTAssertFalse(Worker.adExpectedOnScreen(stitched, requests: []), "an ad without video")
    }

    func testAReceiverThatStaysAwayHasItsRemainingCellsRecordedAsNotRun() async throws {
        let clock = JumpingClock()
        let recorder = MemoryRecorder()
        let runner = runner(clock: clock, recorder: recorder, probe: { _ in false }) { endpoint throws(AirPlayError) in
            ScriptedReceiver(clock: clock) { t in
                t < 1 ? .success(.at(t, of: 12)) : .failure(.timeout(endpoint: "den", path: "/playback-info", seconds: 5))
            }
        }
        let results = await runner.run(runId: "r1", targets: [target("Den", "192.0.2.2")], cases: cases, url: Self.url)
        let den = recorder.cells(of: "Den")
        XCTAssertEqual(den.map(\.cell.caseId), ["control", "frame-rate-25", "video-codec-hevc"])
        XCTAssertEqual(den[0].cell.measurement.outcome, .failed)
        XCTAssertTrue(den[0].done)
        XCTAssertEqual(den[1...].map(\.done), [false, false], "not run: played again by --resume")
        XCTAssertTrue(den[1].cell.measurement.reason.hasPrefix("not run: the receiver went away and did not answer again within 30 s"))
        XCTAssertEqual(results[0].problem, den[1].cell.measurement.reason)
    }

    func testAReceiverThatWantsPairingHasEveryCellSkippedWithWhatItWants() async throws {
        let clock = JumpingClock()
        let recorder = MemoryRecorder()
        let refusal = AirPlayError.pairingRequired(endpoint: "Bedroom (192.0.2.3:7000)", status: 470)
        let runner = runner(clock: clock, recorder: recorder) { _ throws(AirPlayError) in throw refusal }
        let results = await runner.run(runId: "r1", targets: [target("Bedroom", "192.0.2.3")], cases: cases, url: Self.url)
        let cells = recorder.cells(of: "Bedroom")
        XCTAssertEqual(cells.count, 3)
        XCTAssertTrue(cells.allSatisfy { $0.cell.measurement.outcome == .skipped && $0.cell.measurement.reason == refusal.description })
        XCTAssertEqual(results[0].problem, refusal.description)
        XCTAssertFalse(results[0].played)
    }

    func testResumeSkipsTheCellsAlreadyDone() async throws {
        let clock = JumpingClock()
        let recorder = MemoryRecorder()
        let runner = runner(clock: clock, recorder: recorder) { _ throws(AirPlayError) in
            ScriptedReceiver(clock: clock, script: ScriptedReceiver.playing(12))
        }
        _ = await runner.run(runId: "r1", targets: [target("Den", "192.0.2.2")], cases: cases,
                             skipping: [LabRunCellKey(receiver: "Den", caseId: "control")], url: Self.url)
        XCTAssertEqual(recorder.cells(of: "Den").map(\.cell.caseId), ["frame-rate-25", "video-codec-hevc"])
    }

    /// SIGINT lands while the 60th `/playback-info` (12 s into the second case) is in flight: the
    /// receiver holds that answer until the test has cancelled, so the cut is at one point in
    /// virtual time whatever the threads do.
    func testCancellationStopsTheRunWithoutStoringTheCellCutShort() async throws {
        let clock = JumpingClock()
        let recorder = MemoryRecorder()
        let polls = Counter(), opens = Counter()
        let hold = Hold()
        let sessions = Sessions()
        let runner = runner(clock: clock, recorder: recorder) { _ throws(AirPlayError) in
            _ = opens.next("all")
            let inner = ScriptedReceiver(clock: clock) { t in .success(.at(min(t, 12), of: 12)) }
            sessions.add(inner)
            return HeldReceiver(inner, holds: .playbackInfo) { polls.next("all") == 60 ? hold : nil }
        }
        let den: [RunTarget] = [target("Den", "192.0.2.2")]
        let chosen: [LabCase] = cases
        let task = Task { [runner] in await runner.run(runId: "r1", targets: den, cases: chosen, url: LabRunnerTests.url) }
        await hold.reached()
        task.cancel()
        hold.release()
        let results = await task.value
        let stored = recorder.cells(of: "Den").map(\.cell.caseId)
        XCTAssertEqual(stored, ["control"], "the first cell finished (about 48 polls); the second was cut short and is not stored")
        XCTAssertEqual(results[0].cells.map(\.caseId), ["control"])
        XCTAssertEqual(polls.count("all"), 60, "no request after the one in flight")
        XCTAssertEqual(opens.count("all"), 2, "the third case is not opened")
        XCTAssertEqual(sessions.all.last?.log.suffix(2), ["stop", "close"], "the cut-short session is stopped and closed")
    }

    /// SIGINT while the first cell's `/stop` is in flight: that finished cell is stored, and no
    /// further case is opened (no new session, no `/play` after the interrupt).
    func testCancellationBetweenCellsOpensNoFurtherCase() async throws {
        let clock = JumpingClock()
        let recorder = MemoryRecorder()
        let opens = Counter()
        let hold = Hold()
        let runner = runner(clock: clock, recorder: recorder) { _ throws(AirPlayError) in
            let first = opens.next("all") == 1
            return HeldReceiver(ScriptedReceiver(clock: clock, script: ScriptedReceiver.playing(12)), holds: .stop) { first ? hold : nil }
        }
        let den: [RunTarget] = [target("Den", "192.0.2.2")]
        let chosen: [LabCase] = cases
        let task = Task { [runner] in await runner.run(runId: "r1", targets: den, cases: chosen, url: LabRunnerTests.url) }
        await hold.reached()
        task.cancel()
        hold.release()
        _ = await task.value
        XCTAssertEqual(recorder.cells(of: "Den").map(\.cell.caseId), ["control"], "a cell finished before the interrupt is kept")
        XCTAssertEqual(opens.count("all"), 1, "no session opened after the interrupt")
    }
}

/// Holds one request of a `HeldReceiver` until `release()`: the test cancels while it is in flight.
final class Hold: @unchecked Sendable {
    private let lock = NSLock()
    private var arrived = false, released = false
    private var arrivalWaiter: CheckedContinuation<Void, Never>?
    private var releaseWaiter: CheckedContinuation<Void, Never>?

    /// Called by the receiver: marks the request in flight and waits for `release()`.
    func arrive() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let (waiter, go) = lock.withLock { () -> (CheckedContinuation<Void, Never>?, Bool) in
                arrived = true
                let waiter = arrivalWaiter
                arrivalWaiter = nil
                if !released { releaseWaiter = continuation }
                return (waiter, released)
            }
            waiter?.resume()
            if go { continuation.resume() }
        }
    }

    /// Returns once the held request is in flight.
    func reached() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = lock.withLock { () -> Bool in
                if arrived { return true }
                arrivalWaiter = continuation
                return false
            }
            if now { continuation.resume() }
        }
    }

    func release() {
        let waiter = lock.withLock { () -> CheckedContinuation<Void, Never>? in
            released = true
            defer { releaseWaiter = nil }
            return releaseWaiter
        }
        waiter?.resume()
    }
}

/// A `ScriptedReceiver` whose chosen request waits on the `Hold` that `hold()` returns (nil: answer at once).
struct HeldReceiver: AirPlayPlayback {
    enum Request: Sendable { case playbackInfo, stop }
    let inner: ScriptedReceiver
    let holds: Request
    let hold: @Sendable () -> Hold?

    init(_ inner: ScriptedReceiver, holds: Request, hold: @escaping @Sendable () -> Hold?) {
        self.inner = inner
        self.holds = holds
        self.hold = hold
    }

    func play(url: URL, startPosition: Double) async throws(AirPlayError) { try await inner.play(url: url, startPosition: startPosition) }
    func playbackInfo() async throws(AirPlayError) -> PlaybackInfo {
        if holds == .playbackInfo, let hold = hold() { await hold.arrive() }
        return try await inner.playbackInfo()
    }
    func setRate(_ rate: Double) async throws(AirPlayError) {}
    func scrub(to seconds: Double) async throws(AirPlayError) {}
    func stop() async throws(AirPlayError) {
        if holds == .stop, let hold = hold() { await hold.arrive() }
        try await inner.stop()
    }
    func close() async { await inner.close() }
}

/// The sessions a test's opener made, in order.
final class Sessions: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [ScriptedReceiver] = []
    func add(_ receiver: ScriptedReceiver) { lock.withLock { list.append(receiver) } }
    var all: [ScriptedReceiver] { lock.withLock { list } }
}

/// Counts calls per key, across tasks.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var counts: [String: Int] = [:]

    func next(_ key: String) -> Int { lock.withLock { counts[key, default: 0] += 1; return counts[key]! } }
    func count(_ key: String) -> Int { lock.withLock { counts[key] ?? 0 } }
}
