@testable import Compatibility
import Discovery
import Foundation
import SeamcheckTestSupport
import XCTest

/// The TXT records of the open-source receivers Debian 12 ships (reference/airplay-discovery.md,
/// checked against the running programs by Tests/EndToEndTests/DiscoverRealReceiverTests), and
/// old Apple TVs: each lands in the class DeviceProfiles/README.md says, for the reason it says.
final class ClassificationRealReceiverTests: XCTestCase {
    let classifier = ReceiverClassifier(profiles: try! ProfileLoader.loadDirectory(MediaFixture.packageRoot + "/DeviceProfiles"))

    /// shairport-sync 3.3.8: `_raop._tcp` only, no features.
    static let shairportRAOP: TXTRecord = ["txtvers": "1", "ch": "2", "cn": "0,1", "et": "0,1", "sr": "44100", "ss": "16",
                                           "md": "0,1,2", "vn": "65537", "tp": "TCP,UDP", "vs": "105.1",
                                           "am": "ShairportSync", "fv": "76400.10", "sf": "0x4", "pw": "false"]
    /// UxPlay 1.62: both records, an Apple TV 3 model, URL video clear, screen set.
    static let uxplayAirPlay: TXTRecord = ["deviceid": "12:db:3f:89:d7:c8", "features": "0x5A7FFEE6,0x0", "flags": "0x4",
                                           "model": "AppleTV3,2", "srcvers": "220.68", "vv": "2", "pk": "b077", "pi": "2e38"]
    static let uxplayRAOP: TXTRecord = ["am": "AppleTV3,2", "ft": "0x5A7FFEE6,0x0", "sf": "0x4", "vs": "220.68", "cn": "0,1,2,3",
                                        "et": "0,3,5", "tp": "UDP", "ch": "2", "sr": "44100", "ss": "16"]

    private func receiver(airplay: TXTRecord?, raop: TXTRecord?) -> Receiver {
        var services: [ResolvedService] = []
        if let airplay {
            services.append(ResolvedService(type: "_airplay._tcp", name: "R", interface: "lo", hostName: "r.local",
                                            address: "127.0.0.1", port: 7102, txt: airplay))
        }
        if let raop {
            services.append(ResolvedService(type: "_raop._tcp", name: "12DB3F89D7C8@R", interface: "lo", hostName: "r.local",
                                            address: "127.0.0.1", port: 7101, txt: raop))
        }
        return Receiver.merge(services)[0]
    }

    func testRAOPOnlySpeakerIsAudioOnlyByItsRecord() {
        let result = classifier.classify(receiver(airplay: nil, raop: Self.shairportRAOP))
        XCTAssertEqual(result.deviceClass, "speaker-audio-only", result.reason)
        XCTAssertEqual(result.reason, "speaker-audio-only: only a _raop._tcp record, no _airplay._tcp (RAOP carries audio only) (score 5)")
    }

    func testMirroringReceiverWithoutURLVideoIsScreenMirroringByItsBits() {
        let result = classifier.classify(receiver(airplay: Self.uxplayAirPlay, raop: Self.uxplayRAOP))
        XCTAssertEqual(result.deviceClass, "screen-mirroring", result.reason)
        XCTAssertEqual(result.reason, "screen-mirroring: _airplay._tcp features=0x5A7FFEE6,0x0: bit 7 SupportsAirPlayScreen set; "
            + "no URL video (bits 0 SupportsAirPlayVideoV1 and 49 SupportsAirPlayVideoV2 clear) (score 15)")
        // The raop record alone says the same through `ft`.
        let raopOnly = classifier.classify(receiver(airplay: nil, raop: Self.uxplayRAOP))
        XCTAssertEqual(raopOnly.deviceClass, "screen-mirroring", raopOnly.reason)
        XCTAssertTrue(raopOnly.reason.contains("_raop._tcp ft=0x5A7FFEE6,0x0: bit 7"), raopOnly.reason)
    }

    func testRealOldAppleTVIsUnclassifiedAndSaysWhatItAdvertised() {
        // An Apple TV 3 sets bit 0 (URL video, AirPlay 1) but not 49: no bundled class stands for it.
        var txt = Self.uxplayAirPlay
        txt["features"] = "0x5A7FFFF7,0x1E"
        let result = classifier.classify(receiver(airplay: txt, raop: nil))
        XCTAssertNil(result.deviceClass, result.reason)
        XCTAssertEqual(result.reason, "no profile's match fits (model AppleTV3,2, manufacturer Apple, plays video, services _airplay._tcp); "
            + "pin it to a class in an --inventory file")
    }

    func testAudioOnlyFeaturesStillMakeASpeakerAndAModelStillWins() {
        // shairport-sync 4 (AirPlay 2) advertises features without a video or screen bit.
        let airplay2 = classifier.classify(receiver(airplay: ["deviceid": "02:00:00:00:00:21", "model": "ShairportSync",
                                                              "features": "0x405C4A00,0x18340"], raop: nil))
        XCTAssertEqual(airplay2.deviceClass, "speaker-audio-only", airplay2.reason)
        XCTAssertTrue(airplay2.reason.contains("no URL video"), airplay2.reason)
        let airport = classifier.classify(receiver(airplay: nil, raop: ["am": "AirPort10,115"]))
        XCTAssertEqual(airport.deviceClass, "speaker-audio-only")
        XCTAssertTrue(airport.reason.hasPrefix("speaker-audio-only: _raop._tcp am=AirPort10,115 ~ AirPort*"), airport.reason)
    }

    func testServicesMustMatchExactly() {
        let rule = MatchRule(services: ["_raop._tcp"])
        XCTAssertNotNil(rule.evaluate(ReceiverFacts(services: ["_raop._tcp"])))
        XCTAssertNil(rule.evaluate(ReceiverFacts(services: ["_airplay._tcp", "_raop._tcp"])), "an AirPlay record too is not RAOP-only")
        XCTAssertNil(rule.evaluate(ReceiverFacts()), "unknown services match nothing")
    }

    func testScreenMirroringGradesTransitionsLowAndSaysWhy() throws {
        let profile = try XCTUnwrap(classifier.profiles.first { $0.id == "screen-mirroring" })
        let codec = try XCTUnwrap(RuleCatalog.rule("video-codec-mismatch")).description
        XCTAssertEqual(profile.severity(for: codec), .info)
        XCTAssertTrue(profile.plays.video, "the mirrored picture is shown: video rules apply, graded as the sender takes them")
        XCTAssertTrue(profile.description?.contains("switches decoders itself") ?? false)
    }

    /// UxPlay 1.74 started `-hls -pin 4321` (records as its lib/mdnsd/dnssd_mdnsd.c writes them):
    /// features 0x5A7FFEE6,0x0 (bit 27 legacy pairing, no URL video bit), `pw=true`, raop
    /// `sf=0x8c`, model AppleTV3,2 with UxPlay's fixed `pi`. Its class comes from its bits, its
    /// pairing is legacy with a code, and the Apple model is said not to be proof.
    static let uxplay174AirPlay: TXTRecord = ["deviceid": "12:db:3f:89:d7:c8", "features": "0x5A7FFEE6,0x0", "pw": "true", "flags": "0x4",
                                              "model": "AppleTV3,2", "pk": "b07727d6f6cd6e08b58ede525ec3cdeaa252ad9f683feb212ef8a205246554e7",
                                              "pi": "2e388006-13ba-4041-9a67-25dd4a43d536", "srcvers": "220.68", "vv": "2"]
    static let uxplay174RAOP: TXTRecord = ["ch": "2", "cn": "0,1,2,3", "da": "true", "et": "0,3,5", "vv": "2", "ft": "0x5A7FFEE6,0x0",
                                           "am": "AppleTV3,2", "md": "0,1,2", "rhd": "5.6.0.0", "pw": "true", "sr": "44100", "ss": "16",
                                           "sv": "false", "tp": "UDP", "txtvers": "1", "sf": "0x8c", "vs": "220.68", "vn": "65537", "pk": "b077"]

    func testUxPlay174WithAPINIsLegacyPINPairingAndNotTakenForAnAppleTV() {
        let uxplay = receiver(airplay: Self.uxplay174AirPlay, raop: Self.uxplay174RAOP)
        let result = classifier.classify(uxplay)
        XCTAssertEqual(result.deviceClass, "screen-mirroring", result.reason)
        XCTAssertEqual(uxplay.pairing.kind, .legacyPin)
        XCTAssertEqual(uxplay.pairing.scheme, "legacy-pin")
        XCTAssertEqual(uxplay.pairing.legacyPairingBit, true)
        XCTAssertEqual(uxplay.pairing.pw, true)
        XCTAssertEqual(uxplay.model, "AppleTV3,2")
        XCTAssertNil(uxplay.manufacturer, "not inferred as Apple")
        XCTAssertNil(uxplay.product, "not named an Apple TV (3rd generation)")
        XCTAssertEqual(uxplay.modelDoubts, [
            "_airplay._tcp pi=2e388006-13ba-4041-9a67-25dd4a43d536 is the fixed value built into UxPlay and RPiPlay, not a device's own identifier",
            "features 0x000000005A7FFEE6 has no AirPlay video bit (0 or 49): every Apple TV advertises one",
        ])
        // Without -pin: legacy pairing without a code.
        var open = Self.uxplay174AirPlay, openRAOP = Self.uxplay174RAOP
        open["pw"] = "false"
        openRAOP["pw"] = "false"
        openRAOP["sf"] = "0x4"
        XCTAssertEqual(receiver(airplay: open, raop: openRAOP).pairing.scheme, "legacy")
        // A real Apple TV 3 (video bit set, its own pi) keeps its manufacturer and product.
        var appleTV = Self.uxplay174AirPlay
        appleTV["features"] = "0x5A7FFFF7,0x1E"
        appleTV["pi"] = "b08f5a79-db29-4384-b456-a4784d9e6055"
        let real = receiver(airplay: appleTV, raop: nil)
        XCTAssertEqual(real.modelDoubts, [])
        XCTAssertEqual(real.manufacturer, "Apple")
    }
}
