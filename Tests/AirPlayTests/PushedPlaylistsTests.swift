@testable import AirPlay
import Foundation
import XCTest

/// Pushed playlists (FCUP): the plists as UxPlay 1.74 writes and reads them, which URLs a sender
/// pushes, the playlists made absolute, and the reverse connection against a peer that misbehaves.
final class PushedPlaylistsTests: XCTestCase {
    let playlists = PushedPlaylists(playlist: URL(string: "http://10.0.0.1:8080/cases/control/master.m3u8")!)!

    /// UxPlay's `create_fcup_request` (fcup_request.h): an XML plist.
    static let uxplayEvent = Data("""
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0"><dict><key>sessionID</key><integer>1</integer><key>type</key><string>unhandledURLRequest</string>
        <key>request</key><dict><key>FCUP_Response_ClientInfo</key><integer>1</integer>
        <key>FCUP_Response_ClientRef</key><integer>40030004</integer><key>FCUP_Response_RequestID</key><integer>3</integer>
        <key>FCUP_Response_URL</key><string>mlhls://10.0.0.1:8080/cases/control/v0/prog.m3u8</string>
        <key>sessionID</key><integer>1</integer><key>FCUP_Response_Headers</key><dict>
        <key>X-Playback-Session-Id</key><string>ABC</string><key>User-Agent</key><string>AppleCoreMedia/1.0.0.11B554a</string>
        </dict></dict></dict></plist>
        """.utf8)

    func testUxPlaysUnhandledURLRequestIsRead() throws {
        let event = try FCUPMessages.event(from: Self.uxplayEvent).get()
        XCTAssertEqual(event, .urlRequest(FCUPRequest(
            requestId: 3, url: "mlhls://10.0.0.1:8080/cases/control/v0/prog.m3u8",
            headers: ["X-Playback-Session-Id": "ABC", "User-Agent": "AppleCoreMedia/1.0.0.11B554a"], sessionId: 1)))
    }

    func testUnusableEventsAreFindingsAndOtherTypesAreNotActedOn() throws {
        XCTAssertThrowsError(try FCUPMessages.event(from: Data("<html>".utf8)).get())
        XCTAssertThrowsError(try FCUPMessages.event(from: PropertyList.xml(["kind": "x"])).get())
        XCTAssertThrowsError(try FCUPMessages.event(from: PropertyList.xml(["type": "unhandledURLRequest", "request": ["FCUP_Response_URL": "mlhls://h/a.m3u8"]])).get())
        XCTAssertEqual(try FCUPMessages.event(from: PropertyList.binary(["type": "playbackEvent"])).get(), .other(type: "playbackEvent"))
    }

    func testActionCarriesWhatUxPlaysHandlerReads() throws {
        let body = FCUPMessages.action(url: "mlhls://h/cases/c/master.m3u8", data: Data("#EXTM3U\n".utf8), requestId: 4, status: 200)
        XCTAssertEqual(body.prefix(6), Data("bplist".utf8))
        let plist = try XCTUnwrap(PropertyListSerialization.propertyList(from: body, format: nil) as? [String: Any])
        XCTAssertEqual(plist["type"] as? String, "unhandledURLResponse")
        let params = try XCTUnwrap(plist["params"] as? [String: Any])
        XCTAssertEqual(params["FCUP_Response_URL"] as? String, "mlhls://h/cases/c/master.m3u8")
        XCTAssertEqual(params["FCUP_Response_Data"] as? Data, Data("#EXTM3U\n".utf8))
        XCTAssertEqual(params["FCUP_Response_RequestID"] as? Int, 4)
        XCTAssertEqual(params["FCUP_Response_StatusCode"] as? Int, 200)
    }

    func testOnlyPlaylistsInsideTheCaseAreResolved() {
        XCTAssertEqual(playlists.pushedURL, "mlhls://10.0.0.1:8080/cases/control/master.m3u8")
        XCTAssertEqual(try playlists.resolve("mlhls://10.0.0.1:8080/cases/control/v0/prog.m3u8").get().absoluteString,
                       "http://10.0.0.1:8080/cases/control/v0/prog.m3u8")
        for outside in ["mlhls://10.0.0.1:8080/cases/other/master.m3u8", "mlhls://10.0.0.1:8080/cases/control/../other/master.m3u8",
                        "mlhls://10.0.0.1:8080/cases/control/%2e%2e/other/master.m3u8", "mlhls://10.0.0.1:8080/lab.json",
                        "mlhls://10.0.0.2:8080/cases/control/master.m3u8", "mlhls://10.0.0.1:8081/cases/control/master.m3u8",
                        "http://10.0.0.1:8080/cases/control/master.m3u8", "file:///etc/passwd", "not a url"] {
            XCTAssertThrowsError(try playlists.resolve(outside).get(), outside)
        }
        XCTAssertNil(PushedPlaylists(playlist: URL(string: "http://h/cases/c/index.m3u8")!))
    }

    func testPushedPlaylistsNameEveryURIAbsolutely() {
        let master = """
            #EXTM3U
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="a",NAME="en",URI="audio/en.m3u8"
            #EXT-X-STREAM-INF:BANDWIDTH=1000,AUDIO="a"
            v0/prog.m3u8
            """
        let source = URL(string: "http://10.0.0.1:8080/cases/control/master.m3u8")!
        XCTAssertEqual(playlists.rewrite(master, from: source, multivariant: true), """
            #EXTM3U
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="a",NAME="en",URI="mlhls://10.0.0.1:8080/cases/control/audio/en.m3u8"
            #EXT-X-STREAM-INF:BANDWIDTH=1000,AUDIO="a"
            mlhls://10.0.0.1:8080/cases/control/v0/prog.m3u8
            """)
        let media = """
            #EXTM3U
            #EXT-X-MAP:URI="init.mp4"
            #EXT-X-DATERANGE:ID="ad",CLASS="com.apple.hls.interstitial",X-ASSET-URI="../ad/master.m3u8",X-RESUME-OFFSET=0
            #EXTINF:2.0,
            primary/seg_000.m4s
            #EXTINF:2.0,
            http://cdn.example/seg_001.m4s
            """
        let mediaSource = URL(string: "http://10.0.0.1:8080/cases/control/v0/prog.m3u8")!
        XCTAssertEqual(playlists.rewrite(media, from: mediaSource, multivariant: false), """
            #EXTM3U
            #EXT-X-MAP:URI="http://10.0.0.1:8080/cases/control/v0/init.mp4"
            #EXT-X-DATERANGE:ID="ad",CLASS="com.apple.hls.interstitial",X-ASSET-URI="http://10.0.0.1:8080/cases/control/ad/master.m3u8",X-RESUME-OFFSET=0
            #EXTINF:2.0,
            http://10.0.0.1:8080/cases/control/v0/primary/seg_000.m4s
            #EXTINF:2.0,
            http://cdn.example/seg_001.m4s
            """)
    }

    func testRequestsAreSplitInAnyChunkingAndAnswered200WithTheirCSeq() {
        let bytes = Array(("POST /event HTTP/1.1\r\nCSeq: 5\r\nContent-Length: 3\r\n\r\nabc" + "POST /event HTTP/1.1\nContent-Length: 0\n\n").utf8)
        for split in [1, 2, 7, bytes.count] {
            var parser = ReverseRequestParser(limits: .init())
            var requests: [ReverseRequest] = []
            var index = 0
            while index < bytes.count {
                requests += (try? parser.feed(bytes[index..<min(index + split, bytes.count)]).get()) ?? []
                index += split
            }
            XCTAssertEqual(requests.map(\.body), [Data("abc".utf8), Data()], "split \(split)")
            XCTAssertEqual(requests.first.map { String(decoding: $0.answer, as: UTF8.self) }, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nCSeq: 5\r\n\r\n")
        }
    }

    func testGarbageHugeAndEndlessHeadsAreFindingsWithinTheLimits() {
        let limits = ReverseLimits(maxHeadBytes: 1024, maxEventBytes: 4096)
        let cases: [(String, [UInt8])] = [
            ("not a request line", Array("\u{0}\u{1}garbage\r\n\r\n".utf8)),
            ("over the limit of 4096", Array("POST /event HTTP/1.1\r\nContent-Length: 1000000000\r\n\r\n".utf8)),
            ("larger than 1024", [UInt8](repeating: 0x41, count: 2000)),
            ("Transfer-Encoding", Array("POST /event HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)),
            ("bad Content-Length", Array("POST /event HTTP/1.1\r\nContent-Length: -4\r\n\r\n".utf8)),
        ]
        for (expected, bytes) in cases {
            var parser = ReverseRequestParser(limits: limits)
            guard case .failure(let finding) = parser.feed(bytes) else { return XCTFail("\(expected): no finding") }
            XCTAssertTrue(finding.description.contains(expected), finding.description)
            XCTAssertEqual(try parser.feed(Array("POST /e HTTP/1.1\r\n\r\n".utf8)).get(), [], "nothing taken after a finding")
        }
    }

    // MARK: - The reverse connection against a peer (Tests/Server/airplay_receiver.py)

    func testReverseConnectionAnswersEventsAndDeliversThem() async throws {
        let server = try ReceiverServer(modes: ["reverse-fcup"])
        let connection = try await ReverseConnection.open(server.endpoint("reverse-fcup"), sessionId: "S", configuration: .init())
        var items: [ReverseItem] = []
        for await item in connection.items {
            items.append(item)
            if items.count == 2 { break }
        }
        guard items.count == 2, case .finding(let finding) = items[0] else { return XCTFail("\(items)") }
        XCTAssertTrue(finding.description.contains("not a property list"), finding.description)
        guard case .event(.urlRequest(let request)) = items[1] else { return XCTFail("\(items)") }
        XCTAssertEqual(request.requestId, 7)
        XCTAssertEqual(request.url, "mlhls://127.0.0.1:9/cases/c/master.m3u8")
        // Read once its line has arrived (the server's output reaches us asynchronously).
        let upgrade = try XCTUnwrap(server.requests("reverse-fcup", expecting: 1).first)
        XCTAssertEqual(upgrade.path, "/reverse")
        XCTAssertEqual(upgrade.header("Upgrade"), "PTTH/1.0")
        XCTAssertEqual(upgrade.header("X-Apple-Session-ID"), "S")
        XCTAssertTrue(server.wait { server.output("REVERSE-ANSWER ").count == 2 })
        XCTAssertEqual(server.output("REVERSE-ANSWER "), ["REVERSE-ANSWER HTTP/1.1 200 OK", "REVERSE-ANSWER HTTP/1.1 200 OK"])
        await connection.close()
        XCTAssertTrue(server.wait { !server.output("REVERSE-CLOSED").isEmpty })
    }

    func testGarbageOrAHugeEventEndsTheReverseConnectionWithAFinding() async throws {
        let server = try ReceiverServer(modes: ["reverse-garbage", "reverse-huge"])
        for (mode, expected) in [("reverse-garbage", "not a request line"), ("reverse-huge", "of 1000000000 bytes, over the limit")] {
            let connection = try await ReverseConnection.open(server.endpoint(mode), sessionId: "S", configuration: .init())
            var items: [ReverseItem] = []
            for await item in connection.items { items.append(item) }  // ends: the sender closed it
            XCTAssertEqual(items.count, 1, mode)
            guard case .finding(let finding) = items.first else { return XCTFail("\(mode): \(items)") }
            XCTAssertTrue(finding.description.contains(expected), finding.description)
            XCTAssertFalse(connection.isOpen)
        }
    }

    func testAReverseRequestNotUpgradedIsAnErrorNamingIt() async throws {
        let server = try ReceiverServer(modes: ["reverse-409", "reverse-silent"])
        do {
            _ = try await ReverseConnection.open(server.endpoint("reverse-409"), sessionId: "S", configuration: .init())
            XCTFail("no error")
        } catch {
            XCTAssertEqual(error, .http(endpoint: server.endpoint("reverse-409").description, path: "/reverse", status: 409, reason: "Conflict"))
        }
        do {
            _ = try await ReverseConnection.open(server.endpoint("reverse-silent"), sessionId: "S", configuration: .init(requestTimeout: 0.3))
            XCTFail("no error")
        } catch {
            XCTAssertEqual(error, .timeout(endpoint: server.endpoint("reverse-silent").description, path: "/reverse", seconds: 0.3))
        }
    }
}
