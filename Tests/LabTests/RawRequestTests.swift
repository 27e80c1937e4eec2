@testable import LabServer
import XCTest

/// `RawRequest`, the head reader of the playlist fast path: a plain request is read whole wherever
/// its bytes are cut, with the end the next request starts at; anything not in the plain form is
/// left to NIO's parser.
final class RawRequestTests: XCTestCase {
    func scan(_ text: String) -> RawRequest.Scan {
        Array(text.utf8).withUnsafeBytes { RawRequest.scan($0) }
    }

    func request(_ text: String) -> RawRequest? {
        if case .request(let request, let length) = scan(text) {
            XCTAssertEqual(length, text.utf8.count, "the whole head, no more")
            return request
        }
        return nil
    }

    func testAPlainGETIsReadWithItsHeaders() throws {
        let text = "GET /cases/mid/media.m3u8?client=tv HTTP/1.1\r\nHost: lab:81\r\nUser-Agent:  AppleCoreMedia/1.0 \r\n"
            + "Range: bytes=0-9\r\naccept: */*\r\n\r\n"
        let request = try XCTUnwrap(request(text))
        XCTAssertEqual(request.method, .get)
        XCTAssertEqual(request.methodName, "GET")
        XCTAssertEqual(request.target, "/cases/mid/media.m3u8?client=tv")
        XCTAssertEqual(request.host, "lab:81")
        XCTAssertEqual(request.userAgent, "AppleCoreMedia/1.0", "a value without the white space around it")
        XCTAssertEqual(request.range, "bytes=0-9")
        XCTAssertTrue(request.keepAlive)
        XCTAssertFalse(request.pushedFor)
        XCTAssertFalse(request.http10)
    }

    func testEveryCutOfARequestIsIncompleteAndTheNextRequestStartsAfterIt() {
        let first = "HEAD /a.m3u8 HTTP/1.1\r\nHost: lab\r\nConnection: close\r\n\r\n"
        for cut in 0..<first.utf8.count {
            XCTAssertEqual(scan(String(decoding: first.utf8.prefix(cut), as: UTF8.self)), .incomplete, "cut at \(cut)")
        }
        guard case .request(let request, let length) = scan(first + "GET /b HTTP/1.1\r\n") else { return XCTFail("not read") }
        XCTAssertEqual(request.method, .head)
        XCTAssertFalse(request.keepAlive, "Connection: close")
        XCTAssertEqual(length, first.utf8.count)
    }

    func testKeepAliveAsHTTP1ReadsIt() {
        XCTAssertEqual(request("GET / HTTP/1.0\r\n\r\n")?.keepAlive, false, "HTTP/1.0 closes by default")
        XCTAssertEqual(request("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n")?.keepAlive, true)
        XCTAssertEqual(request("GET / HTTP/1.1\r\nConnection: te, CLOSE\r\n\r\n")?.keepAlive, false, "a close token among others")
        XCTAssertEqual(request("GET / HTTP/1.1\r\nConnection: keep-alive\r\n\r\n")?.keepAlive, true)
        XCTAssertEqual(request("GET / HTTP/1.0\r\n\r\n")?.http10, true)
    }

    func testOtherMethodsAndPushedRequestsAreReadSoTheyCanBeHandedOnWhole() {
        let delete = request("DELETE /api/x HTTP/1.1\r\nHost: lab\r\n\r\n")
        XCTAssertEqual(delete?.method, .other)
        XCTAssertEqual(delete?.methodName, "DELETE")
        XCTAssertEqual(request("GET / HTTP/1.1\r\nx-seamcheck-pushed-for: 192.0.2.7\r\n\r\n")?.pushedFor, true)
        XCTAssertEqual(request("GET / HTTP/1.1\r\nUser-Agent: a\r\nUser-Agent: b\r\n\r\n")?.userAgent, "a, b", "joined as HTTP fields join them")
    }

    func testWhatIsNotThePlainFormIsLeftToNIOsParser() {
        for text in [
            "POST /api/verdicts HTTP/1.1\r\nContent-Length: 2\r\n\r\n{}",  // a body
            "GET / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n",
            "GET / HTTP/1.1\r\nUpgrade: h2c\r\n\r\n",
            "GET / HTTP/1.1\r\nHost: a\r\n folded\r\n\r\n",  // obs-fold
            "GET / HTTP/1.1\nHost: a\n\n",  // bare LF
            "GET / HTTP/1.1\r\nHost : a\r\n\r\n",  // white space before the colon
            "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n",
            "GET / HTTP/2.0\r\n\r\n",
            "GET /  HTTP/1.1\r\n\r\n",
            "get / HTTP/1.1\r\n\r\n",
            "GARBAGE\r\n\r\n",
            "\r\nGET / HTTP/1.1\r\n\r\n",
            "GET /caf\u{e9} HTTP/1.1\r\n\r\n",  // past ASCII
            "GET / HTTP/1.1\r\nX: caf\u{e9}\r\n\r\n",
        ] {
            XCTAssertEqual(scan(text), .unrecognised, text.debugDescription)
        }
        let huge = "GET / HTTP/1.1\r\nX: " + String(repeating: "a", count: RawRequest.limit) + "\r\n\r\n"
        XCTAssertEqual(scan(huge), .unrecognised, "a head past the limit")
        XCTAssertEqual(scan(String(huge.dropLast(4))), .unrecognised, "still arriving past the limit")
    }
}
