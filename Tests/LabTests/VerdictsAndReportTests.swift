import Compatibility
import Foundation
import XCTest
@testable import LabCore
@testable import LabRun
@testable import LabServer

final class VerdictsAndReportTests: XCTestCase {
    var path = ""
    var store: LabStore!

    override func setUpWithError() throws {
        path = LabTestData.temporaryDatabase()
        store = try LabStore(path: path)
        try store.upsert(LabReceiverRecord(address: "127.0.0.21", name: "Living Room", deviceId: "AA:BB:CC:DD:EE:01",
                                           deviceClass: "smart-tv-low-end", reason: "test", source: .avahi))
        try store.upsert(LabReceiverRecord(address: "127.0.0.22", name: "Den", deviceClass: "apple-tv-4k", reason: "test", source: .inventory))
    }

    override func tearDown() {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    var desk: VerdictDesk { VerdictDesk(store: store, manifest: LabTestData.manifest) }

    func testAVerdictForAnUnknownCaseVerdictOrReceiverIsRefusedWithADidYouMean() {
        XCTAssertThrowsError(try desk.record(receiver: "Den", caseId: "video-codec-hvec", verdict: "stall", seconds: nil, note: nil, source: "cli")) {
            XCTAssertTrue("\($0)".contains("no lab case 'video-codec-hvec' (did you mean 'video-codec-hevc'?)"), "\($0)")
        }
        XCTAssertThrowsError(try desk.record(receiver: "Den", caseId: "control", verdict: "stal", seconds: nil, note: nil, source: "cli")) {
            XCTAssertTrue("\($0)".contains("(did you mean 'stall'?)"), "\($0)")
        }
        XCTAssertThrowsError(try desk.record(receiver: "Living Rom", caseId: "control", verdict: "stall", seconds: nil, note: nil, source: "cli")) {
            XCTAssertTrue("\($0)".contains("no receiver 'Living Rom' in the lab (did you mean 'Living Room'?)"), "\($0)")
        }
        XCTAssertThrowsError(try desk.record(receiver: "Den", caseId: "control", verdict: "stall", seconds: -3, note: nil, source: "cli"))
        XCTAssertEqual(try store.verdicts().count, 0, "nothing is recorded for a refused verdict")
    }

    func testAVerdictIsFoundByNameDeviceIdOrAddressAndCarriesTheClass() throws {
        let byId = try desk.record(receiver: "aa-bb-cc-dd-ee-01", caseId: "control", verdict: "SEAMLESS", seconds: nil, note: "fine", source: "cli")
        XCTAssertEqual(byId.receiver, "Living Room")
        XCTAssertEqual(byId.deviceClass, "smart-tv-low-end")
        XCTAssertEqual(byId.verdict, .seamless)
        let byAddress = try desk.record(receiver: "127.0.0.22", caseId: "control", verdict: "glitch", seconds: 0.5, note: nil, source: "page")
        XCTAssertEqual(byAddress.receiver, "Den")
        // Written at once: a second connection sees both.
        let again = try LabStore(path: path, create: false)
        XCTAssertEqual(try again.verdicts().map(\.verdict), [.seamless, .glitch])
    }

    func testTheReportHoldsEachClassPredictionAgainstTheVerdictAndListsDisagreementsFirst() throws {
        let profiles = try ProfileLoader.loadDirectory(LabTests.profilesDirectory)
        try desk.record(receiver: "Living Room", caseId: "video-codec-hevc", verdict: "seamless", seconds: nil, note: nil, source: "cli")
        try desk.record(receiver: "Den", caseId: "video-codec-hevc", verdict: "seamless", seconds: nil, note: nil, source: "cli")
        try desk.record(receiver: "Den", caseId: "control", verdict: "stall", seconds: 2, note: "froze", source: "cli")
        let report = LabReportBuilder(manifest: LabTestData.manifest, profiles: profiles).report(verdicts: try store.verdicts(), sessions: [])
        let cells = report.cells.map { "\($0.case)/\($0.receiver ?? "-"): \($0.predicted ?? "-") vs \($0.observed ?? "-") \($0.agrees.map(String.init) ?? "nil")" }
        XCTAssertEqual(cells, ["control/Den: pass vs stall false",
                               "video-codec-hevc/Living Room: error vs seamless false",
                               "video-codec-hevc/Den: info vs seamless true"])
        XCTAssertEqual(report.summary.disagree, 2)
        let lowEnd = try XCTUnwrap(report.classes.first { $0.case == "video-codec-hevc" && $0.deviceClass == "smart-tv-low-end" })
        XCTAssertEqual(lowEnd.agrees, false)
        XCTAssertEqual(lowEnd.evidence, "1 receiver(s): 1 seamless")
        XCTAssertNil(report.classes.first { $0.case == "control" && $0.deviceClass == "mac" }?.observed, "classes nobody tested stay unobserved")
    }

    func testCalibrationProposesTheObservedSeverityOnlyWithEnoughObservations() throws {
        let profiles = try ProfileLoader.loadDirectory(LabTests.profilesDirectory)
        for (address, name) in [("127.0.0.23", "TV 3"), ("127.0.0.24", "TV 4")] {
            try store.upsert(LabReceiverRecord(address: address, name: name, deviceClass: "smart-tv-low-end", reason: "test", source: .avahi))
        }
        for name in ["Living Room", "TV 3", "TV 4"] {
            _ = try desk.record(receiver: name, caseId: "video-codec-hevc", verdict: name == "TV 4" ? "glitch" : "seamless", seconds: nil, note: nil, source: "cli")
        }
        let report = LabReportBuilder(manifest: LabTestData.manifest, profiles: profiles).report(verdicts: try store.verdicts(), sessions: [])
        let three = ProfileCalibration(manifest: LabTestData.manifest, profiles: profiles, minObservations: 3).proposals(from: report.cells)
        XCTAssertEqual(three.map { "\($0.deviceClass) \($0.rule) \($0.current)->\($0.proposed) \($0.observations)" },
                       ["smart-tv-low-end video-codec-mismatch error->info 3"])
        XCTAssertTrue(three[0].evidence.contains("2 seamless, 1 glitch"), three[0].evidence)
        XCTAssertTrue(ProfileCalibration(manifest: LabTestData.manifest, profiles: profiles, minObservations: 4).proposals(from: report.cells).isEmpty)
    }

    func testTheProfileEditChangesOneRuleLineAndTheResultStillLoads() throws {
        let file = LabTests.profilesDirectory + "/smart-tv-low-end.yaml"
        let old = try String(contentsOfFile: file, encoding: .utf8)
        let new = ProfileYAMLEdit.apply([("video-codec-mismatch", "info"), ("av-start-misaligned", "warning")], to: old)
        let profile = try ProfileLoader.parse(new, file: file, expectedId: "smart-tv-low-end")
        XCTAssertEqual(profile.rules["video-codec-mismatch"], .severity(.info))
        XCTAssertEqual(profile.rules["av-start-misaligned"], .severity(.warning))
        XCTAssertEqual(profile.rules["frame-rate-mismatch"], .severity(.error), "other rules unchanged")
        let diff = ProfileYAMLEdit.diff(old, new, path: file)
        XCTAssertTrue(diff.contains("-  video-codec-mismatch: error\n+  video-codec-mismatch: info\n"), diff)
        XCTAssertTrue(diff.contains("+  av-start-misaligned: warning"), diff)
        XCTAssertEqual(diff.components(separatedBy: "\n").filter { $0.hasPrefix("-") && !$0.hasPrefix("---") }.count, 1)
        let noRules = ProfileYAMLEdit.apply([("video-codec-mismatch", "info")], to: "id: x\nname: X\n")
        XCTAssertEqual(noRules, "id: x\nname: X\nrules:\n  video-codec-mismatch: info\n")
    }
}

enum LabTests {
    static var profilesDirectory: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("DeviceProfiles").path
    }
}
