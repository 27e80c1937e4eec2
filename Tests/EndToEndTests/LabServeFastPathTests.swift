import Foundation
import LabCore
import LabServer
import SeamcheckTestSupport
import XCTest

/// `lab serve` answers playlists on the connection's event loop (PlaylistFastPath) and passes the
/// rest to Hummingbird: on one connection the answers keep the requests' order whichever answers
/// them, carry the same headers, and each request is logged as before. The path resolution it keeps
/// per path follows a link swapped after the first serve. Real sockets on 127.0.0.1.
final class LabServeFastPathTests: HandMadeSuiteTestCase {
    struct Answer {
        var status: Int
        var headers: [String: String]
        var body: String
    }

    /// The answers in `text` to requests made with `methods`, in order (a HEAD answer has no body).
    static func answers(_ text: String, methods: [String]) -> [Answer] {
        var rest = Substring(text)
        var result: [Answer] = []
        for method in methods {
            guard let split = rest.range(of: "\r\n\r\n") else { break }
            let lines = rest[..<split.lowerBound].split(separator: "\r\n")
            var headers: [String: String] = [:]
            for line in lines.dropFirst() {
                guard let colon = line.firstIndex(of: ":") else { continue }
                headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
            let length = method == "HEAD" ? 0 : Int(headers["content-length"] ?? "0") ?? 0
            let body = rest[split.upperBound...].utf8.prefix(length)
            result.append(Answer(status: Int(lines.first?.split(separator: " ").dropFirst().first ?? "") ?? 0, headers: headers,
                                 body: String(decoding: body, as: UTF8.self)))
            rest = Substring(String(decoding: rest[split.upperBound...].utf8.dropFirst(length), as: UTF8.self))
        }
        return result
    }

    func testPipelinedRequestsAreAnsweredInOrderWhicheverAnswersThem() throws {
        let methods = ["GET", "GET", "GET", "HEAD", "GET", "GET"]
        let requests = [
            "GET /cases/mid/nothing.m3u8 HTTP/1.1\r\nHost: lab\r\n\r\n",  // Hummingbird: 404
            "GET /cases/mid/master.m3u8 HTTP/1.1\r\nHost: lab\r\nUser-Agent: fast/1\r\n\r\n",  // the fast path
            "GET /cases/mid/primary/init.mp4 HTTP/1.1\r\nHost: lab\r\n\r\n",  // Hummingbird: a file
            "HEAD /cases/mid/media.m3u8 HTTP/1.1\r\nHost: lab:81\r\n\r\n",  // the fast path, no body
            "GET /cases/mid/media.m3u8?client=tv HTTP/1.1\r\nHost: lab:81\r\nRange: bytes=0-9\r\n\r\n",  // the fast path ignores ranges as before
            "GET /cases/mid/leak.txt HTTP/1.1\r\nHost: lab\r\nConnection: close\r\n\r\n",  // out of the suite: 404
        ]
        let text = try LabServerProcess.with(streams: folder, database: database, arguments: ["--no-browse"]) { server in
            let text = try RawClient.exchange(port: server.port, Array(requests.joined().utf8))
            XCTAssertEqual(server.stop(), 0)
            return text
        }
        let answers = Self.answers(text, methods: methods)
        XCTAssertEqual(answers.map(\.status), [404, 200, 200, 200, 200, 404], text)
        guard answers.count == 6 else { return }
        let master = try String(contentsOfFile: folder + "/cases/mid/master.m3u8", encoding: .utf8)
        XCTAssertEqual(answers[1].body, master)
        XCTAssertEqual(answers[2].body.utf8.count, 1000, "the init segment, after the playlist before it")
        let media = try String(contentsOfFile: folder + "/cases/mid/media.m3u8", encoding: .utf8)
            .replacingOccurrences(of: "{LAB_ORIGIN}", with: "http://lab:81")
        XCTAssertEqual(answers[4].body, media, "the whole playlist, the origin the client used filled in")
        XCTAssertEqual(answers[3].headers["content-length"], String(media.utf8.count), "HEAD: the length of what GET sends")
        for answer in [answers[1], answers[3], answers[4]] {
            XCTAssertEqual(answer.headers["content-type"], "application/vnd.apple.mpegurl")
            XCTAssertEqual(answer.headers["cache-control"], "no-cache")
            XCTAssertEqual(answer.headers["server"], "seamcheck-lab", "Hummingbird's Server header")
            let date = DateFormatter()
            date.locale = Locale(identifier: "en_US_POSIX")
            date.timeZone = TimeZone(identifier: "GMT")
            date.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
            XCTAssertNotNil(answer.headers["date"].flatMap { date.date(from: $0) }, "an RFC 9110 date: \(answer.headers["date"] ?? "none")")
        }
        XCTAssertEqual(answers[0].headers["server"], "seamcheck-lab", "Hummingbird's answers carry the same Server header")
        XCTAssertNotNil(answers[0].headers["date"])

        let logged = try LabStore(path: database, create: false).requests()
        XCTAssertEqual(logged.map { "\($0.method) \($0.status) \($0.path) \($0.query ?? "-") \($0.range ?? "-") \($0.bytes) \($0.completed)" }, [
            "GET 404 /cases/mid/nothing.m3u8 - - 0 true",
            "GET 200 /cases/mid/master.m3u8 - - \(master.utf8.count) true",
            "GET 200 /cases/mid/primary/init.mp4 - - 1000 true",
            "HEAD 200 /cases/mid/media.m3u8 - - 0 true",
            "GET 200 /cases/mid/media.m3u8 client=tv bytes=0-9 \(media.utf8.count) true",
            "GET 404 /cases/mid/leak.txt - - 0 true",
        ], "every request, in order")
        XCTAssertEqual(logged[1].userAgent, "fast/1")
        XCTAssertEqual(logged[1].caseId, "mid")
        XCTAssertEqual(logged[4].expectedBytes, media.utf8.count)
        XCTAssertTrue(logged.allSatisfy { $0.client == "127.0.0.1" && $0.clientPort != nil })
    }

    /// A playlist the sender fetches on a receiver's behalf (lab run) is logged as that receiver's,
    /// with the lab token only: those requests pass on to Hummingbird, which reads the headers.
    func testAPlaylistPushedForAReceiverIsLoggedAsItsWithTheTokenOnly() throws {
        let token = String(repeating: "ab", count: 16)
        let text = try LabServerProcess.with(streams: folder, database: database, arguments: ["--no-browse", "--token", token]) { server in
            let pushed = "GET /cases/mid/master.m3u8 HTTP/1.1\r\nHost: lab\r\nUser-Agent: sender/1\r\n"
                + "\(LabAccess.pushedForHeader): 192.0.2.7\r\n\(LabAccess.tokenHeader): \(token)\r\n\r\n"
            let forged = "GET /cases/mid/master.m3u8 HTTP/1.1\r\nHost: lab\r\nUser-Agent: sender/1\r\n"
                + "\(LabAccess.pushedForHeader): 192.0.2.8\r\n\(LabAccess.tokenHeader): \(String(repeating: "cd", count: 16))\r\nConnection: close\r\n\r\n"
            let text = try RawClient.exchange(port: server.port, Array((pushed + forged).utf8))
            XCTAssertEqual(server.stop(), 0)
            return text
        }
        XCTAssertEqual(Self.answers(text, methods: ["GET", "GET"]).map(\.status), [200, 200], text)
        let logged = try LabStore(path: database, create: false).requests().filter { $0.path == "/cases/mid/master.m3u8" }
        XCTAssertEqual(logged.map(\.client).sorted(), ["127.0.0.1", "192.0.2.7"], "the receiver's with the token; the sender's without it")
        let pushed = logged.first { $0.client == "192.0.2.7" }
        XCTAssertEqual(pushed?.userAgent, "sender/1 (pushed by the sender at 127.0.0.1)")
        XCTAssertNotNil(pushed)
        XCTAssertNil(pushed?.clientPort)
        XCTAssertEqual(logged.first { $0.client == "127.0.0.1" }?.userAgent, "sender/1")
    }

    func testAnHTTP10PlaylistRequestEndsItsConnection() throws {
        let text = try LabServerProcess.with(streams: folder, database: database, arguments: ["--no-browse"]) { server in
            let text = try RawClient.exchange(port: server.port, Array(("GET /cases/mid/master.m3u8 HTTP/1.0\r\n\r\n"
                                                                          + "GET /cases/mid/master.m3u8 HTTP/1.1\r\nHost: lab\r\n\r\n").utf8))
            XCTAssertEqual(server.stop(), 0)
            return text
        }
        XCTAssertEqual(Self.answers(text, methods: ["GET", "GET"]).map(\.status), [200], "one answer, then the connection closed: \(text)")
    }

    func testALinkSwappedOutOfTheSuiteAfterItWasServedIsNotServed() throws {
        let fm = FileManager.default
        let outside = base + "/outside"
        try "#EXTM3U\n#EXT-X-ENDLIST\n".write(toFile: folder + "/primary/swap.m3u8", atomically: true, encoding: .utf8)
        try "#EXTM3U\n# secret\n".write(toFile: outside + "/swap.m3u8", atomically: true, encoding: .utf8)
        try Data(repeating: 1, count: 100).write(to: URL(fileURLWithPath: folder + "/primary/swap.m4s"))
        try Data(repeating: 2, count: 200).write(to: URL(fileURLWithPath: outside + "/swap.m4s"))
        try Data(repeating: 3, count: 300).write(to: URL(fileURLWithPath: folder + "/primary/other.m4s"))
        for name in ["swap.m3u8", "swap.m4s"] {
            try fm.createSymbolicLink(atPath: folder + "/cases/mid/" + name, withDestinationPath: "../../primary/" + name)
        }
        func relink(_ name: String, to target: String) throws {
            try fm.removeItem(atPath: folder + "/cases/mid/" + name)
            try fm.createSymbolicLink(atPath: folder + "/cases/mid/" + name, withDestinationPath: target)
        }
        try LabServerProcess.with(streams: folder, database: database, arguments: ["--no-browse"]) { server in
            func get(_ path: String) throws -> Answer? {
                Self.answers(try RawClient.exchange(port: server.port, Array("GET \(path) HTTP/1.1\r\nHost: lab\r\nConnection: close\r\n\r\n".utf8)),
                             methods: ["GET"]).first
            }
            XCTAssertEqual(try get("/cases/mid/swap.m3u8")?.body, "#EXTM3U\n#EXT-X-ENDLIST\n")
            XCTAssertEqual(try get("/cases/mid/swap.m4s")?.body.utf8.count, 100)
            // Out of the suite: never served, though the path was served (and kept) before.
            try relink("swap.m3u8", to: outside + "/swap.m3u8")
            try relink("swap.m4s", to: outside + "/swap.m4s")
            XCTAssertEqual(try get("/cases/mid/swap.m3u8")?.status, 404)
            XCTAssertEqual(try get("/cases/mid/swap.m4s")?.status, 404)
            // Back inside, to another file: that file.
            try relink("swap.m4s", to: "../../primary/other.m4s")
            XCTAssertEqual(try get("/cases/mid/swap.m4s")?.body.utf8.count, 300)
            // The case's link to the shared folder swapped out: nothing through it.
            try fm.createDirectory(atPath: outside + "/primary", withIntermediateDirectories: true)
            try Data(repeating: 9, count: 4000).write(to: URL(fileURLWithPath: outside + "/primary/seg_000.m4s"))
            XCTAssertEqual(try get("/cases/mid/primary/seg_000.m4s")?.status, 200)
            try relink("primary", to: outside + "/primary")
            XCTAssertEqual(try get("/cases/mid/primary/seg_000.m4s")?.status, 404)
            XCTAssertEqual(server.stop(), 0)
        }
    }
}
