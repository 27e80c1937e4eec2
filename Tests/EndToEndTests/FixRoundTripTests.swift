import Compatibility
import Foundation
import SeamcheckTestSupport
import XCTest

/// Every fix `seamcheck audit` prints for the fixtures, run as printed and audited again: the
/// transition findings it targets are gone for its classes and no new finding appears.
final class FixRoundTripTests: XCTestCase {
    struct Pair {
        var name: String
        var primary: MediaFixture
        var interstitial: MediaFixture
    }

    static let pairs: [Pair] = [
        Pair(name: "HEVC ad", primary: Fixtures.primary, interstitial: Fixtures.hevc),
        Pair(name: "25 fps ad", primary: Fixtures.primary, interstitial: Fixtures.fps25),
        Pair(name: "59.94 fps ad", primary: Fixtures.primary, interstitial: Fixtures.fps5994),
        Pair(name: "4:3 ad", primary: Fixtures.primary, interstitial: Fixtures.fourByThree),
        Pair(name: "44.1 kHz ad", primary: Fixtures.primary, interstitial: Fixtures.aac44),
        Pair(name: "5.1 ad", primary: Fixtures.primary, interstitial: Fixtures.surround),
        Pair(name: "AC-3 ad", primary: Fixtures.primary, interstitial: Fixtures.ac3),
        Pair(name: "HDR10 ad in SDR", primary: Fixtures.primary, interstitial: Fixtures.hdr10),
        Pair(name: "HLG ad in SDR", primary: Fixtures.primary, interstitial: Fixtures.hlg),
        Pair(name: "HLG ad in HDR10", primary: Fixtures.hdr10, interstitial: Fixtures.hlg),
        Pair(name: "SDR ad in HDR10", primary: Fixtures.hdr10, interstitial: Fixtures.matching),
        Pair(name: "late audio, French", primary: Fixtures.english, interstitial: Fixtures.delayedAudio),
        Pair(name: "interlaced ad", primary: Fixtures.primary, interstitial: Fixtures.interlaced),
        Pair(name: "audio-only ad", primary: Fixtures.primary, interstitial: Fixtures.audioOnly),
        Pair(name: "silent ad", primary: Fixtures.primary, interstitial: Fixtures.videoOnly),
        Pair(name: "16-bit ALAC ad", primary: Fixtures.alac24, interstitial: Fixtures.alac16),
        Pair(name: "ad 12 dB louder", primary: Fixtures.primary, interstitial: Fixtures.loud),
        Pair(name: "256x144 ad", primary: Fixtures.primary, interstitial: Fixtures.smaller),
        Pair(name: "anamorphic ad", primary: Fixtures.primary, interstitial: Fixtures.anamorphic),
        Pair(name: "MPEG-TS ad", primary: Fixtures.primary, interstitial: Fixtures.transportStream),
        Pair(name: "MP4 ad after MPEG-TS", primary: Fixtures.transportStream, interstitial: Fixtures.matching),
    ]

    static let capabilityRules: Set<String> = [
        "unsupported-video-codec", "unsupported-dynamic-range", "unsupported-audio-codec", "unsupported-channel-count",
        "resolution-exceeds-device", "frame-rate-exceeds-device", "no-playable-variant", "interlaced-video",
    ]

    struct Audit {
        var findings: [[String: Any]]
        var fixes: [(classes: [String], command: String)]
    }

    func audit(primary: String, interstitial: String, profiles: [String] = []) throws -> Audit {
        let result = try SeamcheckBinary.run(["audit", "--primary", primary, "--interstitial", interstitial, "--format", "json",
                                              "--fail-on", "never"] + profiles.flatMap { ["--profile", $0] })
        XCTAssertEqual(result.status, 0, result.stderr)
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], result.stderr)
        let assets = json["assets"] as? [[String: Any]] ?? []
        let fixes = (assets.last?["fixes"] as? [[String: Any]] ?? []).map {
            (classes: $0["deviceClasses"] as? [String] ?? [], command: $0["command"] as? String ?? "")
        }
        return Audit(findings: json["findings"] as? [[String: Any]] ?? [], fixes: fixes)
    }

    /// rule, class and role of a finding ("interstitial 1" and "primary" keep their roles after a fix).
    func key(_ finding: [String: Any]) -> String {
        let subject = finding["subject"] as? String ?? ""
        let role = subject.hasPrefix("primary") ? "primary" : "interstitial"
        return "\(finding["rule"] as? String ?? "") \(finding["deviceClass"] as? String ?? "-") \(role)"
    }

    func testEveryPrintedFixRunsAndRemovesWhatItTargetsWithoutAddingAnything() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("seamcheck-fixes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var run = 0
        var fixedRules: Set<String> = []
        for pair in Self.pairs {
            let primary = try pair.primary.path(), ad = try pair.interstitial.path()
            let before = try audit(primary: primary, interstitial: ad)
            fixedRules.formUnion(before.findings.filter { $0["remediation"] as? String != nil }.compactMap { $0["rule"] as? String })
            XCTAssertFalse(before.fixes.isEmpty, "\(pair.name): no fix printed for \(before.findings.map(key))")
            var outputs: Set<String> = []
            for fix in before.fixes {
                let argv = try ShellWords.split(fix.command)
                XCTAssertEqual(argv.first, "ffmpeg", fix.command)
                XCTAssertTrue(outputs.insert(argv.last ?? "").inserted, "\(pair.name): two fixes write \(argv.last ?? "")")
                let result = try Command.run("ffmpeg", ["-nostdin", "-v", "error", "-y"] + argv.dropFirst(), currentDirectory: folder)
                XCTAssertEqual(result.status, 0, "\(pair.name): \(fix.command)\n\(result.stderr)")
                guard result.status == 0 else { continue }
                run += 1
                let classes = fix.classes
                XCTAssertFalse(classes.isEmpty, fix.command)
                let output = folder.appendingPathComponent(argv.last ?? "").path
                let after = try audit(primary: primary, interstitial: output, profiles: classes)
                let beforeKeys = Set(before.findings.filter { classes.contains($0["deviceClass"] as? String ?? "") }.map(key))
                let afterKeys = Set(after.findings.map(key))
                XCTAssertEqual(afterKeys.subtracting(beforeKeys), [], "\(pair.name): the fix adds findings (\(fix.command))")
                // Capability fixes (what a class cannot play at all) are not part of the command.
                let targeted = before.findings.filter {
                    classes.contains($0["deviceClass"] as? String ?? "") && ($0["remediation"] as? String) != nil
                        && ($0["subject"] as? String ?? "").hasPrefix("interstitial")
                        && !Self.capabilityRules.contains($0["rule"] as? String ?? "")
                }
                let left = Set(targeted.map(key)).intersection(afterKeys)
                XCTAssertEqual(left, [], "\(pair.name): the fix leaves what it targets (\(fix.command))")
            }
        }
        XCTAssertGreaterThanOrEqual(run, Self.pairs.count, "every pair's fixes ran")
        // Every transition rule whose examples print a fix has it run here on real media.
        let rulesWithFixes = RuleCatalog.transitionRules.filter { rule in
            rule.examples.contains { rule.evaluate(TransitionContext(primary: $0.primary, interstitial: $0.interstitial))?.remediation != nil }
        }.map(\.id)
        // segment-duration-change reads playlists: CatalogV3AuditTests runs its fix on a served stream.
        XCTAssertEqual(Set(rulesWithFixes).subtracting(fixedRules), ["segment-duration-change"], "rules whose fixes no pair runs")
        print("fix round trip: \(run) fixes run for \(Self.pairs.count) pairs")
    }
}

/// Splits a command printed by `seamcheck` (words separated by spaces, single-quoted where they
/// hold anything else, `'\''` for a quote) back into its words. Nothing is expanded.
enum ShellWords {
    struct Unbalanced: Error {}

    static func split(_ text: String) throws -> [String] {
        var words: [String] = [], current = "", inWord = false, quoted = false, escaped = false
        for character in text {
            if escaped {
                current.append(character)
                escaped = false
            } else if quoted {
                if character == "'" { quoted = false } else { current.append(character) }
            } else if character == "'" {
                quoted = true
                inWord = true
            } else if character == "\\" {
                escaped = true
                inWord = true
            } else if character == " " {
                if inWord { words.append(current) }
                current = ""
                inWord = false
            } else {
                current.append(character)
                inWord = true
            }
        }
        guard !quoted else { throw Unbalanced() }
        if inWord { words.append(current) }
        return words
    }
}

/// loudness-mismatch through the command: measured on file audits, with a tolerance, a target
/// and a flag that turns it off.
final class LoudnessAuditTests: XCTestCase {
    func rules(_ arguments: [String], ad: MediaFixture) throws -> [String] {
        let result = try SeamcheckBinary.run(["audit", "--primary", try Fixtures.primary.path(), "--interstitial", try ad.path(),
                                              "--profile", "smart-tv-low-end", "--format", "json", "--fail-on", "never"] + arguments)
        XCTAssertEqual(result.status, 0, result.stderr)
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        return (json["findings"] as? [[String: Any]] ?? []).compactMap { $0["rule"] as? String }
    }

    func testATwelveDecibelLouderAdIsALoudnessMismatchUnlessLoudnessIsOff() throws {
        XCTAssertEqual(try rules([], ad: Fixtures.loud), ["loudness-mismatch"])
        XCTAssertEqual(try rules(["--no-loudness"], ad: Fixtures.loud), [])
        XCTAssertEqual(try rules([], ad: Fixtures.matching), [])
        XCTAssertEqual(try rules(["--loudness-target", "-24"], ad: Fixtures.matching), ["loudness-mismatch"], "-21.8 LUFS is 2.2 LU off -24")
        XCTAssertEqual(try rules(["--loudness-target", "-23"], ad: Fixtures.matching), [])
    }
}
