import Foundation
import Logging
import XCTest
@testable import LabCore
@testable import LabRun
@testable import LabServer

/// The live window of live behaviour cases: the playlist cut at an edge, and `lab serve` (on
/// 127.0.0.1, the small suite with real media) making it per client address from its join, with an
/// injected clock.
final class LabLiveWindowTests: XCTestCase {
    static let caseId = "behaviour-live-join-start-offset"

    func template() throws -> LiveWindowPlaylist {
        let lines = ["#EXTM3U", "#EXT-X-TARGETDURATION:2", "#EXT-X-START:TIME-OFFSET=-3.003,PRECISE=YES", "#EXT-X-MAP:URI=\"primary/init.mp4\"",
                     "#EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:00.000Z", "#EXT-X-DATERANGE:ID=\"break-1\",CLASS=\"com.apple.hls.interstitial\""]
            + (0..<6).flatMap { ["#EXTINF:2.002000,", String(format: "primary/seg_%03d.m4s", $0)] } + ["#EXT-X-ENDLIST"]
        return try XCTUnwrap(LiveWindowPlaylist(template: lines.joined(separator: "\n")))
    }

    func testTheWindowHoldsTheLastSegmentsEndingByTheEdge() throws {
        let playlist = try template()
        XCTAssertEqual(playlist.end, 12.012)
        XCTAssertEqual(playlist.window(edge: 8.008, size: 3), 1..<4, "seg 1-3 end at or before 8.008")
        XCTAssertEqual(playlist.window(edge: 8.0, size: 3), 0..<3)
        XCTAssertEqual(playlist.window(edge: 4.004, size: 3), 0..<2, "fewer than the window early on")
        XCTAssertEqual(playlist.window(edge: 0.5, size: 3), 0..<1, "never empty")
        XCTAssertEqual(playlist.window(edge: 99, size: 3), 3..<6)

        let live = LabLiveWindow(joinEdge: 8.008, startOffset: -3.003)
        let text = playlist.text(edge: 8.008, live: live)
        XCTAssertEqual(text, """
            #EXTM3U
            #EXT-X-VERSION:7
            #EXT-X-TARGETDURATION:2
            #EXT-X-MEDIA-SEQUENCE:1
            #EXT-X-INDEPENDENT-SEGMENTS
            #EXT-X-START:TIME-OFFSET=-3.003,PRECISE=YES
            #EXT-X-MAP:URI="primary/init.mp4"
            #EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:02.002Z
            #EXT-X-DATERANGE:ID="break-1",CLASS="com.apple.hls.interstitial"
            #EXTINF:2.002000,
            primary/seg_001.m4s
            #EXTINF:2.002000,
            primary/seg_002.m4s
            #EXTINF:2.002000,
            primary/seg_003.m4s

            """)
        XCTAssertFalse(playlist.text(edge: 12.0, live: live).contains("ENDLIST"))
        XCTAssertTrue(playlist.text(edge: 12.012, live: live).hasSuffix("primary/seg_005.m4s\n#EXT-X-ENDLIST\n"))
        XCTAssertNil(LiveWindowPlaylist(template: "#EXTM3U\n#EXT-X-ENDLIST\n"), "no segment: not a template")
    }

    func testJoinsAreBoundedAndTheOldestIsForgotten() {
        let book = LiveJoinBook(capacity: 2)
        let t0 = Date(timeIntervalSince1970: 1_000)
        book.join("a", case: "x", at: t0)
        book.join("b", case: "x", at: t0.addingTimeInterval(1))
        book.join("c", case: "x", at: t0.addingTimeInterval(2))
        XCTAssertEqual(book.count, 2)
        XCTAssertEqual(book.joined("b", case: "x", now: t0.addingTimeInterval(9)), t0.addingTimeInterval(1))
        XCTAssertEqual(book.joined("a", case: "x", now: t0.addingTimeInterval(9)), t0.addingTimeInterval(9), "forgotten: joins now")
        XCTAssertEqual(book.joined("a", case: "y", now: t0.addingTimeInterval(10)), t0.addingTimeInterval(10), "per case")
        XCTAssertEqual(book.count, 2)
    }

    func testLabServeMakesEachClientsWindowFromItsJoin() async throws {
        _ = try await LabStreamsGenerator(scale: .small).generate(output: LabStreamsTests.folder)
        let suite = try LabSuite.load(LabStreamsTests.folder)
        let database = LabTestData.temporaryDatabase()
        defer { try? FileManager.default.removeItem(atPath: database) }
        let store = try LabStore(path: database)
        let clock = TestClock(Date(timeIntervalSince1970: 1_900_000_000))
        var options = LabServerOptions(bind: "127.0.0.1", port: 0, suite: suite, profiles: [], browse: false)
        options.askInfo = false
        options.clock = { clock.now }
        let server = try await LabRunServer.start(options, store: store, logger: Logger(label: "test"))
        let base = "/cases/\(Self.caseId)/"
        func get(_ path: String, from source: String = "127.0.0.1") throws -> LoopbackGet.Response {
            try LoopbackGet.fetch(port: server.port, path: path, from: source)
        }
        do {
            // Client A joins: the edge at joinEdge 8.008, window seg 1-3.
            XCTAssertEqual(try get(base + "master.m3u8").status, 200)
            var a = try get(base + "primary.m3u8")
            XCTAssertEqual(a.status, 200)
            XCTAssertEqual(a.headers["cache-control"], "no-cache")
            XCTAssertEqual(a.headers["content-type"], "application/vnd.apple.mpegurl")
            XCTAssertEqual(a.sequence, 1)
            XCTAssertEqual(a.segments, ["primary/seg_001.m4s", "primary/seg_002.m4s", "primary/seg_003.m4s"])
            XCTAssertTrue(a.body.contains("#EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:02.002Z"))
            XCTAssertTrue(a.body.contains("#EXT-X-START:TIME-OFFSET=-3.003,PRECISE=YES"))
            XCTAssertFalse(a.body.contains("PLAYLIST-TYPE"))
            XCTAssertFalse(a.body.contains("ENDLIST"))
            XCTAssertTrue(a.body.contains("X-ASSET-LIST=\"http://127.0.0.1:\(server.port)/cases/\(Self.caseId)/list-1.json\""), a.body)

            // 2.002 s later A's edge moved one segment; B (another address, no master fetch) joins now.
            clock.advance(2.002)
            a = try get(base + "primary.m3u8")
            XCTAssertEqual(a.sequence, 2)
            XCTAssertTrue(a.body.contains("#EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:04.004Z"))
            var b = try get(base + "primary.m3u8", from: "127.0.0.2")
            XCTAssertEqual(b.sequence, 1)

            // 2.002 s more: A's edge at 12.012, the primary's end: ENDLIST. B one segment behind.
            clock.advance(2.002)
            a = try get(base + "primary.m3u8")
            XCTAssertEqual(a.sequence, 3)
            XCTAssertEqual(a.segments.last, "primary/seg_005.m4s")
            XCTAssertTrue(a.body.hasSuffix("#EXT-X-ENDLIST\n"))
            b = try get(base + "primary.m3u8", from: "127.0.0.2")
            XCTAssertEqual(b.sequence, 2)
            XCTAssertFalse(b.body.contains("ENDLIST"))

            // A fetches the multivariant playlist again: a new join.
            _ = try get(base + "master.m3u8")
            XCTAssertEqual(try get(base + "primary.m3u8").sequence, 1)

            // A VOD behaviour case is the file on disk; segments are the suite's files.
            let vod = try get("/cases/behaviour-cue-pre/primary.m3u8")
            XCTAssertTrue(vod.body.contains("#EXT-X-PLAYLIST-TYPE:VOD"))
            XCTAssertTrue(vod.body.contains("http://127.0.0.1:\(server.port)/cases/behaviour-cue-pre/ad-1/master.m3u8?_HLS_interstitial_id=break-1"))
            XCTAssertEqual(try get(base + "primary/seg_003.m4s").status, 200)
            XCTAssertEqual(try get("/cases/behaviour-asset-list-failed-asset/missing-ad/master.m3u8").status, 404)
            XCTAssertEqual(try get("/cases/behaviour-asset-list-failed/missing-list.json").status, 404)
            XCTAssertEqual(try get("/cases/behaviour-asset-list-multiple/ad-2/seg_001.m4s").status, 200)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }
}

/// A clock the test moves by hand.
final class TestClock: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Date
    init(_ start: Date) { value = start }
    var now: Date { lock.withLock { value } }
    func advance(_ seconds: Double) { lock.withLock { value = value.addingTimeInterval(seconds) } }
}

/// One HTTP/1.1 GET over a TCP socket bound to a loopback source address (the lab tells clients
/// apart by address), with a 5 s timeout each way.
enum LoopbackGet {
    struct Failed: Error, CustomStringConvertible { var description: String }

    struct Response {
        var status: Int
        var headers: [String: String]
        var body: String
        var sequence: Int? {
            body.split(separator: "\n").first { $0.hasPrefix("#EXT-X-MEDIA-SEQUENCE:") }.flatMap { Int($0.dropFirst(22)) }
        }
        var segments: [String] { body.split(separator: "\n").filter { $0.hasPrefix("primary/") }.map(String.init) }
    }

    static func fetch(port: Int, path: String, from source: String) throws -> Response {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failed(description: "socket: errno \(errno)") }
        defer { close(fd) }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        func address(_ host: String, _ port: Int) -> sockaddr_in {
            var a = sockaddr_in()
            a.sin_family = sa_family_t(AF_INET)
            a.sin_port = in_port_t(UInt16(port).bigEndian)
            inet_pton(AF_INET, host, &a.sin_addr)
            return a
        }
        var local = address(source, 0), remote = address("127.0.0.1", port)
        let bound = withUnsafePointer(to: &local) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard bound == 0 else { throw Failed(description: "bind \(source): errno \(errno)") }
        let connected = withUnsafePointer(to: &remote) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard connected == 0 else { throw Failed(description: "connect 127.0.0.1:\(port): errno \(errno)") }
        let request = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n".utf8)
        guard send(fd, request, request.count, 0) == request.count else { throw Failed(description: "send: errno \(errno)") }
        var data = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 65536)
        while data.count < 8 << 20 {
            let count = recv(fd, &chunk, chunk.count, 0)
            if count < 0 { throw Failed(description: "recv: errno \(errno)") }
            if count == 0 { break }
            data += chunk[..<count]
        }
        let text = String(decoding: data, as: UTF8.self)
        guard let split = text.range(of: "\r\n\r\n") else { throw Failed(description: "no HTTP head in \(data.count) bytes") }
        let head = text[..<split.lowerBound].split(separator: "\r\n")
        let status = head.first.flatMap { Int($0.split(separator: " ").dropFirst().first ?? "") } ?? 0
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return Response(status: status, headers: headers, body: String(text[split.upperBound...]))
    }
}
