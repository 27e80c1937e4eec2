@testable import Compatibility
import Foundation
import HLS
import XCTest

/// Lint on what fuzzing and peers' test suites found (issue 14): bounded reports, one index per
/// rule, messages that say what players really do.
final class HostileLintTests: XCTestCase {
    typealias P = SpecPlaylist

    func testLongTextsAreShortenedAndExtraFindingsCutWithAFindingThatSaysSo() {
        let limits = ReportLimits(maxTextLength: 30, maxFindings: 3)
        let long = String(repeating: "a", count: 20) + String(repeating: "b", count: 100)
        func finding(_ rule: String, _ severity: Severity, _ subject: String = "s") -> Finding {
            Finding(rule: rule, severity: severity, deviceClass: nil, subject: subject, expected: nil, actual: nil, message: "m", remediation: nil)
        }
        let findings = [finding("r1", .info, long), finding("r1", .info), finding("r2", .warning), finding("r2", .error), finding("r3", .warning)]
        let cut = limits.apply(findings)
        XCTAssertEqual(cut.count, 4)
        XCTAssertEqual(cut[0].subject, String(repeating: "a", count: 20) + " [... 90 bytes cut ...] " + String(repeating: "b", count: 10))
        let note = try? XCTUnwrap(cut.last)
        XCTAssertEqual(note?.rule, "report-truncated")
        XCTAssertEqual(note?.severity, .error, "as severe as the worst finding left out")
        XCTAssertEqual(note?.message, "1 finding(s) had texts longer than 30 bytes; their middles are cut; 2 finding(s) after the first 3 are left out (r2: 1, r3: 1)")
        XCTAssertEqual(limits.apply(Array(findings[1...3])), Array(findings[1...3]), "nothing to cut, nothing added")
        let accents = String(repeating: "é", count: 100)  // 2 bytes each: cuts fall between scalars
        XCTAssertEqual(ReportLimits(maxTextLength: 32).shorten(accents),
                       String(repeating: "é", count: 10) + " [... 170 bytes cut ...] " + String(repeating: "é", count: 5))
    }

    func testAmplifiedURIsDoNotAmplifyTheReport() async throws {
        // Twelve EXT-X-DEFINE doublings: 60 KiB URIs in 20 interstitials (the fuzzed playlist).
        var lines = ["#EXTM3U", "#EXT-X-TARGETDURATION:6", "#EXT-X-PLAYLIST-TYPE:VOD", "#EXT-X-DEFINE:NAME=\"a0\",VALUE=\"0123456789abcde\""]
        lines += (1...12).map { "#EXT-X-DEFINE:NAME=\"a\($0)\",VALUE=\"{$a\($0 - 1)}{$a\($0 - 1)}\"" }
        lines += ["#EXT-X-PROGRAM-DATE-TIME:2020-01-02T21:55:40Z", "#EXTINF:6,", "a.ts"]
        for i in 0..<20 {
            lines.append("#EXT-X-DATERANGE:ID=\"\(i)\",CLASS=\"com.apple.hls.interstitial\",START-DATE=\"2020-01-02T21:55:44Z\",X-ASSET-URI=\"https://ads.example/{$a12}/\(i)\"")
        }
        lines.append("#EXT-X-ENDLIST")
        let findings = try await SpecLinter.run(SpecExample("amplified", triggers: true, playlist: lines.joined(separator: "\n")))
        let unreachable = findings.filter { $0.rule == "asset-unreachable" }
        XCTAssertEqual(unreachable.count, 20, "every asset is still reported")
        let limit = ReportLimits().maxTextLength + 64
        for finding in findings {
            for text in [finding.subject, finding.expected ?? "", finding.actual ?? "", finding.message] {
                XCTAssertLessThanOrEqual(text.utf8.count, limit, finding.rule)
            }
        }
        XCTAssertEqual(findings.last?.rule, "report-truncated")
        XCTAssertTrue(findings.last?.message.contains("20 finding(s) had texts longer than 2048 bytes") == true, findings.last?.message ?? "")
    }

    func testTwoRenditionsWithManyDateRangesCompareByID() async throws {
        let ranges = (0..<3000).map { "#EXT-X-DATERANGE:ID=\"r\($0)\",CLASS=\"com.example.marker\",START-DATE=\"2020-01-02T21:55:44Z\",DURATION=1" }
        var changed = ranges
        changed[1234] = changed[1234].replacingOccurrences(of: "DURATION=1", with: "DURATION=2")
        changed.remove(at: 2999)
        let rule = try XCTUnwrap(SpecCatalog.rule("daterange-inconsistent-across-renditions"))
        let example = SpecExample("3,000 ranges", triggers: true, playlist: RenditionExamples.multivariant,
                                  resources: RenditionExamples.resources(video: P.media(ranges.joined(separator: "\n")),
                                                                         audio: P.media(changed.joined(separator: "\n"))))
        let findings = try await SpecLinter.run(example, rules: [rule])
        XCTAssertEqual(findings.map(\.actual), ["DURATION=2", "missing"])
        XCTAssertTrue(findings[0].subject.hasPrefix("EXT-X-DATERANGE ID=\"r1234\""), findings[0].subject)
    }

    func testUnquotedEnumerationsSayWhatHlsJsAndMedia3Do() async throws {
        let rule = try XCTUnwrap(SpecCatalog.rule("unknown-enumerated-value"))
        let example = SpecExample("unquoted", triggers: true, playlist: P.media(P.interstitial("ad1",
            "X-ASSET-URI=\"\(P.ad1)\",X-TIMELINE-OCCUPIES=RANGE,X-SNAP=OUT,X-RESTRICT=\"SKIPP\"")))
        let messages = try await SpecLinter.run(example, rules: [rule]).map(\.message)
        XCTAssertEqual(messages.count, 3, "\(messages)")
        let occupies = try XCTUnwrap(messages.first { $0.hasPrefix("X-TIMELINE-OCCUPIES") })
        XCTAssertTrue(occupies.contains("hls.js reads the unquoted value anyway, Media3 ignores X-TIMELINE-OCCUPIES quoted or not"), occupies)
        XCTAssertFalse(occupies.contains("players ignore it"), occupies)
        let snap = try XCTUnwrap(messages.first { $0.hasPrefix("X-SNAP") })
        XCTAssertTrue(snap.contains("hls.js reads the unquoted value anyway"), snap)
        let restrict = try XCTUnwrap(messages.first { $0.hasPrefix("X-RESTRICT") })
        XCTAssertTrue(restrict.hasSuffix("players ignore it"), "an unknown token every client must ignore: \(restrict)")
    }

    func testStartDateOneMillisecondPastTheVODEndIsOutsideTheTimeline() async throws {
        let rule = try XCTUnwrap(SpecCatalog.rule("interstitial-outside-timeline"))
        for (start, outside) in [("2020-01-02T21:56:10.000Z", false), ("2020-01-02T21:56:10.001Z", true), ("2020-01-02T21:56:30Z", true),
                                 ("2020-01-02T21:55:40.000Z", false), ("2020-01-02T21:55:39.999Z", true)] {
            let example = SpecExample(start, triggers: outside, playlist: P.media(P.interstitial("ad1", "X-ASSET-URI=\"\(P.ad1)\"", start: start)))
            let findings = try await SpecLinter.run(example, rules: [rule])
            XCTAssertEqual(findings.count, outside ? 1 : 0, "\(start): \(findings.map(\.message))")
        }
    }
}
