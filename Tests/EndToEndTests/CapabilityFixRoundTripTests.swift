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
        /// A class of `customProfiles` (given with --profiles-dir), not of DeviceProfiles/.
        var custom = false
        /// What the class plays as the primary (an unplayable primary would make every change of the ad a new transition).
        var primary = Fixtures.primary
    }

    /// Primaries the custom classes play: HEVC HDR10 with E-AC-3, and MP3 audio.
    static let hdrPrimary = MediaFixture.clip("hevc-hdr10-eac3-2997-primary", video: {
        var v = MediaFixture.Video()
        v.encoder = "libx265"
        v.pixelFormat = "yuv420p10le"
        v.extra = ["-tag:v", "hvc1", "-color_primaries", "bt2020", "-color_trc", "smpte2084", "-colorspace", "bt2020nc"]
        return v
    }(), audio: { var a = MediaFixture.Audio(); a.encoder = "eac3"; return a }())
    static let mp3Primary = MediaFixture.clip("mp3-48-stereo-primary", video: nil, audio: { var a = MediaFixture.Audio(); a.encoder = "libmp3lame"; return a }())

    /// Classes DeviceProfiles/ lacks, so that fixes are also proven towards other targets: a
    /// speaker that decodes MP3 only, an HEVC HDR10-only 720p30 panel with E-AC-3.
    static let customProfiles = [
        "mp3-speaker": """
            id: mp3-speaker
            name: MP3-only speaker
            plays: {video: false, videoCodecs: [], dynamicRanges: [], audioCodecs: [mp3], maxChannels: 2, sampleRates: [44100, 48000]}
            rules: {}
            """,
        "hdr-hevc-720p30": """
            id: hdr-hevc-720p30
            name: HEVC HDR10-only 720p30 panel
            plays: {video: true, videoCodecs: [hevc], maxWidth: 1280, maxHeight: 720, maxFrameRate: 30, dynamicRanges: [HDR10],
                    audioCodecs: [eac3], maxChannels: 6, sampleRates: [48000]}
            rules: {}
            """,
    ]

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
        Case(name: "AAC ad, MP3-only speaker", interstitial: Fixtures.matching, deviceClass: "mp3-speaker", rule: "unsupported-audio-codec", custom: true, primary: mp3Primary),
        Case(name: "AAC ad, E-AC-3-only panel", interstitial: Fixtures.matching, deviceClass: "hdr-hevc-720p30", rule: "unsupported-audio-codec", custom: true, primary: hdrPrimary),
        Case(name: "H.264 ad, HEVC-only panel", interstitial: Fixtures.matching, deviceClass: "hdr-hevc-720p30", rule: "unsupported-video-codec", custom: true, primary: hdrPrimary),
        Case(name: "SDR ad, HDR10-only panel", interstitial: Fixtures.matching, deviceClass: "hdr-hevc-720p30", rule: "unsupported-dynamic-range", custom: true, primary: hdrPrimary),
        Case(name: "1440p H.264 ad, 720p HEVC panel", interstitial: qhd, deviceClass: "hdr-hevc-720p30", rule: "resolution-exceeds-device", custom: true, primary: hdrPrimary),
        Case(name: "59.94 fps H.264 ad, 30 fps HEVC panel", interstitial: Fixtures.fps5994, deviceClass: "hdr-hevc-720p30", rule: "frame-rate-exceeds-device", custom: true, primary: hdrPrimary),
        Case(name: "29.97i H.264 ad, HEVC panel", interstitial: Fixtures.interlaced, deviceClass: "hdr-hevc-720p30", rule: "interlaced-video", custom: true, primary: hdrPrimary),
    ]

    func findings(_ interstitial: String, primary: MediaFixture, deviceClass: String, profilesDir: String?) throws -> [[String: Any]] {
        let result = try SeamcheckBinary.run(["audit", "--primary", try primary.path(), "--interstitial", interstitial,
                                              "--profile", deviceClass, "--no-loudness", "--format", "json", "--fail-on", "never"]
                                                 + (profilesDir.map { ["--profiles-dir", $0] } ?? []))
        XCTAssertEqual(result.status, 0, result.stderr)
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], result.stderr)
        return (json["findings"] as? [[String: Any]] ?? []).filter { ($0["subject"] as? String ?? "").hasPrefix("interstitial") }
    }

    func testEveryCapabilityFixRunsAndRemovesItsFindingWithoutAddingAnything() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("seamcheck-capability-fixes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let profiles = folder.appendingPathComponent("profiles")
        try FileManager.default.createDirectory(at: profiles, withIntermediateDirectories: true)
        for (id, text) in Self.customProfiles {
            try text.write(to: profiles.appendingPathComponent("\(id).yaml"), atomically: true, encoding: .utf8)
        }
        var proven: Set<String> = []
        for (number, item) in Self.cases.enumerated() {
            let ad = try item.interstitial.path()
            let dir = item.custom ? profiles.path : nil
            let before = try findings(ad, primary: item.primary, deviceClass: item.deviceClass, profilesDir: dir)
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
            let after = try findings(output, primary: item.primary, deviceClass: item.deviceClass, profilesDir: dir)
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
