import Compatibility
import Foundation
import SeamcheckTestSupport
import Store
@testable import Matrix
import MediaProbe
import XCTest

/// The store on a SQLite file; `PostgresResultStoreTests` runs the same tests on PostgreSQL.
class ResultStoreTests: XCTestCase {
    var directory: URL!

    /// Where a test's database named `name` goes: a file under `directory` here.
    func database(_ name: String) throws -> String { directory.appendingPathComponent(name).path }
    var isSQLite: Bool { true }

    override func setUpWithError() throws {
        directory = try temporaryDirectory("store")
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    func profiles() throws -> [DeviceProfile] {
        try bundledProfiles().filter { ["smart-tv-low-end", "apple-tv-4k"].contains($0.id) }
    }

    /// A case whose interstitial differs from the primary as given.
    func result(_ id: String, ad: MediaDescription, grader: CellGrader, profiles: [DeviceProfile]) -> CaseResult {
        let primary = AuditedAsset(role: "primary", input: "/m/p.mp4", media: media("/m/p.mp4"))
        let asset = AuditedAsset(role: "interstitial 1", input: ad.input, media: ad)
        let audit = TransitionAuditor().audit(primary: primary, interstitials: [asset], profiles: profiles)
        return CaseResult(caseId: id, kind: "explicit", primary: primary.input, interstitials: [ad.input], tags: ["t"],
                          startedAt: Date(timeIntervalSince1970: 1_700_000_000.25), seconds: 0.5, failure: nil,
                          assets: [primary] + audit.interstitials, placements: InterstitialPlacement.preRollPod(durations: [30]),
                          cells: grader.cells(caseId: id, findings: audit.findings, deviceClasses: profiles.map(\.id)))
    }

    func start(_ profiles: [DeviceProfile], cases: [String], issues: [ExpectedIssue] = []) -> RunStart {
        RunStart(matrixName: "m", matrixFile: "/lab/m.yaml", failOn: .error, jobs: 2, caseTimeout: 60, profiles: profiles,
                 plannedCases: cases, expectedIssues: issues)
    }

    func testRunRoundTripsThroughTheDatabase() throws {
        let profiles = try profiles()
        let issues = [ExpectedIssue(caseId: "b", rule: "*", deviceClass: "smart-tv-low-end", reason: "ADS-7")]
        let grader = CellGrader(expectedIssues: issues, threshold: .error)
        let store = try ResultStore(path: try database("r/seamcheck.sqlite"))
        let id = try store.beginRun(start(profiles, cases: ["a", "b", "c"], issues: issues))
        let a = result("a", ad: media("/m/fps25.mp4", rate: Rational(25, 1)), grader: grader, profiles: profiles)
        let b = result("b", ad: media("/m/hevc.mp4", codec: "hevc"), grader: grader, profiles: profiles)
        var c = result("c", ad: media("/m/x.mp4"), grader: grader, profiles: profiles)
        c.failure = CaseFailure(kind: .input, input: "/m/x.mp4", reason: "/m/x.mp4: no such file (check the path)")
        c.cells = grader.errorCells(deviceClasses: profiles.map(\.id))
        c.assets = []
        for item in [a, b, c] { try store.record(item, runId: id) }
        try store.finishRun(id, status: .completed, probesPerformed: 4, distinctInputs: 4)

        let reopened = try ResultStore(executor: try ResultsDatabaseOpener.open(location(store), create: false))
        let record = try reopened.run(id)
        XCTAssertEqual(record.cases, [a, b, c], "what was recorded comes back, cells, findings, media and placements included")
        XCTAssertEqual(record.profiles, profiles)
        XCTAssertEqual(record.expectedIssues, issues)
        XCTAssertEqual(record.summary.status, .completed)
        XCTAssertEqual(record.summary.cells, ["pass": 2, "known": 1, "warn": 0, "fail": 1, "error": 2])
        XCTAssertEqual(record.summary.probesPerformed, 4)
        if isSQLite {
            let mode: String? = try reopened.executor.read { try $0.scalar("PRAGMA journal_mode") }
            XCTAssertEqual(mode, "wal")
        }
    }

    func testHistoryListsRunsNewestFirstAndSpotsAbandonedRuns() throws {
        let profiles = try profiles()
        let store = try ResultStore(path: try database("h.sqlite"))
        let first = try store.beginRun(start(profiles, cases: ["a"]))
        try store.finishRun(first, status: .completed, probesPerformed: 2, distinctInputs: 2)
        let second = try store.beginRun(start(profiles, cases: ["a", "b"]))
        // A run recorded before heartbeats (no heartbeat, no lease): judged by its PID, as it was.
        try store.executor.write {
            try $0.execute("UPDATE run SET pid = 2147483000, heartbeatAt = NULL, leaseSeconds = NULL WHERE id = ?", [second])
        }
        let third = try store.beginRun(start(profiles, cases: ["a"]))
        let runs = try store.runs()
        XCTAssertEqual(runs.map(\.id), [third, second, first])
        XCTAssertEqual(runs.map(\.status), [.running, .abandoned, .completed], "an old running run whose process is gone is abandoned")
        XCTAssertEqual(runs[1].plannedCases, 2)
        XCTAssertThrowsError(try ResultStore(path: directory.appendingPathComponent("none.sqlite").path, create: false)) { error in
            XCTAssertTrue("\(error)".contains("no results database"))
        }
        XCTAssertThrowsError(try store.run(99)) { error in XCTAssertTrue("\(error)".contains("no run 99; runs: 1, 2, 3"), "\(error)") }
    }

    func testDiffShowsNewAndFixedFindingsAndStatusChanges() throws {
        let profiles = try profiles()
        let grader = CellGrader(expectedIssues: [], threshold: .error)
        let store = try ResultStore(path: try database("d.sqlite"))
        let before = try store.beginRun(start(profiles, cases: ["a", "b", "c"]))
        try store.record(result("a", ad: media("/m/fps25.mp4", rate: Rational(25, 1)), grader: grader, profiles: profiles), runId: before)
        try store.record(result("b", ad: media("/m/ok.mp4"), grader: grader, profiles: profiles), runId: before)
        try store.record(result("c", ad: media("/m/ok.mp4"), grader: grader, profiles: profiles), runId: before)
        try store.finishRun(before, status: .completed, probesPerformed: 3, distinctInputs: 3)
        let after = try store.beginRun(start(profiles, cases: ["a", "b", "c"]))
        try store.record(result("a", ad: media("/m/fps25.mp4"), grader: grader, profiles: profiles), runId: after)
        try store.record(result("b", ad: media("/m/ok.mp4", layout: "5.1"), grader: grader, profiles: profiles), runId: after)
        try store.finishRun(after, status: .interrupted, probesPerformed: 3, distinctInputs: 3)

        XCTAssertEqual(try store.lastTwoRuns().0, before)
        let diff = try store.diff(from: before, to: after)
        XCTAssertEqual(Set(diff.fixedFindings.map { "\($0.caseId) \($0.rule) \($0.deviceClass ?? "")" }),
                       ["a frame-rate-mismatch smart-tv-low-end", "a frame-rate-mismatch apple-tv-4k"])
        XCTAssertTrue(diff.newFindings.allSatisfy { $0.caseId == "b" })
        XCTAssertTrue(diff.newFindings.contains { $0.rule == "channel-layout-mismatch" && $0.deviceClass == "smart-tv-low-end" })
        XCTAssertTrue(diff.statusChanges.contains(RunDiff.StatusChange(caseId: "a", deviceClass: "smart-tv-low-end", from: .fail, to: .pass)))
        XCTAssertEqual(diff.casesOnlyInFrom, ["c"], "a case the interrupted run never reached is not 'fixed'")
        XCTAssertEqual(try store.diff(from: after, to: after).isEmpty, true)
    }

    func testACaseThatFailedIsNeitherFixedNorNew() throws {
        let profiles = try profiles()
        let grader = CellGrader(expectedIssues: [], threshold: .error)
        let store = try ResultStore(path: try database("f.sqlite"))
        let before = try store.beginRun(start(profiles, cases: ["a"]))
        try store.record(result("a", ad: media("/m/fps25.mp4", rate: Rational(25, 1)), grader: grader, profiles: profiles), runId: before)
        try store.finishRun(before, status: .completed, probesPerformed: 2, distinctInputs: 2)
        let after = try store.beginRun(start(profiles, cases: ["a"]))
        let down = CaseResult(caseId: "a", kind: "explicit", primary: "/m/p.mp4", interstitials: ["/m/fps25.mp4"], tags: [],
                              startedAt: Date(), seconds: 0.1,
                              failure: CaseFailure(kind: .input, input: "/m/fps25.mp4", reason: "cannot connect"),
                              assets: [], placements: [], cells: grader.errorCells(deviceClasses: profiles.map(\.id)))
        try store.record(down, runId: after)
        try store.finishRun(after, status: .completed, probesPerformed: 2, distinctInputs: 2)

        let diff = try store.diff(from: before, to: after)
        XCTAssertEqual(diff.fixedFindings.count, 0, "the CDN being down fixes nothing")
        XCTAssertEqual(diff.newFindings.count, 0)
        XCTAssertTrue(diff.statusChanges.contains(RunDiff.StatusChange(caseId: "a", deviceClass: "smart-tv-low-end", from: .fail, to: .error)),
                      "the status change is still reported: \(diff.statusChanges)")
    }

    func testAnUnusableFileIsAnError() throws {
        guard isSQLite else { return }
        let path = directory.appendingPathComponent("not.sqlite").path
        try "not a database".write(toFile: path, atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try ResultStore(path: path)) { error in
            XCTAssertTrue("\(error)".hasPrefix("\(path): cannot open the results database"), "\(error)")
        }
    }

    /// The location a store was opened at, password included (`path` hides it).
    func location(_ store: ResultStore) -> String {
        if case .postgres = store.executor.location { return opened[store.path] ?? store.path }
        return store.path
    }

    var opened: [String: String] = [:]
}

/// The same tests on a real PostgreSQL (scripts/services.sh postgres-start): one new database a test.
final class PostgresResultStoreTests: ResultStoreTests {
    override var isSQLite: Bool { false }
    var url: String?

    override func database(_ name: String) throws -> String {
        if let url { return url }
        let made = try TestPostgres.shared().makeDatabase("rs")
        url = made
        if case .postgres(let parsed) = try DatabaseLocation(parsing: made) { opened[parsed.redacted] = made }
        return made
    }
}
