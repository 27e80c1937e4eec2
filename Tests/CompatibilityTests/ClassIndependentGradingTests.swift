@testable import Compatibility
import XCTest

/// Profiles grade spec and declared findings too, although those have no device class.
final class ClassIndependentGradingTests: XCTestCase {
    let finding = Finding(rule: "missing-program-date-time", severity: .error, deviceClass: nil, subject: "media.m3u8",
                          expected: nil, actual: nil, message: "no PROGRAM-DATE-TIME", remediation: nil)

    func profile(_ id: String, _ setting: RuleSetting?) -> DeviceProfile {
        DeviceProfile(id: id, name: id, plays: Capabilities(video: true, videoCodecs: ["h264"], maxWidth: nil, maxHeight: nil,
                                                              maxFrameRate: nil, dynamicRanges: ["SDR"], audioCodecs: ["aac"],
                                                              maxChannels: 2, sampleRates: [48000]),
                      rules: setting.map { ["missing-program-date-time": $0] } ?? [:])
    }

    func testOffInEveryAuditedProfileDropsTheFinding() {
        XCTAssertEqual(PlaylistAuditor.graded([finding], by: [profile("a", .off), profile("b", .off)]), [])
    }

    func testTheHighestSeverityAmongProfilesWins() {
        let graded = PlaylistAuditor.graded([finding], by: [profile("a", .off), profile("b", .severity(.info)), profile("c", .severity(.warning))])
        XCTAssertEqual(graded.map(\.severity), [.warning])
        XCTAssertEqual(PlaylistAuditor.graded([finding], by: [profile("a", .off), profile("b", nil)]).map(\.severity), [.error],
                       "a profile that does not name the rule keeps the rule's own severity")
    }

    func testFindingsWithAClassAreLeftAlone() {
        var own = finding
        own.deviceClass = "a"
        XCTAssertEqual(PlaylistAuditor.graded([own], by: [profile("a", .off)]), [own])
    }

    func testAVideoRuleIsNotGradedByAnAudioOnlyClass() {
        let declared = Finding(rule: "declared-resolution-mismatch", severity: .warning, deviceClass: nil, subject: "primary (v.m3u8)",
                               expected: "1280x720", actual: "640x360", message: "RESOLUTION disagrees", remediation: nil)
        var speaker = profile("speaker", nil)
        speaker.plays.video = false
        XCTAssertEqual(PlaylistAuditor.graded([declared], by: [speaker]), [], "a speaker shows no video: the rule does not apply")
        XCTAssertEqual(PlaylistAuditor.graded([declared], by: [speaker, profile("tv", nil)]).map(\.severity), [.warning])
    }
}
