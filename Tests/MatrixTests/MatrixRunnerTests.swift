import Compatibility
import Foundation
import HLS
@testable import Matrix
import MediaProbe
import SeamcheckTestSupport
import XCTest

final class MatrixRunnerTests: XCTestCase {
    func testNoMoreThanJobsCasesRunAtOnce() async throws {
        let gauge = Gauge()
        let cases = try (0..<12).map { try explicitCase("c\($0)", "/m/p.mp4", ["/m/a\($0).mp4"]) }
        let runner = MatrixRunner(cases: cases, profiles: try bundledProfiles(), auditors: [SleepyAuditor(gauge: gauge, seconds: 0.05)],
                                  jobs: 3, caseTimeout: 10, grader: CellGrader(expectedIssues: [], threshold: .error))
        let recorder = MemoryRecorder()
        let totals = try await runner.run(probes: SharedProbes(session: ProbeSession()), recorder: recorder)
        let peak = await gauge.peak
        XCTAssertEqual(peak, 3, "three cases at once, never more")
        XCTAssertEqual(totals.finished, 12)
        XCTAssertFalse(totals.interrupted)
        XCTAssertEqual(Set(recorder.results.map(\.caseId)).count, 12)
    }

    func testEachDistinctInputIsProbedOnceAcrossTheRun() async throws {
        let primary = try Fixtures.primary.path(), other = try Fixtures.matching.path()
        let fps25 = try Fixtures.fps25.path(), hevc = try Fixtures.hevc.path(), ac3 = try Fixtures.ac3.path()
        var cases: [MatrixCase] = []
        for n in 0..<10 {
            cases.append(try explicitCase("case-\(n)", n % 2 == 0 ? primary : other, [[fps25, hevc, ac3][n % 3], fps25]))
        }
        let spec = MatrixSpec(name: "dedup", file: "m.yaml", deviceClasses: [], cases: cases)
        let runner = MatrixRunner(cases: cases, profiles: try bundledProfiles(), auditors: [ExplicitInputAuditor()], jobs: 4,
                                  caseTimeout: 60, grader: CellGrader(expectedIssues: [], threshold: .error))
        let probes = SharedProbes(session: ProbeSession(maxConcurrent: 4))
        let totals = try await runner.run(probes: probes, recorder: MemoryRecorder())
        XCTAssertEqual(spec.distinctInputs.count, 5)
        XCTAssertEqual(totals.probesPerformed, 5, "20 primary/interstitial slots, 5 distinct inputs")
        XCTAssertEqual(totals.distinctInputs, 5)
        XCTAssertEqual(totals.finished, 10)
    }

    func testUnreachableInputIsAnErrorCellAndTheRunGoesOn() async throws {
        let profiles = try bundledProfiles()
        let cases = [try explicitCase("good", try Fixtures.primary.path(), [try Fixtures.matching.path()]),
                     try explicitCase("gone", try Fixtures.primary.path(), ["/nonexistent/ad.mp4"]),
                     try explicitCase("refused", try Fixtures.primary.path(), ["http://127.0.0.1:9/ad.mp4"])]
        let runner = MatrixRunner(cases: cases, profiles: profiles, auditors: [ExplicitInputAuditor()], jobs: 2, caseTimeout: 30,
                                  grader: CellGrader(expectedIssues: [], threshold: .error))
        let recorder = MemoryRecorder()
        _ = try await runner.run(probes: SharedProbes(session: ProbeSession()), recorder: recorder)
        let byId = Dictionary(uniqueKeysWithValues: recorder.results.map { ($0.caseId, $0) })
        XCTAssertEqual(byId["good"]?.cells.map(\.status), Array(repeating: .pass, count: profiles.count))
        let gone = try XCTUnwrap(byId["gone"])
        XCTAssertEqual(gone.cells.map(\.status), Array(repeating: .error, count: profiles.count))
        XCTAssertEqual(gone.failure?.input, "/nonexistent/ad.mp4")
        XCTAssertTrue(gone.failure?.reason.contains("/nonexistent/ad.mp4: no such file") == true, gone.failure?.reason ?? "")
        XCTAssertEqual(byId["refused"]?.failure?.input, "http://127.0.0.1:9/ad.mp4")
        XCTAssertEqual(byId["refused"]?.failure?.kind, .input)
    }

    func testExpectedIssuesMakeCellsKnownAndOthersStillFail() throws {
        let profiles = try bundledProfiles().filter { ["smart-tv-low-end", "apple-tv-hd", "apple-tv-4k"].contains($0.id) }
        let primary = AuditedAsset(role: "primary", input: "p.mp4", media: media("p.mp4"))
        let ad = AuditedAsset(role: "interstitial 1", input: "ad.mp4", media: media("ad.mp4", rate: Rational(25, 1)))
        let findings = TransitionAuditor().audit(primary: primary, interstitials: [ad], profiles: profiles).findings
        let known = CellGrader(expectedIssues: [ExpectedIssue(caseId: "c", rule: "frame-rate-mismatch", deviceClass: "smart-tv-*", reason: "ADS-1")],
                               threshold: .error)
        let cells = Dictionary(uniqueKeysWithValues: known.cells(caseId: "c", findings: findings, deviceClasses: profiles.map(\.id)).map { ($0.deviceClass, $0) })
        XCTAssertEqual(cells["smart-tv-low-end"]?.status, .known)
        XCTAssertEqual(cells["smart-tv-low-end"]?.findings.first?.knownReason, "ADS-1")
        XCTAssertEqual(cells["apple-tv-hd"]?.status, .warn, "a warning below fail-on")
        XCTAssertEqual(cells["apple-tv-4k"]?.status, .pass, "info only")
        let strict = CellGrader(expectedIssues: [], threshold: .warning).cells(caseId: "c", findings: findings, deviceClasses: profiles.map(\.id))
        XCTAssertEqual(Dictionary(uniqueKeysWithValues: strict.map { ($0.deviceClass, $0.status) }),
                       ["apple-tv-4k": .pass, "apple-tv-hd": .fail, "smart-tv-low-end": .fail])
        let never = CellGrader(expectedIssues: [], threshold: nil).cells(caseId: "c", findings: findings, deviceClasses: ["smart-tv-low-end"])
        XCTAssertEqual(never.first?.status, .warn, "fail-on never: an error finding warns")
    }

    func testAClassIndependentFindingCanBeAcceptedForOneClass() throws {
        let spec = Finding(rule: "asset-unreachable", severity: .warning, deviceClass: nil, subject: "EXT-X-DATERANGE ID=\"ad1\" (line 9)",
                           expected: nil, actual: nil, message: "the asset cannot be loaded", remediation: nil)
        let grader = CellGrader(expectedIssues: [ExpectedIssue(caseId: "c", rule: "asset-unreachable", deviceClass: "smart-tv-low-end",
                                                               reason: "that TV is not in this campaign")], threshold: .error)
        let cells = Dictionary(uniqueKeysWithValues: grader.cells(caseId: "c", findings: [spec], deviceClasses: ["smart-tv-low-end", "apple-tv-4k"])
            .map { ($0.deviceClass, $0.status) })
        XCTAssertEqual(cells, ["smart-tv-low-end": .known, "apple-tv-4k": .warn])
    }

    func testCaseTimeoutIsAnErrorCellThatDoesNotCancelSharedProbes() async throws {
        let gauge = Gauge()
        let cases = [try explicitCase("slow", "/m/p.mp4", ["/m/a.mp4"])]
        let runner = MatrixRunner(cases: cases, profiles: try bundledProfiles(), auditors: [SleepyAuditor(gauge: gauge, seconds: 5)],
                                  jobs: 1, caseTimeout: 0.2, grader: CellGrader(expectedIssues: [], threshold: .error))
        let recorder = MemoryRecorder()
        let started = Date()
        _ = try await runner.run(probes: SharedProbes(session: ProbeSession()), recorder: recorder)
        XCTAssertLessThan(Date().timeIntervalSince(started), 3)
        XCTAssertEqual(recorder.results.first?.failure?.kind, .timeout)
        XCTAssertTrue(recorder.results.first?.cells.allSatisfy { $0.status == .error } == true)
    }

    func testCancellingTheRunKeepsFinishedCasesOnly() async throws {
        let gauge = Gauge()
        let cases = try (0..<40).map { try explicitCase("c\($0)", "/m/p.mp4", ["/m/a.mp4"]) }
        let runner = MatrixRunner(cases: cases, profiles: try bundledProfiles(), auditors: [SleepyAuditor(gauge: gauge, seconds: 0.1)],
                                  jobs: 2, caseTimeout: 10, grader: CellGrader(expectedIssues: [], threshold: .error))
        let recorder = MemoryRecorder()
        let task = Task { try await runner.run(probes: SharedProbes(session: ProbeSession()), recorder: recorder) }
        let deadline = Date().addingTimeInterval(60)
        while recorder.results.count < 3 {
            guard Date() < deadline else { task.cancel(); return XCTFail("no 3 finished cases within 60 s") }
            try await Task.sleep(for: .milliseconds(20))
        }
        task.cancel()
        let totals = try await task.value
        XCTAssertTrue(totals.interrupted)
        XCTAssertEqual(totals.finished, recorder.results.count)
        XCTAssertLessThan(totals.finished, 40)
        XCTAssertTrue(recorder.results.allSatisfy { $0.failure == nil }, "a case cut short is not recorded as an error")
    }

    func testSharedProbesWaiterCanLeaveWithoutCancellingTheProbe() async throws {
        let server = try TestHTTPServer(root: MediaFixture.cacheDirectory)
        let name = (try Fixtures.primary.path() as NSString).lastPathComponent
        let location = try InputLocation(parsing: server.url("/slow/1/\(name)"))
        let probes = SharedProbes(session: ProbeSession())
        let impatient = Task { try await probes.describe(location) }
        let patient = Task { try await probes.describe(location) }
        try await Task.sleep(for: .milliseconds(200))
        impatient.cancel()
        do { _ = try await impatient.value; XCTFail("the cancelled waiter should stop waiting") } catch is CancellationError {}
        let media = try await patient.value
        XCTAssertEqual(media.video.first?.codec, "h264")
        let performed = await probes.probesPerformed
        XCTAssertEqual(performed, 1)
    }

    func testDiscoveredExpandsToTheClassesFound() async throws {
        struct Lab: ClassDiscovering {
            func discover(profiles: [DeviceProfile], settings: DiscoverySettings) async throws(DiscoveryFailure) -> DiscoveredClasses {
                DiscoveredClasses(classes: ["apple-tv-4k", "smart-tv-low-end"], receivers: ["Living Room: apple-tv-4k"])
            }
        }
        struct NoDaemon: ClassDiscovering {
            func discover(profiles: [DeviceProfile], settings: DiscoverySettings) async throws(DiscoveryFailure) -> DiscoveredClasses {
                throw DiscoveryFailure("avahi-daemon is not running", serviceMissing: true)
            }
        }
        let spec = MatrixSpec(name: "lab", file: "lab.yaml", deviceClasses: [.profile("smart-tv-low-end"), .discovered],
                              cases: [try explicitCase("c", "/p.mp4", ["/a.mp4"])])
        let resolved = try await DeviceClassResolver.resolve(spec, profiles: try bundledProfiles(), discovery: Lab())
        XCTAssertEqual(resolved.profiles.map(\.id), ["smart-tv-low-end", "apple-tv-4k"])
        do {
            _ = try await DeviceClassResolver.resolve(spec, profiles: try bundledProfiles(), discovery: NoDaemon())
            XCTFail("expected a failure")
        } catch {
            XCTAssertEqual((error as? DiscoveryFailure)?.serviceMissing, true)
        }
    }
}
