@testable import Discovery
import Foundation
import SeamcheckTestSupport
import XCTest

/// Decoding `/info` property lists.
final class ReceiverInfoDecodingTests: XCTestCase {
    private func plist(_ object: [String: Any]) throws -> Data {
        try PropertyListSerialization.data(fromPropertyList: object, format: .binary, options: 0)
    }

    func testNegativeContentLengthFromADeviceIsABadResponseNotACrash() {
        let reply = Data("HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\nbplist00".utf8)
        guard case .failure(.badResponse)? = InfoRequest.parse(reply, complete: true) else {
            return XCTFail("a negative Content-Length must be refused")
        }
    }

    func testDolbyVisionDisplayYieldsFormatsCodecsAndInterstitials() throws {
        let data = try plist([
            "deviceID": "aa:bb:cc:dd:ee:ff", "model": "OLED55C2", "manufacturer": "LG", "sourceVersion": "377.40.00",
            "features": NSNumber(value: Int64(0x038B_CF46_007F_8AD0)), "statusFlags": 0x244,
            "receiverHDRCapability": "4k60",
            "displays": [[
                "widthPixels": 3840, "heightPixels": 2160, "maxFPS": 60, "refreshRate": 1.0 / 60,
                "HDRSupportedModes": [
                    ["HDRMode": "HDR10", "codecStrings": ["hvc1.2.4.L153.B0"]],
                    ["HDRMode": "DolbyVision", "codecStrings": ["dvh1.05.06"]],
                ],
            ]],
            "playbackCapabilities": ["supportsInterstitials": true, "supportsFPSSecureStop": false],
        ])
        let info = try ReceiverInfo(propertyList: data)
        XCTAssertEqual(info.deviceId, "AA:BB:CC:DD:EE:FF")
        XCTAssertEqual(info.model, "OLED55C2")
        XCTAssertEqual(info.features?.hex, "0x038BCF46007F8AD0")
        XCTAssertEqual(info.statusFlags?.hex, "0x244")
        XCTAssertEqual(info.displays.first?.widthPixels, 3840)
        XCTAssertEqual(info.displays.first?.maxFPS, 60)
        XCTAssertEqual(info.displays.first?.hdrModes.map(\.mode), ["HDR10", "DolbyVision"])
        XCTAssertEqual(info.hdrFormats, ["HDR10", "DolbyVision"])
        XCTAssertEqual(info.codecs, ["hvc1.2.4.L153.B0", "dvh1.05.06"])
        XCTAssertEqual(info.supportsInterstitials, true)
        XCTAssertEqual(info.supportsFPSSecureStop, false)
        XCTAssertEqual(info.receiverHDRCapability, "4k60")
    }

    func testHDRFormatNamesAreNormalisedAndDolbyVisionCodecsCount() {
        let modes = [
            ReceiverInfo.HDRMode(mode: "hdr10", codecs: []), ReceiverInfo.HDRMode(mode: "Dolby Vision", codecs: []),
            ReceiverInfo.HDRMode(mode: "HLG", codecs: []),
        ]
        XCTAssertEqual(ReceiverInfo.hdrFormats(of: modes), ["HDR10", "HLG", "DolbyVision"])
        XCTAssertEqual(ReceiverInfo.hdrFormats(of: [.init(mode: nil, codecs: ["dvhe.05.06"])]), ["DolbyVision"])
        XCTAssertEqual(ReceiverInfo.hdrFormats(of: [.init(mode: "SDR", codecs: ["hvc1.2.4.L153.B0"])]), [],
                       "a Main10 codec string alone is not HDR")
    }

    func testFeatureMaskWithBit63AndFeaturesExBeyond64Bits() throws {
        let info = try ReceiverInfo(propertyList: try plist(["features": NSNumber(value: Int64(-1)), "featuresEx": "9/9/St5fFQRB"]))
        XCTAssertEqual(info.features?.rawValue, UInt64.max)
        XCTAssertEqual(info.features?.extendedBits, [64, 70])
    }

    func testMissingAndMistypedKeysLeaveFieldsNil() throws {
        let info = try ReceiverInfo(propertyList: try plist(["model": 42, "displays": "none", "playbackCapabilities": [:]]))
        XCTAssertNil(info.model)
        XCTAssertNil(info.features)
        XCTAssertEqual(info.displays, [])
        XCTAssertNil(info.supportsInterstitials)
        XCTAssertEqual(info.hdrFormats, [])
    }

    func testNonPlistAndNonDictionaryBodiesAreBadResponses() throws {
        XCTAssertThrowsError(try ReceiverInfo(propertyList: Data("<html>".utf8))) { error in
            XCTAssertEqual(error as? InfoError, .badResponse("the body is not a property list (6 bytes)"))
        }
        let array = try PropertyListSerialization.data(fromPropertyList: [1, 2], format: .binary, options: 0)
        XCTAssertThrowsError(try ReceiverInfo(propertyList: array)) { error in
            XCTAssertEqual(error as? InfoError, .badResponse("the property list is not a dictionary"))
        }
    }

    func testResponseParsingOfHTTPAndRTSPAnswers() throws {
        let body = Data("bplist".utf8)
        let http = Data("HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\n".utf8) + body
        XCTAssertNil(InfoRequest.parse(http.prefix(20), complete: false), "more bytes needed")
        XCTAssertNil(InfoRequest.parse(http.dropLast(2), complete: false), "the body is not complete yet")
        let whole = try XCTUnwrap(InfoRequest.parse(http, complete: false)).get()
        XCTAssertEqual(whole.status, 200)
        XCTAssertEqual(whole.body, body)
        let rtsp = try XCTUnwrap(InfoRequest.parse(Data("RTSP/1.0 403 Forbidden\r\nCSeq: 1\r\n\r\n".utf8), complete: false)).get()
        XCTAssertEqual(rtsp.status, 403)
        XCTAssertEqual(rtsp.reason, "Forbidden")
        let untilClose = try XCTUnwrap(InfoRequest.parse(Data("HTTP/1.0 200 OK\r\n\r\nabc".utf8), complete: true)).get()
        XCTAssertEqual(untilClose.body, Data("abc".utf8))
        if case .failure(let error)? = InfoRequest.parse(Data("SSH-2.0-OpenSSH\r\n".utf8), complete: false) {
            XCTAssertEqual(error, .badResponse("not an HTTP or RTSP answer"))
        } else {
            XCTFail("another protocol's banner is an error")
        }
        if case .failure(let error)? = InfoRequest.parse(http.dropLast(2), complete: true) {
            XCTAssertEqual(error, .badResponse("a truncated body"))
        } else {
            XCTFail("a body cut by the peer is an error")
        }
    }
}

/// `GET /info` against the fake receivers of Tests/Server/airplay_info_server.py on 127.0.0.1.
final class AirPlayInfoClientTests: XCTestCase {
    nonisolated(unsafe) static var server: InfoServer?  // set in class setUp, before any test runs

    override class func setUp() {
        server = try? InfoServer(modes: ["dolby-vision", "rtsp-only", "forbidden", "garbage", "silent"])
    }

    override class func tearDown() {
        server?.stop()
        server = nil
    }

    private func port(_ mode: String) throws -> Int {
        guard let port = Self.server?.ports[mode] else { throw XCTSkip("the fake /info server did not start (python3?)") }
        return port
    }

    /// Whether the fake server logged `line`: it prints after answering, so the line may reach
    /// this process a moment after the client has its reply.
    private func serverLogged(_ line: String) throws -> Bool {
        let server = try XCTUnwrap(Self.server)
        let deadline = Date().addingTimeInterval(3)
        while !server.output.contains(line) {
            if Date() > deadline { return false }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return true
    }

    func testDolbyVisionReceiverAnswersWithItsDisplays() async throws {
        let result = await AirPlayInfoClient.fetch(addresses: ["127.0.0.1"], port: try port("dolby-vision"))
        let info = try result.get()
        XCTAssertEqual(info.hdrFormats, ["HDR10", "HLG", "DolbyVision"])
        XCTAssertEqual(info.supportsInterstitials, true)
        XCTAssertEqual(info.model, "55FAKE")
        XCTAssertTrue(try serverLogged("REQUEST dolby-vision GET /info HTTP/1.1 apv=1"), Self.server?.output ?? "")
    }

    func testRTSPOnlyReceiverIsAskedAgainOverRTSP() async throws {
        let info = try await AirPlayInfoClient.fetch(addresses: ["127.0.0.1"], port: try port("rtsp-only")).get()
        XCTAssertEqual(info.displays.first?.widthPixels, 1920)
        XCTAssertEqual(info.hdrFormats, [])
        XCTAssertTrue(try serverLogged("REQUEST rtsp-only GET /info RTSP/1.0 apv=1"), Self.server?.output ?? "")
    }

    func testRefusalsAndBadAnswersAreTypedErrors() async throws {
        let forbidden = await AirPlayInfoClient.fetch(addresses: ["127.0.0.1"], port: try port("forbidden"))
        XCTAssertEqual(forbidden.failure, .refused(status: 403, reason: "Forbidden"))
        XCTAssertTrue(forbidden.failure?.description.contains("pairing or a password") ?? false)
        let garbage = await AirPlayInfoClient.fetch(addresses: ["127.0.0.1"], port: try port("garbage"))
        XCTAssertEqual(garbage.failure, .badResponse("the body is not a property list (24 bytes)"))
    }

    func testSilentReceiverTimesOutOnTime() async throws {
        let started = Date()
        let result = await AirPlayInfoClient.fetch(addresses: ["127.0.0.1"], port: try port("silent"), timeout: .milliseconds(500))
        XCTAssertEqual(result.failure, .timedOut(address: "127.0.0.1:\(try port("silent"))", seconds: 0.5))
        XCTAssertLessThan(Date().timeIntervalSince(started), 3, "the 0.5 s timeout, and 2.5 s for a loaded CI machine")
    }

    func testClosedPortIsUnreachableAndTheNextAddressIsTried() async throws {
        let refused = await AirPlayInfoClient.fetch(addresses: ["127.0.0.1"], port: 1)
        XCTAssertEqual(refused.failure, .unreachable(address: "127.0.0.1:1", reason: "Connection refused"))
        let second = await AirPlayInfoClient.fetch(addresses: ["127.0.0.2", "127.0.0.1"], port: try port("dolby-vision"))
        XCTAssertNotNil(try? second.get(), "127.0.0.2 refuses (the server binds 127.0.0.1 only); 127.0.0.1 answers")
    }

    func testAsleepReceiverIsNotAsked() async {
        let receiver = Receiver.merge([ResolvedService(type: "_airplay._tcp", name: "Sleepy", interface: "lo", hostName: "s.local",
                                                       address: "127.0.0.1", port: 0, txt: TXTFixtures.appleTV4K)])[0]
        let result = await AirPlayInfoClient.fetch(receiver)
        XCTAssertEqual(result.result.failure, .asleep)
        XCTAssertEqual(result.attempts, [], "nothing is asked")
    }
}

extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
