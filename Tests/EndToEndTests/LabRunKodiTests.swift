import Foundation
import Lab
import SeamcheckTestSupport
import XCTest

/// `seamcheck lab run` against a real AirPlay video receiver: Kodi 20 under Xvfb in its own
/// network namespace (scripts/services.sh kodi-start), the binary run inside that namespace.
/// SEAMCHECK_KODI_ENV names the kodi.env of a running Kodi (default .build/services/kodi.env,
/// started here when missing); its scripts/services.sh kills and restarts it.
final class LabRunKodiTests: XCTestCase {
    struct Kodi {
        var netns: String
        var dbus: String
        var airplay: String
        /// scripts/services.sh of the checkout that started it.
        var services: String
    }

    var folder = ""
    var database = ""

    override func setUpWithError() throws {
        folder = try LabEnvironment.temporaryFolder("labrun-kodi")
        database = folder + "/lab.sqlite"
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: folder)
    }

    static func kodi() throws -> Kodi {
        let environment = ProcessInfo.processInfo.environment
        let file = environment["SEAMCHECK_KODI_ENV"] ?? MediaFixture.packageRoot + "/.build/services/kodi.env"
        let services = URL(fileURLWithPath: file).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("scripts/services.sh").path
        if !FileManager.default.fileExists(atPath: file) {
            let usage = (try? String(contentsOfFile: services, encoding: .utf8)) ?? ""
            guard usage.contains("kodi-start") else { throw TestEnvironment.missing("scripts/services.sh has no kodi-start yet") }
            let started = try Command.run("bash", [services, "kodi-start"], timeout: 120)
            guard started.status == 0 else { throw TestEnvironment.missing("Kodi did not start: \(started.stderr)") }
        }
        let text = try String(contentsOfFile: file, encoding: .utf8)
        var values: [String: String] = [:]
        for match in text.matches(of: /export (\w+)=(.*)/) {
            values[String(match.1)] = String(match.2).replacingOccurrences(of: "\\ ", with: " ")
        }
        guard let netns = values["SEAMCHECK_KODI_NETNS"], let dbus = values["SEAMCHECK_KODI_DBUS"],
              let airplay = values["SEAMCHECK_KODI_AIRPLAY"] else {
            throw TestEnvironment.missing("\(file) does not name Kodi's namespace, bus and AirPlay address")
        }
        return Kodi(netns: netns, dbus: dbus, airplay: airplay, services: services)
    }

    /// The binary's arguments run inside Kodi's namespace.
    static func inside(_ kodi: Kodi, _ arguments: [String]) -> [String] {
        ["netns", "exec", kodi.netns, "env", "DBUS_SYSTEM_BUS_ADDRESS=\(kodi.dbus)", "NO_COLOR=1", SeamcheckBinary.path] + arguments
    }

    func labRun(_ kodi: Kodi, _ arguments: [String]) throws -> [String] {
        ["lab", "run", "--db", database, "--streams", try LabSuiteFixture.small(), "--receiver", kodi.airplay, "--format", "json"]
            + arguments
    }

    func requireSender(_ kodi: Kodi) throws {
        let probe = try Command.run("ip", Self.inside(kodi, ["airplay", "status", kodi.airplay]), timeout: 30)
        if probe.stderr.contains("the AirPlay sender is not built yet") {
            throw XCTSkip("this build's AirPlay sender is the placeholder (issue 19 part 1 not merged)")
        }
        XCTAssertEqual(probe.status, 0, "Kodi answers /playback-info: \(probe.stderr)")
    }

    func testKodiPlaysTheControlAndStitchedCasesWithMeasuredVerdicts() throws {
        let kodi = try Self.kodi()
        try requireSender(kodi)
        let manifest = try LabSuiteFixture.manifest(try LabSuiteFixture.small())
        let stitched = (manifest["cases"] as? [[String: Any]] ?? []).filter { $0["delivery"] as? String == "stitched" }.compactMap { $0["id"] as? String }
        guard stitched.count >= 2 else { throw TestEnvironment.missing("the small suite has no stitched cases yet") }
        let cases = ["control"] + stitched.prefix(2)
        let result = try Command.run("ip", Self.inside(kodi, try labRun(kodi, cases.flatMap { ["--case", $0] })), timeout: 240)
        XCTAssertEqual(result.status, 0, result.stderr)

        let store = try LabStore(path: database, create: false)
        let run = try XCTUnwrap(try store.runs().first)
        XCTAssertEqual(run.state, .finished)
        let cells = try store.cells(runId: run.id)
        XCTAssertEqual(cells.map(\.caseId), cases)
        for cell in cells {
            let positions = cell.series.samples.compactMap { $0.info?.position }
            XCTAssertGreaterThan(positions.max() ?? 0, 5, "\(cell.caseId): Kodi's position advanced: \(positions)")
            // Measured, whatever it says: Kodi 20 drops a stitched item about 2.4 s before the duration
            // it reports (an early end the measurer names), but it played it.
            let failure = cell.measurement.failure
            XCTAssertTrue(failure == nil || failure == .endedEarly, "\(cell.caseId): \(cell.measurement.reason)")
            if cell.caseId == "control" { XCTAssertNotEqual(cell.measurement.outcome, .failed, cell.measurement.reason) }
            XCTAssertNotNil(cell.measurement.playToFirstFrameMs)
            XCTAssertFalse(cell.requests.isEmpty, "\(cell.caseId): Kodi's requests are in its cell")
            let media = cell.measurement.mediaDuration ?? 0
            XCTAssertLessThanOrEqual(cell.finishedAt.timeIntervalSince(cell.startedAt), media + 3,
                                     "\(cell.caseId): wall time within the media duration + 3 s")
        }
        XCTAssertEqual(try store.verdicts().filter { $0.source == .measured }.count, cases.count)
        let listed = try Command.run("ip", Self.inside(kodi, ["lab", "runs", "--db", database, "--format", "table"]), timeout: 30)
        XCTAssertTrue(listed.stdout.contains(run.id) && listed.stdout.contains("finished"), listed.stdout)
    }

    func testKodiKilledMidCaseHasThatCellFailedAndRetriedWhenItIsBack() throws {
        let kodi = try Self.kodi()
        try requireSender(kodi)
        let process = try ChildProcess(executable: URL(fileURLWithPath: "/usr/sbin/ip"),
                                       arguments: Self.inside(kodi, try labRun(kodi, ["--case", "control", "--case", "frame-rate-25"])))
        defer { process.terminate() }
        XCTAssertTrue(DiscoverEnvironment.wait(60) { ((try? LabStore(path: self.database, create: false).latestCells().count) ?? 0) >= 1 },
                      process.output)
        Thread.sleep(forTimeInterval: 4)  // into the second case
        XCTAssertEqual(try Command.run("bash", [kodi.services, "kodi-kill"], timeout: 30).status, 0)
        Thread.sleep(forTimeInterval: 5)
        let restarted = try Command.run("bash", [kodi.services, "kodi-start"], timeout: 120)
        XCTAssertEqual(restarted.status, 0, restarted.stderr)
        XCTAssertEqual(process.wait(timeout: 120), 0, process.output)

        let store = try LabStore(path: database, create: false)
        let cells = try store.cells(runId: try XCTUnwrap(try store.runs().first).id)
        XCTAssertEqual(cells.map { "\($0.caseId)#\($0.attempt)" }, ["control#1", "frame-rate-25#1", "frame-rate-25#2"])
        XCTAssertEqual(cells[1].measurement.outcome, .failed)
        XCTAssertTrue(cells[1].measurement.reason.contains("receiver went away"), cells[1].measurement.reason)
        XCTAssertNotEqual(cells[2].measurement.outcome, .failed, cells[2].measurement.reason)
    }

    func testSIGINTDuringACaseThenResumeAgainstKodi() throws {
        let kodi = try Self.kodi()
        try requireSender(kodi)
        let process = try ChildProcess(executable: URL(fileURLWithPath: "/usr/sbin/ip"),
                                       arguments: Self.inside(kodi, try labRun(kodi, ["--case", "control", "--case", "frame-rate-25"])))
        defer { process.terminate() }
        XCTAssertTrue(DiscoverEnvironment.wait(60) { ((try? LabStore(path: self.database, create: false).latestCells().count) ?? 0) >= 1 },
                      process.output)
        Thread.sleep(forTimeInterval: 2)
        // `ip netns exec` execs the binary: this PID is seamcheck's.
        kill(process.pid, SIGINT)
        XCTAssertEqual(process.wait(timeout: 30), 130, process.output)
        let store = try LabStore(path: database, create: false)
        let run = try XCTUnwrap(try store.runs().first)
        XCTAssertEqual(run.state, .interrupted)
        XCTAssertEqual(try store.cells(runId: run.id).map(\.caseId), ["control"])

        let resumed = try Command.run("ip", Self.inside(kodi, ["lab", "run", "--db", database, "--streams", try LabSuiteFixture.small(),
                                                                 "--resume", run.id, "--format", "json"]), timeout: 120)
        XCTAssertEqual(resumed.status, 0, resumed.stderr)
        XCTAssertEqual(try store.cells(runId: run.id).map(\.caseId), ["control", "frame-rate-25"])
        XCTAssertEqual(try store.run(run.id)?.state, .finished)
    }
}
