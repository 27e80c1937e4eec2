import Foundation
import Processes
import SeamcheckTestSupport
import XCTest

/// Receivers that misbehave, against `lab serve`: one closes its connection mid-segment, one
/// stops reading mid-segment for seconds while another plays. The suite is a copy of the small
/// one (LabSuiteFixture.withRolls) whose first ad segment is padded to 32 MiB: loopback socket
/// buffers take a few MB, so only a larger body keeps the server writing while the client is gone
/// or stalled. The clients only fetch; nothing decodes the padding.
final class LabFaultScenario {
    static let dropper = "127.0.0.23", afterDrop = "127.0.0.24", staller = "127.0.0.25", beside = "127.0.0.26"
    /// At most: the stall is ended by the test once the client beside it is done (`--stall-until`).
    static let stallSeconds = 60.0
    static let padding = 32 << 20

    var runs: [String: EmulatorRun] = [:]
    var stallStillRunningWhenOtherFinished = false
    var serverExit: Int32 = -1
    var sessions: [[String: Any]] = []

    private static let once = Once { try LabFaultScenario() }

    static func shared() throws -> LabFaultScenario { try once.get() }

    /// The rolls suite with its first ad segment (the first media segment a receiver fetches) padded.
    static func paddedSuite(in folder: String) throws -> String {
        let suite = try LabSuiteFixture.withRolls(from: try LabSuiteFixture.small(), into: folder)
        let adPlaylist = try String(contentsOfFile: suite + "/cases/rolls/ad/ad.m3u8", encoding: .utf8)
        let first = try XCTUnwrap(adPlaylist.split(separator: "\n").first { !$0.hasPrefix("#") && !$0.isEmpty })
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: suite + "/cases/rolls/ad/" + first))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(count: padding))
        try handle.close()
        return suite
    }

    func run(_ client: String) throws -> EmulatorRun { try XCTUnwrap(runs[client], "no run from \(client)") }

    func session(_ client: String) throws -> [String: Any] {
        try XCTUnwrap(sessions.first { $0["client"] as? String == client }, "no session of \(client)")
    }

    private init() throws {
        let python = try TestEnvironment.require("python3")
        let folder = try LabEnvironment.temporaryFolder("lab-faults")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let suite = try Self.paddedSuite(in: folder)

        var runs: [String: EmulatorRun] = [:]
        var stillRunning = false
        serverExit = try LabServerProcess.with(suite: suite, database: folder + "/lab.sqlite", inventory: nil, browse: false) { server in
            let url = server.origin + "/cases/rolls/master.m3u8"
            // The first media segment a receiver fetches is the pre-roll's first: the padded one.
            runs[Self.dropper] = try EmulatorRun.run(url: url, source: Self.dropper, options: ["--drop-mid-segment", "1"])
            runs[Self.afterDrop] = try EmulatorRun.run(url: url, source: Self.afterDrop)

            // The staller holds its stall until the client beside it is done: a server that waited
            // for it would keep the other from finishing at all (its 30 s timeout), however loaded
            // the machine. Its STALLED line says the stall has begun.
            let release = folder + "/release-stall"
            let staller = try RunningProcess(python, EmulatorRun.arguments(url: url, source: Self.staller, options: [
                "--stall-seconds", String(Self.stallSeconds), "--stall-segment", "1", "--stall-until", release]))
            let deadline = Date().addingTimeInterval(30)
            while !staller.output.contains("STALLED"), staller.exitCode == nil, Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
            runs[Self.beside] = try EmulatorRun.run(url: url, source: Self.beside, timeout: 30)
            stillRunning = staller.output.contains("STALLED") && staller.exitCode == nil
            FileManager.default.createFile(atPath: release, contents: nil)
            let status = staller.wait(timeout: Self.stallSeconds + 30)
            runs[Self.staller] = try EmulatorRun.decode(staller.output, status: status, seconds: 0)

            return server.stop()
        }
        self.runs = runs
        stallStillRunningWhenOtherFinished = stillRunning
        sessions = try LabSessions.read(database: folder + "/lab.sqlite")
    }
}

final class LabFaultTests: XCTestCase {
    func testAClientThatDropsMidSegmentIsLoggedAsAbandonedAndTheServerKeepsServing() throws {
        let lab = try LabFaultScenario.shared()
        let dropped = try lab.run(LabFaultScenario.dropper)
        XCTAssertTrue(dropped.dropped, "\(dropped.summary)")
        let session = try lab.session(LabFaultScenario.dropper)
        XCTAssertEqual(session["abandonedRequests"] as? Int, 1, "\(session)")
        XCTAssertLessThan(session["bytes"] as? Int ?? .max, LabFaultScenario.padding, "the whole padded segment counted as sent")
        let next = try lab.run(LabFaultScenario.afterDrop)
        XCTAssertEqual(next.errors, [])
        let after = try lab.session(LabFaultScenario.afterDrop)
        XCTAssertEqual(after["abandonedRequests"] as? Int, 0)
        XCTAssertEqual(after["interstitialRequested"] as? Bool, true)
        XCTAssertGreaterThan(after["bytes"] as? Int ?? 0, LabFaultScenario.padding)
    }

    func testAStalledClientDoesNotHoldUpAnother() throws {
        let lab = try LabFaultScenario.shared()
        let beside = try lab.run(LabFaultScenario.beside)
        XCTAssertEqual(beside.errors, [], "it waited for the stalled client (held until it was done): \(beside.summary)")
        XCTAssertEqual(beside.status, 0, "\(beside.summary)")
        XCTAssertTrue(lab.stallStillRunningWhenOtherFinished, "the stall had not begun or had ended before the other client finished: nothing was shown")
        let stalled = try lab.run(LabFaultScenario.staller)
        XCTAssertEqual(stalled.errors, [], "\(stalled.summary)")
        let session = try lab.session(LabFaultScenario.staller)
        XCTAssertEqual(session["abandonedRequests"] as? Int, 0, "the stalled request resumed and completed")
        XCTAssertEqual(session["interstitialRequested"] as? Bool, true)
    }

    func testEveryRequestOfMisbehavingClientsIsInTheDatabaseAfterSIGTERM() throws {
        let lab = try LabFaultScenario.shared()
        XCTAssertEqual(lab.serverExit, 0)
        for (client, run) in lab.runs {
            XCTAssertGreaterThan(run.requests, 0, client)
            XCTAssertEqual(try lab.session(client)["requests"] as? Int, run.requests, "requests of \(client)")
        }
        XCTAssertEqual(lab.runs.count, 4)
    }

    /// `--idle-timeout` closes a connection whose client stopped reading mid-body (Hummingbird's
    /// own idle timer ignores a connection while a response is being written; StalledWriteCloser
    /// does not), so a receiver that stalls without closing holds nothing forever.
    func testAClientThatStopsReadingMidBodyIsCutAtTheIdleTimeout() throws {
        let folder = try LabEnvironment.temporaryFolder("lab-idle")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let suite = try LabFaultScenario.paddedSuite(in: folder)
        try LabServerProcess.with(streams: suite, database: folder + "/lab.sqlite", arguments: ["--no-browse", "--idle-timeout", "1"]) { server in
            let run = try EmulatorRun.run(url: server.origin + "/cases/rolls/master.m3u8", source: "127.0.0.42",
                                          options: ["--stall-seconds", "4", "--stall-segment", "1"])
            XCTAssertEqual(server.stop(), 0)
            XCTAssertFalse(run.errors.isEmpty, "the stalled client got its whole segment after 4 s; the server should have cut it after 1 s")
            let session = try XCTUnwrap(try LabSessions.read(database: folder + "/lab.sqlite").first)
            XCTAssertEqual(session["abandonedRequests"] as? Int, 1, "\(session)")
        }
    }
}
