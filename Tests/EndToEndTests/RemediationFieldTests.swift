import Foundation
import SeamcheckTestSupport
import XCTest

/// docs/audit.md documents a finding's `remediation` as runnable: `ffmpeg -i AD <remediation> OUT`
/// in a POSIX shell. Every distinct one the fix round-trip pairs produce runs exactly so, and
/// the transition finding it belongs to is gone when the output is audited again for its class.
final class RemediationFieldTests: XCTestCase {
    struct Field: Hashable {
        var rule: String
        var deviceClass: String
        var remediation: String
    }

    func fields(primary: String, ad: String) throws -> [Field] {
        let result = try SeamcheckBinary.run(["audit", "--primary", primary, "--interstitial", ad, "--format", "json", "--fail-on", "never"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        return (json["findings"] as? [[String: Any]] ?? []).compactMap { finding in
            guard (finding["subject"] as? String ?? "").hasPrefix("interstitial"), let remediation = finding["remediation"] as? String,
                  let rule = finding["rule"] as? String, let deviceClass = finding["deviceClass"] as? String else { return nil }
            return Field(rule: rule, deviceClass: deviceClass, remediation: remediation)
        }
    }

    /// Runs `ffmpeg -i AD <remediation> OUT` through /bin/sh, the remediation pasted in as written.
    func runAsDocumented(_ remediation: String, ad: String, output: String, in folder: URL) throws -> CommandResult {
        try Command.run("/bin/sh", ["-c", "ffmpeg -nostdin -v error -y -i \"$1\" " + remediation + " \"$2\"", "sh", ad, output],
                        currentDirectory: folder)
    }

    func testEveryRemediationFieldRunsAsDocumentedAndRemovesItsFinding() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("seamcheck-fields-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var seen: Set<String> = []
        var ran = 0
        for pair in FixRoundTripTests.pairs {
            let primary = try pair.primary.path(), ad = try pair.interstitial.path()
            for field in try fields(primary: primary, ad: ad) where seen.insert(field.remediation).inserted {
                ran += 1
                let output = folder.appendingPathComponent("out-\(ran).\(field.remediation.contains("-f mpegts") ? "ts" : "mp4")").path
                let result = try runAsDocumented(field.remediation, ad: ad, output: output, in: folder)
                XCTAssertEqual(result.status, 0, "\(pair.name) \(field.rule): ffmpeg -i AD \(field.remediation) OUT\n\(result.stderr)")
                guard result.status == 0, !FixRoundTripTests.capabilityRules.contains(field.rule) else { continue }
                let after = try findings(primary: primary, ad: output, profile: field.deviceClass)
                XCTAssertFalse(after.contains { $0.rule == field.rule && $0.deviceClass == field.deviceClass },
                               "\(pair.name): \(field.rule) is still there for \(field.deviceClass) after \(field.remediation)")
            }
        }
        XCTAssertGreaterThanOrEqual(ran, 15, "distinct remediation fields run")
        print("remediation fields: \(ran) distinct fields run as documented")
    }

    /// A video-only ad: its track-set fix needs a generated audio input, and the field carries it.
    func testTheSilentAdsFieldCarriesItsGeneratedAudioInput() throws {
        let fields = try fields(primary: try Fixtures.primary.path(), ad: try Fixtures.videoOnly.path())
        let trackSet = try XCTUnwrap(fields.first { $0.rule == "track-set-mismatch" })
        XCTAssertTrue(trackSet.remediation.hasPrefix("-f lavfi -i anullsrc=channel_layout=stereo:sample_rate=48000 -map 0:v:0 -map 1:a:0"),
                      trackSet.remediation)
    }

    /// The interstitial's findings for one class, with or without a remediation.
    func findings(primary: String, ad: String, profile: String) throws -> [Field] {
        let result = try SeamcheckBinary.run(["audit", "--primary", primary, "--interstitial", ad, "--profile", profile,
                                              "--format", "json", "--fail-on", "never"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        return (json["findings"] as? [[String: Any]] ?? []).compactMap { finding in
            guard (finding["subject"] as? String ?? "").hasPrefix("interstitial"), let rule = finding["rule"] as? String else { return nil }
            return Field(rule: rule, deviceClass: profile, remediation: finding["remediation"] as? String ?? "")
        }
    }
}
