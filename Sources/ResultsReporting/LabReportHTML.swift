import Reporting
import Foundation
import LabCore

extension LabReportText {
    /// The report as one self-contained page: the receiver cells, the class roll-up, then a
    /// timeline picture per measured cell (inline SVG: no script, no external file).
    static func html(_ report: LabReport) -> String {
        let heard = hasSound(report)
        func row(_ cell: LabReportCell, receiver: Bool) -> String {
            let style = cell.agrees == false ? " class=\"bad\"" : cell.agrees == true ? " class=\"ok\"" : ""
            let link = receiver && cell.timeline != nil ? " <a href=\"#\(anchor(cell))\">timeline</a>" : ""
            return "<tr\(style)><td><code>\(xmlEscape(cell.case))</code></td><td>\(xmlEscape(cell.deviceClass ?? "-"))</td>"
                + (receiver ? "<td>\(xmlEscape(report.receiverLabel(cell)))</td>" : "")
                + "<td>\(xmlEscape(cell.predicted ?? "-"))</td><td>\(xmlEscape(cell.observed ?? "-"))</td>"
                + (receiver ? "<td>\(xmlEscape(source(cell)))</td>" : "")
                + "<td>\(xmlEscape(measured(cell)))\(link)</td><td>\(xmlEscape(firstFrame(cell)))</td>"
                + "<td>\(xmlEscape(transitionStalls(cell)))</td>"
                + (receiver ? "<td>\(xmlEscape(sources(cell)))\(disagreements(cell))</td>" : "")
                + "<td>\(mark(cell))</td><td>\(xmlEscape(cell.evidence))</td>"
                + (receiver && heard ? "<td>\(xmlEscape(soundPerTransition(cell)))</td>" : "") + "</tr>"
        }
        let tested = report.classes.filter { !$0.verdicts.isEmpty || $0.measured != nil }
        let timelines = report.cells.filter { $0.timeline != nil }.sorted { ($0.case, $0.receiver ?? "") < ($1.case, $1.receiver ?? "") }
        let grades = report.thresholds.grades
        let classes = tested.isEmpty ? "<p class=\"no-classes\">\(xmlEscape(noClassLine(report)))</p>"
            : "<table><thead><tr><th>case</th><th>class</th><th>predicted</th><th>observed (worst)</th><th>measured (worst)</th>"
            + "<th>first frame (median)</th><th>stall per transition (worst)</th><th>agreement</th><th>receivers</th></tr></thead><tbody>\n"
            + tested.map { row($0, receiver: false) }.joined(separator: "\n") + "\n</tbody></table>"
        var sections: [String] = []
        for cell in timelines {
            guard let timeline = cell.timeline else { continue }
            sections.append("""
            <section class="cell" id="\(anchor(cell))"><h3><code>\(xmlEscape(cell.case))</code> on \(xmlEscape(report.receiverLabel(cell)))\
             <span class="verdict">\(xmlEscape(LabReportBuilder.verdictText(cell)))</span></h3>
            <p>\(xmlEscape(cell.measured?.reason ?? "")); run \(xmlEscape(timeline.runId))</p>
            \(LabTimelineSVG.render(timeline))
            \(LabSoundLaneSVG.render(timeline))
            \(filmstrips(timeline))
            </section>
            """)
        }
        return """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
        <title>Seamcheck lab report</title>
        <style>body{font:14px/1.4 system-ui,sans-serif;margin:1em auto;max-width:1200px;padding:0 1em}
        table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #ccc;padding:4px 6px;text-align:left;vertical-align:top}
        tr.bad td{background:#fdecea}tr.ok td{background:#edf7ed}section.cell{margin:1.5em 0;border-top:1px solid #ddd}
        section.cell h3{margin:.6em 0 .2em}.verdict{font-weight:normal;color:#555;margin-left:.5em}
        svg.timeline,svg.sound-lane{max-width:100%;height:auto;display:block}
        .film{display:flex;gap:4px;flex-wrap:wrap;margin:.3em 0 1em}.film figure{margin:0;font-size:11px;color:#444}
        .disagree{margin:.2em 0 0 1em;padding:0;color:#a00}.film img{width:192px;image-rendering:pixelated;display:block;border:1px solid #999}</style></head><body>
        <h1>Seamcheck lab report</h1>
        <p>\(report.summary.cells) receiver cells: \(report.summary.agree) agree, \(report.summary.disagree) disagree, \(report.summary.unobserved) without a verdict; \(report.summary.measured) measured by <code>lab run</code>. An operator's verdict wins over the measured one; both are shown. Measured stalls grade as a warning from \(String(format: "%.0f", grades.warningMs)) ms and an error from \(String(format: "%.0f", grades.errorMs)) ms.</p>
        <table><thead><tr><th>case</th><th>class</th><th>receiver</th><th>predicted</th><th>observed</th><th>source</th><th>measured</th><th>first frame</th><th>stall per transition</th><th>evidence sources</th><th>agreement</th><th>evidence</th>\(heard ? "<th>sound per transition</th>" : "")</tr></thead><tbody>
        \(report.cells.map { row($0, receiver: true) }.joined(separator: "\n"))
        </tbody></table>
        <h2>Per device class</h2>
        \(classes)
        \(timelines.isEmpty ? "" : "<h2>Timelines</h2>\n<p>Media position against seconds since <code>/play</code>, from the receiver's <code>/playback-info</code> polls; the ad's window shaded on the position axis; the receiver's requests as ticks under the plot.</p>")
        \(sections.joined(separator: "\n"))
        </body></html>

        """
    }

    /// The sources' disagreements, one line each, under the sources cell.
    static func disagreements(_ cell: LabReportCell) -> String {
        let lines = cell.measured?.disagreements ?? []
        return lines.isEmpty ? "" : "<ul class=\"disagree\">" + lines.map { "<li>\(xmlEscape($0))</li>" }.joined() + "</ul>"
    }

    /// The captured pictures around each transition (`lab run --capture`), as images in the page.
    static func filmstrips(_ timeline: LabTimeline) -> String {
        guard let titles = timeline.pictureTransitions else { return "" }
        let strips = timeline.filmstrips ?? []
        return titles.enumerated().map { index, title in
            let frames = index < strips.count ? strips[index].frames : []
            return "<p>From the picture: \(xmlEscape(title))</p>" + (frames.isEmpty ? "" : "<div class=\"film\">")
                + frames.map { frame in
                    // Base64 has no character that needs escaping in an attribute.
                    "<figure><img alt=\"\(xmlEscape(frame.label))\" src=\"data:image/bmp;base64,\(frame.bmp.filter { $0.isLetter || $0.isNumber || "+/=".contains($0) })\">"
                        + "<figcaption>\(xmlEscape(frame.label)) at \(String(format: "%.3f", frame.at)) s</figcaption></figure>"
                }.joined() + (frames.isEmpty ? "" : "</div>")
        }.joined(separator: "\n")
    }

    /// An id for a cell's section: letters, digits and dashes only.
    static func anchor(_ cell: LabReportCell) -> String {
        let text = "timeline-\(cell.case)-\(cell.receiver ?? "-")" + (cell.station.map { "-\($0)" } ?? "")
        return String(text.unicodeScalars.map { CharacterSet.alphanumerics.contains($0) && $0.isASCII ? Character($0) : "-" })
    }
}
