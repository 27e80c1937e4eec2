import Reporting
import Foundation
import LabCore

/// One measured cell as an inline SVG: media position (y) against seconds since `/play` (x), the
/// ad's window shaded across the position axis, the receiver's requests as ticks under the plot
/// (segments tall and dark, playlists short and violet, failed ones red), stalls as red bands, the
/// first frame as a green dashed line, a short end as a purple dotted line, and a legend. Every text is escaped: names come from the network.
enum LabTimelineSVG {
    static let width = 760.0, height = 284.0
    static let left = 56.0, right = 16.0, top = 34.0
    /// Plot bottom; the request ticks sit below it, then the x axis labels.
    static let plotBottom = 220.0, ticksTop = 228.0, ticksBottom = 246.0

    static func render(_ t: LabTimeline) -> String {
        let endS = niceCeiling(t.endMs / 1000), maxPos = niceCeiling(t.maxPosition)
        let plotWidth = width - left - right
        func x(_ ms: Double) -> Double { left + min(max(ms / 1000, 0), endS) / endS * plotWidth }
        func y(_ position: Double) -> Double { plotBottom - min(max(position, 0), maxPos) / maxPos * (plotBottom - top) }
        func f(_ v: Double) -> String { String(format: "%.1f", v) }
        var svg: [String] = []
        let label = "Timeline of \(t.caseId) on \(t.receiver): \(t.verdict)"
        svg.append("<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"timeline\" viewBox=\"0 0 \(Int(width)) \(Int(height))\" "
                   + "width=\"\(Int(width))\" height=\"\(Int(height))\" role=\"img\" aria-label=\"\(xmlEscape(label))\" "
                   + "font-family=\"system-ui,sans-serif\" font-size=\"11\">")
        svg.append("<title>\(xmlEscape(label))</title>")
        svg.append("<rect x=\"\(f(left))\" y=\"\(f(top))\" width=\"\(f(plotWidth))\" height=\"\(f(plotBottom - top))\" fill=\"#fcfcfc\" stroke=\"#bbb\"/>")

        // The ad's window on the media timeline: a horizontal band across the position axis.
        // Greyed when the receiver never fetched the interstitial: no transition happened there.
        let notPlayed = t.interstitialPlayed == false
        let (windowFill, windowText) = notPlayed ? ("#9e9e9e", "#555") : ("#f2c94c", "#8a6d00")
        if let start = t.windowStart, let end = t.windowEnd {
            let top = y(end), bottom = y(start)
            svg.append("<rect class=\"ad-window\(notPlayed ? " not-played" : "")\" x=\"\(f(left))\" y=\"\(f(top))\" width=\"\(f(plotWidth))\" "
                       + "height=\"\(f(max(bottom - top, 2)))\" fill=\"\(windowFill)\" fill-opacity=\"\(notPlayed ? "0.18" : "0.35")\""
                       + (notPlayed ? " stroke=\"#9e9e9e\" stroke-dasharray=\"4 3\"" : "") + ">"
                       + "<title>\(xmlEscape("\(t.windowLabel ?? "ad") \(seconds(start))–\(seconds(end)) of media"))</title></rect>")
            // Short in the plot (the full label is the band's tooltip), with a halo where the playhead crosses.
            svg.append("<text x=\"\(f(width - right - 4))\" y=\"\(f(top + 12))\" text-anchor=\"end\" fill=\"\(windowText)\" "
                       + "stroke=\"#fcfcfc\" stroke-width=\"3\" paint-order=\"stroke\">"
                       + "\(xmlEscape(notPlayed ? "interstitial not played" : t.windowLabel ?? "ad")) \(xmlEscape(seconds(start)))–\(xmlEscape(seconds(end)))</text>")
        }

        // Axes and grid: seconds on both.
        for s in ticks(upTo: endS) {
            svg.append("<line x1=\"\(f(x(s * 1000)))\" y1=\"\(f(top))\" x2=\"\(f(x(s * 1000)))\" y2=\"\(f(plotBottom))\" stroke=\"#eee\"/>")
            svg.append("<text x=\"\(f(x(s * 1000)))\" y=\"\(f(ticksBottom + 14))\" text-anchor=\"middle\" fill=\"#444\">\(number(s)) s</text>")
        }
        for p in ticks(upTo: maxPos) {
            svg.append("<line x1=\"\(f(left))\" y1=\"\(f(y(p)))\" x2=\"\(f(width - right))\" y2=\"\(f(y(p)))\" stroke=\"#eee\"/>")
            svg.append("<text x=\"\(f(left - 6))\" y=\"\(f(y(p) + 4))\" text-anchor=\"end\" fill=\"#444\">\(number(p)) s</text>")
        }
        svg.append("<text x=\"\(f(left + plotWidth / 2))\" y=\"\(f(ticksBottom + 30))\" text-anchor=\"middle\" fill=\"#222\">seconds since /play</text>")
        svg.append("<text transform=\"translate(14 \(f((top + plotBottom) / 2))) rotate(-90)\" text-anchor=\"middle\" fill=\"#222\">media position</text>")

        // Stalls: red bands over their wall-clock span, a thick red line at their position.
        for stall in t.stalls {
            let x0 = x(stall.startMs), x1 = max(x(stall.startMs + stall.durationMs), x0 + 2)
            let text = "\(stall.kind) \(String(format: "%.0f", stall.durationMs)) ms at \(seconds(stall.position))"
                + (stall.transition.map { " (\($0))" } ?? " (elsewhere)")
            svg.append("<rect class=\"stall\" x=\"\(f(x0))\" y=\"\(f(top))\" width=\"\(f(x1 - x0))\" height=\"\(f(plotBottom - top))\" "
                       + "fill=\"#d62728\" fill-opacity=\"0.18\"><title>\(xmlEscape(text))</title></rect>")
            svg.append("<line x1=\"\(f(x0))\" y1=\"\(f(y(stall.position)))\" x2=\"\(f(x1))\" y2=\"\(f(y(stall.position)))\" "
                       + "stroke=\"#d62728\" stroke-width=\"4\"/>")
            svg.append("<text x=\"\(f((x0 + x1) / 2))\" y=\"\(f(top + 12))\" text-anchor=\"middle\" fill=\"#b00\">"
                       + "\(String(format: "%.0f", stall.durationMs)) ms</text>")
        }

        // The playhead: one polyline per run of answered polls; failed polls as grey marks.
        var runs: [[String]] = [[]]
        for point in t.points {
            if let position = point.position { runs[runs.count - 1].append("\(f(x(point.atMs))),\(f(y(position)))") } else {
                if !runs[runs.count - 1].isEmpty { runs.append([]) }
                guard point.failed else { continue }
                svg.append("<text class=\"no-answer\" x=\"\(f(x(point.atMs)))\" y=\"\(f(plotBottom - 3))\" text-anchor=\"middle\" fill=\"#999\">×</text>")
            }
        }
        for run in runs where !run.isEmpty {
            svg.append("<polyline class=\"playhead\" points=\"\(run.joined(separator: " "))\" fill=\"none\" stroke=\"#1f6feb\" stroke-width=\"2\"/>")
        }
        for jump in t.jumps {
            svg.append("<line class=\"jump\" x1=\"\(f(x(jump.atMs)))\" y1=\"\(f(y(jump.from)))\" x2=\"\(f(x(jump.atMs)))\" y2=\"\(f(y(jump.to)))\" "
                       + "stroke=\"#e67e22\" stroke-width=\"2\" stroke-dasharray=\"3 2\"><title>\(xmlEscape("jump \(jump.kind) \(seconds(jump.from)) → \(seconds(jump.to))"))</title></line>")
        }
        if let first = t.firstFrameMs {
            svg.append("<line class=\"first-frame\" x1=\"\(f(x(first)))\" y1=\"\(f(top))\" x2=\"\(f(x(first)))\" y2=\"\(f(plotBottom))\" "
                       + "stroke=\"#2ca02c\" stroke-width=\"1.5\" stroke-dasharray=\"5 3\"/>")
            // High in the plot, where the playhead (near position 0 at the first frame) is not, with a halo.
            svg.append("<text class=\"first-frame-label\" x=\"\(f(x(first) + 4))\" y=\"\(f(top + 28))\" fill=\"#1e7b1e\" "
                       + "stroke=\"#fcfcfc\" stroke-width=\"3\" paint-order=\"stroke\">first frame \(String(format: "%.0f", first)) ms</text>")
        }
        if let end = t.end {
            let ex = x(end.atMs), ey = y(end.position)
            svg.append("<line class=\"short-end\" x1=\"\(f(ex))\" y1=\"\(f(top))\" x2=\"\(f(ex))\" y2=\"\(f(plotBottom))\" "
                       + "stroke=\"#6a1b9a\" stroke-width=\"1.5\" stroke-dasharray=\"2 2\"><title>\(xmlEscape(end.label))</title></line>")
            svg.append("<circle class=\"short-end\" cx=\"\(f(ex))\" cy=\"\(f(ey))\" r=\"4\" fill=\"#6a1b9a\"/>")
            // Written towards the middle of the plot, so that it stays inside.
            let leftHalf = ex < left + plotWidth / 2
            svg.append("<text class=\"short-end-label\" x=\"\(f(leftHalf ? ex + 4 : ex - 4))\" y=\"\(f(top + 44))\" "
                       + "text-anchor=\"\(leftHalf ? "start" : "end")\" fill=\"#6a1b9a\" "
                       + "stroke=\"#fcfcfc\" stroke-width=\"3\" paint-order=\"stroke\">\(xmlEscape(end.label))</text>")
        }

        // Requests under the plot.
        svg.append("<rect x=\"\(f(left))\" y=\"\(f(ticksTop))\" width=\"\(f(plotWidth))\" height=\"\(f(ticksBottom - ticksTop))\" fill=\"#f4f4f4\"/>")
        svg.append("<text x=\"\(f(left - 6))\" y=\"\(f(ticksBottom - 5))\" text-anchor=\"end\" fill=\"#444\">requests</text>")
        for tick in t.requests {
            let (color, y0): (String, Double) = tick.failed ? ("#d62728", ticksTop) : tick.kind == .segment ? ("#333", ticksTop)
                : tick.kind == .playlist ? ("#8e44ad", ticksTop + 9) : ("#aaa", ticksTop + 12)
            svg.append("<line class=\"request \(tick.kind.rawValue)\" x1=\"\(f(x(tick.atMs)))\" y1=\"\(f(y0))\" x2=\"\(f(x(tick.atMs)))\" "
                       + "y2=\"\(f(ticksBottom))\" stroke=\"\(color)\" stroke-width=\"1.2\"><title>\(xmlEscape("\(String(format: "%.0f", tick.atMs)) ms \(tick.path)"))</title></line>")
        }

        // Legend across the top.
        let legend: [(String, String)] = [
            ("<line x1=\"0\" y1=\"-4\" x2=\"18\" y2=\"-4\" stroke=\"#1f6feb\" stroke-width=\"2\"/>", "playhead"),
            ("<rect x=\"0\" y=\"-9\" width=\"18\" height=\"10\" fill=\"\(windowFill)\" fill-opacity=\"0.5\"/>", notPlayed ? "interstitial not played" : t.windowLabel ?? "ad window"),
            ("<rect x=\"0\" y=\"-9\" width=\"18\" height=\"10\" fill=\"#d62728\" fill-opacity=\"0.35\"/>", "stall"),
            ("<line x1=\"9\" y1=\"-10\" x2=\"9\" y2=\"2\" stroke=\"#2ca02c\" stroke-dasharray=\"3 2\"/>", "first frame"),
            ("<line x1=\"9\" y1=\"-10\" x2=\"9\" y2=\"2\" stroke=\"#333\" stroke-width=\"1.5\"/>", "segment request"),
            ("<line x1=\"9\" y1=\"-4\" x2=\"9\" y2=\"2\" stroke=\"#8e44ad\" stroke-width=\"1.5\"/>", "playlist request"),
        ]
        var lx = left
        svg.append("<g class=\"legend\">")
        for (mark, text) in legend {
            svg.append("<g transform=\"translate(\(f(lx)) 20)\">\(mark)<text x=\"22\" y=\"0\" fill=\"#222\">\(xmlEscape(text))</text></g>")
            lx += 30 + Double(text.count) * 6.2
        }
        svg.append("</g></svg>")
        return svg.joined(separator: "\n")
    }

    /// A round upper bound for an axis: 1, 2, 5 x 10^n.
    static func niceCeiling(_ value: Double) -> Double {
        guard value > 0, value.isFinite else { return 1 }
        let step = tickStep(value)
        return (value / step).rounded(.up) * step
    }

    static func tickStep(_ span: Double) -> Double {
        let raw = span / 8, magnitude = pow(10, floor(log10(raw)))
        return [1.0, 2, 5, 10].map { $0 * magnitude }.first { $0 >= raw } ?? 10 * magnitude
    }

    static func ticks(upTo end: Double) -> [Double] {
        let step = tickStep(end)
        return stride(from: 0.0, through: end + step / 1000, by: step).map { $0 }
    }

    static func number(_ value: Double) -> String {
        String(format: "%.2f", value).replacingOccurrences(of: #"\.?0+$"#, with: "", options: .regularExpression)
    }

    static func seconds(_ value: Double) -> String { number(value) + " s" }
}
