import Foundation
import LabCore
import XCTest
@testable import Reporting
@testable import ResultsReporting

/// What a nightly CI job reads from `lab run --fail-on regression`: JUnit naming the receiver, the
/// case and the evidence; SARIF with accepted issues suppressed; the compare table; the cell view.
final class LabGateReportTests: XCTestCase {
    static func brief(_ outcome: MeasuredOutcome, caseId: String, run: String, id: Int64, receiver: String = "Den <TV>",
                      behaviour: BehaviourOutcome? = nil, software: LabReceiverSoftware? = nil) -> LabCellBrief {
        var m = CellMeasurement(outcome: outcome, transitionStallMs: outcome == .stall ? 1200 : 0,
                                reason: outcome == .stall ? "position frozen 1.20 s at ad start 6 s" : "played through")
        if outcome == .stall { m.stalls = [MeasuredStall(position: 6, startMs: 6000, durationMs: 1200, kind: "position-frozen", transition: "ad start 6 s")] }
        if let behaviour { m.behaviour = BehaviourJudgement(caseId: caseId, feature: "cue", outcome: behaviour, checks: [], why: nil, evidence: [], requests: 3) }
        let at = Date(timeIntervalSince1970: 1_800_000_000 + Double(id) * 20)
        return LabCellBrief(id: id, runId: run, station: nil, receiver: receiver, deviceClass: "smart-tv-low-end", caseId: caseId, attempt: 1,
                            startedAt: at, finishedAt: at.addingTimeInterval(15.5), done: true, measurement: m, software: software)
    }

    func gate() -> (LabGateResult, [LabCellBrief], RunComparison) {
        let old = LabReceiverSoftware(sourceVersion: "377.40", model: "TV1"), new = LabReceiverSoftware(sourceVersion: "380.1", model: "TV1")
        let before = [Self.brief(.seamless, caseId: "control-stitched", run: "nightly-1", id: 1, software: old),
                      Self.brief(.seamless, caseId: "behaviour-cue-pre", run: "nightly-1", id: 2, behaviour: .conforms, software: old)]
        let after = [Self.brief(.stall, caseId: "control-stitched", run: "nightly-2", id: 11, software: new),
                     Self.brief(.seamless, caseId: "behaviour-cue-pre", run: "nightly-2", id: 12, behaviour: .deviates, software: new)]
        let comparison = RunComparer().compare(before: "nightly-1", before, after: "nightly-2", after)
        let result = LabGate.evaluate(runId: "nightly-2", cells: after, conditions: [.regression], comparison: comparison) { finding in
            finding.caseId == "behaviour-cue-pre" ? "vendor bug 77: CUE=PRE ignored since 380" : nil
        }
        return (result, after, comparison)
    }

    func testJUnitNamesTheReceiverTheCaseAndTheEvidence() {
        let (result, cells, _) = gate()
        let xml = LabGateReports.junit(result, cells: cells)
        XCTAssertTrue(xml.contains(#"<testsuite name="Den &lt;TV&gt;" tests="2" failures="1" errors="0">"#), xml)
        XCTAssertTrue(xml.contains(#"<testcase classname="Den &lt;TV&gt;" name="control-stitched" time="15.500">"#), xml)
        XCTAssertTrue(xml.contains(#"<failure type="lab-regression" message="regression on Den &lt;TV&gt;: control-stitched">"#), xml)
        XCTAssertTrue(xml.contains("evidence: seamless -&gt; stall 1200 ms: position frozen 1.20 s at ad start 6 s"), xml)
        XCTAssertTrue(xml.contains("baseline: seamless in run nightly-1"), xml)
        XCTAssertTrue(xml.contains("firmware changed: model TV1; srcvers 377.40 -&gt; model TV1; srcvers 380.1"), xml)
        XCTAssertTrue(xml.contains(#"<skipped message="accepted: vendor bug 77: CUE=PRE ignored since 380"/>"#), xml)
        XCTAssertFalse(xml.contains("<TV>"), "escaped")
    }

    func testSARIFHasOneResultPerFindingAndSuppressesAcceptedOnes() throws {
        let (result, _, _) = gate()
        let sarif = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(LabGateReports.sarif(result).utf8)) as? [String: Any])
        let run = try XCTUnwrap((sarif["runs"] as? [[String: Any]])?.first)
        let results = try XCTUnwrap(run["results"] as? [[String: Any]])
        XCTAssertEqual(results.map { $0["ruleId"] as? String }, ["lab-regression", "lab-regression"])
        // Worse entries by receiver and case: behaviour-cue-pre (accepted), then control-stitched (open).
        XCTAssertEqual((results[1]["message"] as? [String: Any])?["text"] as? String,
                       "[smart-tv-low-end] regression on Den <TV>: control-stitched (expected seamless in run nightly-1; found seamless -> stall 1200 ms: position frozen 1.20 s at ad start 6 s)")
        XCTAssertNil(results[1]["suppressions"])
        XCTAssertEqual((results[0]["suppressions"] as? [[String: Any]])?.first?["justification"] as? String, "vendor bug 77: CUE=PRE ignored since 380")
    }

    func testTheCompareTableSaysWhatGotWorseWithTheFirmwareOnEachSide() {
        let (_, _, comparison) = gate()
        let table = RunComparisonText.table(comparison)
        XCTAssertTrue(table.contains("run nightly-2 against nightly-1: 2 worse, 0 better, 0 new, 0 gone"), table)
        XCTAssertTrue(table.contains("firmware changed on Den <TV>: srcvers 377.40 -> 380.1"), table)
        XCTAssertTrue(table.contains("WORSE   Den <TV>  behaviour-cue-pre  conforms -> deviates"), table)
        let html = RunComparisonText.html(comparison)
        XCTAssertTrue(html.contains(#"<tr class="worse"><td>worse</td><td>Den &lt;TV&gt;</td><td><code>control-stitched</code></td><td>seamless -&gt; stall 1200 ms</td>"#), html)
    }

    func testTheDashboardsCellViewIsTheReportsTimelineEscaped() {
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        var cell = LabRunCell(runId: "r<1>", receiver: "<script>x</script>", deviceId: nil, deviceClass: nil, address: "10.0.0.2",
                              caseId: "control", attempt: 1, startedAt: start, finishedAt: start.addingTimeInterval(12), url: "http://x/?a=<i>x",
                              series: PlaybackSeries(playSentAt: start, pollIntervalMs: 250), requests: [],
                              measurement: CellMeasurement(outcome: .seamless, reason: "played <well>"))
        cell.software = LabReceiverSoftware(sourceVersion: "<1>")
        let html = LabCellHTML.render(cell, labCase: nil)
        XCTAssertTrue(html.contains("<svg"), html)
        XCTAssertTrue(html.contains("&lt;script&gt;x&lt;/script&gt;"), html)
        XCTAssertTrue(html.contains("receiver software: srcvers &lt;1&gt;"), html)
        XCTAssertFalse(html.contains("<script>") || html.contains("<well>") || html.contains("<i>"), html)
    }
}
