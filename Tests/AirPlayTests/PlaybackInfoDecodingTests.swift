@testable import AirPlay
import XCTest

/// `/playback-info` and `/server-info` dictionaries as receivers write them, into value types.
final class PlaybackInfoDecodingTests: XCTestCase {
    /// Kodi 20's field set while playing (its real PLAYBACK_INFO template, XML).
    static let kodiPlaying = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict>
        <key>duration</key>
        <real>20.000000</real>
        <key>loadedTimeRanges</key>
        <array>
        \t\t<dict>
        \t\t\t<key>duration</key>
        \t\t\t<real>20.000000</real>
        \t\t\t<key>start</key>
        \t\t\t<real>0.0</real>
        \t\t</dict>
        </array>
        <key>playbackBufferEmpty</key>
        <true/>
        <key>playbackBufferFull</key>
        <false/>
        <key>playbackLikelyToKeepUp</key>
        <true/>
        <key>position</key>
        <real>3.250000</real>
        <key>rate</key>
        <real>1</real>
        <key>readyToPlay</key>
        <true/>
        <key>seekableTimeRanges</key>
        <array>
        \t\t<dict>
        \t\t\t<key>duration</key>
        \t\t\t<real>20.000000</real>
        \t\t\t<key>start</key>
        \t\t\t<real>0.0</real>
        \t\t</dict>
        </array>
        </dict>
        </plist>
        """

    private func decode(_ data: Data) throws -> PlaybackInfo {
        PlaybackInfo(plist: try PropertyList.dictionary(from: data).get())
    }

    func testKodiXMLPlist() throws {
        let info = try decode(Data(Self.kodiPlaying.utf8))
        XCTAssertEqual(info.duration, 20)
        XCTAssertEqual(info.position, 3.25)
        XCTAssertEqual(info.rate, 1)
        XCTAssertEqual(info.readyToPlay, true)
        XCTAssertEqual(info.playbackBufferEmpty, true)
        XCTAssertEqual(info.loadedTimeRanges, [.init(start: 0, duration: 20)])
        XCTAssertEqual(info.seekableTimeRanges, [.init(start: 0, duration: 20)])
        XCTAssertNil(info.error)
    }

    func testBinaryPlistWithOnlyDurationPositionRate() throws {
        let data = PropertyList.binary(["duration": 20.0, "position": 7.5, "rate": 0.0])
        XCTAssertEqual(try decode(data), PlaybackInfo(duration: 20, position: 7.5, rate: 0))
    }

    /// Hostile numbers: 1e308 s is no stream's time (it printed as 309 digits); read as absent.
    func testTimesAndRatesNoStreamHasAreReadAsAbsent() throws {
        let data = PropertyList.binary(["duration": 1e308, "position": -1e300, "rate": 1e200,
                                        "loadedTimeRanges": [["start": 0.0, "duration": 1e308], ["start": 2.0, "duration": 4.0]]])
        let info = try decode(data)
        XCTAssertNil(info.duration)
        XCTAssertNil(info.position)
        XCTAssertNil(info.rate)
        XCTAssertEqual(info.loadedTimeRanges, [.init(start: 2, duration: 4)])
        XCTAssertEqual(try decode(PropertyList.binary(["position": 86_400.0 * 300])).position, 86_400 * 300, "a 300-day position is a time")
    }

    func testMissingKeysIntegerBooleansAndTheErrorDict() throws {
        let data = PropertyList.binary(["readyToPlay": 0, "rate": 1, "position": "2.5",
                                        "error": ["code": -11800, "domain": "AVFoundationErrorDomain"],
                                        "loadedTimeRanges": ["not a dict", ["start": 1]]])
        let info = try decode(data)
        XCTAssertNil(info.duration)
        XCTAssertEqual(info.position, 2.5)
        XCTAssertEqual(info.rate, 1)
        XCTAssertEqual(info.readyToPlay, false)
        XCTAssertEqual(info.loadedTimeRanges, [], "ranges without both fields are left out")
        XCTAssertEqual(info.error, .init(domain: "AVFoundationErrorDomain", code: -11800))
        XCTAssertEqual(try decode(PropertyList.binary(["error": ["domain": "X"]])).error, .init(domain: "X", code: nil))
    }

    func testServerInfoFeaturesAsNumberOrHexString() throws {
        let kodi = ServerInfo(plist: try PropertyList.dictionary(from: PropertyList.xml(
            ["deviceid": "02:5E:A0:00:00:02", "features": 119, "model": "Xbmc,1", "protovers": "1.0", "srcvers": "101.28"])).get())
        XCTAssertEqual(kodi, ServerInfo(deviceId: "02:5E:A0:00:00:02", features: 119, model: "Xbmc,1",
                                        protocolVersion: "1.0", sourceVersion: "101.28"))
        XCTAssertEqual(ServerInfo(plist: ["features": "0x20F7", "deviceID": "AA"]).features, 0x20F7)
        XCTAssertEqual(ServerInfo(plist: ["features": "0x20F7", "deviceID": "AA"]).deviceId, "AA")
    }

    func testGarbageIsAReasonNotACrash() {
        guard case .failure(let error) = PropertyList.dictionary(from: Data("\u{0}\u{1} this is not a plist {".utf8)) else {
            return XCTFail("garbage parsed")
        }
        XCTAssertTrue(error.reason.contains("not a property list"), error.reason)
        guard case .failure(let array) = PropertyList.dictionary(from: PropertyList.binary(["a": 1]).prefix(0) + Data("<plist><array/></plist>".utf8)) else {
            return XCTFail("array parsed as a dictionary")
        }
        XCTAssertTrue(array.reason.contains("not a dictionary"), array.reason)
    }
}
