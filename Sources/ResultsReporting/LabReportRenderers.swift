import Reporting
import Foundation
import HLS
import LabCore

/// `seamcheck lab report` formats.
public enum LabReportFormat: String, CaseIterable, Sendable {
    case table, json, markdown, html, junit

    public func render(_ report: LabReport) -> String {
        switch self {
        case .table: return LabReportText.table(report)
        case .json: return LabReportText.json(report)
        case .markdown: return LabReportText.markdown(report)
        case .html: return LabReportText.html(report)
        case .junit: return LabReportText.junit(report)
        }
    }
}

/// Text is escaped for each format: receiver names, notes and paths come from the network and operators.
enum LabReportText {
    static func mark(_ cell: LabReportCell) -> String {
        switch cell.agrees {
        case true?: return "agrees"
        case false?: return "DISAGREES"
        case nil: return cell.observed == nil ? "not observed" : "not compared"
        }
    }

    /// "stall 1200 ms", "seamless", "-".
    static func measured(_ cell: LabReportCell) -> String {
        guard let m = cell.measured else { return "-" }
        return m.verdict + (m.stallMs.map { " \(ms($0))" } ?? "") + (m.pictureStallMs.map { "; picture \(ms($0))" } ?? "")
    }

    /// "protocol seamless, picture failed: SOURCES DISAGREE", "-" without a measurement.
    static func sources(_ cell: LabReportCell) -> String {
        guard let m = cell.measured, let sources = m.sources else { return "-" }
        return sources + ((m.disagreements ?? []).isEmpty ? "" : ": SOURCES DISAGREE")
    }

    static func firstFrame(_ cell: LabReportCell) -> String { cell.measured?.firstFrameMs.map(ms) ?? "-" }

    /// "ad start 6 s: 1200 ms, ad end 8 s: 0 ms"; a point playback never reached reads "not reached".
    static func transitionStalls(_ cell: LabReportCell) -> String {
        if cell.measured?.interstitialPlayed == false, cell.measured?.transitionStalls.isEmpty == true {
            return notPlayed
        }
        guard let stalls = cell.measured?.transitionStalls, !stalls.isEmpty else { return "-" }
        return stalls.map { "\($0.transition): \($0.ms.map(ms) ?? "not reached")" }.joined(separator: ", ")
    }

    /// "the ad's start: gap 200 ms, A/V +195 ms; the return from the ad: gap 0 ms, A/V +3 ms"; "-" without sound.
    static func soundPerTransition(_ cell: LabReportCell) -> String {
        guard let sound = cell.measured?.sound, !sound.isEmpty else { return "-" }
        return sound.map { column in
            column.transition + (column.gapMs == nil && column.avOffsetMs == nil
                                 && (column.transition.hasPrefix("sound ") || column.transition.hasSuffix(": not measured")) ? ""
                : ": gap \(column.gapMs.map(ms) ?? "not known")"
                + (column.avOffsetMs.map { ", A/V \(String(format: "%+.0f", $0)) ms" } ?? "")
                + (column.expectedAvOffsetMs.map { $0 != 0 ? " (stream's own \(String(format: "%+.0f", $0)) ms)" : "" } ?? ""))
        }.joined(separator: "; ")
    }

    /// Whether any receiver cell heard sound: the sound column is shown only then.
    static func hasSound(_ report: LabReport) -> Bool { report.cells.contains { $0.measured?.sound != nil } }

    static let notPlayed = "interstitial not played (the receiver fetched none of it)"

    static func source(_ cell: LabReportCell) -> String { cell.source ?? "-" }

    /// In place of an empty "per device class" table: why there is nothing to roll up.
    static func noClassLine(_ report: LabReport) -> String {
        report.cells.contains { $0.deviceClass != nil }
            ? "no device class has a verdict or a measurement yet"
            : "no receiver has a device class: pin one with --inventory"
    }

    static func ms(_ value: Double) -> String { "\(String(format: "%.0f", value)) ms" }

    static func table(_ report: LabReport) -> String {
        var out = "lab report: \(report.summary.cells) receiver cells, \(report.summary.agree) agree, "
            + "\(report.summary.disagree) disagree, \(report.summary.unobserved) without a verdict\n\n"
        if report.cells.isEmpty {
            out += "no verdicts or sessions yet: play cases from the lab page (lab serve) and record verdicts\n"
        } else {
            let heard = hasSound(report)
            var rows = [["CASE", "CLASS", "RECEIVER", "PREDICTED", "OBSERVED", "SOURCE", "MEASURED", "FIRST FRAME",
                         "STALL PER TRANSITION", "EVIDENCE SOURCES", "AGREEMENT", "EVIDENCE"] + (heard ? ["SOUND PER TRANSITION"] : [])]
            for cell in report.cells {
                rows.append([cell.case, cell.deviceClass ?? "-", report.receiverLabel(cell), cell.predicted ?? "-", cell.observed ?? "-",
                             source(cell), measured(cell), firstFrame(cell), transitionStalls(cell), sources(cell), mark(cell), cell.evidence]
                            + (heard ? [soundPerTransition(cell)] : []))
            }
            out += ResultsReporting.table(rows)
        }
        let tested = report.classes.filter { !$0.verdicts.isEmpty || $0.measured != nil }
        if !tested.isEmpty {
            var rows = [["CASE", "CLASS", "PREDICTED", "OBSERVED (worst)", "MEASURED (worst)", "FIRST FRAME (median)",
                         "STALL PER TRANSITION (worst)", "AGREEMENT", "RECEIVERS"]]
            for cell in tested {
                rows.append([cell.case, cell.deviceClass ?? "-", cell.predicted ?? "-", cell.observed ?? "-", measured(cell),
                             firstFrame(cell), transitionStalls(cell), mark(cell), cell.evidence])
            }
            out += "\nper device class:\n" + ResultsReporting.table(rows)
        } else if !report.cells.isEmpty {
            out += "\nper device class: " + noClassLine(report) + "\n"
        }
        return out
    }

    /// Dates, should the report carry any, as ISO 8601 like the other lab documents.
    static func json(_ report: LabReport) -> String {
        String(decoding: try! JSONDocument.encoder(dates: .iso8601Milliseconds).encode(report), as: UTF8.self) + "\n"
    }

    static func markdown(_ report: LabReport) -> String {
        var md = ["# Seamcheck lab report", "",
                  "\(report.summary.cells) receiver cells: \(report.summary.agree) agree, \(report.summary.disagree) disagree, "
                  + "\(report.summary.unobserved) without a verdict.", "",
                  "| case | class | receiver | predicted | observed | source | measured | first frame | stall per transition | evidence sources | agreement | evidence |"
                  + (hasSound(report) ? " sound per transition |" : ""),
                  "|---|---|---|---|---|---|---|---|---|---|---|---|" + (hasSound(report) ? "---|" : "")]
        for cell in report.cells {
            md.append("| `\(markdownCell(cell.case))` | \(markdownCell(cell.deviceClass ?? "-")) | \(markdownCell(report.receiverLabel(cell))) | "
                      + "\(cell.predicted ?? "-") | \(markdownCell(cell.observed ?? "-")) | \(source(cell)) | \(markdownCell(measured(cell))) | "
                      + "\(firstFrame(cell)) | \(markdownCell(transitionStalls(cell))) | \(markdownCell(sources(cell))) | "
                      + (cell.agrees == false ? "**\(mark(cell))**" : mark(cell)) + " | \(markdownCell(cell.evidence)) |"
                      + (hasSound(report) ? " \(markdownCell(soundPerTransition(cell))) |" : ""))
        }
        let tested = report.classes.filter { !$0.verdicts.isEmpty || $0.measured != nil }
        if !tested.isEmpty {
            md += ["", "## Per device class", "",
                   "| case | class | predicted | observed (worst) | measured (worst) | first frame (median) | stall per transition (worst) | agreement | receivers |",
                   "|---|---|---|---|---|---|---|---|---|"]
            for cell in tested {
                md.append("| `\(markdownCell(cell.case))` | \(markdownCell(cell.deviceClass ?? "-")) | \(cell.predicted ?? "-") | "
                          + "\(markdownCell(cell.observed ?? "-")) | \(markdownCell(measured(cell))) | \(firstFrame(cell)) | "
                          + "\(markdownCell(transitionStalls(cell))) | \(mark(cell)) | \(markdownCell(cell.evidence)) |")
            }
        } else if !report.cells.isEmpty {
            md += ["", "## Per device class", "", markdownCell(noClassLine(report))]
        }
        return md.joined(separator: "\n") + "\n"
    }

    /// A test case per receiver cell: a disagreement is a failure, a cell without a verdict is skipped.
    static func junit(_ report: LabReport) -> String {
        var xml = ["<?xml version=\"1.0\" encoding=\"UTF-8\"?>",
                   "<testsuites name=\"seamcheck lab\" tests=\"\(report.cells.count)\" failures=\"\(report.summary.disagree)\">"]
        let byCase = Dictionary(grouping: report.cells, by: \.case)
        for caseId in byCase.keys.sorted() {
            let cells = byCase[caseId]!
            xml.append("  <testsuite name=\"\(xmlEscape(caseId))\" tests=\"\(cells.count)\" failures=\"\(cells.filter { $0.agrees == false }.count)\" "
                       + "skipped=\"\(cells.filter { $0.agrees == nil }.count)\">")
            for cell in cells {
                let name = xmlEscape("\(report.receiverLabel(cell)) (\(cell.deviceClass ?? "unclassified"))")
                xml.append("    <testcase classname=\"\(xmlEscape(caseId))\" name=\"\(name)\">")
                if cell.agrees == false {
                    // `type` carries whose verdict it is (operator or measured); the message stays as it was.
                    xml.append("      <failure message=\"predicted \(xmlEscape(cell.predicted ?? "-")), observed \(xmlEscape(cell.observed ?? "-"))\""
                               + (cell.source.map { " type=\"\(xmlEscape($0))\"" } ?? "") + ">" + xmlEscape(cell.evidence) + "</failure>")
                } else if cell.agrees == nil {
                    xml.append("      <skipped message=\"\(xmlEscape(mark(cell)))\"/>")
                }
                if cell.measured != nil {
                    xml.append("      <system-out>" + xmlEscape("measured \(measured(cell)); first frame \(firstFrame(cell)); "
                               + "stall per transition: \(transitionStalls(cell)); verdict source \(source(cell))") + "</system-out>")
                }
                xml.append("    </testcase>")
            }
            xml.append("  </testsuite>")
        }
        xml.append("</testsuites>")
        return xml.joined(separator: "\n") + "\n"
    }
}

/// Text for a Markdown table cell: pipes escaped, one line, control characters visible.
func markdownCell(_ text: String) -> String {
    VisibleText.escape(text).replacingOccurrences(of: "|", with: "\\|").replacingOccurrences(of: "\n", with: " ")
}
