import Foundation
import XCTest
@testable import LabCore

/// Each verdict rule's examples are its specification: they run here as tests.
final class VerdictRuleExampleTests: XCTestCase {
    func testEveryVerdictRuleExampleReadsAndDecidesAsItSays() {
        for rule in VerdictRules.all {
            XCTAssertTrue(rule.examples.contains { $0.fires }, "\(rule.id) needs an example that fires")
            // The protocol's account is always read; every other rule shows when it says nothing.
            if rule.id != VerdictRules.protocolRule {
                XCTAssertTrue(rule.examples.contains { !$0.fires }, "\(rule.id) needs an example that does not fire")
            }
            for example in rule.examples {
                let m = example.measurement
                let verdict = m.verdict()
                XCTAssertEqual(rule.read(m, .defaults) != nil, example.fires, "\(rule.id): '\(example.name)': \(verdict.reason)")
                XCTAssertEqual(verdict.verdict, example.verdict, "\(rule.id): '\(example.name)': \(verdict.reason)")
                XCTAssertEqual(m.labVerdict, example.verdict, "\(rule.id): '\(example.name)'")
                if let ms = example.stallMs {
                    XCTAssertEqual(verdict.stallMs ?? -1, ms, accuracy: 1, "\(rule.id): '\(example.name)': \(verdict.reason)")
                }
                if let words = example.reasonHolds {
                    XCTAssertTrue(verdict.reason.contains(words), "\(rule.id): '\(example.name)': \(verdict.reason)")
                }
            }
        }
    }

    func testRuleIdsAreUniqueAndEveryRuleIsDocumented() throws {
        let ids = VerdictRules.all.map(\.id)
        XCTAssertEqual(Set(ids).count, ids.count)
        let doc = try String(contentsOfFile: URL(fileURLWithPath: LabTests.profilesDirectory).deletingLastPathComponent().path
                             + "/docs/lab-measure.md", encoding: .utf8)
        for id in ids { XCTAssertTrue(doc.contains("`\(id)`"), "docs/lab-measure.md names \(id)") }
    }

    /// The README demo's failing case: Kodi played `video-codec-hevc-stitched` through by its own
    /// account while the picture held the primary's last frame 2.17 s and never showed the ad.
    func testKodiHEVCStitchedWithCaptureIsFailedInThePicturesWords() {
        let verdict = VerdictRules.kodiHEVC.verdict()
        XCTAssertEqual(VerdictRules.kodiHEVC.outcome, .seamless, "/playback-info alone says it played")
        XCTAssertEqual(verdict.verdict, .failed)
        XCTAssertTrue(verdict.reason.hasPrefix(PictureMeasurement.adNeverShownWords), verdict.reason)
        XCTAssertTrue(verdict.reason.contains("primary #235 held 2099 ms at the ad's place"), verdict.reason)
        XCTAssertTrue(verdict.reason.contains("the picture froze: primary #235 held 2099 ms"), "the stall named too: \(verdict.reason)")
        XCTAssertEqual(verdict.disagreements.count, 2, "the ad never shown and the freeze, each against /playback-info: \(verdict.disagreements)")
        XCTAssertTrue(verdict.disagreements.allSatisfy { $0.contains("/playback-info says seamless") })
    }

    func testASkippedCellStaysSkippedWhateverWasCaptured() {
        var m = CellMeasurement.notRun("interrupted")
        m.picture = VerdictRules.kodiHEVC.picture
        XCTAssertEqual(m.labVerdict, .skipped)
    }

    /// The switch freezes are found from the case's break and the primary's frame rate.
    func testSwitchFreezesAreTheFreezesAtThePrimarysBreak() {
        var picture = VerdictRules.picture(["primary"])
        // Kodi 20.1 on video-codec-hevc-stitched (30 fps capture): #179 held 380 ms, then primary frames due after
        // the ad shown in its place, #235 held 2099 ms; a freeze at 1 s and one under the minimum are not the switch.
        picture.freezes = [Freeze(frame: 235, at: 8.7, ms: 2099), Freeze(frame: 179, at: 6.7, ms: 380), Freeze(frame: 30, at: 1.4, ms: 900),
                           Freeze(frame: 216, at: 8.1, ms: 146)]
        picture.markSwitchFreezes(labCase: MeasurementExample.stitchedCase, windowSeconds: 1.5, minimumMs: 200)
        XCTAssertEqual(picture.switchFreezes, nil, "the example case's primary declares no frame rate")
        var labCase = MeasurementExample.stitchedCase
        labCase.primary.frameRate = "30"
        picture.markSwitchFreezes(labCase: labCase, windowSeconds: 1.5, minimumMs: 200)
        XCTAssertEqual(picture.switchFreezes, [SwitchFreeze(at: "the ad's place (a primary frame due after the ad)", frame: 235, ms: 2099),
                                               SwitchFreeze(at: "the ad's start", frame: 179, ms: 380)])
        XCTAssertEqual(picture.switchStallMs, 2099)
        picture.freezes = [Freeze(frame: 400, at: 14, ms: 900)]
        picture.markSwitchFreezes(labCase: labCase, windowSeconds: 1.5, minimumMs: 200)
        XCTAssertNil(picture.switchFreezes, "6 s after the break, past the ad's 2 s and the window: not the switch")
    }
}
