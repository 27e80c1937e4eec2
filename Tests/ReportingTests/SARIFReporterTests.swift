import Compatibility
import Foundation
import MediaProbe
@testable import Reporting
@testable import ResultsReporting
import SeamcheckTestSupport
import XCTest

/// `--format sarif`: SARIF 2.1.0 that code scanning reads, checked by the schema validator.
final class SARIFReporterTests: XCTestCase {
    /// ReporterTests' sample audit plus a spec finding at line 7 of a playlist in the source root,
    /// one accepted by the project file, and one outside the catalog.
    func sampleResult() -> AuditResult {
        let video = VideoTrack(codec: "h264", profile: "High", width: 1920, height: 1080, frameRate: Rational(30000, 1001))
        var hevc = video
        hevc.codec = "hevc"
        let primary = MediaDescription(input: "/m/main.mp4", container: "mp4", duration: 60, video: [video], audio: [])
        let ad = MediaDescription(input: "/m/ad.mp4", container: "mp4", duration: 15, video: [hevc], audio: [])
        let plays = Capabilities(video: true, videoCodecs: ["h264", "hevc"], maxWidth: 3840, maxHeight: 2160, maxFrameRate: 60,
                                 dynamicRanges: ["SDR"], audioCodecs: ["aac"], maxChannels: 8, sampleRates: [48000])
        let profiles = [
            DeviceProfile(id: "smart-tv-low-end", name: "Low", plays: plays, rules: ["video-codec-mismatch": .severity(.error)]),
            DeviceProfile(id: "apple-tv-4k", name: "ATV", plays: plays, rules: ["video-codec-mismatch": .severity(.info)]),
        ]
        var result = TransitionAuditor(capabilityRules: []).audit(
            primary: AuditedAsset(role: "primary", input: primary.input, media: primary),
            interstitials: [AuditedAsset(role: "interstitial 1", input: ad.input, media: ad)], profiles: profiles)
        result.findings.append(Finding(rule: "cue-pre-and-post", severity: .error, deviceClass: nil,
                                       subject: "EXT-X-DATERANGE ID=\"ad1\" (line 7)", expected: "PRE or POST, not both",
                                       actual: "PRE,POST", message: "CUE has both PRE and POST", remediation: nil,
                                       location: SourceLocation(uri: "/repo/streams/my pod.m3u8", line: 7)))
        result.findings.append(Finding(rule: "missing-program-date-time", severity: .warning, deviceClass: nil,
                                       subject: "playlist", expected: nil, actual: nil, message: "no PDT", remediation: nil,
                                       location: SourceLocation(uri: "https://cdn.example/a/v.m3u8", line: nil),
                                       accepted: "ADS-1: the packager adds it in production"))
        result.findings.append(Finding(rule: "report-truncated", severity: .info, deviceClass: nil, subject: "report",
                                       expected: nil, actual: nil, message: "cut", remediation: nil))
        return result
    }

    func render() throws -> (text: String, run: [String: Any]) {
        let text = SARIFReporter(toolVersion: "9.9.9", sourceRoot: "/repo").render(sampleResult())
        let log = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        XCTAssertEqual(log["version"] as? String, "2.1.0")
        let run = try XCTUnwrap((log["runs"] as? [[String: Any]])?.first)
        return (text, run)
    }

    func results(_ run: [String: Any], rule: String) -> [[String: Any]] {
        (run["results"] as? [[String: Any]] ?? []).filter { $0["ruleId"] as? String == rule }
    }

    func testOutputValidatesAgainstTheSARIFSchema() throws {
        let validation = try SARIFValidator.validate(text: try render().text)
        XCTAssertEqual(validation.status, 0, validation.stdout + validation.stderr)
        XCTAssertTrue(validation.stdout.hasSuffix(": valid\n"), validation.stdout)
    }

    func testTheValidatorRefusesWhatTheSchemaForbids() throws {
        // A level SARIF does not have, a line 0, and a key no SARIF object has: the check can fail.
        let broken = try render().text.replacingOccurrences(of: "\"level\" : \"note\"", with: "\"level\" : \"info\"")
            .replacingOccurrences(of: "\"startLine\" : 7", with: "\"startLine\" : 0")
            .replacingOccurrences(of: "\"columnKind\"", with: "\"columnKinds\"")
        let validation = try SARIFValidator.validate(text: broken)
        XCTAssertEqual(validation.status, 1, validation.stdout)
        XCTAssertTrue(validation.stdout.contains("level"), validation.stdout)
        XCTAssertTrue(validation.stdout.contains("startLine"), validation.stdout)
        XCTAssertTrue(validation.stdout.contains("columnKinds"), validation.stdout)
    }

    func testRulesCarryTheCatalogRationaleAndSource() throws {
        let (_, run) = try render()
        let driver = try XCTUnwrap((run["tool"] as? [String: Any])?["driver"] as? [String: Any])
        XCTAssertEqual(driver["name"] as? String, "seamcheck")
        XCTAssertEqual(driver["version"] as? String, "9.9.9")
        let rules = try XCTUnwrap(driver["rules"] as? [[String: Any]])
        let codec = try XCTUnwrap(rules.first { $0["id"] as? String == "video-codec-mismatch" })
        let catalog = try XCTUnwrap(RuleCatalog.allDescriptions.first { $0.id == "video-codec-mismatch" })
        XCTAssertEqual((codec["fullDescription"] as? [String: Any])?["text"] as? String, catalog.rationale)
        let help = try XCTUnwrap((codec["help"] as? [String: Any])?["text"] as? String)
        XCTAssertTrue(help.contains(catalog.source), help)
        XCTAssertEqual((codec["properties"] as? [String: Any])?["source"] as? String, catalog.source)
        // Rules outside the catalog still get a descriptor, and every ruleIndex names its rule.
        XCTAssertTrue(rules.contains { $0["id"] as? String == "report-truncated" })
        for result in run["results"] as? [[String: Any]] ?? [] {
            let index = try XCTUnwrap(result["ruleIndex"] as? Int)
            XCTAssertEqual(rules[index]["id"] as? String, result["ruleId"] as? String)
        }
    }

    func testASpecFindingPointsAtItsPlaylistAndLine() throws {
        let (_, run) = try render()
        let cue = try XCTUnwrap(results(run, rule: "cue-pre-and-post").first)
        XCTAssertEqual(cue["level"] as? String, "error")
        let physical = try XCTUnwrap(((cue["locations"] as? [[String: Any]])?.first)?["physicalLocation"] as? [String: Any])
        let artifact = try XCTUnwrap(physical["artifactLocation"] as? [String: Any])
        // Under the source root: relative and percent-encoded, against %SRCROOT%.
        XCTAssertEqual(artifact["uri"] as? String, "streams/my%20pod.m3u8")
        XCTAssertEqual(artifact["uriBaseId"] as? String, "%SRCROOT%")
        XCTAssertEqual((physical["region"] as? [String: Any])?["startLine"] as? Int, 7)
        let roots = try XCTUnwrap(run["originalUriBaseIds"] as? [String: [String: String]])
        XCTAssertEqual(roots["%SRCROOT%"]?["uri"], "file:///repo/")
        XCTAssertEqual((cue["message"] as? [String: Any])?["text"] as? String,
                       "CUE has both PRE and POST (expected PRE or POST, not both; found PRE,POST)")
    }

    func testATransitionFindingCarriesItsDeviceClassAndLocatesTheInput() throws {
        let (_, run) = try render()
        let codec = results(run, rule: "video-codec-mismatch")
        XCTAssertEqual(Set(codec.compactMap { ($0["properties"] as? [String: Any])?["deviceClass"] as? String }),
                       ["smart-tv-low-end", "apple-tv-4k"])
        let low = try XCTUnwrap(codec.first { ($0["properties"] as? [String: Any])?["deviceClass"] as? String == "smart-tv-low-end" })
        XCTAssertEqual(low["level"] as? String, "error")
        XCTAssertTrue(((low["message"] as? [String: Any])?["text"] as? String ?? "").hasPrefix("[smart-tv-low-end] "))
        let high = try XCTUnwrap(codec.first { ($0["properties"] as? [String: Any])?["deviceClass"] as? String == "apple-tv-4k" })
        XCTAssertEqual(high["level"] as? String, "note")
        // No playlist line: the audited input (outside the source root: a file: URL), no region.
        let physical = try XCTUnwrap(((low["locations"] as? [[String: Any]])?.first)?["physicalLocation"] as? [String: Any])
        XCTAssertEqual((physical["artifactLocation"] as? [String: Any])?["uri"] as? String, "file:///m/main.mp4")
        XCTAssertNil(physical["region"])
    }

    func testAnAcceptedFindingIsASuppressedResultWithItsReason() throws {
        let (_, run) = try render()
        let accepted = try XCTUnwrap(results(run, rule: "missing-program-date-time").first)
        let suppressions = try XCTUnwrap(accepted["suppressions"] as? [[String: Any]])
        XCTAssertEqual(suppressions.first?["kind"] as? String, "external")
        XCTAssertEqual(suppressions.first?["justification"] as? String, "ADS-1: the packager adds it in production")
        let artifact = (((accepted["locations"] as? [[String: Any]])?.first)?["physicalLocation"] as? [String: Any])?["artifactLocation"] as? [String: Any]
        XCTAssertEqual(artifact?["uri"] as? String, "https://cdn.example/a/v.m3u8")
        XCTAssertNil(results(run, rule: "cue-pre-and-post").first?["suppressions"])
    }
}
