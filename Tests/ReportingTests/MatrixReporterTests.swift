import Compatibility
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Matrix
import MediaProbe
@testable import Reporting
@testable import ResultsReporting
import XCTest

final class MatrixReporterTests: XCTestCase {
    static let profiles = [
        DeviceProfile(id: "smart-tv-low-end", name: "Low", plays: Capabilities(
            video: true, videoCodecs: ["h264"], maxWidth: 1920, maxHeight: 1080, maxFrameRate: 60, dynamicRanges: ["SDR"],
            audioCodecs: ["aac"], maxChannels: 2, sampleRates: [48000]), rules: ["frame-rate-mismatch": .severity(.error)]),
        DeviceProfile(id: "apple-tv-4k", name: "ATV", plays: Capabilities(
            video: true, videoCodecs: ["h264", "hevc"], maxWidth: 3840, maxHeight: 2160, maxFrameRate: 60, dynamicRanges: ["SDR"],
            audioCodecs: ["aac"], maxChannels: 8, sampleRates: [48000]), rules: ["frame-rate-mismatch": .severity(.warning)]),
    ]

    static func media(_ input: String, rate: Rational = Rational(30000, 1001), duration: Double = 60) -> MediaDescription {
        MediaDescription(input: input, container: "mp4", duration: duration,
                         video: [VideoTrack(codec: "h264", profile: "High", width: 1920, height: 1080, frameRate: rate)],
                         audio: [AudioTrack(codec: "aac", profile: "LC", sampleRate: 48000, channels: 2, channelLayout: "stereo")])
    }

    /// Four cases: one failing on the low-end TV (a <script> in the ad's name), one known, one
    /// passing, one that could not be audited; and one planned case the run never reached.
    static func report(status: RunStatus = .interrupted) -> MatrixReport {
        let issues = [ExpectedIssue(caseId: "known-case", rule: "frame-rate-mismatch", deviceClass: "*", reason: "vendor <fix> in Q3 & later")]
        let grader = CellGrader(expectedIssues: issues, threshold: .error)
        func audited(_ id: String, ad: MediaDescription) -> CaseResult {
            let primary = AuditedAsset(role: "primary", input: "/m/main.mp4", media: media("/m/main.mp4"))
            let asset = AuditedAsset(role: "interstitial 1", input: ad.input, media: ad)
            let audit = TransitionAuditor(capabilityRules: []).audit(primary: primary, interstitials: [asset], profiles: profiles)
            return CaseResult(caseId: id, kind: "explicit", primary: primary.input, interstitials: [ad.input], tags: ["pod"],
                              startedAt: Date(), seconds: 0.25, failure: nil, assets: [primary] + audit.interstitials,
                              placements: InterstitialPlacement.preRollPod(durations: [ad.duration]),
                              cells: grader.cells(caseId: id, findings: audit.findings, deviceClasses: profiles.map(\.id)))
        }
        var broken = audited("broken", ad: media("/m/x.mp4"))
        broken.failure = CaseFailure(kind: .input, input: "http://h/<x>.mp4", reason: "http://h/<x>.mp4: cannot open (HTTP 404)")
        broken.cells = grader.errorCells(deviceClasses: profiles.map(\.id))
        broken.assets = []
        let cases = [audited("fails", ad: media("/m/<script>ad25.mp4", rate: Rational(25, 1), duration: 15)),
                     audited("known-case", ad: media("/m/ad25.mp4", rate: Rational(25, 1), duration: 15)),
                     audited("passes", ad: media("/m/ok.mp4", duration: 20)), broken]
        let summary = RunSummary(id: 7, matrixName: "release <42>", matrixFile: "/lab/m.yaml", startedAt: Date(timeIntervalSince1970: 1.7e9),
                                 finishedAt: nil, status: status, failOn: .error, deviceClasses: profiles.map(\.id), plannedCases: 5,
                                 finishedCases: 4, cells: [:], probesPerformed: 5, distinctInputs: 5)
        let record = RunRecord(summary: summary, caseTimeout: 60, jobs: 2, plannedCases: cases.map(\.caseId) + ["never-ran"],
                               expectedIssues: issues, profiles: profiles, cases: cases)
        return MatrixReport(run: record, changes: nil)
    }

    /// Case inputs with repeated slashes (Foundation's path API traps on them, issue 14) render in every format.
    func testEveryFormatRendersInputsWithRepeatedSlashes() {
        var report = Self.report()
        for index in report.run.cases.indices {
            report.run.cases[index].primary = "http://host/a///b//"
            report.run.cases[index].interstitials = ["/a///b//"]
            for asset in report.run.cases[index].assets.indices { report.run.cases[index].assets[asset].input = "file:///a///b//" }
        }
        for format in MatrixReportFormat.allCases {
            XCTAssertFalse(format.reporter.render(report).isEmpty, "\(format)")
        }
        XCTAssertEqual(shortName("http://host/a///b//"), "b")
        XCTAssertEqual(shortName("http://host/"), "http://host/")
    }

    func testJUnitHasASuitePerClassAndMapsStatuses() throws {
        let xml = MatrixJUnitReporter().render(Self.report())
        let parsed = try JUnitDocument(xml)
        XCTAssertEqual(parsed.suites.map(\.name), ["smart-tv-low-end", "apple-tv-4k"])
        let low = parsed.suites[0]
        XCTAssertEqual(low.cases, ["fails", "known-case", "passes", "broken", "never-ran"])
        XCTAssertEqual(low.failures, ["fails"])
        XCTAssertEqual(low.errors, ["broken"])
        XCTAssertEqual(low.skipped, ["known-case", "never-ran"])
        XCTAssertEqual(low.attributes["tests"], "5")
        XCTAssertEqual(low.attributes["failures"], "1")
        XCTAssertEqual(low.attributes["errors"], "1")
        XCTAssertEqual(low.attributes["skipped"], "2")
        XCTAssertTrue(parsed.messages.contains("known: vendor <fix> in Q3 & later"), "the reason, unescaped by the parser")
        XCTAssertEqual(parsed.suites[1].failures, [], "a warning does not fail on Apple TV 4K")
    }

    func testHTMLEscapesEverythingFromInputsAndIsSelfContained() {
        let html = MatrixHTMLReporter().render(Self.report())
        XCTAssertFalse(html.contains("<script>"), "no markup from input names")
        XCTAssertTrue(html.contains("&lt;script&gt;ad25.mp4"))
        XCTAssertTrue(html.contains("release &lt;42&gt;"))
        XCTAssertTrue(html.contains("http://h/&lt;x&gt;.mp4"))
        XCTAssertFalse(html.contains("<link") || html.contains("src=\"http"), "no external resources")
        XCTAssertTrue(html.contains("<td class=\"fail\""))
        XCTAssertTrue(html.contains("<td class=\"known\""))
        XCTAssertTrue(html.contains("<td class=\"error\""))
        XCTAssertTrue(html.contains("class=\"ad fail\" style=\"left:0.00%;width:25.00%\""), "the failing ad: 15 s from 0 s on a 60 s primary")
        XCTAssertTrue(html.contains("Must fix") && html.contains("Should fix"))
        XCTAssertTrue(html.contains("Not finished"))
    }

    func testJSONDocumentIsVersionedWithTheDocumentedFields() throws {
        let text = MatrixJSONReporter().render(Self.report())
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        XCTAssertEqual(json["schemaVersion"] as? Int, 1)
        XCTAssertEqual(json["kind"] as? String, "matrixRun")
        XCTAssertEqual(Set(json.keys), ["schemaVersion", "kind", "run", "deviceClasses", "summary", "cases", "unfinishedCases", "encoder",
                                        "changes", "expectedIssues", "unusedExpectedIssues"])
        XCTAssertTrue(json["changes"] is NSNull)
        let run = try XCTUnwrap(json["run"] as? [String: Any])
        XCTAssertEqual(run["status"] as? String, "interrupted")
        XCTAssertEqual(run["startedAt"] as? String, "2023-11-14T22:13:20Z")
        XCTAssertEqual(json["summary"] as? [String: Int], ["pass": 2, "known": 2, "warn": 1, "fail": 1, "error": 2])
        XCTAssertEqual(json["unfinishedCases"] as? [String], ["never-ran"])
        let cases = try XCTUnwrap(json["cases"] as? [[String: Any]])
        XCTAssertTrue(cases[0]["error"] is NSNull)
        XCTAssertEqual((cases[3]["error"] as? [String: Any])?["kind"] as? String, "input")
        let cell = try XCTUnwrap((cases[1]["cells"] as? [[String: Any]])?.first)
        XCTAssertEqual(cell["status"] as? String, "known")
        let finding = try XCTUnwrap((cell["findings"] as? [[String: Any]])?.first)
        XCTAssertEqual(finding["known"] as? Bool, true)
        XCTAssertEqual(finding["rule"] as? String, "frame-rate-mismatch")
        let placement = try XCTUnwrap((cases[0]["placements"] as? [[String: Any]])?.first)
        XCTAssertEqual(placement["basis"] as? String, "assumedPreRollPod")
        let encoder = try XCTUnwrap(json["encoder"] as? [String: Any])
        XCTAssertEqual(encoder["primariesAgree"] as? Bool, true)
    }

    func testMarkdownAndTablesNameTheCells() {
        let report = Self.report()
        let md = MatrixMarkdownReporter().render(report)
        XCTAssertTrue(md.contains("| `fails` | **FAIL** | warn |"), md)
        XCTAssertTrue(md.contains("| `broken` | **ERROR** | **ERROR** |"))
        XCTAssertTrue(md.contains("## Must fix"))
        let table = MatrixTableReporter().render(report)
        XCTAssertTrue(table.contains("known-case  known"), table)
        let line = MatrixProgressLine.render(MatrixProgress(total: 10, finished: 5, running: 2, cells: [.pass: 8, .fail: 2], probesPerformed: 4), elapsed: 1.5)
        XCTAssertEqual(line, "[############------------] 5/10 cases, 2 running | pass 8 known 0 warn 0 fail 2 error 0 | 4 probes | 1.5 s")
    }
}

/// The parts of a JUnit document the tests check, read with FoundationXML's parser.
private final class JUnitDocument: NSObject, XMLParserDelegate {
    struct Suite {
        var name: String
        var attributes: [String: String]
        var cases: [String] = []
        var failures: [String] = []
        var errors: [String] = []
        var skipped: [String] = []
    }

    var suites: [Suite] = []
    var messages: [String] = []
    private var currentCase = ""

    init(_ xml: String) throws {
        super.init()
        let parser = XMLParser(data: Data(xml.utf8))
        parser.delegate = self
        guard parser.parse() else { throw parser.parserError ?? NSError(domain: "xml", code: 1) }
    }

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String] = [:]) {
        switch name {
        case "testsuite": suites.append(Suite(name: attributes["name"] ?? "", attributes: attributes))
        case "testcase":
            currentCase = attributes["name"] ?? ""
            suites[suites.count - 1].cases.append(currentCase)
        case "failure": suites[suites.count - 1].failures.append(currentCase)
        case "error": suites[suites.count - 1].errors.append(currentCase)
        case "skipped":
            suites[suites.count - 1].skipped.append(currentCase)
            messages.append(attributes["message"] ?? "")
        default: break
        }
    }
}
