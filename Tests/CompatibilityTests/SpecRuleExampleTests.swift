@testable import Compatibility
import Foundation
import HLS
import XCTest

/// Each spec rule's examples are its specification: each runs through the real loader (from
/// memory) and the rule alone must fire exactly when the example says.
final class SpecRuleExampleTests: XCTestCase {
    func testEveryInterfaceSpecRuleIsImplementedOnce() {
        let ids = SpecCatalog.rules.map(\.id)
        XCTAssertEqual(Set(ids).count, ids.count)
        XCTAssertEqual(Set(ids), Set(RuleIdentifiers.spec), "every id of docs/interface.md's Interstitial spec group, and Seamcheck's additions")
        XCTAssertEqual(ids.count, 23)
    }

    func testSeveritiesFollowTheReferencePage() {
        let warnings: Set = ["unknown-enumerated-value", "asset-unreachable", "interstitial-duration-mismatch", "interstitial-outside-timeline",
                             "x-cue-attribute", "date-without-time-zone"]
        for rule in SpecCatalog.rules {
            XCTAssertEqual(rule.description.defaultSeverity, warnings.contains(rule.id) ? .warning : .error, rule.id)
        }
    }

    func testEveryRuleExampleFiresExactlyWhenItSaysItDoes() async throws {
        for rule in SpecCatalog.rules {
            XCTAssertTrue(rule.examples.contains { $0.triggers }, "\(rule.id) needs an example that fires")
            XCTAssertTrue(rule.examples.contains { !$0.triggers }, "\(rule.id) needs an example that does not fire")
            for example in rule.examples {
                let findings = try await SpecLinter.run(example, rules: [rule])
                XCTAssertEqual(!findings.isEmpty, example.triggers, "\(rule.id): '\(example.name)': \(findings.map(\.message))")
                for finding in findings {
                    XCTAssertNil(finding.deviceClass)
                    XCTAssertNil(finding.remediation)
                    XCTAssertEqual(finding.rule, rule.id)
                }
            }
        }
    }

    func testCleanExamplesAreCleanUnderEveryRule() async throws {
        // The spec's own ad1 example, with its asset served, breaks no rule at all.
        let example = SpecExample("spec ad1", triggers: false, playlist: SpecPlaylist.media(
            SpecPlaylist.interstitial("ad1", "DURATION=15.0,X-ASSET-URI=\"\(SpecPlaylist.ad1)\",X-RESUME-OFFSET=0,X-RESTRICT=\"SKIP,JUMP\",X-COM-EXAMPLE-BEACON=123")),
            resources: [SpecPlaylist.ad1: SpecPlaylist.asset()])
        let findings = try await SpecLinter.run(example)
        XCTAssertEqual(findings, [], "\(findings.map(\.message))")
    }

    func testFindingsNameTheTagIDAndLine() async throws {
        let example = SpecExample("both sources", triggers: true, playlist: SpecPlaylist.media(
            SpecPlaylist.interstitial("ad7", "X-ASSET-URI=\"\(SpecPlaylist.ad1)\",X-ASSET-LIST=\"https://ads.example/l.json\"")),
            resources: [SpecPlaylist.ad1: SpecPlaylist.asset(), "https://ads.example/l.json": "{\"ASSETS\":[]}"])
        let findings = try await SpecLinter.run(example, rules: [try XCTUnwrap(SpecCatalog.rule("interstitial-asset-source"))])
        XCTAssertEqual(findings.map(\.subject), ["EXT-X-DATERANGE ID=\"ad7\" (line 15)"])
        XCTAssertEqual(findings.first?.severity, .error)
    }

    func testEmptyAssetListIsInfoNotError() async throws {
        let rule = try XCTUnwrap(SpecCatalog.rule("asset-list-invalid"))
        let empty = try XCTUnwrap(rule.examples.first { $0.name.hasPrefix("empty") })
        let findings = try await SpecLinter.run(empty, rules: [rule])
        XCTAssertEqual(findings.map(\.severity), [.info])
        let notJSON = try await SpecLinter.run(try XCTUnwrap(rule.examples.first { $0.name == "not JSON" }), rules: [rule])
        XCTAssertEqual(notJSON.map(\.severity), [.error])
        XCTAssertTrue(notJSON[0].message.contains("https://ads.example/list.json"), notJSON[0].message)
    }

    func testTheSameViolationInEveryRenditionIsReportedOnce() async throws {
        let broken = SpecPlaylist.media(SpecPlaylist.interstitial("ad1", "DURATION=15"))
        let example = SpecExample("no asset, two renditions", triggers: true, playlist: RenditionExamples.multivariant,
                                  resources: RenditionExamples.resources(video: broken, audio: broken))
        let findings = try await SpecLinter.run(example, rules: [try XCTUnwrap(SpecCatalog.rule("interstitial-asset-source"))])
        XCTAssertEqual(findings.count, 1)
        XCTAssertEqual(findings.first?.subject, "EXT-X-DATERANGE ID=\"ad1\" (line 15) in video.m3u8 and 1 other media playlist(s)")
    }

    func testTheSameViolationOnAnotherLineOfEachRenditionIsReportedOnce() async throws {
        // The video playlist has an EXT-X-MAP and the audio one does not: one tag, two lines.
        let broken = SpecPlaylist.media(SpecPlaylist.interstitial("ad1", "DURATION=15"), SpecPlaylist.interstitial("ad2", "DURATION=15"))
        let video = broken.replacingOccurrences(of: "#EXT-X-PLAYLIST-TYPE:VOD\n", with: "#EXT-X-PLAYLIST-TYPE:VOD\n#EXT-X-MAP:URI=\"init.mp4\"\n")
        let example = SpecExample("no asset, two renditions", triggers: true, playlist: RenditionExamples.multivariant,
                                  resources: RenditionExamples.resources(video: video, audio: broken))
        let findings = try await SpecLinter.run(example, rules: [try XCTUnwrap(SpecCatalog.rule("interstitial-asset-source"))])
        XCTAssertEqual(findings.map(\.subject), ["EXT-X-DATERANGE ID=\"ad1\" (line 16) in video.m3u8 and 1 other media playlist(s)",
                                                 "EXT-X-DATERANGE ID=\"ad2\" (line 17) in video.m3u8 and 1 other media playlist(s)"])
        // Two tags without an ID in one playlist stay two findings.
        let anonymous = SpecPlaylist.media("#EXT-X-DATERANGE:START-DATE=\"2020-01-02T21:55:44.000Z\"",
                                           "#EXT-X-DATERANGE:START-DATE=\"2020-01-02T21:55:46.000Z\"")
        let twice = try await SpecLinter.run(SpecExample("two without ID", triggers: true, playlist: anonymous),
                                             rules: [try XCTUnwrap(SpecCatalog.rule("daterange-missing-id"))])
        XCTAssertEqual(twice.count, 2, "\(twice.map(\.subject))")
    }

    func testRemoteAssetListPointingAtALocalFileIsRefusedAndNamed() async throws {
        let rule = try XCTUnwrap(SpecCatalog.rule("asset-unreachable"))
        let example = try XCTUnwrap(rule.examples.first { $0.name.contains("local file") })
        let findings = try await SpecLinter.run(example, rules: [rule])
        XCTAssertEqual(findings.count, 1)
        XCTAssertTrue(findings[0].message.contains("refused"), findings[0].message)
        XCTAssertTrue(findings[0].message.contains("file:///etc/passwd"), findings[0].message)
    }
}
