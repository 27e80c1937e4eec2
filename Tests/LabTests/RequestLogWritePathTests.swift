import Foundation
import SeamcheckTestSupport
import Store
import XCTest
@testable import LabCore

/// The request log's SQLite write path (one prepared row statement, fields bound in place) stores
/// the same rows, byte for byte, as the chunked `VALUES` statements PostgreSQL still gets.
final class RequestLogWritePathTests: XCTestCase {
    var paths: [String] = []

    override func tearDown() {
        for path in paths { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
    }

    func store() throws -> LabStore {
        let path = LabTestData.temporaryDatabase()
        paths.append(path)
        return try LabStore(path: path, station: "den-station")
    }

    /// 150 records (two full chunks and a part), every optional both set and nil, text beyond ASCII.
    func records() -> [LabRequestRecord] {
        var records: [LabRequestRecord] = []
        for i in 0..<150 {
            let at: Date = LabTestData.start.addingTimeInterval(Double(i) * 0.0137)
            let client: String = i % 3 == 0 ? "10.0.0.2" : "fe80::1%eth0"
            let port: Int? = i % 4 == 0 ? nil : 40_000 + i
            let method: String = i % 5 == 0 ? "HEAD" : "GET"
            let query: String? = i % 2 == 0 ? nil : "a=\(i)&b=é"
            let range: String? = i % 6 == 0 ? "bytes=0-\(i)" : nil
            let expected: Int? = i % 8 == 0 ? nil : i * 31 + 1
            let agent: String? = i % 10 == 0 ? nil : "AppleCoreMedia/1.0 ☃"
            let caseId: String? = i % 11 == 0 ? nil : "case-\(i % 7)"
            records.append(LabRequestRecord(at: at, client: client, clientPort: port, method: method,
                                            path: "/cases/ca\u{301}se-\(i % 7)/primary.m3u8", query: query, range: range,
                                            status: i % 9 == 0 ? 404 : 200, bytes: i * 31, expectedBytes: expected,
                                            durationMs: Double(i) / 7, userAgent: agent, caseId: caseId, completed: i % 13 != 0))
        }
        return records
    }

    func rows(_ store: LabStore) throws -> [SQLRow] {
        try store.read("rows") { db in try db.query("SELECT * FROM labRequest ORDER BY id") }
    }

    func testTheBoundPathStoresTheRowsTheChunkedStatementsStore() throws {
        let bound = try store(), chunked = try store()
        let records = records()
        try bound.write("bound") { db in try bound.appendBound(records, serveId: 7, db) }
        try chunked.write("chunked") { db in try chunked.appendChunked(records, serveId: 7, db) }
        let a = try rows(bound), b = try rows(chunked)
        XCTAssertEqual(a.count, 150)
        XCTAssertEqual(a, b)
        // Nulls stay nulls, and what reads back is what went in.
        let expected = records.map { r in var r = r; r.at = Date(timeIntervalSince1970: r.at.timeIntervalSince1970); return r }
        XCTAssertEqual(try bound.requests().sorted { $0.at < $1.at }.map { var r = $0; r.station = nil; return r }, expected)
        XCTAssertEqual(a[0].value("clientPort"), .null)
        XCTAssertEqual(a[1].value("query"), .text("a=1&b=é"))
        XCTAssertEqual(a[13].value("completed"), .integer(0))
    }

    func testTheWriteKeyIsTheFieldsJoinedByTheUnitSeparator() {
        for r in records().prefix(12) {
            let joined = ["r", "7", r.client, r.clientPort.map(String.init) ?? "", String(r.at.timeIntervalSince1970.bitPattern, radix: 16),
                          r.method, r.path, r.query ?? "", r.range ?? ""].joined(separator: "\u{1F}")
            XCTAssertEqual(LabWriteKey.request(r, serveId: 7), joined)
        }
    }

    /// A batch written again (its outcome unknown) through the bound path adds nothing; a batch
    /// that fails part way (a row the table refuses) leaves none of its rows (one transaction).
    func testABatchWrittenAgainAddsNothingAndAFailedBatchLeavesNoRow() throws {
        let log = try store()
        let records = records()
        try log.append(Array(records.prefix(100)), serveId: 7)
        try log.append(records, serveId: 7)
        XCTAssertEqual(try log.requestCount(), 150)
        try log.write("trigger") { db in
            try db.execute("CREATE TRIGGER refuse BEFORE INSERT ON labRequest WHEN NEW.path = '/refused' BEGIN SELECT RAISE(ABORT, 'refused'); END")
        }
        var batch = (0..<5).map { i in LabRequestRecord(at: LabTestData.start.addingTimeInterval(100 + Double(i)), client: "10.0.0.9",
                                                         method: "GET", path: "/ok-\(i)", status: 200, bytes: 1, durationMs: 1) }
        batch[3].path = "/refused"
        XCTAssertThrowsError(try log.append(batch, serveId: 7)) { error in
            XCTAssertTrue("\(error)".contains("refused"), "\(error)")
        }
        XCTAssertEqual(try log.requestCount(), 150, "the failed batch left none of its rows")
        // The statement is still usable after the failure.
        batch[3].path = "/ok-3"
        try log.append(batch, serveId: 7)
        XCTAssertEqual(try log.requestCount(), 155)
    }
}
