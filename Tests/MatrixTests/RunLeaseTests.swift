import Compatibility
import Foundation
import Store
@testable import Matrix
import XCTest

/// A run is alive while its heartbeat is younger than its lease, whatever its PID says (issue 20, item 6).
final class RunLeaseTests: XCTestCase {
    var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("lease-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    func start() -> RunStart {
        RunStart(matrixName: "m", matrixFile: "/lab/m.yaml", failOn: .error, jobs: 1, caseTimeout: 60, profiles: [],
                 plannedCases: ["a"], expectedIssues: [])
    }

    func testALeaseHoldsUntilItsHeartbeatIsOlderThanIt() {
        let lease = RunLease(seconds: 30)
        let now = Date()
        XCTAssertEqual(lease.interval, 5)
        XCTAssertTrue(lease.holds(heartbeat: now.addingTimeInterval(-29.9), now: now))
        XCTAssertTrue(lease.holds(heartbeat: now.addingTimeInterval(-30), now: now))
        XCTAssertFalse(lease.holds(heartbeat: now.addingTimeInterval(-30.1), now: now))
        XCTAssertTrue(lease.holds(heartbeat: now.addingTimeInterval(120), now: now), "a clock ahead of ours is not a dead run")
        XCTAssertEqual(RunLease.fromEnvironment([:]), .standard)
        XCTAssertEqual(RunLease.fromEnvironment([RunLease.environmentVariable: "2"]), RunLease(seconds: 2))
        for bad in ["0", "-5", "nan", "inf", "1e9", "soon"] {
            XCTAssertEqual(RunLease.fromEnvironment([RunLease.environmentVariable: bad]), .standard, bad)
        }
    }

    func testAHeartbeatBeatsEveryIntervalUntilStopped() throws {
        let beats = Beats()
        let heartbeat = RunHeartbeat(lease: RunLease(seconds: 0.6), beat: { beats.add($0) })
        let started = Date()
        heartbeat.start()
        Thread.sleep(forTimeInterval: 0.75)
        heartbeat.stop()
        let window = Date().timeIntervalSince(started)
        let counted = beats.count
        // A starved thread beats late, never early: the spacing is at least the interval, and the
        // count is bounded by the time that really passed (a loaded CI machine oversleeps).
        XCTAssertGreaterThanOrEqual(counted, 3, "one at once, then every 0.1 s")
        XCTAssertLessThanOrEqual(counted, Int(window / 0.1) + 1, "more beats than \(window) s allows at 0.1 s")
        for (earlier, later) in zip(beats.dates, beats.dates.dropFirst()) {
            XCTAssertGreaterThanOrEqual(later.timeIntervalSince(earlier), 0.099, "beats closer than the interval")
        }
        Thread.sleep(forTimeInterval: 0.3)
        XCTAssertEqual(beats.count, counted, "no beat after stop()")
    }

    func testARunIsJudgedByItsHeartbeatNotByItsPID() throws {
        let store = try ResultStore(path: directory.appendingPathComponent("r.sqlite").path)
        let lease = RunLease(seconds: 10)
        let fresh = try store.beginRun(start(), lease: lease)
        // Another namespace's PID 1, or a PID since reused by a live process: says nothing either way.
        try store.executor.write { try $0.execute("UPDATE run SET pid = 1 WHERE id = ?", [fresh]) }
        let stale = try store.beginRun(start(), lease: lease)
        try store.executor.write {
            try $0.execute("UPDATE run SET pid = ?, heartbeatAt = ? WHERE id = ?", [Int(getpid()), Date().timeIntervalSince1970 - 11, stale])
        }
        let revived = try store.beginRun(start(), lease: lease)
        try store.executor.write {
            try $0.execute("UPDATE run SET heartbeatAt = ? WHERE id = ?", [Date().timeIntervalSince1970 - 60, revived])
        }
        try store.beat(revived)
        let finished = try store.beginRun(start(), lease: lease)
        try store.finishRun(finished, status: .completed, probesPerformed: 0, distinctInputs: 0)
        try store.beat(finished)

        let status = Dictionary(uniqueKeysWithValues: try store.runs().map { ($0.id, $0.status) })
        XCTAssertEqual(status[fresh], .running, "a fresh heartbeat: running, though PID 1 is not this run")
        XCTAssertEqual(status[stale], .interrupted, "a heartbeat older than the lease: interrupted, though its PID is alive")
        XCTAssertEqual(status[revived], .running, "a beat renews the lease")
        XCTAssertEqual(status[finished], .completed, "a beat after the end changes nothing")
    }
}

private final class Beats: @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: [Date] = []
    func add(_ date: Date) { lock.withLock { recorded.append(date) } }
    var count: Int { lock.withLock { recorded.count } }
    var dates: [Date] { lock.withLock { recorded } }
}
