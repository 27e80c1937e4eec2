@testable import AirPlay
import XCTest

/// The response parser byte by byte: the shapes receivers really send and the ones that must fail.
final class HTTPMessageTests: XCTestCase {
    private func parse(_ text: String, limit: Int = 1 << 20, split: Int? = nil) throws -> HTTPResponse? {
        var parser = HTTPResponseParser(maxBodyBytes: limit)
        let bytes = Array(text.utf8)
        guard let split else { return try parser.feed(bytes) }
        var result: HTTPResponse?
        for start in stride(from: 0, to: bytes.count, by: split) {
            if let done = try parser.feed(bytes[start..<min(start + split, bytes.count)]) { result = done }
        }
        return result
    }

    func testRequestCarriesHostHeadersAndContentLength() {
        let request = HTTPRequest(method: "POST", path: "/rate?value=1.000000", headers: [("X-Apple-Session-ID", "S")])
        XCTAssertEqual(String(decoding: request.serialized(host: "10.0.0.2:36667"), as: UTF8.self),
                       "POST /rate?value=1.000000 HTTP/1.1\r\nHost: 10.0.0.2:36667\r\nX-Apple-Session-ID: S\r\nContent-Length: 0\r\n\r\n")
    }

    func testContentLengthBodyInAnySplit() throws {
        let text = "HTTP/1.1 200 OK\r\nContent-Type: text/x-apple-plist+xml\r\nContent-Length: 5\r\n\r\nhello"
        for split in [1, 2, 7, 1000] {
            let response = try XCTUnwrap(try parse(text, split: split), "split \(split)")
            XCTAssertEqual(response.status, 200)
            XCTAssertEqual(response.header("content-type"), "text/x-apple-plist+xml")
            XCTAssertEqual(String(decoding: response.body, as: UTF8.self), "hello")
        }
        XCTAssertNil(try parse("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhell"), "incomplete body is not a response")
    }

    /// Kodi's 501 ends its status line with a bare LF; the headers after it with CRLF.
    func testBareLineFeedStatusLine() throws {
        let response = try XCTUnwrap(try parse("HTTP/1.1 501 Not Implemented\nContent-Length: 0\r\n\r\n"))
        XCTAssertEqual(response.status, 501)
        XCTAssertEqual(response.reason, "Not Implemented")
        let allLF = try XCTUnwrap(try parse("HTTP/1.1 200 OK\nContent-Length: 2\n\nok", split: 1))
        XCTAssertEqual(allLF.body, Data("ok".utf8))
    }

    /// UxPlay 1.74 answers `/pair-pin-start` with no Content-Length: in RTSP that is no body (an
    /// HTTP answer without one is read to the close).
    func testRTSPAnswerWithoutContentLengthHasNoBody() throws {
        let text = "RTSP/1.0 200 OK\r\nAudio-Jack-Status: connected; type=digital\r\nServer: AirTunes/220.68\r\nCSeq: 0\r\n\r\n"
        let response = try XCTUnwrap(try parse(text, split: 5), "complete without waiting for a close")
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.body, Data())
        XCTAssertNil(try parse("HTTP/1.1 200 OK\r\n\r\nrest"), "HTTP without a length waits for the close")
    }

    func testChunkedBodyInAnySplit() throws {
        let text = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nWiki\r\n5;ext=1\r\npedia\r\n0\r\n\r\n"
        for split in [1, 3, 1000] {
            XCTAssertEqual(try parse(text, split: split)?.body, Data("Wikipedia".utf8), "split \(split)")
        }
        XCTAssertThrowsError(try parse("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n")) {
            guard case .badChunk = $0 as? HTTPParseError else { return XCTFail("\($0)") }
        }
    }

    func testBodiesOverTheLimitFailBeforeBuffering() {
        XCTAssertThrowsError(try parse("HTTP/1.1 200 OK\r\nContent-Length: 52428800\r\n\r\n", limit: 1000)) {
            XCTAssertEqual($0 as? HTTPParseError, .bodyTooLarge(limit: 1000))
        }
        let chunked = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + String(repeating: "200\r\n" + String(repeating: "a", count: 512) + "\r\n", count: 3)
        XCTAssertThrowsError(try parse(chunked, limit: 1000, split: 100)) {
            XCTAssertEqual($0 as? HTTPParseError, .bodyTooLarge(limit: 1000))
        }
        let untilClose = "HTTP/1.1 200 OK\r\n\r\n" + String(repeating: "b", count: 2000)
        XCTAssertThrowsError(try parse(untilClose, limit: 1000, split: 100)) {
            XCTAssertEqual($0 as? HTTPParseError, .bodyTooLarge(limit: 1000))
        }
    }

    func testBodyUntilCloseCompletesOnFinish() throws {
        var parser = HTTPResponseParser(maxBodyBytes: 100)
        XCTAssertNil(try parser.feed(Array("HTTP/1.1 200 OK\r\n\r\nabc".utf8)))
        XCTAssertEqual(parser.finish()?.body, Data("abc".utf8))
        var cut = HTTPResponseParser(maxBodyBytes: 100)
        XCTAssertNil(try cut.feed(Array("HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nabc".utf8)))
        XCTAssertNil(cut.finish(), "a body cut short by the close is no response")
        XCTAssertTrue(cut.receivedAny)
    }

    func testGarbageIsNotAStatusLine() {
        XCTAssertThrowsError(try parse("<html>hello</html>\r\n\r\n")) {
            guard case .badStatusLine = $0 as? HTTPParseError else { return XCTFail("\($0)") }
        }
        XCTAssertThrowsError(try parse("HTTP/1.1 200 OK\r\nContent-Length: -3\r\n\r\n")) {
            guard case .badContentLength = $0 as? HTTPParseError else { return XCTFail("\($0)") }
        }
        var endless = HTTPResponseParser(maxBodyBytes: 100)
        XCTAssertThrowsError(try endless.feed(Array(repeating: UInt8(ascii: "x"), count: HTTPResponseParser.maxHeadBytes + 1)))
    }
}
