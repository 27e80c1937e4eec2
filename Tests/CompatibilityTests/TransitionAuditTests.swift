@testable import Compatibility
import Foundation
import MediaProbe
import SeamcheckTestSupport
import XCTest

/// The rules on real media probed with FFmpeg: which fire for each pair, and which do not.
final class TransitionAuditTests: XCTestCase {
    /// The bundled profiles; a test that finds none fails rather than auditing zero classes.
    static let profiles = (try? ProfileLoader.loadDirectory(MediaFixture.packageRoot + "/DeviceProfiles")) ?? []
    let prober = MediaProber()

    override func setUpWithError() throws {
        XCTAssertEqual(Self.profiles.count, 7, "the seven bundled profiles must load (DeviceProfileTests says why not)")
        _ = try ProfileLoader.loadDirectory(MediaFixture.packageRoot + "/DeviceProfiles")
    }

    /// The transition rules that fire; capability findings are tested on their own below.
    func firedRules(_ fixture: MediaFixture, against primary: MediaFixture = Fixtures.primary,
                    profile: String = "smart-tv-low-end") throws -> Set<String> {
        let result = try audit(fixture, against: primary, profiles: [profile])
        return Set(result.findings.map(\.rule).filter { RuleIdentifiers.transition.contains($0) })
    }

    func capabilityRules(_ fixture: MediaFixture, profile: String) throws -> Set<String> {
        let result = try audit(fixture, profiles: [profile])
        return Set(result.findings.filter { $0.subject.hasPrefix("interstitial") }.map(\.rule)
            .filter { RuleIdentifiers.capability.contains($0) })
    }

    func audit(_ fixture: MediaFixture, against primary: MediaFixture = Fixtures.primary,
               profiles ids: [String]) throws -> AuditResult {
        let profiles = Self.profiles.filter { ids.contains($0.id) }
        XCTAssertEqual(profiles.count, ids.count)
        let p = AuditedAsset(role: "primary", input: "primary", media: try prober.probe(try primary.path()))
        let i = AuditedAsset(role: "interstitial 1", input: "ad", media: try prober.probe(try fixture.path()))
        return TransitionAuditor().audit(primary: p, interstitials: [i], profiles: profiles)
    }

    func testMatchingInterstitialFiresNothingOnAnyClass() throws {
        let result = try audit(Fixtures.matching, profiles: Self.profiles.map(\.id))
        XCTAssertEqual(result.deviceClasses.count, 7)
        XCTAssertEqual(result.findings, [])
        XCTAssertFalse(result.fails(at: .info))
    }

    func testAVCToHEVCFiresVideoCodecOnly() throws {
        XCTAssertEqual(try firedRules(Fixtures.hevc), ["video-codec-mismatch"])
    }

    func testTwentyNineNineSevenToTwentyFiveFiresFrameRateOnly() throws {
        XCTAssertEqual(try firedRules(Fixtures.fps25), ["frame-rate-mismatch"])
    }

    func testFiftyNineNineFourFiresFrameRateMultipleOnlyAndOnlyAsAWarningOnTheLowEndTV() throws {
        XCTAssertEqual(try firedRules(Fixtures.fps5994), ["frame-rate-multiple"])
        let result = try audit(Fixtures.fps5994, profiles: ["smart-tv-low-end", "apple-tv-4k"])
        XCTAssertEqual(Set(result.findings.map { "\($0.deviceClass ?? "") \($0.severity)" }),
                       ["smart-tv-low-end warning", "apple-tv-4k info"])
    }

    func testInterlacedAdFiresScanTypeAndTheInterlacedCapability() throws {
        XCTAssertEqual(try firedRules(Fixtures.interlaced), ["scan-type-mismatch"])
        XCTAssertEqual(try capabilityRules(Fixtures.interlaced, profile: "apple-tv-4k"), ["interlaced-video"])
        XCTAssertEqual(try capabilityRules(Fixtures.interlaced, profile: "speaker-audio-only"), [])
        XCTAssertEqual(try prober.probe(try Fixtures.interlaced.path()).primaryVideo?.fieldOrder, "tt")
        XCTAssertEqual(try prober.probe(try Fixtures.primary.path()).primaryVideo?.fieldOrder, "progressive")
    }

    func testFourByThreeFiresAspectRatioOnly() throws {
        XCTAssertEqual(try firedRules(Fixtures.fourByThree), ["aspect-ratio-mismatch"])
    }

    /// Its display aspect ratio matches (no aspect-ratio-mismatch), but its decoder is configured
    /// for 240x180 against the primary's 320x180: a coded-size change (catalog v3).
    func testAnamorphicInterstitialMatchesWidescreenPrimaryInShapeButNotInCodedSize() throws {
        XCTAssertEqual(try firedRules(Fixtures.anamorphic), ["resolution-change"])
        XCTAssertEqual(try firedRules(Fixtures.anamorphic, profile: "apple-tv-4k"), ["resolution-change"])
        let result = try audit(Fixtures.anamorphic, profiles: ["smart-tv-low-end", "apple-tv-4k", "speaker-audio-only"])
        XCTAssertEqual(Set(result.findings.map { "\($0.rule) \($0.deviceClass ?? "") \($0.severity)" }),
                       ["resolution-change smart-tv-low-end warning", "resolution-change apple-tv-4k info"])
    }

    func testASmallerSixteenByNineAdFiresResolutionChangeOnly() throws {
        XCTAssertEqual(try firedRules(Fixtures.smaller), ["resolution-change"])
        let finding = try XCTUnwrap(try audit(Fixtures.smaller, profiles: ["smart-tv-low-end"]).findings.first)
        XCTAssertEqual(finding.expected, "320x180")
        XCTAssertEqual(finding.actual, "256x144")
        XCTAssertEqual(finding.remediation, "-c:v libx264 -profile:v high -pix_fmt yuv420p -vf scale=320:180,setsar=1/1 -c:a copy")
    }

    func testATransportStreamAdAfterAnMP4PrimaryFiresContainerChangeOnly() throws {
        XCTAssertEqual(try firedRules(Fixtures.transportStream), ["container-change"])
        let result = try audit(Fixtures.transportStream, profiles: ["smart-tv-low-end", "smart-tv-dolby-vision", "apple-tv-4k"])
        XCTAssertEqual(Set(result.findings.map { "\($0.deviceClass ?? "") \($0.severity)" }),
                       ["smart-tv-low-end error", "smart-tv-dolby-vision warning", "apple-tv-4k info"])
        XCTAssertEqual(result.findings.first?.expected, "MP4 (fMP4)")
        XCTAssertEqual(result.findings.first?.actual, "MPEG-TS")
        XCTAssertEqual(result.findings.first?.remediation, "-f mp4 -c:v copy -c:a copy")
        XCTAssertEqual(try firedRules(Fixtures.transportStream, against: Fixtures.transportStream), [])
    }

    func testAACToAC3FiresAudioCodecOnly() throws {
        XCTAssertEqual(try firedRules(Fixtures.ac3), ["audio-codec-mismatch"])
    }

    func testFortyEightToFortyFourOneFiresSampleRateOnly() throws {
        XCTAssertEqual(try firedRules(Fixtures.aac44), ["sample-rate-mismatch"])
    }

    func testStereoToFivePointOneFiresChannelLayoutOnly() throws {
        XCTAssertEqual(try firedRules(Fixtures.surround), ["channel-layout-mismatch"])
    }

    func testSDRToHDR10FiresDynamicRangeAndCodecTransitions() throws {
        XCTAssertEqual(try firedRules(Fixtures.hdr10), ["dynamic-range-mismatch", "video-codec-mismatch"])
    }

    func testSeverityFollowsTheDeviceClass() throws {
        let result = try audit(Fixtures.hevc, profiles: ["smart-tv-low-end", "apple-tv-4k", "speaker-audio-only"])
        let codecFindings = result.findings.filter { $0.rule == "video-codec-mismatch" }
        let byClass = Dictionary(uniqueKeysWithValues: codecFindings.map { ($0.deviceClass ?? "", $0.severity) })
        XCTAssertEqual(byClass, ["smart-tv-low-end": .error, "apple-tv-4k": .info])
        let finding = try XCTUnwrap(codecFindings.first)
        XCTAssertEqual(finding.expected, "h264")
        XCTAssertEqual(finding.actual, "hevc")
        XCTAssertEqual(finding.subject, "interstitial 1 (\(try Fixtures.hevc.path()))")
        XCTAssertTrue(finding.remediation?.hasPrefix("-c:v libx264") ?? false, "\(String(describing: finding.remediation))")
        XCTAssertTrue(result.fails(at: .error))
    }

    func testAudioOnlyReceiverStillSeesAudioSwitch() throws {
        let result = try audit(Fixtures.ac3, profiles: ["speaker-audio-only"])
        let switchFinding = try XCTUnwrap(result.findings.first { $0.rule == "audio-codec-mismatch" })
        XCTAssertEqual(switchFinding.severity, .warning)
        XCTAssertEqual(Set(result.findings.map(\.rule)), ["audio-codec-mismatch", "unsupported-audio-codec"],
                       "a HomePod does not decode AC-3 either")
    }

    func testDelayedAudioFiresAVStartAndUntaggedLanguageIsNotCompared() throws {
        XCTAssertEqual(try firedRules(Fixtures.delayedAudio), ["av-start-misaligned"],
                       "the primary has no language tag, so the French ad is not a language switch")
        XCTAssertEqual(try firedRules(Fixtures.delayedAudio, against: Fixtures.delayedAudio), ["av-start-misaligned"],
                       "a misaligned interstitial is misaligned even after a misaligned primary; both are French")
    }

    func testAVAlignmentIsNotGradedForAudioOnlyReceivers() throws {
        let result = try audit(Fixtures.delayedAudio, profiles: ["speaker-audio-only", "smart-tv-low-end"])
        XCTAssertEqual(result.findings.filter { $0.rule == "av-start-misaligned" }.map(\.deviceClass), ["smart-tv-low-end"])
    }

    func testCapabilityRulesOnTheLowEndTV() throws {
        XCTAssertEqual(try capabilityRules(Fixtures.hevc, profile: "smart-tv-low-end"), ["unsupported-video-codec"])
        XCTAssertEqual(try capabilityRules(Fixtures.hdr10, profile: "smart-tv-low-end"),
                       ["unsupported-video-codec", "unsupported-dynamic-range"])
        XCTAssertEqual(try capabilityRules(Fixtures.ac3, profile: "smart-tv-low-end"), ["unsupported-audio-codec"])
        XCTAssertEqual(try capabilityRules(Fixtures.surround, profile: "smart-tv-low-end"), ["unsupported-channel-count"])
        XCTAssertEqual(try capabilityRules(Fixtures.matching, profile: "smart-tv-low-end"), [])
    }

    func testAppleTV4KPlaysWhatTheLowEndTVCannot() throws {
        for fixture in [Fixtures.hevc, Fixtures.hdr10, Fixtures.ac3, Fixtures.surround, Fixtures.dolbyVision] {
            XCTAssertEqual(try capabilityRules(fixture, profile: "apple-tv-4k"), [], fixture.name)
        }
    }
}
