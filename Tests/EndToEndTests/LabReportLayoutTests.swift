import Compatibility
import Foundation
import LabCore
import LabRun
import LabServer
import Reporting
import ResultsReporting
import SeamcheckTestSupport
import XCTest

/// What a tester found in `lab report` of an unattended run against Kodi: a column without a
/// header, an empty class table, an ad transition reported for an interstitial never fetched, and
/// the timeline's labels. Cells built the way `lab run` measures them (LabReportTimelineTests).
final class LabReportLayoutTests: XCTestCase {
    typealias Cells = LabReportTimelineTests

    /// Kodi on the interstitial case: it ignores EXT-X-DATERANGE, plays the 12 s primary straight
    /// through and fetches none of the ad.
    static func kodiWithoutTheAd(deviceClass: String? = nil) -> LabRunCell {
        var sketch = Cells.fetching(PlaybackSketch(duration: 12).loads(520).plays(12).ended(600), caseId: "frame-rate")
        sketch.requests.removeAll { $0.path.contains("/ad/") }
        return Cells.cell("Kodi", caseId: "frame-rate", sketch, deviceClass: deviceClass)
    }

    static func report(_ cells: [LabRunCell]) throws -> LabReport {
        let profiles = try ProfileLoader.loadDirectory(MediaFixture.packageRoot + "/DeviceProfiles")
        return LabReportBuilder(manifest: Cells.manifest, profiles: profiles).report(verdicts: [], sessions: [], cells: cells)
    }

    static func matches(_ pattern: String, in text: String) -> [String] {
        let regex = try! NSRegularExpression(pattern: pattern)
        return regex.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap { match in
            Range(match.range(at: 1), in: text).map { String(text[$0]) }
        }
    }

    func testEveryColumnHasAHeaderInEveryFormat() throws {
        let report = try Self.report([Self.kodiWithoutTheAd(deviceClass: "smart-tv-low-end")])
        let html = LabReportFormat.html.render(report)
        let headers = Self.matches("<th>([^<]*)</th>", in: html)
        XCTAssertFalse(headers.isEmpty)
        XCTAssertFalse(headers.contains(""), "every HTML column has a header: \(headers)")
        XCTAssertEqual(headers.filter { $0 == "agreement" }.count, 2, "main and class tables: \(headers)")
        let firstHead = Self.matches("<thead><tr>(.*?)</tr></thead>", in: html)[0]
        let firstRow = Self.matches("<tbody>\\s*<tr[^>]*>(.*?)</tr>", in: html)[0]
        XCTAssertEqual(firstHead.components(separatedBy: "<th>").count, firstRow.components(separatedBy: "<td>").count)

        let table = LabReportFormat.table.render(report)
        XCTAssertTrue(table.contains("STALL PER TRANSITION") && table.contains("AGREEMENT"), table)
        let markdown = LabReportFormat.markdown.render(report)
        XCTAssertFalse(markdown.contains("| |"), "no blank Markdown header: \(markdown)")
        XCTAssertTrue(markdown.contains("| stall per transition | evidence sources | agreement | evidence |"), markdown)
    }

    func testAReportWithNoClassSaysSoInsteadOfAnEmptyTable() throws {
        let report = try Self.report([Self.kodiWithoutTheAd()])
        XCTAssertEqual(report.cells.first?.deviceClass, nil)
        let line = "no receiver has a device class: pin one with --inventory"
        let html = LabReportFormat.html.render(report)
        XCTAssertTrue(html.contains(line), html)
        XCTAssertFalse(html.contains("observed (worst)"), "no class table with headers only")
        XCTAssertTrue(LabReportFormat.table.render(report).contains("per device class: " + line))
        XCTAssertTrue(LabReportFormat.markdown.render(report).contains("## Per device class\n\n" + line))
    }

    func testAnInterstitialTheReceiverNeverFetchedIsNoTransition() throws {
        let kodi = Self.kodiWithoutTheAd(deviceClass: "smart-tv-low-end")
        let labCase = try XCTUnwrap(Cells.manifest.case("frame-rate"))
        XCTAssertEqual(TransitionPoint.interstitialFetched(labCase, requests: kodi.requests), false)
        XCTAssertNil(TransitionPoint.interstitialFetched(Cells.stitched, requests: kodi.requests), "a stitched ad is never fetched apart")
        let den = Cells.cell("Den", caseId: "frame-rate", Cells.fetching(PlaybackSketch(duration: 12).loads(520).plays(12).ended(600),
                                                                         caseId: "frame-rate"))
        let report = try Self.report([kodi, den])
        let kodiCell = try XCTUnwrap(report.cells.first { $0.receiver == "Kodi" })
        let measured = try XCTUnwrap(kodiCell.measured)
        XCTAssertEqual(measured.interstitialPlayed, false)
        XCTAssertEqual(measured.transitionStalls, [], "no ad start or end: there was no transition")
        XCTAssertEqual(kodiCell.timeline?.transitions, [])
        XCTAssertEqual(report.cells.first { $0.receiver == "Den" }?.measured?.interstitialPlayed, true)
        XCTAssertEqual(report.cells.first { $0.receiver == "Den" }?.measured?.transitionStalls.first?.transition, "ad start 6 s")

        let notPlayed = "interstitial not played (the receiver fetched none of it)"
        let table = LabReportFormat.table.render(report)
        let kodiLine = try XCTUnwrap(table.split(separator: "\n").first { $0.contains("Kodi") })
        XCTAssertTrue(kodiLine.contains(notPlayed) && !kodiLine.contains("ad start"), String(kodiLine))
        let html = LabReportFormat.html.render(report)
        XCTAssertEqual(html.components(separatedBy: "class=\"ad-window not-played\"").count - 1, 1, "Kodi's window greyed, Den's not")
        XCTAssertEqual(html.components(separatedBy: "class=\"ad-window\"").count - 1, 1)
        XCTAssertTrue(html.contains("<td>\(notPlayed)</td>"), html)
        let json = LabReportFormat.json.render(report)
        XCTAssertTrue(json.contains("\"interstitialPlayed\" : false"), json)
    }

    func testTheTimelineMarksAnEarlyEndAndKeepsItsLabelsClear() throws {
        let early = Cells.cell("Kodi", caseId: "frame-rate-stitched",
                               Cells.fetching(PlaybackSketch(duration: 14).loads(740).plays(5).ended(600), caseId: "frame-rate-stitched"))
        XCTAssertEqual(early.measurement.failure, .endedEarly, early.measurement.reason)
        let timeline = try XCTUnwrap(try Self.report([early]).cells.first?.timeline)
        XCTAssertEqual(timeline.end?.position ?? 0, 4.87, accuracy: 0.01)
        XCTAssertEqual(timeline.end?.label, "early end at 4.87 s of 14 s")
        let svg = LabReportFormat.html.render(try Self.report([early]))
        XCTAssertTrue(svg.contains("class=\"short-end\"") && svg.contains(">early end at 4.87 s of 14 s</text>"), svg)

        // The first-frame label sits high in the plot (34...220), away from the playhead near position 0.
        let labelY = try XCTUnwrap(Self.matches(#"class="first-frame-label" x="[0-9.]+" y="([0-9.]+)""#, in: svg).first.flatMap(Double.init))
        XCTAssertLessThan(labelY, 100)
        // The x axis title right under its numbers.
        let numbersY = try XCTUnwrap(Self.matches(##"y="([0-9.]+)" text-anchor="middle" fill="#444">[0-9.]+ s<"##, in: svg).first.flatMap(Double.init))
        let titleY = try XCTUnwrap(Self.matches(##"y="([0-9.]+)" text-anchor="middle" fill="#222">seconds since /play<"##, in: svg).first
            .flatMap(Double.init))
        XCTAssertLessThanOrEqual(titleY - numbersY, 18)
        XCTAssertGreaterThan(titleY - numbersY, 10)
    }
}
