import AirPlay
import Foundation
import LabRun
import Processes
import SeamcheckTestSupport
import XCTest

/// Faults of the issue's "Bad input and faults" against stand-ins on loopback
/// (Tests/Server/airplay_receiver.py): a legacy receiver that stops asking for timing and never
/// answers `/feedback`, garbage property lists and a request that never ends on the reverse
/// connection of pushed playlists. Each is a finding (or nothing the session waits on) within its
/// bound, never a hang.
final class ReceiverFaultTests: XCTestCase {
    var process: RunningProcess?
    var ports: [String: Int] = [:]

    override func tearDown() { process?.terminate() }

    func start(_ modes: [String]) throws {
        (process, ports) = try ModeServerScript.start("airplay_receiver.py", modes: modes)
    }

    func endpoint(_ mode: String) -> AirPlayEndpoint { AirPlayEndpoint(host: "127.0.0.1", port: ports[mode] ?? 0, name: mode) }

    func lines(_ prefix: String) -> [Substring] { (process?.output ?? "").split(separator: "\n").filter { $0.hasPrefix(prefix) } }

    func wait(_ seconds: Double = 10, until condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while !condition() {
            if Date() > deadline { return false }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return true
    }

    /// SETUP and RECORD answered, then no timing request ever and `/feedback` never answered: the
    /// polls of `/playback-info` go on answering (they decide the cell), the unanswered feedback is
    /// counted, and `/stop` and `close` end the session (TEARDOWN best effort, bounded).
    func testALegacyReceiverThatStopsAskingForTimingOrFeedbackChangesNothingTheRunWaitsOn() async throws {
        try start(["legacy-no-feedback"])
        // 2 s: every poll must be answered, and a loaded CI machine can take longer than 0.5 s to.
        let configuration = AirPlayConfiguration(requestTimeout: 2, feedbackInterval: 0.1)
        let session = LegacyVideoSession(endpoint: endpoint("legacy-no-feedback"), configuration: configuration)
        try await session.play(url: URL(string: "http://127.0.0.1:9/cases/control/master.m3u8")!, startPosition: 0)
        var positions: [Double] = []
        while await session.feedbackFailures == 0 || positions.count < 4 {
            positions.append(try await session.playbackInfo().position ?? -1)
            try await Task.sleep(for: .milliseconds(150))
            if positions.count > 100 { break }
        }
        let failures = await session.feedbackFailures
        let timing = await session.timingRequestsAnswered
        XCTAssertGreaterThan(failures, 0, "an unanswered /feedback is counted")
        XCTAssertEqual(timing, 0, "the stand-in never asks for timing")
        XCTAssertTrue(positions.allSatisfy { $0 >= 0 }, "every poll answered: \(positions)")
        try await session.stop()
        await session.close()
        // The stand-in's lines reach us asynchronously: the last one (/stop) is waited for.
        _ = wait { lines("REQUEST ").contains { $0.contains("\"/stop\"") } }
        let requests = lines("REQUEST ").joined(separator: "\n")
        for step in ["\"SETUP\"", "\"RECORD\"", "\"/feedback\"", "\"/play\"", "\"/stop\""] {
            XCTAssertTrue(requests.contains(step), "\(step) in \(requests.prefix(2000))")
        }
    }

    /// Well-framed events whose plists are garbage (junk after a binary header, plists that hold
    /// themselves, 15000 nested arrays, an array, wrong types): each is answered 200 and is a
    /// finding; the first fails the pushed `/play` with it.
    func testGarbagePlistsOnTheReverseConnectionAreFindingsEachAnswered() async throws {
        try start(["reverse-garbage-plists"])
        let endpoint = endpoint("reverse-garbage-plists")
        let base = try await AirPlaySender.open(endpoint, configuration: AirPlayConfiguration(requestTimeout: 2))
        let pushed = PushedPlayback(base, endpoint: endpoint, configuration: AirPlayConfiguration(requestTimeout: 2),
                                    limits: PushLimits(pushTimeout: 5), attribution: PushAttribution(receiver: "127.0.0.1", token: "t"))
        do {
            try await pushed.play(url: URL(string: "http://127.0.0.1:9/cases/control/master.m3u8")!, startPosition: 0)
            XCTFail("a garbage plist is a finding")
        } catch {
            XCTAssertTrue("\(error)".contains("/play (pushed playlists)") && "\(error)".contains("POST /event"),
                          "\(error)")
        }
        XCTAssertTrue(wait { self.lines("REVERSE-ANSWER ").count == 7 }, "every event answered: \(lines("REVERSE-ANSWER "))")
        XCTAssertTrue(lines("REVERSE-ANSWER ").allSatisfy { $0.hasSuffix("200 OK") }, "\(lines("REVERSE-ANSWER "))")
        await pushed.close()
    }

    /// An event that claims 200000 bytes (under the 256 KiB limit) and sends 100: nothing is
    /// delivered, and the pushed `/play` ends at its push timeout saying the receiver asked for nothing.
    func testAPushedPlaylistRequestThatNeverEndsEndsAtThePushTimeout() async throws {
        try start(["reverse-endless-event"])
        let endpoint = endpoint("reverse-endless-event")
        let base = try await AirPlaySender.open(endpoint, configuration: AirPlayConfiguration(requestTimeout: 2))
        let pushed = PushedPlayback(base, endpoint: endpoint, configuration: AirPlayConfiguration(requestTimeout: 2),
                                    limits: PushLimits(pushTimeout: 1), attribution: PushAttribution(receiver: "127.0.0.1", token: "t"))
        do {
            try await pushed.play(url: URL(string: "http://127.0.0.1:9/cases/control/master.m3u8")!, startPosition: 0)
            XCTFail("a request that never ends is a finding")
        } catch {
            XCTAssertTrue("\(error)".contains("the receiver asked for no playlist within 1 s of /play"), "\(error)")
        }
        await pushed.close()
        XCTAssertTrue(wait { !self.lines("REVERSE-CLOSED").isEmpty }, "the reverse connection closed: \(process?.output.suffix(500) ?? "")")
    }
}
