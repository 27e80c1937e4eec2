import Compatibility
import Foundation
@testable import Matrix
import MediaProbe
import XCTest

final class EncoderCompatibilityTests: XCTestCase {
    func caseResult(_ id: String, primary: MediaDescription, ads: [MediaDescription], profiles: [DeviceProfile]) -> CaseResult {
        let p = AuditedAsset(role: "primary", input: primary.input, media: primary)
        let assets = ads.enumerated().map { AuditedAsset(role: "interstitial \($0.offset + 1)", input: $0.element.input, media: $0.element) }
        let audit = TransitionAuditor().audit(primary: p, interstitials: assets, profiles: profiles)
        return CaseResult(caseId: id, kind: "explicit", primary: primary.input, interstitials: ads.map(\.input), tags: [],
                          startedAt: Date(), seconds: 0, failure: nil, assets: [p] + audit.interstitials, placements: [],
                          cells: CellGrader(expectedIssues: [], threshold: .error).cells(caseId: id, findings: audit.findings,
                                                                                          deviceClasses: profiles.map(\.id)))
    }

    func testAgreeingPrimariesGiveOneSetOfSettingsFromTheRules() throws {
        let profiles = try bundledProfiles()
        let view = EncoderCompatibility(cases: [
            caseResult("a", primary: media("/m/p1.mp4"), ads: [media("/m/ad25.mp4", rate: Rational(25, 1)), media("/m/ok.mp4")], profiles: profiles),
            caseResult("b", primary: media("/m/p2.mp4"), ads: [media("/m/hevc.mp4", codec: "hevc")], profiles: profiles),
        ], profiles: profiles)
        XCTAssertTrue(view.primariesAgree)
        let group = try XCTUnwrap(view.groups.first)
        XCTAssertEqual(group.cases, ["a", "b"])
        XCTAssertEqual(group.primaries, ["/m/p1.mp4", "/m/p2.mp4"])
        let settings = Dictionary(uniqueKeysWithValues: group.settings.map { ($0.rule, $0) })
        XCTAssertEqual(settings["video-codec-mismatch"]?.value, "h264")
        XCTAssertEqual(settings["frame-rate-mismatch"]?.value, "29.97")
        XCTAssertEqual(settings["aspect-ratio-mismatch"]?.value, "16:9")
        XCTAssertEqual(settings["dynamic-range-mismatch"]?.value, "SDR")
        XCTAssertEqual(settings["sample-rate-mismatch"]?.value, "48000 Hz")
        XCTAssertEqual(settings["track-set-mismatch"]?.value, "video+audio")
        XCTAssertEqual(settings["resolution-change"]?.value, "1920x1080")
        XCTAssertEqual(settings["resolution-change"]?.requiredBy, ["smart-tv-low-end"], "a warning there, info elsewhere")
        XCTAssertEqual(settings["container-change"]?.value, "MP4 (fMP4)")
        XCTAssertEqual(settings["container-change"]?.arguments, "-f mp4")
        XCTAssertTrue(settings["video-codec-mismatch"]?.requiredBy.contains("smart-tv-low-end") == true)
        XCTAssertFalse(settings["video-codec-mismatch"]?.requiredBy.contains("apple-tv-4k") == true, "info on Apple TV 4K")
        XCTAssertTrue(group.arguments.contains("-c:v libx264 -profile:v high"), group.arguments)
        XCTAssertTrue(group.arguments.contains("-r 30000/1001"), group.arguments)
        XCTAssertFalse(group.arguments.contains("tonemap"), "an SDR target is tagged, not tone-mapped: \(group.arguments)")
        XCTAssertEqual(group.interstitials, 3)
        XCTAssertEqual(group.interstitialsAlreadyMatching, 1)
    }

    func testDisagreeingPrimariesAreGroupedAndNamed() throws {
        let profiles = try bundledProfiles()
        let view = EncoderCompatibility(cases: [
            caseResult("ntsc", primary: media("/m/p2997.mp4"), ads: [media("/m/ad.mp4")], profiles: profiles),
            caseResult("pal", primary: media("/m/p25.mp4", rate: Rational(25, 1)), ads: [media("/m/ad.mp4")], profiles: profiles),
            caseResult("ntsc-2", primary: media("/m/p2997b.mp4"), ads: [media("/m/ad.mp4")], profiles: profiles),
        ], profiles: profiles)
        XCTAssertFalse(view.primariesAgree)
        XCTAssertEqual(view.groups.map(\.cases), [["ntsc", "ntsc-2"], ["pal"]])
        XCTAssertEqual(view.differingParameters, ["frame rate"])
        XCTAssertTrue(view.groups[1].arguments.contains("-r 25/1"), view.groups[1].arguments)
    }

    func testCaveatWhenAClassCannotPlayThePrimary() throws {
        let profiles = try bundledProfiles().filter { $0.id == "smart-tv-low-end" }
        let view = EncoderCompatibility(cases: [caseResult("hevc", primary: media("/m/hevc.mp4", codec: "hevc"), ads: [], profiles: profiles)],
                                        profiles: profiles)
        XCTAssertTrue(view.groups[0].caveats.first?.hasPrefix("smart-tv-low-end cannot play the primary itself (unsupported-video-codec") == true,
                      "\(view.groups[0].caveats)")
    }
}
