@testable import Discovery
import Foundation
import SeamcheckTestSupport
import XCTest

/// `GET /info` on a whole receiver: the AirPlay port over HTTP, then RTSP, then the RAOP port;
/// which request answered; hostile answers on one receiver only (Tests/Server/airplay_info_server.py).
final class InfoFallbackTests: XCTestCase {
    nonisolated(unsafe) static var server: InfoServer?  // set in class setUp, before any test runs
    static let modes = ["sdr", "rtsp-only", "forbidden", "garbage", "truncated-plist", "short-body", "huge", "silent"]

    override class func setUp() {
        server = try? InfoServer(modes: modes)
    }

    override class func tearDown() {
        server?.stop()
        server = nil
    }

    /// The server's port for `mode`; a failure (not a skip) when python3 could not start it.
    private func port(_ mode: String) throws -> Int {
        try XCTUnwrap(Self.server?.ports[mode], "the fake /info server did not start")
    }

    /// A receiver on 127.0.0.1 with an `_airplay._tcp` service on `airplay` (when given) and a
    /// `_raop._tcp` one on `raop` (when given).
    private func receiver(airplay: Int?, raop: Int?) -> Receiver {
        var services: [ResolvedService] = []
        if let airplay {
            services.append(ResolvedService(type: "_airplay._tcp", name: "Fake", interface: "lo", hostName: "f.local",
                                            address: "127.0.0.1", port: airplay,
                                            txt: ["deviceid": "02:00:00:00:00:11", "model": "AppleTV3,2", "features": "0x5A7FFEE6,0x0"]))
        }
        if let raop {
            services.append(ResolvedService(type: "_raop._tcp", name: "020000000011@Fake", interface: "lo", hostName: "f.local",
                                            address: "127.0.0.1", port: raop, txt: ["am": "AppleTV3,2"]))
        }
        return Receiver.merge(services)[0]
    }

    func testAirPlayPortNobodyListensOnFallsBackToRTSPOnTheRAOPPort() async throws {
        // UxPlay: advertises an AirPlay port it does not listen on, answers RTSP on its RAOP port.
        let closed = try LoopbackPorts.closed()
        let raop = try port("rtsp-only")
        let outcome = await AirPlayInfoClient.fetch(receiver(airplay: closed, raop: raop))
        XCTAssertEqual(outcome.kind, .answered)
        XCTAssertEqual(outcome.info?.displays.first?.widthPixels, 1920)
        XCTAssertEqual(outcome.attempts.map(\.transport), ["HTTP/1.1", "RTSP/1.0"], "no RTSP on a port that refused the connection")
        XCTAssertEqual(outcome.attempts.map(\.port), [closed, raop])
        XCTAssertEqual(outcome.attempts.first?.result, "connection refused (nothing listens on this port)")
        XCTAssertEqual(outcome.answeredBy, InfoAttempt(transport: "RTSP/1.0", address: "127.0.0.1", port: raop,
                                                       service: "_raop._tcp", status: 200, result: "200 OK"))
        XCTAssertNil(outcome.warning)
    }

    func testHTTPThenRTSPOnTheAirPlayPortBeforeTheRAOPPort() async throws {
        let airplay = try port("rtsp-only")
        let outcome = await AirPlayInfoClient.fetch(receiver(airplay: airplay, raop: try port("forbidden")))
        XCTAssertEqual(outcome.attempts.map(\.transport), ["HTTP/1.1", "RTSP/1.0"])
        XCTAssertEqual(outcome.attempts.map(\.port), [airplay, airplay], "the RAOP port is not asked once the AirPlay port answered")
        XCTAssertEqual(outcome.answeredBy?.service, "_airplay._tcp")
        XCTAssertNotNil(outcome.info)
    }

    func testRAOPOnlyReceiverIsAskedOverRTSPAndItsRefusalIsAFactNotAWarning() async throws {
        // shairport-sync 3: a RAOP record only; `GET /info` gets 400 (or 403 from others).
        let raop = try port("forbidden")
        let outcome = await AirPlayInfoClient.fetch(receiver(airplay: nil, raop: raop))
        XCTAssertEqual(outcome.attempts.count, 1)
        XCTAssertEqual(outcome.answeredBy?.transport, "RTSP/1.0")
        XCTAssertEqual(outcome.answeredBy?.status, 403)
        XCTAssertEqual(outcome.result.failure, .refused(status: 403, reason: "Forbidden"))
        XCTAssertEqual(outcome.kind, .refused)
        XCTAssertNil(outcome.warning, "a refusal is what the receiver is, not a problem of this run")
    }

    func testHostileAnswersAreWarningsOnTheirReceiverOnlyAndSlowNothingElse() async throws {
        let hostile = ["garbage", "truncated-plist", "short-body", "huge", "silent"]
        let receivers = try Dictionary(uniqueKeysWithValues: (hostile + ["sdr"]).map { ($0, receiver(airplay: try port($0), raop: nil)) })
        let started = ContinuousClock.now
        let outcomes = await withTaskGroup(of: (String, InfoOutcome, Duration).self) { group in
            for (mode, receiver) in receivers {
                group.addTask {
                    // 4 s, so that "not held up" and "within the timeout" have room on a loaded CI machine.
                    let outcome = await AirPlayInfoClient.fetch(receiver, timeout: .seconds(4))
                    return (mode, outcome, ContinuousClock.now - started)
                }
            }
            var results: [String: (InfoOutcome, Duration)] = [:]
            for await (mode, outcome, took) in group { results[mode] = (outcome, took) }
            return results
        }
        let sdr = try XCTUnwrap(outcomes["sdr"])
        XCTAssertNotNil(sdr.0.info, "the well-behaved receiver answers")
        XCTAssertLessThan(sdr.1, .seconds(2), "and is not held up by the others (the silent one holds 4 s)")
        let expected = ["garbage": "the body is not a property list", "truncated-plist": "the body is not a property list",
                        "short-body": "a truncated body", "huge": "a body of 10485760 bytes, more than 4194304",
                        "silent": "gave no answer within 4 s"]
        for (mode, text) in expected {
            let (outcome, took) = try XCTUnwrap(outcomes[mode])
            XCTAssertNil(outcome.info, mode)
            XCTAssertEqual(outcome.kind, .failed, mode)
            XCTAssertTrue(outcome.warning?.contains(text) ?? false, "\(mode): \(outcome.warning ?? "no warning")")
            XCTAssertLessThan(took, .seconds(6), "\(mode): within the timeout (4 s, and 2 s for a loaded machine)")
        }
    }
}
