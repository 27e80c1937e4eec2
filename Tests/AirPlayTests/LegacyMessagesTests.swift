@testable import AirPlay
import Foundation
import XCTest

/// The legacy session's rules as data (UxPlay 1.74's, read in its lib/raop.c and raop_handlers.h).
final class LegacyMessagesTests: XCTestCase {
    func testNoSessionIdEverGoesOnRTSPAndNoCSeqOnHTTP() {
        XCTAssertTrue(LegacyMessages.allowed([("CSeq", "0"), ("DACP-ID", "1"), ("User-Agent", "AirPlay/550.10")], rtsp: true))
        XCTAssertFalse(LegacyMessages.allowed([("CSeq", "0"), ("x-apple-session-id", "A")], rtsp: true), "UxPlay asserts and dies on it")
        XCTAssertTrue(LegacyMessages.allowed([("X-Apple-Session-ID", "A")], rtsp: false))
        XCTAssertFalse(LegacyMessages.allowed([("X-Apple-Session-ID", "A"), ("CSeq", "3")], rtsp: false))
    }

    func testSetupCarriesTheKeysUxPlayNeedsAndTheTimingPort() throws {
        let setup = LegacyMessages.setup(sessionUUID: "U", deviceId: "02:00:00:00:00:01", name: "seamcheck", timingPort: 50123)
        XCTAssertEqual((setup["ekey"] as? Data)?.count, 72)
        XCTAssertEqual((setup["eiv"] as? Data)?.count, 16)
        XCTAssertEqual(setup["timingProtocol"] as? String, "NTP")
        XCTAssertEqual(setup["timingPort"] as? Int, 50123)
        XCTAssertNil(setup["X-Apple-Session-ID"])
        // It survives the binary plist round trip the wire uses.
        let decoded = try PropertyList.dictionary(from: PropertyList.binary(setup)).get()
        XCTAssertEqual((decoded["ekey"] as? Data)?.count, 72)
    }

    func testPlayHasTheKeysUxPlayRequires() {
        let play = LegacyMessages.play(url: URL(string: "http://10.0.0.2/a/master.m3u8")!, startSeconds: 2.5, uuid: "X")
        XCTAssertEqual(play["Content-Location"] as? String, "http://10.0.0.2/a/master.m3u8")
        XCTAssertEqual(play["uuid"] as? String, "X")
        XCTAssertEqual(play["Start-Position-Seconds"] as? Double, 2.5)
    }

    func testTheFlowFromAnRTSPInfoAnswer() {
        let uxplay = PropertyList.binary(["features": 0x5A7F_FEF7, "model": "AppleTV3,2"])
        XCTAssertEqual(LegacyMessages.flow(infoStatus: 200, body: uxplay), .legacy)
        let airPlay2 = PropertyList.binary(["features": Int(1 << 38 | 0x1)])
        XCTAssertEqual(LegacyMessages.flow(infoStatus: 200, body: airPlay2), .airPlay2)
        XCTAssertNil(LegacyMessages.flow(infoStatus: 501, body: Data()), "Kodi: no RTSP /info")
        XCTAssertNil(LegacyMessages.flow(infoStatus: 200, body: Data("garbage".utf8)))
        XCTAssertEqual(LegacyMessages.flow(infoStatus: 409, body: Data()), .legacy, "held by another sender: still a legacy receiver")
        XCTAssertEqual(LegacyMessages.features("0x5A7FFEE6,0x1"), 0x1_5A7F_FEE6)
    }

    func testAnswersWithoutContentLengthAreEmptyWhereTheReceiverSaysSo() throws {
        var rtsp = HTTPResponseParser(maxBodyBytes: 100)
        XCTAssertEqual(try rtsp.feed(Array("RTSP/1.0 200 OK\r\nCSeq: 1\r\n\r\n".utf8))?.status, 200)
        var uxplay = HTTPResponseParser(maxBodyBytes: 100, lengthlessIsEmpty: true)
        XCTAssertEqual(try uxplay.feed(Array("HTTP/1.1 200 OK\r\nServer: AirTunes\r\n\r\n".utf8))?.body, Data())
        var plain = HTTPResponseParser(maxBodyBytes: 100)
        XCTAssertNil(try plain.feed(Array("HTTP/1.1 200 OK\r\n\r\nabc".utf8)), "HTTP without a length reads to the close")
        XCTAssertEqual(plain.finish()?.body, Data("abc".utf8))
    }
}
