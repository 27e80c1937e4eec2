import Reporting
import Foundation
import LabCore

/// `seamcheck lab measure` as text: the capture, start-up, one row per stream shown, one per transition.
public enum CaptureAnalysisTable {
    public static func render(_ analysis: CaptureAnalysis) -> String {
        let c = analysis.capture
        var text = "capture \(analysis.input): \(c.frames) frames in \(seconds(c.seconds)), \(c.width)x\(c.height) read, "
            + String(format: "%.2f fps", c.measuredRate) + (c.nominalRate.map { String(format: " (%.2f nominal)", $0) } ?? "")
            + ", times good to ±\(Int(c.precisionMs)) ms" + (analysis.audio ? ", with audio" : ", no audio") + "\n"
        if analysis.result == .noFrameCodes {
            text += "no frame codes seen (\(analysis.blackFrames) black, \(analysis.unreadableFrames) other frames)\n"
        }
        if let startup = analysis.startup, let first = analysis.firstFrame {
            text += "start-up: first coded frame at \(seconds(startup)) (\(first.label), frame \(first.frame))\n"
        }
        if !analysis.segments.isEmpty {
            var rows = [["SHOWN", "FROM", "TO", "FRAMES", "FPS", "REPEATED", "SKIPPED", "BLACK", "FREEZES"]]
            for s in analysis.segments {
                rows.append([s.label, "\(seconds(s.start)) #\(s.firstFrame)", "\(seconds(s.end)) #\(s.lastFrame)", String(s.framesShown),
                             String(format: "%.3f", s.frameRate), String(s.repeatedFrames),
                             String(s.skippedFrames) + (s.backwardJumps > 0 ? " (\(s.backwardJumps) back)" : ""), String(s.blackFrames),
                             s.freezes.isEmpty ? "-" : s.freezes.prefix(4).map { "\(Int($0.ms)) ms at \(seconds($0.at))" }.joined(separator: ", ")
                                 + (s.freezes.count > 4 ? " (+\(s.freezes.count - 4))" : "")])
            }
            text += table(rows)
        }
        if !analysis.transitions.isEmpty {
            var rows = [["TRANSITION", "LAST SHOWN", "FIRST SHOWN", "STALL", "FROZEN", "BLACK", "OTHER", "SKIPPED", "AUDIO GAP"]]
            for t in analysis.transitions {
                rows.append(["\(t.from.label) -> \(t.to.label)",
                             "#\(t.from.frame)" + (t.expectedLastFrame.map { " of #\($0)" } ?? "") + " at \(seconds(t.from.at))",
                             "#\(t.to.frame)" + (t.expectedFirstFrame.map { " of #\($0)" } ?? "") + " at \(seconds(t.to.at))",
                             "\(Int(t.stallMs)) ms", "\(Int(t.frozenMs)) ms", "\(t.blackFrames) (\(Int(t.blackMs)) ms)",
                             String(t.unreadableFrames),
                             (t.skippedFrames.map(String.init) ?? "-") + (t.captureGapMs.map { " (capture gap \(Int($0)) ms)" } ?? ""),
                             t.audioGapMs.map { "\(Int($0)) ms" } ?? "-"])
            }
            text += table(rows)
        }
        for note in analysis.notes { text += "note: \(note)\n" }
        if let sound = analysis.sound { text += Self.sound(sound) }
        return text
    }

    /// The sound's lines (`--capture-audio`): its result, then one row per switch heard.
    static func sound(_ sound: SoundMeasurement) -> String {
        var text = "sound \(sound.input): \(sound.result), \(seconds(sound.seconds))"
            + (sound.sampleRate.map { " at \($0) Hz" } ?? "") + (sound.channels.map { ", \($0) channels" } ?? "")
            + (sound.clockDriftMs.map { ", clock drift \(Int($0)) ms" } ?? "") + (sound.droppedMs > 0 ? ", \(Int(sound.droppedMs)) ms dropped" : "")
            + ((sound.fellBehindMs ?? 0) > SoundLag.bound * 1000 ? ", fell \(Int(sound.fellBehindMs!)) ms behind" : "") + "\n"
        if !sound.transitions.isEmpty {
            var rows = [["SWITCH HEARD", "AT", "GAP", "SILENCE", "CLICKS", "LEVEL JUMP (EXPECTED)", "CHANNELS", "A/V (STREAM'S OWN)"]]
            for t in sound.transitions {
                rows.append(["\(t.from) -> \(t.to)", seconds(t.incomingStart), t.gapMs.map { "\(Int($0)) ms" } ?? (t.notMeasured != nil ? "not measured" : "-"),
                             t.silenceMs.map { "\(Int($0)) ms" } ?? "-", String(t.clicks),
                             (t.levelJumpDb.map { String(format: "%+.1f dB", $0) } ?? "-") + (t.expectedLevelJumpDb.map { String(format: " (%+.1f)", $0) } ?? ""),
                             t.channelsBefore.map { "\($0) -> \(t.channelsAfter ?? 0)" } ?? "-",
                             (t.avOffsetMs.map { String(format: "%+.0f ms", $0) } ?? "-") + (t.expectedAvOffsetMs.map { String(format: " (%+.0f)", $0) } ?? "")])
            }
            text += table(rows)
        }
        for dropout in sound.dropouts { text += "sound: dropout \(Int(dropout.ms)) ms in the \(dropout.stream) at \(seconds(dropout.at))\n" }
        for note in sound.notes { text += "sound note: \(note)\n" }
        return text
    }

    static func seconds(_ value: Double) -> String { String(format: "%.3f s", value) }
}
