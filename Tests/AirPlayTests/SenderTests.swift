@testable import AirPlay
import Foundation
import SeamcheckTestSupport
import XCTest

/// The sender against Tests/Server/airplay_receiver.py on 127.0.0.1: what the receiver got on
/// the wire (bodies, headers, connections) and how each status maps to an error.
final class SenderTests: XCTestCase {
    static let media = URL(string: "http://127.0.0.1:8123/cases/control/master.m3u8")!

    /// The error `body` throws, or nil when it returns.
    func failure<T>(_ body: () async throws(AirPlayError) -> T) async -> AirPlayError? {
        do {
            _ = try await body()
            return nil
        } catch {
            return error
        }
    }

    func testSessionSpeaksBinaryPlistOnOneConnectionWithItsSessionId() async throws {
        let server = try ReceiverServer(modes: ["receiver"])
        let session = try await AirPlaySender.session(server.endpoint("receiver"))
        let info = try await session.serverInfo()
        XCTAssertEqual(info, ServerInfo(deviceId: "02:5E:A0:00:00:02", features: 119, model: "Xbmc,1",
                                        protocolVersion: "1.0", sourceVersion: "101.28"))
        try await session.play(url: Self.media, startPosition: 0)
        try await Task.sleep(nanoseconds: 300_000_000)
        let playing = try await session.playbackInfo()
        XCTAssertEqual(playing.duration, 20)
        XCTAssertEqual(playing.rate, 1)
        XCTAssertGreaterThan(playing.position ?? 0, 0.2)
        try await session.setRate(0)
        let paused = try await session.playbackInfo()
        XCTAssertEqual(paused.rate, 0)
        try await session.setRate(1)
        try await session.scrub(to: 5)
        try await session.stop()
        let opened = await session.connectionsOpened
        await session.close()
        await session.close()

        XCTAssertTrue(server.wait { server.requests("receiver").count == 8 })
        let requests = server.requests("receiver")
        XCTAssertEqual(requests.map { "\($0.method) \($0.path)" }, [
            "GET /server-info", "POST /play", "GET /playback-info", "POST /rate?value=0.000000", "GET /playback-info",
            "POST /rate?value=1.000000", "POST /scrub?position=5.000000", "POST /stop",
        ])
        XCTAssertEqual(Set(requests.map { $0.header("X-Apple-Session-ID") }), [session.sessionId])
        XCTAssertEqual(Set(requests.map { $0.header("User-Agent") }), ["MediaControl/1.0"])
        XCTAssertEqual(Set(requests.map(\.conn)), [1], "every request on the first connection")
        XCTAssertEqual(server.connections("receiver"), 1)
        XCTAssertEqual(opened, 1)

        let play = requests[1]
        XCTAssertEqual(play.header("Content-Type"), "application/x-apple-binary-plist")
        let body = try XCTUnwrap(try PropertyListSerialization.propertyList(from: play.bodyData, format: nil) as? [String: Any])
        XCTAssertEqual(body["Content-Location"] as? String, Self.media.absoluteString)
        XCTAssertEqual(PropertyList.double(body["Start-Position"]), 0)
        XCTAssertEqual(body["X-Apple-Session-ID"] as? String, session.sessionId)
        XCTAssertNil(body["Start-Position-Seconds"], "0 s is sent as the fraction 0 only")
    }

    func testPlayBodiesCarryTheStartFraction() async throws {
        let server = try ReceiverServer(modes: ["receiver"])
        let text = try await AirPlaySender.session(server.endpoint("receiver"), configuration: .init(playBody: .textParameters))
        try await text.play(url: Self.media, startPosition: 5, duration: 20)
        try await text.play(url: Self.media, startPosition: 0)
        await text.close()
        let plist = try await AirPlaySender.session(server.endpoint("receiver"))
        try await plist.play(url: Self.media, startPosition: 5)
        let anyPlayback: any AirPlayPlayback = plist  // as the run loop holds it
        try await anyPlayback.play(url: Self.media, startPosition: 30, duration: 20)
        await plist.close()

        XCTAssertTrue(server.wait { server.requests("receiver").count == 4 })
        let plays = server.requests("receiver")
        XCTAssertEqual(plays[0].header("Content-Type"), "text/parameters")
        XCTAssertEqual(String(decoding: plays[0].bodyData, as: UTF8.self),
                       "Content-Location: \(Self.media.absoluteString)\nStart-Position: 0.250000\nStart-Position-Seconds: 5.000000\n")
        XCTAssertEqual(String(decoding: plays[1].bodyData, as: UTF8.self),
                       "Content-Location: \(Self.media.absoluteString)\nStart-Position: 0.000000\n")
        let unknown = try XCTUnwrap(try PropertyListSerialization.propertyList(from: plays[2].bodyData, format: nil) as? [String: Any])
        XCTAssertEqual(PropertyList.double(unknown["Start-Position"]), 0, "no duration: the fraction stays 0")
        XCTAssertEqual(PropertyList.double(unknown["Start-Position-Seconds"]), 5)
        let clamped = try XCTUnwrap(try PropertyListSerialization.propertyList(from: plays[3].bodyData, format: nil) as? [String: Any])
        XCTAssertEqual(PropertyList.double(clamped["Start-Position"]), 1, "past the end: clamped to 1")
        XCTAssertEqual(Set(plays.map(\.conn)), [1, 2], "one connection per session")
        XCTAssertNotEqual(plays[0].header("X-Apple-Session-ID"), plays[2].header("X-Apple-Session-ID"))
    }

    func testPlaybackInfoFromBinaryChunkedAndBareLineFeedAnswers() async throws {
        let server = try ReceiverServer(modes: ["binary", "chunked", "bare-lf", "error-dict"])
        for mode in ["binary", "chunked", "bare-lf"] {
            let session = try await AirPlaySender.session(server.endpoint(mode))
            let idle = try await session.playbackInfo()
            XCTAssertEqual(idle, PlaybackInfo(), "\(mode): nothing playing, no keys")
            try await session.play(url: Self.media, startPosition: 0)
            let info = try await session.playbackInfo()
            XCTAssertEqual(info.duration, 20, mode)
            XCTAssertEqual(info.rate, 1, mode)
            XCTAssertNotNil(info.position, mode)
            try await session.stop()
            await session.close()
            // The server's lines reach us asynchronously: once its /stop line is read, so is every
            // CONNECT before it.
            XCTAssertTrue(server.wait { server.requests(mode).contains { $0.path == "/stop" } }, mode)
            XCTAssertEqual(server.connections(mode), 1, mode)
        }
        let failing = try await AirPlaySender.open(server.endpoint("error-dict"))
        let info = try await failing.playbackInfo()
        XCTAssertEqual(info.error, .init(domain: "AVFoundationErrorDomain", code: -11800))
        XCTAssertEqual(info.readyToPlay, false)
        XCTAssertNil(info.duration)
        await failing.close()
    }

    func testPlayRetriesOn500AsConfigured() async throws {
        let server = try ReceiverServer(modes: ["play-500", "play-500-twice"])
        let configuration = AirPlayConfiguration(playRetries: 2, retryDelay: 0.2)
        let always = try await AirPlaySender.open(server.endpoint("play-500"), configuration: configuration)
        let start = Date()
        let error = await failure { () async throws(AirPlayError) in try await always.play(url: Self.media, startPosition: 0) }
        XCTAssertEqual(error, .http(endpoint: server.endpoint("play-500").description, path: "/play", status: 500,
                                    reason: "Internal Server Error"))
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(start), 0.4, "two retries, 0.2 s apart")
        XCTAssertTrue(server.wait { server.requests("play-500").count == 3 })
        XCTAssertEqual(server.requests("play-500").count, 3, "the first try and two retries")

        let twice = try await AirPlaySender.open(server.endpoint("play-500-twice"), configuration: configuration)
        try await twice.play(url: Self.media, startPosition: 0)
        // play() has returned, so every try was sent; the server logs its lines asynchronously.
        XCTAssertTrue(server.wait { server.requests("play-500-twice").count >= 3 })
        XCTAssertEqual(server.requests("play-500-twice").count, 3, "two 500s, then the third try played")
        await always.close()
        await twice.close()
    }

    func testStatusesThatNameWhatTheReceiverWants() async throws {
        let modes = ["status-401", "status-403", "status-453", "status-470", "status-409", "digest", "no-url"]
        let server = try ReceiverServer(modes: modes)
        for status in [401, 403, 453, 470] {
            let mode = "status-\(status)"
            let session = try await AirPlaySender.open(server.endpoint(mode))
            let error = await failure { () async throws(AirPlayError) in try await session.play(url: Self.media, startPosition: 0) }
            XCTAssertEqual(error, .pairingRequired(endpoint: server.endpoint(mode).description, status: status))
            XCTAssertTrue(error?.description.contains("pairing") ?? false)
            await session.close()
        }
        // 409: another sender holds it, in the words the legacy session uses too (one reading of statuses).
        let held = try await AirPlaySender.open(server.endpoint("status-409"))
        let busy = await failure { () async throws(AirPlayError) in try await held.play(url: Self.media, startPosition: 0) }
        XCTAssertEqual(busy, .busy(endpoint: server.endpoint("status-409").description))
        await held.close()
        let digest = try await AirPlaySender.open(server.endpoint("digest"))
        let password = await failure { () async throws(AirPlayError) in try await digest.playbackInfo() }
        XCTAssertEqual(password, .passwordRequired(endpoint: server.endpoint("digest").description))
        let noURL = try await AirPlaySender.open(server.endpoint("no-url"))
        let play = await failure { () async throws(AirPlayError) in try await noURL.play(url: Self.media, startPosition: 0) }
        XCTAssertEqual(play, .noURLPlayback(endpoint: server.endpoint("no-url").description))
        // play() has returned, so any retry was sent before; the server logs its lines asynchronously.
        XCTAssertTrue(server.wait { server.requests("no-url").contains { $0.path == "/play" } })
        XCTAssertEqual(server.requests("no-url").filter { $0.path == "/play" }.count, 1, "a 404 is not retried")
        let info = try await noURL.serverInfo()
        XCTAssertEqual(info.model, "Xbmc,1", "the session stays usable after an error status")
        await digest.close()
        await noURL.close()
    }

    /// A redirect is not followed; the error says where it points (the receiver's text, cleaned).
    func testARedirectNamesItsLocation() async throws {
        let server = try ReceiverServer(modes: ["redirect-301"])
        let session = try await AirPlaySender.open(server.endpoint("redirect-301"))
        let error = await failure { () async throws(AirPlayError) in try await session.play(url: Self.media, startPosition: 0) }
        let text = error?.description ?? ""
        XCTAssertTrue(text.contains("301 Moved Permanently; Location: http://10.9.8.7:7000/play[2J"), text)
        XCTAssertFalse(text.contains("\u{1B}"), "no control characters from the receiver: \(text)")
        await session.close()
    }

    /// Peak resident memory of this process (VmHWM), in bytes.
    private func peakResident() -> Int {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") } ?? ""
        return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) * 1024
    }

    func testHugeAndEndlessBodiesAreBoundedAndCloseTheConnection() async throws {
        let modes = ["huge", "endless", "endless-chunked"]
        let server = try ReceiverServer(modes: modes)
        let before = peakResident()
        for mode in modes {
            let session = try await AirPlaySender.session(server.endpoint(mode), configuration: .init(requestTimeout: 10))
            let start = Date()
            let error = await failure { () async throws(AirPlayError) in try await session.playbackInfo() }
            guard case .badResponse(_, let path, let reason) = error else { XCTFail("\(mode): \(String(describing: error))"); continue }
            XCTAssertEqual(path, "/playback-info")
            XCTAssertTrue(reason.contains("larger than the limit of 1048576 bytes"), reason)
            XCTAssertLessThan(Date().timeIntervalSince(start), 5, mode)
            XCTAssertTrue(server.wait { server.sent(mode).count == 1 }, "\(mode): the server went on sending")
            XCTAssertEqual(server.sent(mode).first?.complete, false, mode)
            XCTAssertLessThan(server.sent(mode).first?.bytes ?? .max, 20 << 20, "\(mode): read far past the limit")
            // The next request opens a new connection: the old one was closed mid-body.
            let info = try await session.serverInfo()
            XCTAssertEqual(info.model, "Xbmc,1")
            let opened = await session.connectionsOpened
            XCTAssertEqual(opened, 2, mode)
            await session.close()
        }
        XCTAssertLessThan(peakResident() - before, 30 << 20, "a 50 MB body was buffered")
    }

    func testGarbagePlistNamesThePath() async throws {
        let server = try ReceiverServer(modes: ["garbage"])
        let session = try await AirPlaySender.open(server.endpoint("garbage"))
        for path in ["/playback-info", "/server-info"] {
            let error = await failure { () async throws(AirPlayError) in
                path == "/server-info" ? try await session.serverInfo() as Any : try await session.playbackInfo() as Any
            }
            guard case .badResponse(_, let where_, let reason) = error else { XCTFail("\(path): \(String(describing: error))"); continue }
            XCTAssertEqual(where_, path)
            XCTAssertTrue(reason.contains("not a property list"), reason)
            XCTAssertTrue(error?.description.contains(path) ?? false)
        }
        await session.close()
    }

    func testSilentReceiverTimesOutWithinTheBound() async throws {
        let server = try ReceiverServer(modes: ["silent"])
        let session = try await AirPlaySender.open(server.endpoint("silent"), configuration: .init(requestTimeout: 0.5))
        let start = Date()
        let error = await failure { () async throws(AirPlayError) in try await session.play(url: Self.media, startPosition: 0) }
        let elapsed = Date().timeIntervalSince(start)
        XCTAssertEqual(error, .timeout(endpoint: server.endpoint("silent").description, path: "/play", seconds: 0.5))
        XCTAssertGreaterThanOrEqual(elapsed, 0.45)
        XCTAssertLessThan(elapsed, 3, "the 0.5 s timeout, and 2.5 s for a loaded CI machine")
        XCTAssertEqual(server.requests("silent", expecting: 1).count, 1, "a timed-out /play is not sent again")
        await session.close()
    }

    func testReceiverClosingMidAnswer() async throws {
        let server = try ReceiverServer(modes: ["close-mid"])
        let session = try await AirPlaySender.open(server.endpoint("close-mid"))
        try await session.play(url: Self.media, startPosition: 0)
        let error = await failure { () async throws(AirPlayError) in try await session.playbackInfo() }
        XCTAssertEqual(error, .connectionClosed(endpoint: server.endpoint("close-mid").description, path: "/playback-info"))
        XCTAssertEqual(server.requests("close-mid", expecting: 2).filter { $0.path == "/playback-info" }.count, 1,
                       "an answer that had started is not asked again")
        await session.close()
    }

    func testDroppedKeepAliveConnectionsAreReopened() async throws {
        let server = try ReceiverServer(modes: ["stale", "idle-close"])
        let stale = try await AirPlaySender.session(server.endpoint("stale"))
        for _ in 0..<3 { _ = try await stale.serverInfo() }
        let staleOpened = await stale.connectionsOpened
        XCTAssertEqual(staleOpened, 3, "each request after the first met a dropped connection and went once more")
        XCTAssertEqual(server.requests("stale", expecting: 5).count, 5)
        let idle = try await AirPlaySender.session(server.endpoint("idle-close"))
        for _ in 0..<3 {
            _ = try await idle.serverInfo()
            try await Task.sleep(nanoseconds: 50_000_000)
        }
        let idleOpened = await idle.connectionsOpened
        XCTAssertEqual(idleOpened, 3)
        XCTAssertEqual(server.requests("idle-close", expecting: 3).count, 3, "no request sent twice")
        await stale.close()
        await idle.close()
    }

    func testUnreachableReceivers() async throws {
        let refused = AirPlayEndpoint(host: "127.0.0.1", port: try LoopbackPorts.closed())
        let error = await failure { () async throws(AirPlayError) in try await AirPlaySender.open(refused) }
        guard case .connect(let endpoint, let reason) = error else { return XCTFail(String(describing: error)) }
        XCTAssertEqual(endpoint, refused.description)
        XCTAssertTrue(reason.lowercased().contains("refused"), reason)

        let hole = try LoopbackBlackhole()
        let start = Date()
        let hung = await failure { () async throws(AirPlayError) in
            try await AirPlaySender.open(AirPlayEndpoint(host: "127.0.0.1", port: hole.port), configuration: .init(connectTimeout: 0.5))
        }
        XCTAssertEqual(hung, .connect(endpoint: "127.0.0.1:\(hole.port)", reason: "no answer within 0.5 s"))
        XCTAssertLessThan(Date().timeIntervalSince(start), 3, "the 0.5 s connect timeout, and 2.5 s for a loaded CI machine")
    }

    func testCloseIsIdempotentAndEndsTheSession() async throws {
        let server = try ReceiverServer(modes: ["receiver"])
        let session = try await AirPlaySender.open(server.endpoint("receiver"))
        await session.close()
        await session.close()
        let error = await failure { () async throws(AirPlayError) in try await session.playbackInfo() }
        XCTAssertEqual(error, .connectionClosed(endpoint: server.endpoint("receiver").description, path: "/playback-info"))
        XCTAssertEqual(server.requests("receiver").count, 0)
    }

    func testCancellingAWaitingRequestEndsItWithoutASecondTry() async throws {
        let server = try ReceiverServer(modes: ["silent"])
        let session = try await AirPlaySender.session(server.endpoint("silent"), configuration: .init(requestTimeout: 30))
        _ = await failure { () async throws(AirPlayError) in try await session.connect() }
        let start = Date()
        let task = Task { () async -> AirPlayError? in
            do {
                _ = try await session.playbackInfo()
                return nil
            } catch let error as AirPlayError {
                return error
            } catch {
                return nil
            }
        }
        try await Task.sleep(nanoseconds: 300_000_000)
        task.cancel()
        let error = await task.value
        XCTAssertEqual(error, .connectionClosed(endpoint: server.endpoint("silent").description, path: "/playback-info"))
        XCTAssertLessThan(Date().timeIntervalSince(start), 10, "cancelled, not waiting for the 30 s timeout")
        XCTAssertTrue(server.wait { server.requests("silent").count == 1 })
        XCTAssertEqual(server.requests("silent").count, 1)
        let opened = await session.connectionsOpened
        XCTAssertEqual(opened, 1, "no reconnect for a cancelled request")
        await session.close()
    }

    func testCallsFromSeveralTasksTakeTurnsOnTheOneConnection() async throws {
        let server = try ReceiverServer(modes: ["receiver"])
        let session = try await AirPlaySender.session(server.endpoint("receiver"), configuration: .init(requestTimeout: 3))
        try await session.play(url: Self.media, startPosition: 0)
        let durations = await withTaskGroup(of: Double?.self) { group in
            for _ in 0..<8 {
                group.addTask { try? await session.playbackInfo().duration }
            }
            return await group.reduce(into: [Double?]()) { $0.append($1) }
        }
        XCTAssertEqual(durations, Array(repeating: 20, count: 8), "every call answered")
        XCTAssertTrue(server.wait { server.requests("receiver").count == 9 })
        XCTAssertEqual(Set(server.requests("receiver").map(\.conn)), [1])
        let opened = await session.connectionsOpened
        XCTAssertEqual(opened, 1)
        await session.close()
    }

    func testCloseDuringARequestEndsItWithoutReconnecting() async throws {
        let server = try ReceiverServer(modes: ["silent"])
        let session = try await AirPlaySender.session(server.endpoint("silent"), configuration: .init(requestTimeout: 30))
        let start = Date()
        let waiting = Task { () async -> AirPlayError? in
            do {
                _ = try await session.playbackInfo()
                return nil
            } catch let error as AirPlayError {
                return error
            } catch {
                return nil
            }
        }
        try await Task.sleep(nanoseconds: 300_000_000)
        await session.close()
        let error = await waiting.value
        XCTAssertEqual(error, .connectionClosed(endpoint: server.endpoint("silent").description, path: "/playback-info"))
        XCTAssertLessThan(Date().timeIntervalSince(start), 10, "closed, not waiting for the 30 s timeout")
        let opened = await session.connectionsOpened
        XCTAssertEqual(opened, 1, "closed for good: no new connection")
        // The CONNECT line reaches us asynchronously; a second one would follow it.
        XCTAssertTrue(server.wait { server.connections("silent") >= 1 })
        try await Task.sleep(nanoseconds: 300_000_000)
        XCTAssertEqual(server.connections("silent"), 1)
    }
}
