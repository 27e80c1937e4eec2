@testable import AirPlay
import Crypto
import Foundation
import Processes
import SeamcheckTestSupport
import XCTest

/// The AirPlay 2 play flow against Tests/Server/ap2_loopback_peer.py: a loopback peer written for
/// these tests (HAP-python's framing and HKDF on its side), NOT a receiver. What it checks: the
/// exact requests, headers and plist keys the sender writes, in order; that the event channel's
/// keys (Events-Salt) agree with keys derived independently in Python; and the typed errors of
/// bad answers. Whether an Apple receiver accepts this flow is not checked anywhere here.
final class AirPlay2FlowTests: XCTestCase {
    static let modes = ["ok", "feedback", "setup-500", "setup-badplist", "event-refused", "setup-noport", "wrong-cseq"]
    private var peers: LoopbackPeers!

    override func setUpWithError() throws {
        peers = try LoopbackPeers(script: "ap2_loopback_peer.py", modes: Self.modes)
    }

    override func tearDown() { peers?.stop() }

    private func endpoint(_ mode: String) -> AirPlayEndpoint { AirPlayEndpoint(host: "127.0.0.1", port: peers.ports[mode]!, name: mode) }

    private var credentials: HAPCredentials {
        let peer = try! Curve25519.Signing.PrivateKey(rawRepresentation: [UInt8](repeating: 0x43, count: 32))
        return HAPCredentials(controllerId: UUID().uuidString, controllerPrivateKey: Curve25519.Signing.PrivateKey().rawRepresentation,
                              accessoryId: "AP2-PEER", accessoryPublicKey: peer.publicKey.rawRepresentation)
    }

    private func open(_ mode: String, _ configuration: AirPlayConfiguration = .init(feedbackInterval: 0)) async throws -> AirPlay2Session {
        let session = try await AirPlaySender.open(endpoint(mode), access: .verify(credentials), flow: .airPlay2, configuration: configuration)
        return try XCTUnwrap(session as? AirPlay2Session)
    }

    /// One request the peer logged.
    struct Logged {
        var method: String
        var target: String
        var version: String
        var headers: [(String, String)]
        var body: [String: Any]?
        /// The peer's JSON line (Python's `true` is not its `1`: the plist types as the peer read them).
        var raw: String
        func header(_ name: String) -> String? { headers.first { $0.0.lowercased() == name.lowercased() }?.1 }
        var line: String { "\(method) \(target) \(version)" }
    }

    /// The requests `mode` answered, once `count` are logged and a moment more has passed.
    private func requests(_ mode: String, count: Int) -> [Logged] {
        let deadline = Date().addingTimeInterval(5)
        while logged(mode).count < count, Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        Thread.sleep(forTimeInterval: 0.3)
        return logged(mode)
    }

    /// `read()` once it has given the same count for 0.3 s; fails after 5 s of changes.
    private func settled(_ read: () -> [Logged]) async throws -> [Logged] {
        let deadline = Date().addingTimeInterval(5)
        var last = read(), since = Date()
        while Date() < deadline {
            try await Task.sleep(nanoseconds: 50_000_000)
            let now = read()
            if now.count != last.count { last = now; since = Date() } else if Date().timeIntervalSince(since) >= 0.3 { return now }
        }
        XCTFail("the peer's log kept growing for 5 s: \(last.count) requests")
        return last
    }

    private func logged(_ mode: String) -> [Logged] {
        peers.output.split(separator: "\n").filter { $0.hasPrefix("REQUEST \(mode) ") }.compactMap { line in
            let json = line.dropFirst("REQUEST \(mode) ".count)
            guard let object = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any] else { return nil }
            let headers = (object["headers"] as? [[String]] ?? []).map { ($0[0], $0[1]) }
            return Logged(method: object["method"] as? String ?? "", target: object["target"] as? String ?? "",
                          version: object["version"] as? String ?? "", headers: headers, body: object["body"] as? [String: Any],
                          raw: String(json))
        }
    }

    func testPlayFlowSendsPyatvsSequenceWithItsHeadersAndPlists() async throws {
        let session = try await open("ok")
        try await session.play(url: URL(string: "http://127.0.0.1:8080/case/index.m3u8")!, startPosition: 12.5, duration: nil)
        let info = try await session.playbackInfo()
        try await session.stop()
        await session.close()

        XCTAssertEqual(info.duration, 20)
        XCTAssertEqual(info.position, 1.5)
        let sent = requests("ok", count: 10)
        let uriPattern = try Regex("^rtsp://127\\.0\\.0\\.1/[0-9]+$")
        let sessionURI = try XCTUnwrap(sent.first?.target)
        XCTAssertNotNil(sessionURI.wholeMatch(of: uriPattern), sessionURI)
        XCTAssertEqual(sent.map(\.line), [
            "SETUP \(sessionURI) RTSP/1.0", "RECORD \(sessionURI) RTSP/1.0", "POST /play HTTP/1.1",
            "PUT /setProperty?isInterestedInDateRange RTSP/1.0", "PUT /setProperty?actionAtItemEnd RTSP/1.0",
            "POST /rate?value=1.000000 RTSP/1.0", "PUT /setProperty?forwardEndTime RTSP/1.0",
            "PUT /setProperty?reverseEndTime RTSP/1.0", "GET /playback-info HTTP/1.1", "TEARDOWN \(sessionURI) RTSP/1.0",
        ])
        // RTSP: CSeq from 0 in order, the same DACP-ID/Client-Instance and Active-Remote throughout, no Host.
        let rtsp = sent.filter { $0.version == "RTSP/1.0" }
        XCTAssertEqual(rtsp.map { $0.header("CSeq") }, (0..<rtsp.count).map { String($0) })
        let dacp = try XCTUnwrap(rtsp.first?.header("DACP-ID"))
        XCTAssertNotNil(dacp.wholeMatch(of: try Regex("^[0-9A-F]{16}$")), dacp)
        for request in rtsp {
            XCTAssertEqual(request.header("DACP-ID"), dacp)
            XCTAssertEqual(request.header("Client-Instance"), dacp)
            XCTAssertEqual(request.header("Active-Remote"), rtsp.first?.header("Active-Remote"))
            XCTAssertEqual(request.header("User-Agent"), "AirPlay/550.10")
            XCTAssertNil(request.header("Host"), "RTSP requests carry no Host")
            XCTAssertEqual(request.header("Content-Type"), request.body == nil ? nil : "application/x-apple-binary-plist", request.line)
        }
        // SETUP's plist: who we are, and NTP timing on a UDP port that answers the peer's request.
        let setup = try XCTUnwrap(sent[0].body)
        XCTAssertEqual(setup["timingProtocol"] as? String, "NTP")
        XCTAssertGreaterThan(setup["timingPort"] as? Int ?? 0, 0)
        let timingLine = try XCTUnwrap(peers.output.split(separator: "\n").first { $0.hasPrefix("TIMING ok ") }, peers.output)
        let timing = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(timingLine.dropFirst("TIMING ok ".count).utf8)) as? [String: Any])
        XCTAssertEqual(timing["proto"] as? Int, 0x80, "\(timing)")
        XCTAssertEqual(timing["type"] as? Int, 0xD3)
        XCTAssertEqual(timing["seqno"] as? Int, 7)
        XCTAssertTrue(timingLine.contains(#""reference_is_our_send_time": true"#), String(timingLine))
        XCTAssertTrue(timingLine.contains(#""receive_equals_send": true"#), String(timingLine))
        // Our NTP clock agrees with Python's time.time(): the receive time we wrote lies within the peer's exchange.
        XCTAssertGreaterThanOrEqual(timing["receive_minus_sent"] as? Double ?? -99, -0.01, "\(timing)")
        XCTAssertLessThanOrEqual(timing["receive_minus_now"] as? Double ?? 99, 0.01, "\(timing)")
        XCTAssertEqual(setup["deviceID"] as? String, setup["macAddress"] as? String)
        XCTAssertNotNil((setup["sessionUUID"] as? String).flatMap(UUID.init(uuidString:)))
        // /play: HTTP over the same channel, pyatv's X-Apple headers, the start in seconds.
        let play = sent[2]
        XCTAssertEqual(play.header("Content-Type"), "application/x-apple-binary-plist")
        XCTAssertEqual(play.header("X-Apple-ProtocolVersion"), "1")
        XCTAssertEqual(play.header("X-Apple-Stream-ID"), "1")
        XCTAssertEqual(play.header("X-Apple-Session-ID"), session.sessionId)
        XCTAssertEqual(play.body?["Content-Location"] as? String, "http://127.0.0.1:8080/case/index.m3u8")
        XCTAssertEqual(play.body?["Start-Position-Seconds"] as? Double, 12.5)
        XCTAssertEqual(play.body?["rate"] as? Double, 1)
        XCTAssertEqual(play.body?["streamType"] as? Int, 1)
        // The properties' bodies.
        XCTAssertTrue(sent[3].raw.hasSuffix(#""body": {"value": true}}"#), sent[3].raw)
        XCTAssertTrue(sent[4].raw.hasSuffix(#""body": {"value": 0}}"#), sent[4].raw)
        XCTAssertTrue(sent[0].raw.contains(#""isMultiSelectAirPlay": true"#), "a plist boolean, not 1")
        XCTAssertNil(sent[5].body, "rate has no body")
        for index in [6, 7] {
            let time = try XCTUnwrap(sent[index].body?["value"] as? [String: Any])
            XCTAssertEqual(time.keys.sorted(), ["epoch", "flags", "timescale", "value"])
        }
        XCTAssertEqual(sent[8].header("X-Apple-Session-ID"), session.sessionId)
        XCTAssertEqual(sent[9].header("Session").flatMap(UInt32.init), UInt32(sessionURI.split(separator: "/").last!))
    }

    /// The peer sends a request on the event channel with keys it derives itself (pyhap's HKDF,
    /// "Events-Salt"); it can read our answer only when our keys are the same, in the right roles.
    func testEventChannelKeysAgreeWithIndependentlyDerivedOnes() async throws {
        let session = try await open("ok")
        try await session.play(url: URL(string: "http://127.0.0.1:8080/a.m3u8")!, startPosition: 0)
        let deadline = Date().addingTimeInterval(5)
        while !peers.output.contains("EVENT ok") && !peers.output.contains("EVENT-ERROR ok"), Date() < deadline {
            try await Task.sleep(nanoseconds: 20_000_000)
        }
        let eventsAnswered = await session.eventsAnswered
        let isSetUp = await session.isSetUp
        await session.close()
        let line = try XCTUnwrap(peers.output.split(separator: "\n").first { $0.hasPrefix("EVENT") }, peers.output)
        XCTAssertEqual(String(line), #"EVENT ok ["RTSP/1.0 200 OK", "Content-Length: 0", "Audio-Latency: 0", "CSeq: 7", "Server: AirTunes/loopback-peer"]"#)
        XCTAssertEqual(eventsAnswered, 1)
        XCTAssertTrue(isSetUp)
    }

    func testFeedbackIsSentWhileTheSessionLives() async throws {
        let session = try await open("feedback", .init(feedbackInterval: 0.2))
        try await session.play(url: URL(string: "http://127.0.0.1:8080/a.m3u8")!, startPosition: 0)
        try await Task.sleep(nanoseconds: 900_000_000)
        await session.close()
        // The peer prints a request after its answer is written: one answered just before close()
        // may still be on its way through the pipe. The baseline is the count once it has held
        // for 0.3 s (a sender still sending every 0.2 s never settles: that fails here).
        let feedback = try await settled { self.logged("feedback").filter { $0.line == "POST /feedback RTSP/1.0" } }
        XCTAssertGreaterThanOrEqual(feedback.count, 2)
        XCTAssertLessThanOrEqual(feedback.count, 6)
        try await Task.sleep(nanoseconds: 500_000_000)
        XCTAssertEqual(logged("feedback").filter { $0.line == "POST /feedback RTSP/1.0" }.count, feedback.count, "none after close")
    }

    private func playError(_ mode: String, _ configuration: AirPlayConfiguration = .init(feedbackInterval: 0)) async throws -> AirPlayError? {
        let session = try await open(mode, configuration)
        defer { Task { await session.close() } }
        do throws(AirPlayError) {
            try await session.play(url: URL(string: "http://127.0.0.1:8080/a.m3u8")!, startPosition: 0)
            return nil
        } catch { return error }
    }

    func testSetupAnswered500IsAnHTTPErrorNamingSetupAndNothingFollows() async throws {
        let error = try await playError("setup-500")
        XCTAssertEqual(error, .http(endpoint: endpoint("setup-500").description, path: "RTSP SETUP", status: 500, reason: "Internal Server Error"))
        XCTAssertEqual(requests("setup-500", count: 1).map(\.method), ["SETUP"])
    }

    func testSetupWithoutAPlistIsABadResponseNamingSetup() async throws {
        let error = try await playError("setup-badplist")
        guard case .badResponse(let name, let path, let reason) = error else { return XCTFail("\(String(describing: error))") }
        XCTAssertEqual(name, endpoint("setup-badplist").description)
        XCTAssertEqual(path, "RTSP SETUP")
        XCTAssertTrue(reason.hasPrefix("not a property list (21 bytes starting '<html>no plist</html>')"), reason)
        XCTAssertEqual(requests("setup-badplist", count: 1).map(\.method), ["SETUP"])
    }

    func testRefusedEventPortIsAConnectErrorNamingTheEventChannelAfterItsRetries() async throws {
        let started = Date()
        let error = try await playError("event-refused", .init(eventConnectAttempts: 3, eventRetryDelay: 0.2, feedbackInterval: 0))
        let elapsed = Date().timeIntervalSince(started)
        guard case .connect(let name, let reason) = error else { return XCTFail("\(String(describing: error))") }
        XCTAssertEqual(name, endpoint("event-refused").description)
        XCTAssertNotNil(reason.firstMatch(of: try Regex("^event channel to port [0-9]+ \\(named by RTSP SETUP\\): Connection refused$")), reason)
        XCTAssertGreaterThanOrEqual(elapsed, 0.4, "two retries 0.2 s apart")
        XCTAssertEqual(requests("event-refused", count: 1).map(\.method), ["SETUP"], "no RECORD without the event channel")
    }

    func testSetupWithoutEventPortIsABadResponseNamingIt() async throws {
        let error = try await playError("setup-noport")
        XCTAssertEqual(error, .badResponse(endpoint: endpoint("setup-noport").description, path: "RTSP SETUP",
                                           reason: "no eventPort (a TCP port number) in its plist"))
        XCTAssertEqual(requests("setup-noport", count: 1).map(\.method), ["SETUP"])
    }

    func testAnswerWithAnotherCSeqIsRefusedAndPlayIsNotSent() async throws {
        let error = try await playError("wrong-cseq")
        XCTAssertEqual(error, .badResponse(endpoint: endpoint("wrong-cseq").description, path: "RTSP RECORD",
                                           reason: "answered CSeq 99 to CSeq 1"))
        XCTAssertEqual(requests("wrong-cseq", count: 2).map(\.method), ["SETUP", "RECORD"], "no /play after a stray answer")
    }

    func testTimingReplyLayout() {
        var request = [UInt8](repeating: 0, count: 32)
        request[0] = 0x80
        request[1] = 0xD2
        request[24..<32] = [1, 2, 3, 4, 5, 6, 7, 8]
        XCTAssertEqual(TimingServer.reply(to: request, now: (seconds: 0x0A0B_0C0D, fraction: 0x1122_3344)),
                       [0x80, 0xD3, 0, 7, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8,
                        0x0A, 0x0B, 0x0C, 0x0D, 0x11, 0x22, 0x33, 0x44, 0x0A, 0x0B, 0x0C, 0x0D, 0x11, 0x22, 0x33, 0x44])
        XCTAssertNil(TimingServer.reply(to: Array(request.prefix(31)), now: (1, 2)), "short datagrams are dropped")
    }

    func testEventResponderAnswersEachRequestWithItsCSeqAndWaitsForBodies() {
        let request = Array("POST /command RTSP/1.0\r\nCSeq: 3\r\nContent-Length: 4\r\n\r\nab".utf8)
        XCTAssertNil(EventResponder.answer(to: request), "body incomplete")
        let answered = EventResponder.answer(to: request + Array("cdGET".utf8))
        XCTAssertEqual(answered.map { String(decoding: $0.answer, as: UTF8.self) },
                       "RTSP/1.0 200 OK\r\nContent-Length: 0\r\nAudio-Latency: 0\r\nCSeq: 3\r\n\r\n")
        XCTAssertEqual(answered?.used, request.count + 2)
    }
}
