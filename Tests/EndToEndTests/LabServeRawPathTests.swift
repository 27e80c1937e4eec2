import Foundation
import LabCore
import LabServer
import SeamcheckTestSupport
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// The playlist fast path reads requests from the connection's bytes, before NIO's HTTP parser:
/// a request cut across reads, HTTP/1.0 with and without keep-alive, a malformed request after a
/// fast answer, one left unfinished, a client that resets mid-answer, and paths out of the suite
/// all come out as they do through Hummingbird, every request logged. Real sockets on 127.0.0.1.
final class LabServeRawPathTests: HandMadeSuiteTestCase {
    typealias Answer = LabServeFastPathTests.Answer

    func answers(_ text: String, _ methods: [String]) -> [Answer] {
        LabServeFastPathTests.answers(text, methods: methods)
    }

    func testARequestCutAcrossReadsIsAnsweredAndThoseAfterAHandedOnOneKeepTheirOrder() throws {
        let parts = [
            "GET /cases/mid/master.m3u8 HT",
            "TP/1.1\r\nHost: lab\r\nUser-Ag",
            "ent: split/1\r\n\r",
            // A file (Hummingbird), then playlists pipelined behind it, the last one cut too.
            "\nGET /cases/mid/primary/seg_001.m4s HTTP/1.1\r\nHost: lab\r\n\r\nGET /cases/mid/media.m3u8 HTTP/1.1\r\nHost: lab:81\r\n\r\nHEAD /cases/mid/mas",
            "ter.m3u8 HTTP/1.1\r\nHost: lab\r\nConnection: close\r\n\r\n",
        ]
        let text = try LabServerProcess.with(streams: folder, database: database, arguments: ["--no-browse"]) { server in
            let text = try RawClient.exchange(port: server.port, parts: parts.map { Array($0.utf8) })
            XCTAssertEqual(server.stop(), 0)
            return text
        }
        let answers = answers(text, ["GET", "GET", "GET", "HEAD"])
        XCTAssertEqual(answers.map(\.status), [200, 200, 200, 200], text)
        guard answers.count == 4 else { return }
        let master = try String(contentsOfFile: folder + "/cases/mid/master.m3u8", encoding: .utf8)
        let media = try String(contentsOfFile: folder + "/cases/mid/media.m3u8", encoding: .utf8)
            .replacingOccurrences(of: "{LAB_ORIGIN}", with: "http://lab:81")
        XCTAssertEqual(answers[0].body, master)
        XCTAssertEqual(answers[1].body, String(decoding: Data(repeating: 1, count: 4000), as: UTF8.self), "the segment, in its place")
        XCTAssertEqual(answers[2].body, media)
        XCTAssertEqual(answers[3].headers["content-length"], String(master.utf8.count))
        XCTAssertTrue(text.hasSuffix("\r\n\r\n"), "HEAD: no body after its head")

        let logged = try LabStore(path: database, create: false).requests()
        XCTAssertEqual(logged.map { "\($0.method) \($0.status) \($0.path) \($0.bytes)" }, [
            "GET 200 /cases/mid/master.m3u8 \(master.utf8.count)",
            "GET 200 /cases/mid/primary/seg_001.m4s 4000",
            "GET 200 /cases/mid/media.m3u8 \(media.utf8.count)",
            "HEAD 200 /cases/mid/master.m3u8 0",
        ])
        XCTAssertEqual(logged.first?.userAgent, "split/1", "the header cut across reads")
    }

    func testHTTP10KeepsItsConnectionOnlyWhenItAsksTo() throws {
        let requests = "GET /cases/mid/master.m3u8 HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"
            + "HEAD /cases/mid/media.m3u8 HTTP/1.0\r\n\r\n"
            + "GET /cases/mid/master.m3u8 HTTP/1.1\r\nHost: lab\r\n\r\n"
        let text = try LabServerProcess.with(streams: folder, database: database, arguments: ["--no-browse"]) { server in
            let text = try RawClient.exchange(port: server.port, Array(requests.utf8))
            XCTAssertEqual(server.stop(), 0)
            return text
        }
        XCTAssertEqual(answers(text, ["GET", "HEAD", "GET"]).map(\.status), [200, 200],
                       "kept alive after the first, closed after the second: \(text)")
        XCTAssertEqual(try LabStore(path: database, create: false).requests().map(\.method), ["GET", "HEAD"],
                       "what came after the close is neither answered nor logged")
    }

    func testAMalformedRequestAfterAFastAnswerIsRejectedAndLoggedWithTheLastPath() throws {
        let requests = "GET /cases/mid/master.m3u8 HTTP/1.1\r\nHost: lab\r\n\r\nBAD LINE\r\n\r\n"
        let text = try LabServerProcess.with(streams: folder, database: database, arguments: ["--no-browse"]) { server in
            let text = try RawClient.exchange(port: server.port, Array(requests.utf8))
            XCTAssertEqual(server.stop(), 0)
            return text
        }
        XCTAssertEqual(answers(text, ["GET", "GET"]).map(\.status), [200, 400], text)
        let logged = try LabStore(path: database, create: false).requests()
        XCTAssertEqual(logged.map { "\($0.method) \($0.status) \($0.path)" }, [
            "GET 200 /cases/mid/master.m3u8",
            "- 400 /cases/mid/master.m3u8",
        ], "the rejected request named by the last request of its connection")
    }

    func testARequestLeftUnfinishedAtTheEndOfInputIsRejectedAndLoggedAsNIOsParserAlwaysDid() throws {
        let text = try LabServerProcess.with(streams: folder, database: database, arguments: ["--no-browse"]) { server in
            let text = try RawClient.exchange(port: server.port, parts: [Array("GET /cases/mid/master.m3u8 HTTP/1.1\r\nHo".utf8)],
                                              halfClose: true)
            XCTAssertEqual(server.stop(), 0)
            return text
        }
        XCTAssertTrue(text.hasPrefix("HTTP/1.1 400"), text)
        XCTAssertEqual(try LabStore(path: database, create: false).requests().map { "\($0.method) \($0.status) \($0.path)" }, ["- 400 -"])
    }

    func testAClientThatResetsMidAnswerIsLoggedCutAndTheServerGoesOn() throws {
        // A playlist larger than the socket buffers on the way, so the answer is still being written.
        let size = 15_000_000
        let line = "#EXTINF:2,\nprimary/seg_000.m4s\n"
        let big = "#EXTM3U\n#EXT-X-TARGETDURATION:2\n" + String(repeating: line, count: size / line.utf8.count)
        try big.write(toFile: folder + "/cases/mid/big.m3u8", atomically: true, encoding: .utf8)
        let after = try LabServerProcess.with(streams: folder, database: database, arguments: ["--no-browse"]) { server in
            let client = try StalledClient(port: server.port, receiveBuffer: 64 << 10,
                                           request: "GET /cases/mid/big.m3u8 HTTP/1.1\r\nHost: lab\r\n\r\n")
            // The answer has begun (bounded: 5 s).
            var waits = 0
            while client.drainWithoutWaiting().total == 0, waits < 500 {
                usleep(10_000)
                waits += 1
            }
            client.reset()
            let after = try RawClient.exchange(port: server.port, Array("GET /cases/mid/master.m3u8 HTTP/1.1\r\nHost: lab\r\nConnection: close\r\n\r\n".utf8))
            XCTAssertEqual(server.stop(), 0)
            return after
        }
        XCTAssertTrue(after.hasPrefix("HTTP/1.1 200"), after)
        let logged = try LabStore(path: database, create: false).requests()
        let cut = try XCTUnwrap(logged.first { $0.path == "/cases/mid/big.m3u8" })
        XCTAssertFalse(cut.completed, "the client went away mid-answer")
        XCTAssertEqual(cut.expectedBytes, big.utf8.count)
        XCTAssertLessThan(cut.bytes, big.utf8.count)
        XCTAssertEqual(logged.last?.path, "/cases/mid/master.m3u8")
    }

    func testNothingOutsideTheSuiteIsServedThroughAnyPath() throws {
        let outside = base + "/outside"
        try "#EXTM3U\n# secret playlist\n".write(toFile: outside + "/secret.m3u8", atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: folder + "/cases/mid/out.m3u8", withDestinationPath: outside + "/secret.m3u8")
        let targets = [
            "/cases/mid/out.m3u8",  // a link out of the suite
            "/../outside/secret.m3u8",
            "/cases/mid/../../../outside/secret.m3u8",
            "/cases/mid/%2e%2e/%2e%2e/%2e%2e/outside/secret.m3u8",
            "/cases/mid/%2E%2E%2F%2E%2E%2F%2E%2E%2Foutside%2Fsecret.m3u8",
            outside + "/secret.m3u8",  // an absolute path of this host
            "//" + outside + "/secret.m3u8",
        ]
        let texts = try LabServerProcess.with(streams: folder, database: database, arguments: ["--no-browse"]) { server in
            let texts = try targets.map { target in
                try RawClient.exchange(port: server.port, Array("GET \(target) HTTP/1.1\r\nHost: lab\r\nConnection: close\r\n\r\n".utf8))
            }
            XCTAssertEqual(server.stop(), 0)
            return texts
        }
        for (target, text) in zip(targets, texts) {
            XCTAssertFalse(text.contains("secret"), "\(target): \(text)")
            let status = answers(text, ["GET"]).first?.status ?? 0
            XCTAssertTrue((400..<500).contains(status), "\(target): \(status)")
        }
        XCTAssertEqual(try LabStore(path: database, create: false).requests().count, targets.count, "every request logged")
    }
}

extension RawClient {
    /// As `exchange(port:_:)`, sending `parts` one at a time with a pause between them (no Nagle
    /// delay), so the server most likely reads each on its own.
    static func exchange(port: Int, parts: [[UInt8]], halfClose: Bool = false) throws -> String {
        let fd = try connected(port: port)
        defer { close(fd) }
        var on: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
        for (index, part) in parts.enumerated() {
            if index > 0 { usleep(50_000) }
            send(fd, part)
        }
        if halfClose { shutdown(fd, Int32(SHUT_WR)) }
        return receive(fd)
    }
}
