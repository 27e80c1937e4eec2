import Foundation
import LabCore
import LabRun
import LabServer
import Processes
import SeamcheckTestSupport
import XCTest

/// `seamcheck lab run` against a second real AirPlay video receiver: UxPlay 1.74 (GStreamer's
/// playbin) in its own network namespace (`UxPlayReceiver`, scripts/services.sh uxplay-start),
/// started once for the suite; the binary runs inside that namespace and finds UxPlay by its
/// address. The sender finds by itself that UxPlay wants the legacy RTSP session (docs/airplay.md).
final class LabRunUxPlayTests: LabRunReceiverTestCase {
    override class var folderPrefix: String { "labrun-uxplay" }

    override class func tearDown() {
        UxPlayReceiver.endSuite()
        super.tearDown()
    }

    func labRun(_ uxplay: UxPlayReceiver, _ arguments: [String]) throws -> [String] {
        try labRun(endpoint: uxplay.airplayEndpoint, arguments)
    }

    /// The control case and a stitched one, the display captured, the playlists pushed (FCUP, set
    /// for this receiver by its address): UxPlay plays both through the legacy session (SETUP, NTP
    /// timing, RECORD, /feedback, /play on its own connection) asking the sender for every
    /// playlist over /reverse; the request log has every playlist (pushed) and segment as
    /// UxPlay's; the protocol and the picture are both measured, and at the stitched ad GStreamer
    /// shows the ad's first frame and goes on with the primary (docs/lab-run.md, "UxPlay").
    func testUxPlayPlaysControlAndAStitchedCaseWithPushedPlaylistsMeasuredByProtocolAndPicture() throws {
        let uxplay = try UxPlayReceiver.suite()
        let cases = ["control", "control-stitched"]
        let result = try uxplay.run(try labRun(uxplay, cases.flatMap { ["--case", $0] } + ["--capture", uxplay.display, "--capture-option", "framerate=30",
                                                                                          "--delivery", "\(uxplay.address)=pushed"]),
                                    timeout: 150)
        XCTAssertEqual(result.status, 0, result.stderr + "\n" + uxplay.logTail())
        let store = try store()
        let run = try XCTUnwrap(try store.runs().first)
        XCTAssertEqual(run.state, .finished)
        let cells = try store.cells(runId: run.id)
        XCTAssertEqual(cells.map(\.caseId), cases)
        for cell in cells {
            let positions = cell.series.samples.compactMap { $0.info?.position }
            XCTAssertGreaterThan(positions.max() ?? 0, 5, "\(cell.caseId): UxPlay's position advanced: \(positions)")
            XCTAssertFalse(cell.measurement.reason.contains("receiver went away"), cell.measurement.reason)
            XCTAssertNotNil(cell.measurement.playToFirstFrameMs, cell.caseId)
            XCTAssertFalse(cell.requests.isEmpty, "\(cell.caseId): UxPlay's requests are in its cell")
            let playlists = cell.requests.filter { $0.path.hasSuffix(".m3u8") }
            XCTAssertGreaterThanOrEqual(playlists.count, 2, "\(cell.caseId): the multivariant playlist and a media playlist")
            XCTAssertTrue(playlists.allSatisfy { $0.userAgent?.contains("(pushed by the sender at ") == true && $0.client == uxplay.address },
                          "\(cell.caseId): every playlist pushed, logged as UxPlay's: \(playlists.map { "\($0.path) \($0.userAgent ?? "-")" })")
            XCTAssertTrue(cell.requests.filter { !$0.path.hasSuffix(".m3u8") }.allSatisfy { $0.clientPort != nil && $0.userAgent?.contains("pushed") != true },
                          "\(cell.caseId): segments fetched by UxPlay itself")
            let picture = try XCTUnwrap(cell.measurement.picture, cell.caseId)
            XCTAssertEqual(picture.result, "measured", "\(cell.caseId): \(picture.notes)")
            XCTAssertEqual(picture.input, "x11grab:" + uxplay.display)
            XCTAssertGreaterThan(try XCTUnwrap(picture.playToFirstFrameMs, cell.caseId), 0)
            print("uxplay: \(cell.caseId): \(cell.measurement.outcome) \(cell.measurement.reason); first frame protocol "
                  + "\(cell.measurement.playToFirstFrameMs.map { "\(Int($0))" } ?? "-") ms, picture \(picture.playToFirstFrameMs.map { "\(Int($0))" } ?? "-") ms; "
                  + "transitions \(picture.transitions.map { "\($0.from.label) -> \($0.to.label) stall \(Int($0.stallMs)) ms skipped \($0.skippedFrames ?? -1)" }); "
                  + "wall \(String(format: "%.1f", cell.finishedAt.timeIntervalSince(cell.startedAt))) s of media \(cell.measurement.mediaDuration ?? 0) s")
        }
        let stitched = try XCTUnwrap(cells.last?.measurement.picture)
        XCTAssertTrue(stitched.streamsSeen?.contains("primary") == true, "\(stitched.streamsSeen ?? [])")
        XCTAssertTrue(stitched.transitions.contains { $0.from.label == "primary" && $0.to.label.hasPrefix("ad of") },
                      "the switch into the stitched ad is seen: \(stitched.transitions.map { "\($0.from.label) -> \($0.to.label)" })")
    }

    /// UxPlay SIGKILLed during a case: that cell is `failed: receiver went away`, and the case is
    /// played again once UxPlay answers again.
    func testUxPlayKilledMidCaseHasThatCellFailedAndRetriedWhenItIsBack() async throws {
        let uxplay = try UxPlayReceiver.suite()
        let process = try uxplay.spawn(try labRun(uxplay, ["--case", "control", "--case", "frame-rate-25"]))
        defer { process.terminate() }
        waitForFirstCell(process)
        try await Task.sleep(for: .seconds(4))  // into the second case
        try uxplay.kill()
        // Back within the run's 3 s of failed polls (UxPlay restarts in about 1 s): the cell ends
        // "receiver went away ... came back without the item", and is retried all the same.
        try await Task.sleep(for: .seconds(1))
        try uxplay.restart()
        XCTAssertEqual(process.wait(timeout: 120), 0, process.output)

        let store = try store()
        let cells = try store.cells(runId: try XCTUnwrap(try store.runs().first).id)
        XCTAssertEqual(cells.map { "\($0.caseId)#\($0.attempt)" }, ["control#1", "frame-rate-25#1", "frame-rate-25#2"],
                       cells.map { "\($0.caseId): \($0.measurement.reason)" }.joined(separator: "\n") + "\n" + process.output)
        guard cells.count == 3 else { return }
        XCTAssertEqual(cells[1].measurement.outcome, .failed)
        XCTAssertTrue(cells[1].measurement.reason.contains("receiver went away"), cells[1].measurement.reason)
        XCTAssertNotEqual(cells[2].measurement.outcome, .failed, cells[2].measurement.reason)
    }

    /// UxPlay started `-pin 4321`: `airplay pair --pin` stores legacy keys, and `lab run` with them
    /// pair-verifies on each session's RTSP connection and plays (cut at 5 s: playing is what is
    /// checked). With another receiver's key in the stored entry (a different receiver now at that
    /// address: UxPlay's own key comes from its device id, and without `-reg` it takes any
    /// controller's), the run's one receiver is refused at pair-verify: its cell skipped naming
    /// the step, exit 4.
    func testUxPlayWithAPinPlaysWithStoredLegacyKeysAndAnotherReceiversKeyIsAClearRefusal() throws {
        let uxplay = try UxPlayReceiver.suite()
        defer { try? uxplay.kill(); try? uxplay.restart() }
        try uxplay.kill()
        try uxplay.restart(pin: "4321")
        let credentials = folder + "/credentials.json"
        let pair = try uxplay.run([SeamcheckBinary.path, "airplay", "pair", uxplay.airplayEndpoint, "--pin", "4321", "--credentials", credentials],
                                  timeout: 60)
        XCTAssertEqual(pair.status, 0, pair.stderr + "\n" + uxplay.logTail())
        let arguments = try labRun(uxplay, ["--case", "control", "--case-timeout", "5", "--credentials", credentials])
        let played = try uxplay.run(arguments, timeout: 60)
        XCTAssertEqual(played.status, 0, played.stderr + "\n" + uxplay.logTail())
        XCTAssertTrue(played.stderr.contains("paired (legacy pair-verify with stored credentials)"), played.stderr)
        let cell = try XCTUnwrap(try store().latestCells().first)
        XCTAssertGreaterThan(cell.series.samples.compactMap { $0.info?.position }.max() ?? 0, 1, cell.measurement.reason)

        // RFC 8032's first test key: a valid Ed25519 public key that is not UxPlay's.
        var text = try String(contentsOfFile: credentials, encoding: .utf8)
        let stored = try XCTUnwrap(text.firstMatch(of: /"receiverPublicKey"\s*:\s*"([^"]+)"/)?.1)
        text = text.replacingOccurrences(of: String(stored), with: "11qYAYKxCrfVS\\/7TyWQHOg7hcvPapiMlrwIaaPcHURo=")
        try text.write(toFile: credentials, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: credentials)  // the store wants 0600
        let refused = try uxplay.run(arguments, timeout: 60)
        XCTAssertEqual(refused.status, 4, refused.stdout + refused.stderr)
        let skipped = try XCTUnwrap(try store().latestCells().first)
        XCTAssertEqual(skipped.measurement.outcome, .skipped, skipped.measurement.reason)
        XCTAssertTrue(skipped.measurement.reason.contains("pair-verify"), skipped.measurement.reason)
        print("uxplay -pin: refused with another receiver's key: \(skipped.measurement.reason)")
    }

    /// Another sender holds UxPlay (an RTSP connection it keeps open): UxPlay answers 409, which
    /// `seamcheck airplay play` reports as that, at once, with no hang.
    func testABusyUxPlayIsAClearRefusal() throws {
        let uxplay = try UxPlayReceiver.suite()
        // The other sender: one RTSP request, then the connection held open for 20 s.
        let holder = try uxplay.spawn(["python3", "-c", """
            import socket, sys, time
            s = socket.create_connection((sys.argv[1], int(sys.argv[2])))
            s.sendall(b"GET /info RTSP/1.0\\r\\nCSeq: 0\\r\\nUser-Agent: AirPlay/550.10\\r\\n\\r\\n")
            s.recv(65536)
            print("holding", flush=True)
            time.sleep(20)
            """, uxplay.address, String(uxplay.port)])
        defer { holder.terminate() }
        XCTAssertTrue(DiscoverEnvironment.wait(10) { holder.output.contains("holding") }, holder.output)
        let play = try uxplay.run([SeamcheckBinary.path, "airplay", "play", uxplay.airplayEndpoint, "http://\(uxplay.address):9/master.m3u8"],
                                  timeout: 30)
        XCTAssertNotEqual(play.status, 0, play.stdout)
        XCTAssertTrue(play.stderr.contains("409") && play.stderr.contains("another sender"), play.stderr)
        XCTAssertFalse(holder.output.contains("Traceback"), holder.output)
    }
}
