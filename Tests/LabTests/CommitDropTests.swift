import AirPlay
import Foundation
import SeamcheckTestSupport
import Store
import XCTest
@testable import LabCore

/// The connection to PostgreSQL breaks right after the server committed, before its answer
/// arrives (`CommitCuttingProxy`): the write is not run again by the executor (it would store the
/// rows twice), it fails with `outcomeUnknown`, and writing the same records again (what a caller
/// does) leaves each row once. The SQLite equivalent is `testWritingTheSameRowsAgainStoresEachOnce`.
final class CommitDropTests: XCTestCase {
    func testACommitWhoseAnswerIsLostIsReportedUnknownAndARetryWritesEachRowOnce() throws {
        let postgres = try TestPostgres.shared()
        let url = try postgres.makeDatabase("commitdrop")
        let direct = try LabStore(path: url, station: "s1")
        let proxy = try CommitCuttingProxy(upstreamPort: postgres.port)
        defer { proxy.close() }
        let store = try LabStore(path: proxy.url(url), station: "s1")

        let serve = try direct.beginServe(bind: "0.0.0.0", port: 8080, streams: "/s", manifest: LabTestData.manifest)
        let requests = LabTestData.midRoll("10.0.0.2", from: 0)
        let run = LabRunSummary(id: "r1", startedAt: LabTestData.start, state: .running, server: "http://10.0.0.1:8080",
                                receivers: ["Den"], cases: ["control"], pollIntervalMs: 250, cellsTotal: 1)
        try direct.beginRun(run, leaseSeconds: 30)
        let at = LabTestData.start
        let cell = LabRunCell(runId: "r1", receiver: "Den", deviceId: nil, deviceClass: "smart-tv-low-end", address: "10.0.0.2",
                              caseId: "control", attempt: 1, startedAt: at, finishedAt: at.addingTimeInterval(12), url: "http://x/control",
                              series: PlaybackSeries(playSentAt: at, pollIntervalMs: 250), requests: [],
                              measurement: CellMeasurement(outcome: .seamless, reason: "seamless"))
        let verdict = LabVerdictRecord(recordedAt: at, receiver: "Den", caseId: "control", verdict: .glitch, source: .operator, via: "page")

        let writes: [(String, () throws -> Void)] = [
            ("requests", { try store.append(requests, serveId: serve) }),
            ("verdict", { try store.record(verdict) }),
            ("cell", { try store.record(cell, done: true) }),
        ]
        for (name, write) in writes {
            proxy.arm()
            XCTAssertThrowsError(try write(), name) { error in
                guard case .outcomeUnknown = error as? StoreError else {
                    return XCTFail("\(name): expected outcomeUnknown after the COMMIT's answer was cut, got \(error)")
                }
            }
            try write()  // the caller's retry, on a new connection
        }
        XCTAssertEqual(proxy.cuts, 3, "each write lost its COMMIT's answer once")
        XCTAssertEqual(try direct.requestCount(), requests.count, "each request once")
        XCTAssertEqual(try direct.cells(runId: "r1").count, 1, "the cell once")
        XCTAssertEqual(try direct.verdicts().map(\.source).sorted { $0.rawValue < $1.rawValue }, [.measured, .operator],
                       "the operator's verdict and the cell's measured verdict, once each")
    }
}
