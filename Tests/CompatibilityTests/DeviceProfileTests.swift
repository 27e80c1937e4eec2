@testable import Compatibility
import Foundation
import SeamcheckTestSupport
import XCTest

final class DeviceProfileTests: XCTestCase {
    var profilesDirectory: String { MediaFixture.packageRoot + "/DeviceProfiles" }

    let valid = """
    id: lab-tv
    name: Lab TV
    plays:
      video: true
      videoCodecs: [h264]
      dynamicRanges: [SDR]
      audioCodecs: [aac]
      maxChannels: 2
      sampleRates: [48000]
    rules:
      video-codec-mismatch: error
      frame-rate-mismatch: off
    """

    func testBundledProfilesAreTheInterfaceClasses() throws {
        let profiles = try ProfileLoader.loadDirectory(profilesDirectory)
        XCTAssertEqual(profiles.map(\.id), ["apple-tv-4k", "apple-tv-hd", "mac", "screen-mirroring", "smart-tv-dolby-vision",
                                            "smart-tv-low-end", "speaker-audio-only"])
        let lowEnd = try XCTUnwrap(profiles.first { $0.id == "smart-tv-low-end" })
        XCTAssertEqual(lowEnd.plays.videoCodecs, ["h264"])
        XCTAssertEqual(lowEnd.plays.dynamicRanges, ["SDR"])
        XCTAssertEqual(lowEnd.plays.audioCodecs, ["aac"])
        XCTAssertEqual(lowEnd.plays.maxChannels, 2)
        let codecRule = try XCTUnwrap(RuleCatalog.rule("video-codec-mismatch")).description
        XCTAssertEqual(lowEnd.severity(for: codecRule), .error)
        XCTAssertEqual(profiles.first { $0.id == "apple-tv-4k" }?.severity(for: codecRule), .info)
        XCTAssertNil(profiles.first { $0.id == "speaker-audio-only" }?.severity(for: codecRule),
                     "video rules do not apply to audio-only receivers")
    }

    func testProfileSetsSeverityOrTurnsRuleOff() throws {
        let profile = try ProfileLoader.parse(valid, file: "lab-tv.yaml", expectedId: "lab-tv")
        XCTAssertEqual(profile.severity(for: try XCTUnwrap(RuleCatalog.rule("video-codec-mismatch")).description), .error)
        XCTAssertNil(profile.severity(for: try XCTUnwrap(RuleCatalog.rule("frame-rate-mismatch")).description))
        let unlisted = try XCTUnwrap(RuleCatalog.rule("sample-rate-mismatch")).description
        XCTAssertEqual(profile.severity(for: unlisted), unlisted.defaultSeverity)
    }

    func testTypoInKeyNamesFileFieldAndSuggestion() {
        let text = valid.replacingOccurrences(of: "maxChannels", with: "maxChanels")
        XCTAssertThrowsError(try ProfileLoader.parse(text, file: "lab-tv.yaml", expectedId: "lab-tv")) { error in
            XCTAssertEqual(error as? ProfileError, .invalid(file: "lab-tv.yaml", field: "plays.maxChanels",
                                                            problem: "unknown key (did you mean 'maxChannels'?)"))
        }
    }

    func testUnknownRuleIdAndBadSeverityAreErrors() {
        let badRule = valid.replacingOccurrences(of: "frame-rate-mismatch: off", with: "frame-rate-mismach: off")
        XCTAssertThrowsError(try ProfileLoader.parse(badRule, file: "f.yaml", expectedId: nil)) { error in
            XCTAssertEqual(error as? ProfileError, .invalid(file: "f.yaml", field: "rules.frame-rate-mismach",
                                                            problem: "unknown rule id (did you mean 'frame-rate-mismatch'?)"))
        }
        let badSeverity = valid.replacingOccurrences(of: "frame-rate-mismatch: off", with: "frame-rate-mismatch: fatal")
        XCTAssertThrowsError(try ProfileLoader.parse(badSeverity, file: "f.yaml", expectedId: nil)) { error in
            guard case .invalid(_, let field, let problem) = error as? ProfileError else { return XCTFail("\(error)") }
            XCTAssertEqual(field, "rules.frame-rate-mismatch")
            XCTAssertTrue(problem.contains("error, warning, info, off"), problem)
        }
    }

    func testWrongTypeMissingKeyAndIdMismatchNameTheField() {
        let wrongType = valid.replacingOccurrences(of: "maxChannels: 2", with: "maxChannels: two")
        XCTAssertThrowsError(try ProfileLoader.parse(wrongType, file: "f.yaml", expectedId: nil)) { error in
            XCTAssertEqual(error as? ProfileError, .invalid(file: "f.yaml", field: "plays.maxChannels", problem: "expected an integer"))
        }
        let missing = valid.replacingOccurrences(of: "name: Lab TV\n", with: "")
        XCTAssertThrowsError(try ProfileLoader.parse(missing, file: "f.yaml", expectedId: nil)) { error in
            XCTAssertEqual(error as? ProfileError, .invalid(file: "f.yaml", field: "name", problem: "required key is missing"))
        }
        XCTAssertThrowsError(try ProfileLoader.parse(valid, file: "other.yaml", expectedId: "other")) { error in
            guard case .invalid(_, "id", _) = error as? ProfileError else { return XCTFail("\(error)") }
        }
        let badRange = valid.replacingOccurrences(of: "[SDR]", with: "[SDR, HDR11]")
        XCTAssertThrowsError(try ProfileLoader.parse(badRange, file: "f.yaml", expectedId: nil)) { error in
            guard case .invalid(_, "plays.dynamicRanges", _) = error as? ProfileError else { return XCTFail("\(error)") }
        }
        XCTAssertThrowsError(try ProfileLoader.parse("id: [unclosed", file: "f.yaml", expectedId: nil)) { error in
            guard case .invalid(_, "(document)", _) = error as? ProfileError else { return XCTFail("\(error)") }
        }
    }
}
