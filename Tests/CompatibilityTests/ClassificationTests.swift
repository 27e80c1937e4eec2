@testable import Compatibility
import Discovery
import Foundation
import SeamcheckTestSupport
import XCTest

/// Receivers built from the TXT records of reference/airplay-discovery.md.
enum RealReceivers {
    static let records: [String: TXTRecord] = [
        "Apple TV 4K": ["deviceid": "90:DD:5D:98:F0:0A", "features": "0x4A7FFFF7,0x4155FDE", "flags": "0x10644",
                        "model": "AppleTV6,2", "protovers": "1.1", "srcvers": "380.20.1", "osvers": "12.2.1"],
        "Apple TV HD": ["model": "AppleTV5,3", "osvers": "14.2", "srcvers": "525.38.42", "flags": "0x244",
                        "features": "0x5A7FDFD5,0x3C155FDE"],
        "HomePod": ["model": "AudioAccessory1,1", "osvers": "14.3", "srcvers": "530.6", "flags": "0x1a404",
                    "features": "0x4A7FCA00,0x3C356BD0"],
        "Roku": ["manufacturer": "Roku", "model": "3810X", "srcvers": "377.28.01", "flags": "0x644", "rsf": "0x3",
                 "features": "0x7F8AD0,0x10BCF46"],
        "Samsung": ["manufacturer": "Samsung", "model": "UNU7090", "srcvers": "377.17.24.6", "rsf": "0x3",
                    "features": "0x7F8AD0,0x38BCB46"],
        "LG": ["manufacturer": "LG", "integrator": "LG Electronics", "model": "55UQ80006LD", "srcvers": "377.40.00",
               "rsf": "0x3", "features": "0x7F8AD0,0x38BCF46", "flags": "0x244"],
        "Sonos": ["manufacturer": "Sonos", "model": "Bookshelf", "srcvers": "366.0", "flags": "0x4", "rsf": "0x0",
                  "features": "0x445F8A00,0x1C340"],
        "Shairport": ["model": "ShairportSync", "srcvers": "366.0", "osvers": "15.0", "features": "0x405C4A00,0x18340"],
    ]

    static let expectedClasses: [String: String] = [
        "Apple TV 4K": "apple-tv-4k", "Apple TV HD": "apple-tv-hd", "HomePod": "speaker-audio-only",
        "Roku": "smart-tv-low-end", "Samsung": "smart-tv-low-end", "LG": "smart-tv-low-end",
        "Sonos": "speaker-audio-only", "Shairport": "speaker-audio-only",
    ]

    static func receiver(_ name: String, txt: TXTRecord? = nil) -> Receiver {
        Receiver.merge([ResolvedService(type: "_airplay._tcp", name: name, interface: "lo", hostName: "h.local",
                                        address: "127.0.0.1", port: 7000, txt: txt ?? records[name] ?? [:])])[0]
    }
}

final class ClassificationTests: XCTestCase {
    let bundled = try! ProfileLoader.loadDirectory(MediaFixture.packageRoot + "/DeviceProfiles")

    func testRealRecordsLandInTheirClassesWithBundledProfiles() {
        let classifier = ReceiverClassifier(profiles: bundled)
        for (name, expected) in RealReceivers.expectedClasses {
            let result = classifier.classify(RealReceivers.receiver(name))
            XCTAssertEqual(result.deviceClass, expected, "\(name): \(result.reason)")
            XCTAssertEqual(result.classifiedBy, .profile, name)
        }
    }

    func testEveryBundledProfileHasAMatchSection() {
        for profile in bundled { XCTAssertNotNil(profile.match, profile.id) }
    }

    func testExactModelBeatsPatternAndLongerPatternBeatsShorter() {
        let profiles = [
            profile("any-apple-tv", MatchRule(models: ["AppleTV*"])),
            profile("gen-2", MatchRule(models: ["AppleTV11,*"])),
            profile("exact", MatchRule(models: ["AppleTV11,1"])),
        ]
        let classifier = ReceiverClassifier(profiles: profiles)
        let candidates = classifier.candidates(for: ReceiverFacts(model: "AppleTV11,1"))
        XCTAssertEqual(candidates.map(\.profile), ["exact", "gen-2", "any-apple-tv"])
        XCTAssertEqual(candidates.map(\.score), [100, 60, 57])
        XCTAssertEqual(classifier.candidates(for: ReceiverFacts(model: "AppleTV14,1")).map(\.profile), ["any-apple-tv"])
    }

    func testCriteriaAddUpSoTheRuleThatSaysMoreWins() {
        let profiles = [
            profile("tv", MatchRule(features: ["SupportsAirPlayVideoV2"], video: true)),
            profile("lg-tv", MatchRule(manufacturers: ["lg"], features: ["49"], video: true)),
        ]
        let facts = ReceiverFacts(receiver: RealReceivers.receiver("LG"))
        let candidates = ReceiverClassifier(profiles: profiles).candidates(for: facts)
        XCTAssertEqual(candidates.map(\.profile), ["lg-tv", "tv"])
        XCTAssertEqual(candidates.map(\.score), [55, 15])
        XCTAssertEqual(candidates.first?.evidence, ["manufacturer LG",
                                                    "_airplay._tcp features=0x7F8AD0,0x38BCF46: bit 49 SupportsAirPlayVideoV2 set",
                                                    "plays video (bit 49 SupportsAirPlayVideoV2 set)"])
    }

    func testEveryCriterionOfARuleMustHold() {
        let rule = MatchRule(models: ["55UQ*"], manufacturers: ["Samsung"])
        XCTAssertNil(rule.evaluate(ReceiverFacts(receiver: RealReceivers.receiver("LG"))))
        XCTAssertNil(MatchRule(features: ["SupportsAirPlayVideoV1"]).evaluate(ReceiverFacts(receiver: RealReceivers.receiver("LG"))))
    }

    func testAlternativeRulesScoreAsTheBestOneThatMatches() {
        let match = ReceiverMatch(rules: [MatchRule(models: ["AudioAccessory*"]), MatchRule(video: false)])
        XCTAssertEqual(match.evaluate(ReceiverFacts(receiver: RealReceivers.receiver("HomePod")))?.score, 64)
        XCTAssertEqual(match.evaluate(ReceiverFacts(receiver: RealReceivers.receiver("Sonos")))?.score, 5)
        XCTAssertNil(match.evaluate(ReceiverFacts(receiver: RealReceivers.receiver("Roku"))))
    }

    func testTieLeavesTheReceiverUnclassified() {
        let classifier = ReceiverClassifier(profiles: [profile("a", MatchRule(video: true)), profile("b", MatchRule(video: true))])
        let result = classifier.classify(RealReceivers.receiver("Roku"))
        XCTAssertNil(result.deviceClass)
        XCTAssertNil(result.classifiedBy)
        XCTAssertTrue(result.reason.hasPrefix("ambiguous: a, b match equally (score 5)"), result.reason)
    }

    func testUnknownFeaturesAreNotEvidenceOfAnAudioOnlyReceiver() {
        let broken = RealReceivers.receiver("Broken", txt: ["deviceid": "02:00:00:00:00:01", "features": "0xZZ", "model": "X1"])
        let result = ReceiverClassifier(profiles: bundled).classify(broken)
        XCTAssertNil(result.deviceClass, result.reason)
        XCTAssertEqual(result.reason, "no profile's match fits (model X1, manufacturer unknown, features unknown, services _airplay._tcp); "
            + "pin it to a class in an --inventory file")
        XCTAssertNil(ReceiverClassifier(profiles: bundled).classify(RealReceivers.receiver("Empty", txt: [:])).deviceClass)
    }

    func testUnknownAppleModelIsNotGuessed() {
        let old = RealReceivers.receiver("Old", txt: ["model": "AppleTV3,2", "features": "0x5A7FFFF7,0x1E"])
        let result = ReceiverClassifier(profiles: bundled).classify(old)
        XCTAssertNil(result.deviceClass, "a 3rd-gen Apple TV fits no class: \(result.reason)")
    }

    func testInfoWithDolbyVisionRefinesALowEndTV() {
        let classifier = ReceiverClassifier(profiles: bundled)
        let lg = RealReceivers.receiver("LG")
        let dolby = ReceiverInfo(displays: [.init(widthPixels: 3840, heightPixels: 2160,
                                                  hdrModes: [.init(mode: "DolbyVision", codecs: ["dvh1.05.06"])])])
        let refined = classifier.classify(lg, info: dolby)
        XCTAssertEqual(refined.deviceClass, "smart-tv-dolby-vision")
        XCTAssertEqual(refined.classifiedBy, .info)
        XCTAssertTrue(refined.reason.hasSuffix("; from TXT alone: smart-tv-low-end"), refined.reason)

        let sdr = classifier.classify(lg, info: ReceiverInfo(displays: [.init(widthPixels: 1920, heightPixels: 1080)]))
        XCTAssertEqual(sdr.deviceClass, "smart-tv-low-end")
        XCTAssertEqual(sdr.classifiedBy, .profile, "info that changes nothing is not the reason")
    }

    func testInfoFillsWhatMalformedTXTLacks() {
        let receiver = RealReceivers.receiver("Bad TXT", txt: ["deviceid": "02:00:00:00:00:02", "features": "oops"])
        let info = ReceiverInfo(model: "AppleTV11,1", features: AirPlayFeatures(features: "0x4A7FFFF7,0x4155FDE"))
        let result = ReceiverClassifier(profiles: bundled).classify(receiver, info: info)
        XCTAssertEqual(result.deviceClass, "apple-tv-4k")
        XCTAssertEqual(result.classifiedBy, .info)
    }

    func testInventoryPinBeatsEveryProfile() throws {
        let inventory = try LabInventory.parse("""
        receivers:
          - deviceId: 90-dd-5d-98-f0-0a
            deviceClass: smart-tv-low-end
            note: rack 3
          - name: roku
            deviceClass: smart-tv-dolby-vision
        """, file: "lab.yaml", knownClasses: bundled.map(\.id))
        let classifier = ReceiverClassifier(profiles: bundled, inventory: inventory)
        let appleTV = classifier.classify(RealReceivers.receiver("Apple TV 4K"))
        XCTAssertEqual(appleTV.deviceClass, "smart-tv-low-end")
        XCTAssertEqual(appleTV.classifiedBy, .inventory)
        XCTAssertEqual(appleTV.reason, "pinned by receivers[0] of lab.yaml (deviceId 90:DD:5D:98:F0:0A): rack 3")
        XCTAssertEqual(classifier.classify(RealReceivers.receiver("Roku")).deviceClass, "smart-tv-dolby-vision")
        XCTAssertEqual(classifier.classify(RealReceivers.receiver("LG")).classifiedBy, .profile)
    }

    func testClassifiedReceiverEncodesFlatWithNullClassAndInfoWarning() throws {
        let classifier = ReceiverClassifier(profiles: bundled)
        let attempt = InfoAttempt(transport: "HTTP/1.1", address: "127.0.0.1", port: 7000, service: "_airplay._tcp",
                                  status: nil, result: "no answer within 2 s")
        let entry = classifier.classified(RealReceivers.receiver("Odd", txt: ["model": "X", "features": "0x1"]),
                                          info: InfoOutcome(result: .failure(.timedOut(address: "127.0.0.1:7000", seconds: 2)),
                                                            attempts: [attempt]))
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: JSONEncoder().encode(entry)) as? [String: Any])
        XCTAssertTrue(object["deviceClass"] is NSNull, "unclassified is an explicit null")
        XCTAssertTrue(object["classifiedBy"] is NSNull)
        XCTAssertEqual(object["name"] as? String, "Odd")
        XCTAssertEqual(object["features"] as? String, "0x0000000000000001")
        XCTAssertNil(object["info"])
        XCTAssertEqual((object["warnings"] as? [String])?.last, "GET /info: 127.0.0.1:7000 gave no answer within 2 s")
        XCTAssertEqual(object["infoResult"] as? String, "failed")
        XCTAssertTrue(object["infoAnsweredBy"] is NSNull, "no request got a status line")
        XCTAssertEqual((object["infoAttempts"] as? [[String: Any]])?.first?["result"] as? String, "no answer within 2 s")
    }

    func testRefusalIsEncodedAsAFactNotAWarning() throws {
        let refusal = InfoAttempt(transport: "RTSP/1.0", address: "127.0.0.1", port: 5000, service: "_raop._tcp",
                                  status: 400, result: "400 Unauthorized")
        let entry = ReceiverClassifier(profiles: bundled).classified(
            RealReceivers.receiver("Sonos"),
            info: InfoOutcome(result: .failure(.refused(status: 400, reason: "Unauthorized")), attempts: [refusal], answeredBy: refusal))
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: JSONEncoder().encode(entry)) as? [String: Any])
        XCTAssertEqual(object["warnings"] as? [String], entry.receiver.warnings, "no /info line among the warnings")
        XCTAssertEqual(object["infoResult"] as? String, "refused")
        let answeredBy = try XCTUnwrap(object["infoAnsweredBy"] as? [String: Any])
        XCTAssertEqual(answeredBy["transport"] as? String, "RTSP/1.0")
        XCTAssertEqual(answeredBy["port"] as? Int, 5000)
        XCTAssertEqual(answeredBy["status"] as? Int, 400)
        let plain = try XCTUnwrap(JSONSerialization.jsonObject(with: JSONEncoder().encode(
            ReceiverClassifier(profiles: bundled).classified(RealReceivers.receiver("Sonos")))) as? [String: Any])
        XCTAssertNil(plain["infoResult"], "without --info there is no /info field")
    }

    func testGlobIsCaseInsensitiveWithStarOnly() {
        XCTAssertTrue(MatchRule.glob("AppleTV11,*", matches: "appletv11,1"))
        XCTAssertTrue(MatchRule.glob("Mac*,*", matches: "MacBookPro18,3"))
        XCTAssertTrue(MatchRule.glob("*Accessory*", matches: "AudioAccessory5,1"))
        XCTAssertFalse(MatchRule.glob("Mac*,*", matches: "iMac21,1"))
        XCTAssertFalse(MatchRule.glob("AppleTV6,2", matches: "AppleTV6,21"))
        XCTAssertFalse(MatchRule.glob("AppleTV?,2", matches: "AppleTV6,2"), "? is a literal character")
        XCTAssertTrue(MatchRule.glob("A*A", matches: "AA"))
        XCTAssertFalse(MatchRule.glob("A*A*A", matches: "AA"))
    }

    private func profile(_ id: String, _ rule: MatchRule) -> DeviceProfile {
        DeviceProfile(id: id, name: id, plays: Capabilities(video: true, videoCodecs: ["h264"], maxWidth: nil, maxHeight: nil,
                                                            maxFrameRate: nil, dynamicRanges: ["SDR"], audioCodecs: ["aac"],
                                                            maxChannels: 2, sampleRates: [48000]),
                      match: ReceiverMatch(rules: [rule]))
    }
}
