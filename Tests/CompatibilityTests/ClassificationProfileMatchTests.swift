@testable import Compatibility
import Foundation
import XCTest

/// The `match` section of a device profile: decoding and the errors that name its fields.
final class ClassificationProfileMatchTests: XCTestCase {
    let base = """
    id: lab-tv
    name: Lab TV
    plays:
      video: true
      videoCodecs: [h264]
      dynamicRanges: [SDR]
      audioCodecs: [aac]
      maxChannels: 2
      sampleRates: [48000]
    rules: {}

    """

    private func parse(_ match: String) throws -> DeviceProfile {
        try ProfileLoader.parse(base + match, file: "lab-tv.yaml", expectedId: "lab-tv")
    }

    private func assertInvalid(_ match: String, field: String, problem: String, line: UInt = #line) {
        XCTAssertThrowsError(try parse(match), line: line) { error in
            XCTAssertEqual(error as? ProfileError, .invalid(file: "lab-tv.yaml", field: field, problem: problem), line: line)
        }
    }

    func testSingleRuleWithNamesAndBitNumbers() throws {
        let profile = try parse("""
        match:
          models: ["OLED55*", "55UQ80006LD"]
          manufacturers: [LG]
          features: [SupportsAirPlayVideoV2, 49, supportsscreenmulticodec]
          video: true
          hdrFormats: [DolbyVision]
        """)
        let rule = try XCTUnwrap(profile.match?.rules.first)
        XCTAssertEqual(profile.match?.rules.count, 1)
        XCTAssertEqual(rule.models, ["OLED55*", "55UQ80006LD"])
        XCTAssertEqual(rule.features, ["SupportsAirPlayVideoV2", "49", "supportsscreenmulticodec"])
        XCTAssertEqual(rule.video, true)
        XCTAssertEqual(rule.hdrFormats, ["DolbyVision"])
    }

    func testListOfAlternativeRulesRoundTripsThroughJSON() throws {
        let profile = try parse("""
        match:
          - models: ["AudioAccessory*"]
          - video: false
        """)
        XCTAssertEqual(profile.match?.rules, [MatchRule(models: ["AudioAccessory*"]), MatchRule(video: false)])
        let data = try JSONEncoder().encode(profile)
        XCTAssertEqual(try JSONDecoder().decode(DeviceProfile.self, from: data).match, profile.match)
        let single = try parse("match:\n  video: false\n")
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: JSONEncoder().encode(single)) as? [String: Any])
        XCTAssertEqual(object["match"] as? [String: Bool], ["video": false], "one rule encodes as a mapping")
    }

    func testProfileWithoutMatchStillLoads() throws {
        XCTAssertNil(try parse("").match)
    }

    func testUnknownKeysNameTheRuleAndSuggest() {
        assertInvalid("match:\n  model: [X]\n", field: "match.model", problem: "unknown key (did you mean 'models'?)")
        assertInvalid("match:\n  - video: false\n  - vidoe: true\n", field: "match[1].vidoe",
                      problem: "unknown key (did you mean 'video'?)")
    }

    func testValuesAreChecked() {
        assertInvalid("match:\n  features: [SupportsAirPlayVideo2]\n", field: "match.features[0]",
                      problem: "'SupportsAirPlayVideo2' is neither a feature name (did you mean 'SupportsAirPlayVideoV2'?) nor a bit number 0-255")
        assertInvalid("match:\n  features: [300]\n", field: "match.features[0]",
                      problem: "'300' is neither a feature name nor a bit number 0-255")
        assertInvalid("match:\n  hdrFormats: [HDR10+]\n", field: "match.hdrFormats[0]",
                      problem: "'HDR10+' is not one of HDR10, HLG, DolbyVision")
        assertInvalid("match:\n  video: maybe\n", field: "match.video", problem: "expected true or false")
        assertInvalid("match:\n  models: AppleTV6,2\n", field: "match.models", problem: "expected a non-empty list")
        assertInvalid("match:\n  models: []\n", field: "match.models", problem: "expected a non-empty list")
        assertInvalid("match:\n  models: ['*']\n", field: "match.models[0]",
                      problem: "'*' matches every model; leave models out instead")
        assertInvalid("match:\n  manufacturers: [[LG]]\n", field: "match.manufacturers[0]", problem: "expected a non-empty string")
        assertInvalid("match:\n  services: [_raop._tcp, _raop]\n", field: "match.services[1]",
                      problem: "'_raop' is not one of _airplay._tcp, _raop._tcp")
    }

    func testShapeErrors() {
        assertInvalid("match: {}\n", field: "match", problem: "give at least one of features, hdrFormats, manufacturers, models, services, video")
        assertInvalid("match: []\n", field: "match", problem: "give at least one rule")
        assertInvalid("match: apple-tv\n", field: "match", problem: "expected a mapping of criteria, or a list of them")
        assertInvalid("match:\n  - video\n", field: "match[0]", problem: "expected a mapping of criteria (models, manufacturers, ...)")
    }
}
