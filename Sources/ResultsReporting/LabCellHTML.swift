import Foundation
import LabCore
import Reporting

/// One measured cell as the lab report draws it (its timeline, its filmstrips), as an HTML
/// fragment for the dashboard's cell view (`lab serve` is given this renderer by the command, so
/// LabServer does not import the reports). Every text is escaped.
public enum LabCellHTML {
    public static func render(_ cell: LabRunCell, labCase: LabCase?) -> String {
        let m = cell.measurement
        let verdict = m.labVerdict.rawValue + (m.verdictStallMs.map { " \(String(format: "%.0f", $0)) ms" } ?? "") + " (measured)"
        let timeline = LabTimeline(cell, labCase: labCase, verdict: verdict)
        var parts = ["<p class=\"cell-verdict\"><b>\(xmlEscape(verdict))</b>: \(xmlEscape(m.verdict().reason))</p>"]
        if let behaviour = cell.behaviour {
            parts.append("<p class=\"cell-behaviour\">behaviour: <b>\(xmlEscape(behaviour.outcome.rawValue))</b></p>")
        }
        parts.append("<p class=\"cell-software\">receiver software: \(xmlEscape(cell.software?.summary ?? "not recorded"))"
                     + "; attempt \(cell.attempt); \(xmlEscape(cell.url))</p>")
        parts.append(LabTimelineSVG.render(timeline))
        parts.append(LabSoundLaneSVG.render(timeline))
        parts.append(LabReportText.filmstrips(timeline))
        return parts.joined(separator: "\n")
    }
}
