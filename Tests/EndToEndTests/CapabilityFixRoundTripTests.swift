import Compatibility
import Foundation
import SeamcheckTestSupport
import XCTest

/// Every fix a capability rule prints, produced from real media for a class that needs it, run
/// as printed (`ffmpeg -i AD <the finding's remediation> OUT`) and audited again for that class:
/// the finding is gone and nothing new appears.
final class CapabilityFixRoundTripTests: XCTestCase {
    struct Case {
        var name: String
        var interstitial: MediaFixture
        var deviceClass: String
        var rule: String
    }

    /// More than any class decodes: 2560x1440 (1080p classes) and 120 fps (every class stops at 60).
    static let qhd = MediaFixture.clip("h264-1440p-2997-aac48-stereo", duration: 0.5,
                                       video: { var v = MediaFixture.Video(); v.width = 2560; v.height = 1440; v.extra = ["-preset", "ultrafast"]; return v }())
    static let fps120 = MediaFixture.clip("h264-120-16x9-aac48-stereo",
                                          video: { var v = MediaFixture.Video(); v.rate = "120"; return v }())

    static let cases: [Case] = [
        Case(name: "HEVC ad, H.264-only TV", interstitial: Fixtures.hevc, deviceClass: "smart-tv-low-end", rule: "unsupported-video-codec"),
        Case(name: "HDR10 ad, SDR-only Apple TV HD", interstitial: Fixtures.hdr10, deviceClass: "apple-tv-hd", rule: "unsupported-dynamic-range"),
        Case(name: "HDR10 ad, SDR-only H.264 TV", interstitial: Fixtures.hdr10, deviceClass: "smart-tv-low-end", rule: "unsupported-dynamic-range"),
        Case(name: "HLG ad, SDR-only Apple TV HD", interstitial: Fixtures.hlg, deviceClass: "apple-tv-hd", rule: "unsupported-dynamic-range"),
        Case(name: "Dolby Vision 8.1 ad, SDR-only Apple TV HD", interstitial: Fixtures.dolbyVision, deviceClass: "apple-tv-hd", rule: "unsupported-dynamic-range"),
        Case(name: "HDR10 HEVC ad, H.264-only TV", interstitial: Fixtures.hdr10, deviceClass: "smart-tv-low-end", rule: "unsupported-video-codec"),
        Case(name: "24-bit ALAC ad, AAC-only TV", interstitial: Fixtures.alac24, deviceClass: "smart-tv-low-end", rule: "unsupported-audio-codec"),
        Case(name: "AC-3 ad, AAC-only TV", interstitial: Fixtures.ac3, deviceClass: "smart-tv-low-end", rule: "unsupported-audio-codec"),
        Case(name: "E-AC-3 5.1 ad, AAC-only TV", interstitial: Fixtures.surroundSide, deviceClass: "smart-tv-low-end", rule: "unsupported-audio-codec"),
        Case(name: "24-bit FLAC ad, speaker", interstitial: Fixtures.flac24, deviceClass: "speaker-audio-only", rule: "unsupported-audio-codec"),
        Case(name: "5.1 ad, stereo TV", interstitial: Fixtures.surround, deviceClass: "smart-tv-low-end", rule: "unsupported-channel-count"),
        Case(name: "E-AC-3 5.1 ad, stereo TV", interstitial: Fixtures.surroundSide, deviceClass: "smart-tv-low-end", rule: "unsupported-channel-count"),
        Case(name: "5.1 ad, stereo speaker", interstitial: Fixtures.surround, deviceClass: "speaker-audio-only", rule: "unsupported-channel-count"),
        Case(name: "7.1 ad, 5.1 Apple TV HD", interstitial: Fixtures.sevenOne, deviceClass: "apple-tv-hd", rule: "unsupported-channel-count"),
        Case(name: "1440p ad, 1080p TV", interstitial: qhd, deviceClass: "smart-tv-low-end", rule: "resolution-exceeds-device"),
        Case(name: "120 fps ad, Apple TV 4K", interstitial: fps120, deviceClass: "apple-tv-4k", rule: "frame-rate-exceeds-device"),
        Case(name: "29.97i ad, Apple TV 4K", interstitial: Fixtures.interlaced, deviceClass: "apple-tv-4k", rule: "interlaced-video"),
        Case(name: "29.97i ad, H.264 TV", interstitial: Fixtures.interlaced, deviceClass: "smart-tv-low-end", rule: "interlaced-video"),
    ]

    func findings(_ interstitial: String, deviceClass: String) throws -> [[String: Any]] {
        let result = try SeamcheckBinary.run(["audit", "--primary", try Fixtures.primary.path(), "--interstitial", interstitial,
                                              "--profile", deviceClass, "--no-loudness", "--format", "json", "--fail-on", "never"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], result.stderr)
        return (json["findings"] as? [[String: Any]] ?? []).filter { ($0["subject"] as? String ?? "").hasPrefix("interstitial") }
    }

    func testEveryCapabilityFixRunsAndRemovesItsFindingWithoutAddingAnything() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("seamcheck-capability-fixes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var proven: Set<String> = []
        for (number, item) in Self.cases.enumerated() {
            let ad = try item.interstitial.path()
            let before = try findings(ad, deviceClass: item.deviceClass)
            let finding = try XCTUnwrap(before.first { $0["rule"] as? String == item.rule }, "\(item.name): no \(item.rule) (\(before.compactMap { $0["rule"] }))")
            guard let remediation = finding["remediation"] as? String else {
                XCTFail("\(item.name): \(item.rule) prints no fix: \(finding["message"] ?? "")")
                continue
            }
            // The output keeps the input's container where an encoder can write into it, as the printed fixes' outputs do.
            let ext = ["mp4", "m4a", "mov", "mkv"].contains(item.interstitial.fileExtension) ? item.interstitial.fileExtension : "mp4"
            let output = folder.appendingPathComponent("fixed-\(number).\(ext)").path
            let settings = try ShellWords.split(remediation)
            let run = try Command.run("ffmpeg", ["-nostdin", "-v", "error", "-y", "-i", ad] + settings + [output])
            XCTAssertEqual(run.status, 0, "\(item.name): ffmpeg -i AD \(remediation) OUT\n\(run.stderr)")
            guard run.status == 0 else { continue }
            let after = try findings(output, deviceClass: item.deviceClass)
            let rules = { (list: [[String: Any]]) in Set(list.compactMap { $0["rule"] as? String }) }
            XCTAssertFalse(rules(after).contains(item.rule), "\(item.name): the fix leaves \(item.rule): \(remediation)\n\(after)")
            XCTAssertEqual(rules(after).subtracting(rules(before)), [], "\(item.name): the fix adds findings: \(remediation)")
            proven.insert(item.rule)
        }
        // Every capability rule whose examples print a fix has that fix proven here on real media.
        let withFixes = RuleCatalog.capabilityRules.filter { rule in
            rule.examples.contains { rule.evaluate($0.media, on: $0.plays)?.remediation != nil }
        }.map(\.id)
        XCTAssertEqual(Set(withFixes).subtracting(proven), [], "capability rules whose fixes no case runs")
        XCTAssertEqual(Set(withFixes), Set(RuleCatalog.capabilityRules.map(\.id)).subtracting(["no-playable-variant"]),
                       "every capability rule that can be fixed by one encode prints a fix")
        print("capability fix round trip: \(proven.count) rules, \(Self.cases.count) fixes run")
    }
}
