import Foundation
import LabCore
import Reporting

/// The audio lane under a cell's timeline (`lab run --capture-audio`): the sound's level over the
/// same seconds since `/play`, gaps between the streams' tones shaded and labelled, each switch
/// heard marked with its A/V offset, dropouts red, clicks as ticks. Empty without sound. Every
/// text is escaped: the input's name comes from the command line.
enum LabSoundLaneSVG {
    static let width = LabTimelineSVG.width, height = 132.0
    static let left = LabTimelineSVG.left, right = LabTimelineSVG.right
    static let top = 30.0, bottom = 100.0, floorDb = -60.0

    static func render(_ t: LabTimeline) -> String {
        guard let sound = t.sound else { return "" }
        let endS = LabTimelineSVG.niceCeiling(t.endMs / 1000)
        let plotWidth = width - left - right
        let zero = (sound.zeroSincePlayMs ?? 0) / 1000
        func x(_ seconds: Double) -> Double { left + min(max(seconds + zero, 0), endS) / endS * plotWidth }
        func y(_ db: Double) -> Double { bottom - (max(floorDb, min(0, db)) - floorDb) / -floorDb * (bottom - top) }
        func f(_ v: Double) -> String { String(format: "%.1f", v) }
        let label = "Sound of \(t.caseId) on \(t.receiver) (\(sound.input)): \(sound.result)"
        var svg = ["<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"sound-lane\" viewBox=\"0 0 \(Int(width)) \(Int(height))\" "
                   + "width=\"\(Int(width))\" height=\"\(Int(height))\" role=\"img\" aria-label=\"\(xmlEscape(label))\" "
                   + "font-family=\"system-ui,sans-serif\" font-size=\"11\">", "<title>\(xmlEscape(label))</title>"]
        svg.append("<text x=\"\(f(left))\" y=\"14\" fill=\"#222\">sound: level (dBFS), gaps between the tones, A/V offset at each switch "
                   + "heard\(sound.zeroSincePlayMs == nil ? " (start not known: drawn from 0)" : "")</text>")
        svg.append("<rect x=\"\(f(left))\" y=\"\(f(top))\" width=\"\(f(plotWidth))\" height=\"\(f(bottom - top))\" fill=\"#fbfbfe\" stroke=\"#bbb\"/>")
        for db in [0.0, -30, -60] {
            svg.append("<line x1=\"\(f(left))\" y1=\"\(f(y(db)))\" x2=\"\(f(width - right))\" y2=\"\(f(y(db)))\" stroke=\"#eee\"/>")
            svg.append("<text x=\"\(f(left - 6))\" y=\"\(f(y(db) + 4))\" text-anchor=\"end\" fill=\"#444\">\(Int(db)) dB</text>")
        }
        for s in LabTimelineSVG.ticks(upTo: endS) {
            let px = left + s / endS * plotWidth
            svg.append("<line x1=\"\(f(px))\" y1=\"\(f(top))\" x2=\"\(f(px))\" y2=\"\(f(bottom))\" stroke=\"#eee\"/>")
            svg.append("<text x=\"\(f(px))\" y=\"\(f(bottom + 14))\" text-anchor=\"middle\" fill=\"#444\">\(LabTimelineSVG.number(s)) s</text>")
        }
        guard sound.isMeasured || !sound.levels.isEmpty else {
            let why = "no sound to draw: \(sound.result)" + (sound.notes.first.map { ", \($0)" } ?? "")
            svg.append("<text x=\"\(f(left + 8))\" y=\"\(f((top + bottom) / 2))\" fill=\"#a00\">\(xmlEscape(why))</text>")
            return (svg + ["</svg>"]).joined(separator: "\n")
        }
        // Gaps first, under the level.
        for transition in sound.transitions where (transition.gapMs ?? 0) > 0 {
            let x0 = x(transition.outgoingEnd), x1 = max(x(transition.incomingStart), x0 + 2)
            svg.append("<rect class=\"audio-gap\" x=\"\(f(x0))\" y=\"\(f(top))\" width=\"\(f(x1 - x0))\" height=\"\(f(bottom - top))\" "
                       + "fill=\"#7f7f7f\" fill-opacity=\"0.3\"><title>\(xmlEscape("audio gap \(Int(transition.gapMs ?? 0)) ms at \(transition.at)"))</title></rect>")
        }
        for dropout in sound.dropouts {
            let x0 = x(dropout.at), x1 = max(x(dropout.at + dropout.ms / 1000), x0 + 2)
            svg.append("<rect class=\"audio-dropout\" x=\"\(f(x0))\" y=\"\(f(top))\" width=\"\(f(x1 - x0))\" height=\"\(f(bottom - top))\" "
                       + "fill=\"#d62728\" fill-opacity=\"0.3\"><title>\(xmlEscape("dropout \(Int(dropout.ms)) ms in the \(dropout.stream)"))</title></rect>")
        }
        let points = sound.levels.enumerated().map { index, db in
            "\(f(x(sound.levelStart + Double(index) * sound.levelStep))),\(f(y(db)))"
        }
        if !points.isEmpty {
            svg.append("<polyline class=\"audio-level\" points=\"\(points.joined(separator: " "))\" fill=\"none\" stroke=\"#2b7bb9\" stroke-width=\"1.2\"/>")
        }
        for click in sound.clicks {
            svg.append("<line class=\"audio-click\" x1=\"\(f(x(click)))\" y1=\"\(f(bottom - 8))\" x2=\"\(f(x(click)))\" y2=\"\(f(bottom))\" "
                       + "stroke=\"#e67e22\" stroke-width=\"1.5\"><title>click at \(String(format: "%.3f", click)) s</title></line>")
        }
        // Each switch heard: a line where the incoming tone began, its gap and A/V offset written beside it.
        for (index, transition) in sound.transitions.enumerated() {
            let px = x(transition.incomingStart)
            let refused = transition.notMeasured != nil && transition.gapMs == nil
            let gap = transition.gapMs.map { "gap \(Int($0)) ms" } ?? (refused ? "not measured" : "gap not known")
            let offset = transition.avOffsetMs.map { "A/V \(String(format: "%+.0f", $0)) ms" } ?? (refused ? "" : "A/V -")
            let shown = offset.isEmpty ? gap : "\(gap), \(offset)"
            let words = "\(transition.from) → \(transition.to): \(shown)"
                + (transition.expectedAvOffsetMs.map { $0 != 0 ? " (stream's own \(String(format: "%+.0f", $0)))" : "" } ?? "")
                + (transition.notMeasured.map { " (\($0))" } ?? "")
            let leftHalf = px < left + plotWidth / 2
            svg.append("<line class=\"audio-switch\" x1=\"\(f(px))\" y1=\"\(f(top))\" x2=\"\(f(px))\" y2=\"\(f(bottom))\" stroke=\"#6a1b9a\" "
                       + "stroke-width=\"1.5\"><title>\(xmlEscape(words))</title></line>")
            svg.append("<text class=\"audio-switch-label\" x=\"\(f(leftHalf ? px + 4 : px - 4))\" y=\"\(f(top + 12 + Double(index % 3) * 13))\" "
                       + "text-anchor=\"\(leftHalf ? "start" : "end")\" fill=\"#4a148c\" stroke=\"#fbfbfe\" stroke-width=\"3\" "
                       + "paint-order=\"stroke\">\(xmlEscape(shown))</text>")
        }
        if let note = sound.notes.first {
            svg.append("<text x=\"\(f(left))\" y=\"\(f(height - 4))\" fill=\"#a00\">\(xmlEscape(note.count > 130 ? String(note.prefix(127)) + "..." : note))</text>")
        }
        return (svg + ["</svg>"]).joined(separator: "\n")
    }
}
