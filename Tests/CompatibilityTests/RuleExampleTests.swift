import Foundation
@testable import Compatibility
import MediaProbe
import XCTest

/// Each rule's examples are its specification: they run here as tests.
final class RuleExampleTests: XCTestCase {
    func testEveryRuleExampleFiresExactlyWhenItSaysItDoes() {
        for rule in RuleCatalog.transitionRules {
            XCTAssertTrue(rule.examples.contains { $0.triggers }, "\(rule.id) needs an example that fires")
            XCTAssertTrue(rule.examples.contains { !$0.triggers }, "\(rule.id) needs an example that does not fire")
            for example in rule.examples {
                let mismatch = rule.evaluate(TransitionContext(primary: example.primary, interstitial: example.interstitial))
                XCTAssertEqual(mismatch != nil, example.triggers, "\(rule.id): example '\(example.name)'")
            }
        }
    }

    func testEveryLocalizationExampleFiresExactlyWhenItSaysItDoes() {
        XCTAssertEqual(Set(LocalizationRules.all.map(\.id)), Set(RuleIdentifiers.localization))
        for rule in LocalizationRules.all {
            XCTAssertTrue(rule.examples.contains { $0.triggers } && rule.examples.contains { !$0.triggers }, rule.id)
            for example in rule.examples {
                XCTAssertEqual(rule.evaluate(primary: example.primary, interstitial: example.interstitial) != nil, example.triggers,
                               "\(rule.id): example '\(example.name)'")
            }
        }
        // The fallback a viewer of a missing language gets is named: DEFAULT=YES, else AUTOSELECT, else the first.
        let primary = LocalizationCatalog.offer(audio: ["en", "fr", "de"])
        var ad = LocalizationOffer(audio: [OfferedTrack(kind: .audio, language: "es", name: "Español"),
                                           OfferedTrack(kind: .audio, language: "en", name: "English", autoselect: true)])
        XCTAssertTrue(LocalizationCatalog.audioLanguage.evaluate(primary: primary, interstitial: ad)?.message
            .hasPrefix("viewers listening in fr or de hear the interstitial in en \"English\" (its first AUTOSELECT=YES rendition)") ?? false)
        ad.audio[0].isDefault = true
        XCTAssertTrue(LocalizationCatalog.audioLanguage.evaluate(primary: primary, interstitial: ad)?.message
            .hasPrefix("viewers listening in fr or de hear the interstitial in es \"Español\" (its DEFAULT=YES rendition)") ?? false)
    }

    func testEveryLadderExampleFiresExactlyWhenItSaysItDoes() {
        XCTAssertTrue(LadderRule.examples.contains { $0.triggers } && LadderRule.examples.contains { !$0.triggers })
        for example in LadderRule.examples {
            XCTAssertEqual(LadderRule.evaluate(primary: example.primary, interstitial: example.interstitial) != nil, example.triggers, example.name)
        }
    }

    func testEveryBoundaryExampleFiresExactlyWhenItSaysItDoes() {
        XCTAssertTrue(BoundaryRule.examples.contains { $0.triggers } && BoundaryRule.examples.contains { !$0.triggers })
        for example in BoundaryRule.examples {
            XCTAssertEqual(BoundaryRule.evaluate(offset: example.offset, boundaries: example.boundaries, snap: example.snap) != nil,
                           example.triggers, example.name)
        }
        let mismatch = BoundaryRule.evaluate(offset: 7.5, boundaries: [0, 6, 12], snap: [], live: true)
        XCTAssertEqual(mismatch?.actual, "7.5 s, 1.5 s into the segment 6-12 s")
        XCTAssertTrue(mismatch?.message.contains("nearest boundary is 6 s (1.5 s earlier): add X-SNAP=\"OUT,IN\" (live)") ?? false,
                      mismatch?.message ?? "")
        XCTAssertNil(BoundaryRule.evaluate(offset: 6.0005, boundaries: [0, 6, 12], snap: []), "within 1 ms is on the boundary")
    }

    /// The case: one 1.0 Mb/s ad for 1.2 and 0.9 Mb/s tiers was a warning (111 % of 0.9);
    /// neither end of the ladder is harmed, so it is nothing now. Each harm names its end.
    func testLadderMismatchFlagsOnlyTheEndsThatHarmAViewer() throws {
        XCTAssertNil(LadderRule.evaluate(primary: [LadderTier(bandwidth: 1_200_000), LadderTier(bandwidth: 900_000)],
                                         interstitial: [LadderTier(bandwidth: 1_000_000)]))
        let bottom = try XCTUnwrap(LadderRule.evaluate(primary: [LadderTier(bandwidth: 400_000), LadderTier(bandwidth: 6_000_000)],
                                                       interstitial: [LadderTier(bandwidth: 900_000), LadderTier(bandwidth: 6_000_000)]))
        XCTAssertTrue(bottom.message.contains("lowest variant, 900 kb/s, is 2.2 times the primary's lowest tier 400 kb/s"), bottom.message)
        XCTAssertEqual(bottom.expected, "a variant at or under 800 kb/s")
        let top = try XCTUnwrap(LadderRule.evaluate(primary: [LadderTier(bandwidth: 400_000), LadderTier(bandwidth: 6_000_000)],
                                                    interstitial: [LadderTier(bandwidth: 400_000), LadderTier(bandwidth: 1_400_000)]))
        XCTAssertTrue(top.message.contains("top variant, 1400 kb/s, is 4.3 times below the primary's top tier 6000 kb/s"), top.message)
        XCTAssertNil(LadderRule.evaluate(primary: [LadderTier(bandwidth: 400_000), LadderTier(bandwidth: 6_000_000)],
                                         interstitial: [LadderTier(bandwidth: 800_000), LadderTier(bandwidth: 1_500_000)]),
                     "2x at the bottom and 4x at the top are still within one and two steps")
    }

    /// Every rule of catalog v3 is graded, with a reason, in every bundled profile.
    func testEveryBundledProfileGradesEveryCatalogV3Rule() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("DeviceProfiles")
        let profiles = try ProfileLoader.loadDirectory(folder.path)
        XCTAssertEqual(profiles.count, 7)
        let v3 = ["resolution-change", "container-change", "encryption-change", "segment-duration-change",
                  "playlist-version-change", "break-off-segment-boundary"]
        for profile in profiles {
            for id in v3 { XCTAssertNotNil(profile.rules[id], "\(profile.id) grades \(id)") }
            let text = try String(contentsOf: folder.appendingPathComponent(profile.id + ".yaml"), encoding: .utf8)
            XCTAssertTrue(text.contains("# Catalog v3 (issue 24)"), "\(profile.id) says why")
            XCTAssertTrue((profile.sources ?? []).contains { $0.hasPrefix("Catalog v3 grades") }, profile.id)
        }
    }

    func testEveryCapabilityExampleFiresExactlyWhenItSaysItDoes() {
        for rule in RuleCatalog.capabilityRules {
            XCTAssertTrue(rule.examples.contains { $0.triggers }, "\(rule.id) needs an example that fires")
            XCTAssertTrue(rule.examples.contains { !$0.triggers }, "\(rule.id) needs an example that does not fire")
            for example in rule.examples {
                XCTAssertEqual(rule.evaluate(example.media, on: example.plays) != nil, example.triggers, "\(rule.id): '\(example.name)'")
            }
        }
    }

    func testEveryDeclaredRuleExampleFiresExactlyWhenItSaysItDoes() {
        for rule in RuleCatalog.declaredRules {
            XCTAssertTrue(rule.examples.contains { $0.triggers }, "\(rule.id) needs an example that fires")
            XCTAssertTrue(rule.examples.contains { !$0.triggers }, "\(rule.id) needs an example that does not fire")
            for example in rule.examples {
                XCTAssertEqual(rule.evaluate(example.declared, example.media) != nil, example.triggers, "\(rule.id): '\(example.name)'")
            }
        }
    }

    func testRuleIdsAreUniqueAndListedInInterface() {
        let ids = RuleCatalog.allDescriptions.map(\.id)
        XCTAssertEqual(Set(ids).count, ids.count)
        for rule in RuleCatalog.transitionRules { XCTAssertTrue(RuleIdentifiers.transition.contains(rule.id), rule.id) }
        for rule in RuleCatalog.capabilityRules { XCTAssertTrue(RuleIdentifiers.capability.contains(rule.id), rule.id) }
        for rule in RuleCatalog.declaredRules { XCTAssertTrue(RuleIdentifiers.declared.contains(rule.id), rule.id) }
        XCTAssertEqual(Set(ids), RuleIdentifiers.all, "every docs/interface.md rule id is implemented")
    }

    func testSkeletonTransitionRulesAreAllPresent() {
        for id in ["video-codec-mismatch", "frame-rate-mismatch", "aspect-ratio-mismatch", "audio-codec-mismatch",
                   "sample-rate-mismatch", "channel-layout-mismatch"] {
            XCTAssertNotNil(RuleCatalog.rule(id), id)
        }
    }

    func testFrameRateMismatchReportsRatesAndTheExactTarget() throws {
        let rule = try XCTUnwrap(RuleCatalog.rule("frame-rate-mismatch"))
        let mismatch = try XCTUnwrap(rule.evaluate(TransitionContext(
            primary: Example.media(), interstitial: Example.media(video: Example.video(rate: Rational(25, 1))))))
        XCTAssertEqual(mismatch.expected, "29.97")
        XCTAssertEqual(mismatch.actual, "25")
        XCTAssertEqual(mismatch.remediation?.arguments, ["-c:v", "libx264", "-pix_fmt", "yuv420p", "-r", "30000/1001"])
    }

    /// Every fix an example produces names the encoder of each stream it changes: ffmpeg
    /// refuses `-sample_fmt` without one, and picks one of its own for `-r` or `-vf`.
    func testEveryExampleFixNamesTheEncoderOfEveryStreamItChanges() {
        var fixes: [(String, Remediation)] = []
        for rule in RuleCatalog.transitionRules {
            for example in rule.examples {
                if let fix = rule.evaluate(TransitionContext(primary: example.primary, interstitial: example.interstitial))?.remediation {
                    fixes.append(("\(rule.id): \(example.name)", fix))
                }
            }
        }
        for rule in RuleCatalog.capabilityRules {
            for example in rule.examples {
                if let fix = rule.evaluate(example.media, on: example.plays)?.remediation { fixes.append(("\(rule.id): \(example.name)", fix)) }
            }
        }
        XCTAssertGreaterThan(fixes.count, 10)
        for (name, fix) in fixes {
            let arguments = fix.commandArguments
            if fix.touchesVideo { XCTAssertTrue(arguments.contains("-c:v") || arguments.contains("-vn"), "\(name): \(fix.rendered)") }
            if fix.touchesAudio { XCTAssertTrue(arguments.contains("-c:a") || arguments.contains("-an"), "\(name): \(fix.rendered)") }
        }
    }

    func testClassesThatWantDifferentEncodesGetACommandEachAndAgreeingOnesShareOne() throws {
        let rule = try XCTUnwrap(RuleCatalog.rule("dynamic-range-mismatch"))
        let hdrPrimary = Example.media(video: { var v = Example.video(codec: "hevc", range: .hdr10); v.profile = "Main 10"; return v }())
        let toHDR = try XCTUnwrap(rule.evaluate(TransitionContext(primary: hdrPrimary, interstitial: Example.media()))?.remediation)
        let toSDR = try XCTUnwrap(rule.evaluate(TransitionContext(primary: Example.media(),
                                                                  interstitial: Example.media(video: Example.video(codec: "hevc", range: .hlg))))?.remediation)
        XCTAssertTrue(toHDR.conflicts(with: toSDR))
        let groups = Remediation.grouped([("apple-tv-4k", [toHDR]), ("smart-tv-low-end", [toSDR]), ("mac", [toHDR]), ("speaker-audio-only", [])])
        XCTAssertEqual(groups.map(\.deviceClasses), [["apple-tv-4k", "mac"], ["smart-tv-low-end"]])
        XCTAssertTrue(toHDR.arguments.contains("libx265") && toHDR.videoFilters.first?.hasPrefix("zscale=tin=bt709") == true, toHDR.rendered)
        let audioOnly = Remediation(arguments: ["-c:a", "aac"], audioFilters: ["aresample=48000"])
        XCTAssertEqual(Remediation.grouped([("a", [toSDR]), ("b", [audioOnly])]).count, 1, "video and audio settings share a command")
    }

    func testDoubledFrameRateIsAMultipleNotAMismatch() throws {
        let context = TransitionContext(primary: Example.media(),
                                        interstitial: Example.media(video: Example.video(rate: Rational(60000, 1001))))
        XCTAssertNil(try XCTUnwrap(RuleCatalog.rule("frame-rate-mismatch")).evaluate(context))
        let multiple = try XCTUnwrap(try XCTUnwrap(RuleCatalog.rule("frame-rate-multiple")).evaluate(context))
        XCTAssertEqual(multiple.expected, "29.97")
        XCTAssertEqual(multiple.actual, "59.94")
        XCTAssertEqual(multiple.remediation?.arguments, ["-c:v", "libx264", "-pix_fmt", "yuv420p", "-r", "30000/1001"])
    }

    func testAspectRemediationPadsToThePrimaryDisplaySize() throws {
        let rule = try XCTUnwrap(RuleCatalog.rule("aspect-ratio-mismatch"))
        let anamorphicPrimary = Example.media(video: Example.video(width: 1440, height: 1080, sar: Ratio(4, 3)))
        let mismatch = try XCTUnwrap(rule.evaluate(TransitionContext(
            primary: anamorphicPrimary, interstitial: Example.media(video: Example.video(width: 640, height: 480)))))
        XCTAssertEqual(mismatch.expected, "16:9")
        XCTAssertEqual(mismatch.actual, "4:3")
        XCTAssertTrue(mismatch.remediation?.videoFilters.contains("pad=1920:1080:(ow-iw)/2:(oh-ih)/2") ?? false,
                      "\(String(describing: mismatch.remediation))")
    }

    func testTrackSetIgnoresMissingVideoOnAudioOnlyReceivers() throws {
        let rule = try XCTUnwrap(RuleCatalog.rule("track-set-mismatch"))
        let audioOnlyAd = Example.media(video: nil)
        XCTAssertNotNil(rule.evaluate(TransitionContext(primary: Example.media(), interstitial: audioOnlyAd, rendersVideo: true)))
        XCTAssertNil(rule.evaluate(TransitionContext(primary: Example.media(), interstitial: audioOnlyAd, rendersVideo: false)))
    }

    func testRemediationsMergeIntoOneCommandAndCopyUntouchedStreams() {
        let merged = Remediation.merge([
            Remediation(arguments: ["-c:v", "libx264", "-profile:v", "high"]),
            Remediation(arguments: ["-r", "30000/1001"]),
            Remediation(arguments: ["-c:v", "libx264", "-profile:v", "high"]),
            Remediation(videoFilters: ["scale=iw*sar:ih", "setsar=1", "pad=1920:1080", "setsar=1"]),
            Remediation(videoFilters: ["scale=iw*sar:ih", "setsar=1", "pad=1920:1080", "setsar=1"]),
        ])
        XCTAssertEqual(merged.arguments, ["-c:v", "libx264", "-profile:v", "high", "-r", "30000/1001"])
        XCTAssertEqual(merged.videoFilters, ["scale=iw*sar:ih", "setsar=1", "pad=1920:1080", "setsar=1"])
        XCTAssertEqual(merged.commandArguments.suffix(2), ["-c:a", "copy"])
        XCTAssertEqual(Remediation(arguments: ["-ar", "48000"]).rendered, "-ar 48000 -c:v copy")
    }

    func testShellQuotingOfFilterChains() {
        XCTAssertEqual(shellQuoted("pad=1920:1080:(ow-iw)/2"), "'pad=1920:1080:(ow-iw)/2'")
        XCTAssertEqual(shellQuoted("it's"), "'it'\\''s'")
        XCTAssertEqual(shellQuoted("-c:v"), "-c:v")
    }
}
