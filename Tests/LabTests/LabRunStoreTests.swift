import AirPlay
import Foundation
import SeamcheckTestSupport
import XCTest
@testable import LabCore
@testable import LabRun
@testable import LabServer

/// The run tables on a real SQLite file: what `lab runs`, `--resume` and the reports read back.
/// `PostgresLabRunStoreTests` runs the same tests on PostgreSQL.
class LabRunStoreTests: XCTestCase {
    var path = ""
    var store: LabStore!

    func makeDatabase() throws -> String { LabTestData.temporaryDatabase() }

    override func setUpWithError() throws {
        path = try makeDatabase()
        store = try LabStore(path: path)
    }

    override func tearDown() {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    func summary(_ id: String, started: Date = Date()) -> LabRunSummary {
        LabRunSummary(id: id, startedAt: started, state: .running, server: "http://10.0.0.1:8080", receivers: ["Den", "Kodi"],
                      cases: ["control", "frame-rate-25"], pollIntervalMs: 250, cellsTotal: 4)
    }

    func cell(_ run: String, _ receiver: String, _ caseId: String, outcome: MeasuredOutcome, at offset: Double, attempt: Int = 1,
              stallMs: Double? = nil) -> LabRunCell {
        let at = LabTestData.start.addingTimeInterval(offset)
        let series = PlaybackSeries(playSentAt: at, pollIntervalMs: 250,
                                    samples: [PlaybackSample(atMs: 250, info: .at(0.1)), PlaybackSample(atMs: 500, info: nil, failure: "gone"),
                                              PlaybackSample(atMs: 750, info: PlaybackInfo(position: .nan))],
                                    commands: [SentCommand(kind: .play, atMs: 0, value: 0)])
        return LabRunCell(runId: run, receiver: receiver, deviceId: nil, deviceClass: "smart-tv-low-end", address: "10.0.0.2",
                          caseId: caseId, attempt: attempt, startedAt: at, finishedAt: at.addingTimeInterval(12), url: "http://x/\(caseId)",
                          series: series, requests: LabTestData.midRoll("10.0.0.2", case: caseId, from: offset),
                          measurement: CellMeasurement(playToFirstFrameMs: 900,
                                                       stalls: stallMs.map { [MeasuredStall(position: 4, startMs: 4600, durationMs: $0,
                                                                                             kind: "position-frozen", transition: "ad start")] } ?? [],
                                                       outcome: outcome, transitionStallMs: stallMs, reason: outcome.rawValue))
    }

    /// The behaviour judgement is the cell's now, stored where it always was: inside the
    /// measurement's JSON at `behaviour`, so old rows and new rows read the same.
    func testABehaviourJudgementIsStoredInsideTheMeasurementAsBefore() throws {
        var measurement = CellMeasurement(outcome: .seamless, reason: "played")
        measurement.picture = PictureMeasurement(result: "measured", input: ":99")
        measurement.adHoldMs = 2000
        let judgement = BehaviourJudgement(caseId: "resume", feature: "resume-offset-zero", outcome: .conforms, checks: [], why: nil,
                                           evidence: [], requests: 4)
        // JSONEncoder here keeps no key order: the stored object is the measurement's with "behaviour" inside.
        let stored = try JSONSerialization.jsonObject(with: JSONEncoder().encode(StoredMeasurement(measurement: measurement, behaviour: judgement)))
        var expected = try XCTUnwrap(JSONSerialization.jsonObject(with: JSONEncoder().encode(measurement)) as? [String: Any])
        XCTAssertNil(expected["behaviour"])
        expected["behaviour"] = try JSONSerialization.jsonObject(with: JSONEncoder().encode(judgement))
        XCTAssertEqual(stored as? NSDictionary, expected as NSDictionary)

        try store.beginRun(summary("r1"), leaseSeconds: 30)
        var judged = cell("r1", "Den", "resume", outcome: .seamless, at: 0)
        judged.behaviour = judgement
        try store.record(judged, done: true)
        let read = try XCTUnwrap(store.cells(runId: "r1").first)
        XCTAssertEqual(read.behaviour, judgement)
        XCTAssertEqual(read.measurement, judged.measurement)
    }

    func testCellsRoundTripWithTheirSeriesAndAMeasuredVerdict() throws {
        try store.beginRun(summary("r1"), leaseSeconds: 30)
        let stalled = cell("r1", "Den", "frame-rate-25", outcome: .stall, at: 0, stallMs: 1240)
        try store.record(stalled, done: true)
        let read = try store.cells(runId: "r1")
        XCTAssertEqual(read.count, 1)
        XCTAssertEqual(read[0].requests, stalled.requests)
        XCTAssertEqual(read[0].measurement, stalled.measurement)
        XCTAssertEqual(read[0].series.samples.count, 3)
        XCTAssertTrue(read[0].series.samples[2].info?.position?.isNaN == true, "a receiver's NaN is kept, not a failed write")
        let verdicts = try store.verdicts()
        XCTAssertEqual(verdicts.map(\.verdict), [.stall])
        XCTAssertEqual(verdicts.first?.source, .measured)
        XCTAssertEqual(verdicts.first?.runId, "r1")
        XCTAssertEqual(verdicts.first?.seconds ?? 0, 1.24, accuracy: 1e-9)
    }

    func testRunsCountDoneCellsAndNotRunCellsAreLeftForResume() throws {
        try store.beginRun(summary("r1"), leaseSeconds: 30)
        try store.record(cell("r1", "Den", "control", outcome: .seamless, at: 0), done: true)
        try store.record(cell("r1", "Den", "frame-rate-25", outcome: .skipped, at: 20), done: false)
        try store.record(cell("r1", "Kodi", "control", outcome: .failed, at: 0), done: true)
        try store.record(cell("r1", "Kodi", "control", outcome: .seamless, at: 40, attempt: 2), done: true)
        let run = try XCTUnwrap(try store.run("r1"))
        XCTAssertEqual(run.cellsDone, 2, "Den control and Kodi control (two attempts, one cell)")
        XCTAssertEqual(try store.doneCells(runId: "r1"),
                       [LabRunCellKey(receiver: "Den", caseId: "control"), LabRunCellKey(receiver: "Kodi", caseId: "control")])
        XCTAssertEqual(try store.verdicts().count, 3, "no verdict for a cell not run")
    }

    func testLatestCellsAreTheNewestPlayedCellPerReceiverAndCaseAcrossRuns() throws {
        try store.beginRun(summary("r1"), leaseSeconds: 30)
        try store.beginRun(summary("r2"), leaseSeconds: 30)
        try store.record(cell("r1", "Den", "control", outcome: .stall, at: 0), done: true)
        try store.record(cell("r2", "Den", "control", outcome: .seamless, at: 100), done: true)
        try store.record(cell("r2", "Den", "frame-rate-25", outcome: .failed, at: 120), done: true)
        try store.record(cell("r2", "Den", "frame-rate-25", outcome: .skipped, at: 200), done: false)
        let latest = try store.latestCells()
        XCTAssertEqual(latest.map { "\($0.runId) \($0.caseId) \($0.measurement.outcome)" }, ["r2 control seamless", "r2 frame-rate-25 failed"])
    }

    func testARunWhoseHeartbeatIsOlderThanItsLeaseIsInterruptedAndCanBeResumed() throws {
        try store.beginRun(summary("old", started: Date().addingTimeInterval(-60)), leaseSeconds: 0.05)
        try store.beginRun(summary("live"), leaseSeconds: 30)
        Thread.sleep(forTimeInterval: 0.1)
        let runs = try store.runs()
        XCTAssertEqual(runs.map(\.id), ["live", "old"], "newest first")
        XCTAssertEqual(runs.map(\.state), [.running, .interrupted])
        XCTAssertEqual(try store.latestInterruptedRun()?.id, "old")
        XCTAssertThrowsError(try store.resumeRun("live", server: "s", leaseSeconds: 30)) { error in
            XCTAssertTrue("\(error)".contains("still running"), "\(error)")
        }
        let resumed = try store.resumeRun("old", server: "http://10.0.0.1:9000", leaseSeconds: 30)
        XCTAssertEqual(resumed.state, .running)
        XCTAssertEqual(resumed.server, "http://10.0.0.1:9000")
        try store.finishRun("old", state: .finished)
        XCTAssertEqual(try store.run("old")?.state, .finished)
        XCTAssertNotNil(try store.run("old")?.finishedAt)
    }

    func testRequestsOfOneClientInATimeWindow() throws {
        try store.append(LabTestData.midRoll("10.0.0.2", from: 0) + LabTestData.midRoll("10.0.0.3", from: 0)
                         + LabTestData.midRoll("10.0.0.2", from: 30), serveId: 1)
        let window = try store.requests(client: "10.0.0.2", from: LabTestData.start.addingTimeInterval(-1),
                                        to: LabTestData.start.addingTimeInterval(10))
        XCTAssertEqual(window.count, 11)
        XCTAssertTrue(window.allSatisfy { $0.client == "10.0.0.2" })
        XCTAssertEqual(window.map(\.at), window.map(\.at).sorted())
    }

    /// What a caller does after `outcomeUnknown` (or a request log batch kept for the next flush):
    /// writes the same records again. Each row is stored once (their `writeKey`s).
    func testWritingTheSameRowsAgainStoresEachOnce() throws {
        let serve = try store.beginServe(bind: "0.0.0.0", port: 8080, streams: "/s", manifest: LabTestData.manifest)
        let requests = LabTestData.midRoll("10.0.0.2", from: 0)
        try store.beginRun(summary("r1"), leaseSeconds: 30)
        let played = cell("r1", "Den", "frame-rate-25", outcome: .stall, at: 0, stallMs: 1240)
        let verdict = LabVerdictRecord(recordedAt: LabTestData.start, receiver: "Den", caseId: "control", verdict: .glitch,
                                       source: .operator, via: "page")
        var ids: [Int64] = []
        for _ in 0..<2 {
            try store.append(requests, serveId: serve)
            try store.append(Array(requests.prefix(2)), serveId: serve)
            ids.append(try store.record(verdict))
            try store.record(played, done: true)
        }
        XCTAssertEqual(try store.requestCount(), requests.count, "\(path): each request once")
        XCTAssertEqual(try store.cells(runId: "r1").count, 1, "\(path): the cell once")
        XCTAssertEqual(try store.verdicts().count, 2, "\(path): the operator's verdict and the cell's measured one, once each")
        XCTAssertEqual(ids[0], ids[1], "the second write answers with the row already there")
        // A verdict given again later is another verdict, not a retry.
        var later = verdict
        later.recordedAt = verdict.recordedAt.addingTimeInterval(1)
        try store.record(later)
        XCTAssertEqual(try store.verdicts().count, 3)
    }
}

/// The run tables and the request log on a real PostgreSQL (scripts/services.sh postgres-start).
final class PostgresLabRunStoreTests: LabRunStoreTests {
    override func makeDatabase() throws -> String { try TestPostgres.shared().makeDatabase("labrun") }

    override func tearDown() {}

    func testServeRunsReceiversAndVerdictsRoundTrip() throws {
        let serve = try store.beginServe(bind: "0.0.0.0", port: 8080, streams: "/s", manifest: LabTestData.manifest)
        try store.append(LabTestData.midRoll("10.0.0.2", from: 0), serveId: serve)
        try store.endServe(serve)
        XCTAssertEqual(try store.latestManifest(), LabTestData.manifest)
        let logged = try store.requests(), sent = LabTestData.midRoll("10.0.0.2", from: 0)
        XCTAssertEqual(logged.map(\.path), sent.map(\.path))
        XCTAssertEqual(logged.map(\.query), sent.map(\.query))
        for (a, b) in zip(logged, sent) { XCTAssertEqual(a.at.timeIntervalSince1970, b.at.timeIntervalSince1970, accuracy: 1e-6) }
        let den = LabReceiverRecord(address: "10.0.0.2", name: "Den", deviceId: "AA", deviceClass: "apple-tv-4k", reason: "model",
                                    source: .avahi, seenAt: LabTestData.start, declaredHDRFormats: ["HDR10"], supportsInterstitials: true)
        try store.upsert(den)
        var renamed = den
        renamed.name = "Den 2"
        try store.upsert(renamed)
        try store.upsert(renamed)
        try store.markGone(addresses: ["10.0.0.2"], at: LabTestData.start.addingTimeInterval(5))
        let receivers = try store.receivers()
        XCTAssertEqual(receivers.map(\.name), ["Den 2"])
        XCTAssertEqual(receivers.first?.declaredHDRFormats, ["HDR10"])
        XCTAssertEqual(receivers.first?.supportsInterstitials, true)
        XCTAssertNotNil(receivers.first?.goneAt)
        XCTAssertEqual(try store.receiverHistory().map(\.name), ["Den", "Den 2"], "a row only when something changed")
        let id = try store.record(LabVerdictRecord(recordedAt: LabTestData.start, receiver: "Den", caseId: "control", verdict: .glitch,
                                                   seconds: 1.5, note: "n", source: .operator, via: "page"))
        XCTAssertEqual(try store.verdicts().map(\.id), [id])
        XCTAssertEqual(try store.verdicts().first?.via, "page")
    }
}
