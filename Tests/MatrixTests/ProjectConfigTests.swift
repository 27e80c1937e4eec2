import Compatibility
@testable import Matrix
import XCTest

/// The project file's model: rule settings on top of profiles, accepted entries as expected issues.
final class ProjectConfigTests: XCTestCase {
    let classes = ["smart-tv-low-end", "apple-tv-4k"]

    func finding(_ rule: String, _ deviceClass: String?, subject: String = "interstitial 1 (ad.mp4)") -> Finding {
        Finding(rule: rule, severity: .error, deviceClass: deviceClass, subject: subject, expected: nil, actual: nil,
                message: "m", remediation: nil)
    }

    func testPerClassSettingsWinOverEveryClassOnTopOfTheProfile() throws {
        let config = try ProjectConfigLoader.parse("""
            rules:
              frame-rate-mismatch: info
              video-codec-mismatch:
                smart-tv-low-end: off
            """, file: "p.yml", knownProfiles: classes)
        let plays = Capabilities(video: true, videoCodecs: ["h264"], maxWidth: nil, maxHeight: nil, maxFrameRate: nil,
                                 dynamicRanges: ["SDR"], audioCodecs: ["aac"], maxChannels: 2, sampleRates: [48000])
        let low = config.rules.apply(to: DeviceProfile(id: "smart-tv-low-end", name: "L", plays: plays,
                                                       rules: ["frame-rate-mismatch": .severity(.error), "video-codec-mismatch": .severity(.error)]))
        let high = config.rules.apply(to: DeviceProfile(id: "apple-tv-4k", name: "H", plays: plays, rules: ["video-codec-mismatch": .severity(.info)]))
        let codec = try XCTUnwrap(RuleCatalog.allDescriptions.first { $0.id == "video-codec-mismatch" })
        let rate = try XCTUnwrap(RuleCatalog.allDescriptions.first { $0.id == "frame-rate-mismatch" })
        XCTAssertNil(low.severity(for: codec))
        XCTAssertEqual(low.severity(for: rate), .info)
        XCTAssertEqual(high.severity(for: codec), .info, "a per-class setting for another class changes nothing")
    }

    func testAcceptedEntriesMatchBySubjectAndClassAndSayWhichMatchedNothing() throws {
        let config = try ProjectConfigLoader.parse("""
            accepted:
              - rule: video-codec-mismatch
                class: smart-tv-low-end
                subject: "interstitial * (ad.mp4)"
                reason: R1
              - rule: frame-rate-mismatch
                reason: R2
            """, file: "p.yml", knownProfiles: classes)
        let (marked, unused) = config.accept([finding("video-codec-mismatch", "smart-tv-low-end"),
                                              finding("video-codec-mismatch", "apple-tv-4k"),
                                              finding("video-codec-mismatch", "smart-tv-low-end", subject: "interstitial 2 (other.mp4)")],
                                             input: "main.m3u8")
        XCTAssertEqual(marked.map(\.accepted), ["R1", nil, nil])
        XCTAssertEqual(unused.map(\.origin), ["p.yml: accepted[1]"])
    }

    func testTheMatrixGraderUsesSubjectPatternsFromTheProjectFile() {
        let issue = ExpectedIssue(caseId: "*", rule: "video-codec-mismatch", deviceClass: "*", reason: "R", subject: "*(ad.mp4)")
        let cells = CellGrader(expectedIssues: [issue], threshold: .error).cells(
            caseId: "c", findings: [finding("video-codec-mismatch", "smart-tv-low-end"),
                                    finding("video-codec-mismatch", "apple-tv-4k", subject: "interstitial 2 (other.mp4)")],
            deviceClasses: classes, input: "main.m3u8")
        XCTAssertEqual(cells.map(\.status), [.known, .fail])
    }
}
