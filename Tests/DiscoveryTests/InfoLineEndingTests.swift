@testable import Discovery
import Foundation
import SeamcheckTestSupport
import XCTest

/// `GET /info` answers whose lines end in a bare LF (issue 20, item 8): Kodi ends its status line
/// so ("HTTP/1.1 501 Not Implemented\nDate: ...\r\n"), and RFC 9112 2.2 lets a recipient accept LF
/// anywhere. Real servers on 127.0.0.1 (Tests/Server/airplay_info_server.py).
final class InfoLineEndingTests: XCTestCase {
    nonisolated(unsafe) static var server: InfoServer?

    override class func setUp() {
        server = try? InfoServer(modes: ["kodi", "lf-only"])
    }

    override class func tearDown() {
        server?.stop()
        server = nil
    }

    private func receiver(_ mode: String) throws -> Receiver {
        let port = try XCTUnwrap(Self.server?.ports[mode], "the fake /info server did not start")
        return Receiver.merge([ResolvedService(type: "_airplay._tcp", name: "Kodi (lab)", interface: "lo", hostName: "k.local",
                                               address: "127.0.0.1", port: port,
                                               txt: ["deviceid": "02:00:00:00:00:21", "model": "Xbmc,1", "features": "0x20F7"])])[0]
    }

    func testKodisStatusLineEndedByABareLFIsReadAsItsStatusAlone() async throws {
        let outcome = await AirPlayInfoClient.fetch(try receiver("kodi"))
        XCTAssertEqual(outcome.result.failure, .refused(status: 501, reason: "Not Implemented"))
        XCTAssertFalse(outcome.attempts.isEmpty)
        for attempt in outcome.attempts {
            XCTAssertEqual(attempt.result, "501 Not Implemented", "\(attempt.transport): the Date line is not part of the reason")
            XCTAssertEqual(attempt.status, 501)
        }
    }

    func testAnAnswerWithEveryLineEndedByLFIsRead() async throws {
        let outcome = await AirPlayInfoClient.fetch(try receiver("lf-only"))
        XCTAssertEqual(outcome.kind, .answered, "\(outcome.attempts)")
        XCTAssertEqual(outcome.info?.displays.first?.widthPixels, 1920)
    }

    func testHeadsEndingInCRLFOrLFInAnyMixAreSplitTheSameWay() throws {
        let endings = ["\r\n", "\n"]
        for status in endings {
            for header in endings {
                for blank in endings {
                    let text = "HTTP/1.1 404 Not Found\(status)Content-Length: 2\(header)Server: x\(header)\(blank)ok"
                    let response = try XCTUnwrap(try InfoRequest.parse(Data(text.utf8), complete: false)?.get(),
                                                 text.debugDescription)
                    XCTAssertEqual(response.status, 404, text.debugDescription)
                    XCTAssertEqual(response.reason, "Not Found", text.debugDescription)
                    XCTAssertEqual(response.body, Data("ok".utf8), text.debugDescription)
                }
            }
        }
        XCTAssertNil(InfoRequest.parse(Data("HTTP/1.1 200 OK\nContent-Length: 2\n".utf8), complete: false),
                     "no blank line yet: more bytes needed")
        XCTAssertNotNil(try InfoRequest.parse(Data("\r\nHTTP/1.1 204 No Content\r\n\r\n".utf8), complete: false)?.get(),
                        "a blank line before the status line is skipped, not taken as the end of the head")
    }
}
