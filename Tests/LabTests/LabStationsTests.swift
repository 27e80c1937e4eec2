import Compatibility
import Foundation
import SeamcheckTestSupport
import XCTest
@testable import LabCore
@testable import LabRun
@testable import LabServer

/// Two stations on one database (a SQLite file here, PostgreSQL in `PostgresLabStationsTests`):
/// each one's rows carry it, the same client address at both is two receivers and two sessions,
/// and every read takes one station or all.
class LabStationsTests: XCTestCase {
    var path = ""
    var roomA: LabStore!
    var roomB: LabStore!

    func makeDatabase() throws -> String { LabTestData.temporaryDatabase() }

    override func setUpWithError() throws {
        path = try makeDatabase()
        roomA = try LabStore(path: path, station: "room-a")
        roomB = try LabStore(path: path, station: "room-b")
    }

    override func tearDown() {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    /// Both stations' receiver 10.0.0.5 plays the same case at the same moment.
    func fillBothRooms() throws {
        for (store, name, deviceClass) in [(roomA!, "Living Room", "smart-tv-low-end"), (roomB!, "Board Room", "apple-tv-4k")] {
            let serve = try store.beginServe(bind: "0.0.0.0", port: 8080, streams: "/s", manifest: LabTestData.manifest)
            try store.upsert(LabReceiverRecord(address: "10.0.0.5", name: name, deviceClass: deviceClass, reason: "test", source: .inventory,
                                               seenAt: LabTestData.start.addingTimeInterval(-10)))
            try store.append(LabTestData.midRoll("10.0.0.5", from: 0), serveId: serve)
        }
        // Room B's receiver also fetched a segment room A's never did: merged sessions would show 12 requests.
        let serveB: Int64 = try roomB.executor.read { try $0.scalar("SELECT max(id) FROM labServe WHERE station = 'room-b'") } ?? 0
        try roomB.append([LabTestData.request("10.0.0.5", "/cases/video-codec-hevc/primary/seg_004.m4s", at: 1.1)], serveId: serveB)
    }

    func testTheSameClientAddressAtTwoStationsIsTwoSessionsWithTheirOwnReceivers() throws {
        try fillBothRooms()
        let all = try roomA.requests()
        XCTAssertEqual(all.count, 23)
        XCTAssertEqual(Set(all.map(\.station)), ["room-a", "room-b"], "every request carries the station that logged it")
        XCTAssertEqual(try roomA.requests(station: "room-b").count, 12)
        XCTAssertEqual(try roomA.requestCount(station: "room-a"), 11)
        XCTAssertEqual(try roomA.receivers().map(\.name).sorted(), ["Board Room", "Living Room"],
                       "one address at two stations is two receivers (the second upsert did not overwrite the first)")

        let sessions = SessionBuilder(manifest: LabTestData.manifest, receivers: try roomA.receivers(), history: try roomA.receiverHistory())
            .sessions(from: all)
        XCTAssertEqual(sessions.count, 2, "never one session of both stations' requests")
        let a = try XCTUnwrap(sessions.first { $0.station == "room-a" }), b = try XCTUnwrap(sessions.first { $0.station == "room-b" })
        XCTAssertEqual([a.client, b.client], ["10.0.0.5", "10.0.0.5"])
        XCTAssertEqual([a.receiver, b.receiver], ["Living Room", "Board Room"])
        XCTAssertEqual([a.deviceClass, b.deviceClass], ["smart-tv-low-end", "apple-tv-4k"])
        XCTAssertEqual([a.requests, b.requests], [11, 12])

        let onlyB = SessionBuilder(manifest: LabTestData.manifest, receivers: try roomA.receivers(station: "room-b"),
                                   history: try roomA.receiverHistory(station: "room-b")).sessions(from: try roomA.requests(station: "room-b"))
        XCTAssertEqual(onlyB.map(\.receiver), ["Board Room"])
    }

    func testVerdictsReportCellsAndRunsKeepTheirStation() throws {
        try fillBothRooms()
        // Each room's operator names the receiver at the same address; each desk finds its own room's.
        let deskA = VerdictDesk(store: roomA, manifest: LabTestData.manifest), deskB = VerdictDesk(store: roomB, manifest: LabTestData.manifest)
        XCTAssertEqual(try deskA.record(receiver: "10.0.0.5", caseId: "video-codec-hevc", verdict: "stall", seconds: 2, note: nil, source: "cli").receiver,
                       "Living Room")
        XCTAssertEqual(try deskB.record(receiver: "10.0.0.5", caseId: "video-codec-hevc", verdict: "seamless", seconds: nil, note: nil, source: "cli").receiver,
                       "Board Room")
        XCTAssertThrowsError(try deskA.record(receiver: "Board Room", caseId: "control", verdict: "stall", seconds: nil, note: nil, source: "cli"),
                             "another station's receiver is not this operator's")
        XCTAssertEqual(try roomA.verdicts().map(\.station), ["room-a", "room-b"])
        XCTAssertEqual(try roomA.verdicts(station: "room-b").map(\.verdict), [.seamless])
        XCTAssertEqual(try roomA.stations(), ["room-a", "room-b"])

        // The same receiver name at both stations stays two report cells.
        try roomB.upsert(LabReceiverRecord(address: "10.0.0.5", name: "Living Room", deviceClass: "apple-tv-4k", reason: "renamed",
                                           source: .inventory, seenAt: LabTestData.start.addingTimeInterval(-5)))
        _ = try roomB.record(LabVerdictRecord(receiver: "Living Room", deviceClass: "apple-tv-4k", client: "10.0.0.5", caseId: "control",
                                              verdict: .glitch, source: .operator))
        _ = try roomA.record(LabVerdictRecord(receiver: "Living Room", deviceClass: "smart-tv-low-end", client: "10.0.0.5", caseId: "control",
                                              verdict: .seamless, source: .operator))
        let profiles = try ProfileLoader.loadDirectory(MediaFixture.packageRoot + "/DeviceProfiles")
        let report = LabReportBuilder(manifest: LabTestData.manifest, profiles: profiles).report(verdicts: try roomA.verdicts(), sessions: [])
        let control = report.cells.filter { $0.case == "control" }
        XCTAssertEqual(control.map(\.station).sorted { ($0 ?? "") < ($1 ?? "") }, ["room-a", "room-b"])
        XCTAssertEqual(Set(control.compactMap(\.observed)), ["seamless", "glitch"], "neither station's verdict hides the other's")
        XCTAssertTrue(report.spansStations)
        XCTAssertEqual(report.receiverLabel(try XCTUnwrap(control.first { $0.station == "room-b" })), "Living Room @ room-b")

        // Runs: each station's own; --resume finds only its station's interrupted run.
        let run = LabRunSummary(id: "r-a", startedAt: Date(), state: .running, server: "http://x", receivers: ["Living Room"],
                                cases: ["control"], pollIntervalMs: 250, cellsTotal: 1)
        try roomA.beginRun(run, leaseSeconds: 0.01)
        Thread.sleep(forTimeInterval: 0.05)
        XCTAssertEqual(try roomA.runs().map(\.station), ["room-a"])
        XCTAssertEqual(try roomA.runs(station: "room-b").count, 0)
        XCTAssertNil(try roomB.latestInterruptedRun(), "room B does not resume room A's run")
        XCTAssertEqual(try roomA.latestInterruptedRun()?.id, "r-a")
        XCTAssertThrowsError(try roomB.resumeRun("r-a", server: "http://y", leaseSeconds: 30)) {
            XCTAssertTrue("\($0)".contains("station room-a ran it"), "\($0)")
        }
    }

    func testALabRunReadsOnlyItsStationsRequestsOfAnAddress() throws {
        try fillBothRooms()
        let window = (LabTestData.start.addingTimeInterval(-1), LabTestData.start.addingTimeInterval(5))
        XCTAssertEqual(try roomA.requests(client: "10.0.0.5", from: window.0, to: window.1).count, 11)
        XCTAssertEqual(try roomB.requests(client: "10.0.0.5", from: window.0, to: window.1).count, 12)
    }
}

final class PostgresLabStationsTests: LabStationsTests {
    override func makeDatabase() throws -> String { try TestPostgres.shared().makeDatabase("labstations") }

    override func tearDown() {}

    /// Two stations' request logs committing at once, each its own connections: every row kept, each with its station.
    func testTwoStationsAppendAtOnce() throws {
        let serves = try [roomA!, roomB!].map { try $0.beginServe(bind: "0.0.0.0", port: 8080, streams: "/s", manifest: LabTestData.manifest) }
        let stores = [roomA!, roomB!]
        let failures = LockedCount()
        DispatchQueue.concurrentPerform(iterations: 40) { n in
            let store = stores[n % 2]
            do { try store.append(LabTestData.midRoll("10.0.0.\(n / 2 % 2)", from: Double(n) * 10), serveId: serves[n % 2]) } catch { failures.add() }
        }
        XCTAssertEqual(failures.value, 0)
        XCTAssertEqual(try roomA.requestCount(station: "room-a"), 20 * 11)
        XCTAssertEqual(try roomA.requestCount(station: "room-b"), 20 * 11)
        let sessions = SessionBuilder(manifest: LabTestData.manifest, receivers: []).sessions(from: try roomA.requests())
        // Both stations saw 10.0.0.0 and 10.0.0.1: four sessions of 10 batches each, none of two stations.
        XCTAssertEqual(sessions.map { "\($0.station ?? "-") \($0.client) \($0.requests)" }.sorted(),
                       ["room-a 10.0.0.0 110", "room-a 10.0.0.1 110", "room-b 10.0.0.0 110", "room-b 10.0.0.1 110"])
    }
}

private final class LockedCount: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func add() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}
