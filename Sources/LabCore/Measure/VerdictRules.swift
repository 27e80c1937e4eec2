import Foundation

/// The rules that read each source of evidence into the cell's verdict (`CellVerdict`): the worst
/// of what they say decides. Documented in docs/lab-measure.md ("One verdict from all the evidence").
public enum VerdictRules {
    static let protocolRule = "protocol"

    /// Kodi playing the README demo's stitched case through by its own account (14 s of timeline).
    static var playedThrough: CellMeasurement { example(PlaybackSketch(duration: 14).loads(700).plays(14).ended(600)) }

    static func example(_ sketch: PlaybackSketch) -> CellMeasurement {
        MeasurementExample("", sketch, triggers: false, outcome: .seamless).measure()
    }

    /// A capture that read codes, showing `streams`, with `transitions` and `notes`.
    static func picture(_ streams: [String], transitions: [CaptureTransition] = [], switchFreezes: [SwitchFreeze]? = nil,
                        notes: [String] = []) -> PictureMeasurement {
        var picture = PictureMeasurement(result: "measured", input: ":99", playToFirstFrameMs: 900,
                                         transitionStallMs: transitions.map(\.stallMs).max(), transitions: transitions, notes: notes)
        picture.streamsSeen = streams
        picture.switchFreezes = switchFreezes
        return picture
    }

    static func transition(stallMs: Double, audioGapMs: Double? = nil) -> CaptureTransition {
        CaptureTransition(from: ShownFrame(stream: 1, label: "primary", frame: 179, at: 6.5),
                          to: ShownFrame(stream: 2, label: "ad of control", frame: 0, at: 6.5 + stallMs / 1000),
                          expectedLastFrame: 179, expectedFirstFrame: 0, frozenMs: stallMs, blackFrames: 0, blackMs: 0,
                          unreadableFrames: 0, skippedFrames: 0, stallMs: stallMs, audioGapMs: audioGapMs)
    }

    static func with(_ m: CellMeasurement, _ picture: PictureMeasurement) -> CellMeasurement {
        var copy = m
        copy.picture = picture
        return copy
    }

    /// Kodi 20.1's HEVC stitched case with `--capture` (measured): the primary's #179 held 380 ms at the
    /// break, primary frames due after the ad shown in its place, #235 held 2099 ms; no ad frame on screen.
    static var kodiHEVC: CellMeasurement {
        with(playedThrough, picture(["primary"], switchFreezes: [SwitchFreeze(at: "the ad's place (a primary frame due after the ad)",
                                                                              frame: 235, ms: 2099),
                                                                 SwitchFreeze(at: "the ad's start", frame: 179, ms: 380)],
                                    notes: [PictureMeasurement.adNeverShownWords + ": a viewer saw no ad (or an unreadable picture)"]))
    }

    public static let all: [VerdictRule] = [
        VerdictRule(id: protocolRule, source: .protocol, summary: "what /playback-info showed (the measurement rules): "
                    + "seamless, a stall of its ms, failed or skipped; always read", read: { m, _ in
            let verdict: LabVerdict = switch m.outcome {
            case .seamless: .seamless
            case .stall: .stall
            case .failed: .failed
            case .skipped: .skipped
            }
            return VerdictEvidence(rule: protocolRule, source: .protocol, verdict: verdict, stallMs: m.protocolStallMs, words: m.reason)
        }, examples: [
            VerdictExample("plays through", playedThrough, fires: true, verdict: .seamless),
            VerdictExample("freezes 1.2 s at the ad", example(PlaybackSketch(duration: 14).loads(700).plays(6).freezes(1200).plays(8).ended(600)),
                           fires: true, verdict: .stall, stallMs: 1200),
        ]),
        VerdictRule(id: "protocol-jump", source: .protocol, summary: "a position jump no command asked for, on a cell that "
                    + "otherwise played: a glitch", read: { m, _ in
            guard m.outcome == .seamless, let jump = m.jumps.first else { return nil }
            return VerdictEvidence(rule: "protocol-jump", source: .protocol, verdict: .glitch,
                                   words: "position jumped \(jump.kind) from \(MeasureText.seconds(jump.from)) to \(MeasureText.seconds(jump.to))")
        }, examples: [
            VerdictExample("skips the ad", example(PlaybackSketch(duration: 14).loads(700).plays(6).jumps(to: 8).plays(6).ended(600)),
                           fires: true, verdict: .glitch),
            VerdictExample("plays through", playedThrough, fires: false, verdict: .seamless),
        ]),
        VerdictRule(id: "requests-own-end", source: .requests, summary: "the receiver ended short by its own end of stream "
                    + "(it had fetched the last segment and played all it had loaded): content it never showed, a glitch",
                    read: { m, _ in
            guard let short = m.shortEnd else { return nil }
            return VerdictEvidence(rule: "requests-own-end", source: .requests, verdict: .glitch,
                                   words: "it fetched the last segment (\(short.lastSegment)) yet ended "
                                    + "\(MeasureText.seconds(short.duration - short.position)) short")
        }, examples: [
            VerdictExample("Kodi's own end 2.2 s short", example(PlaybackSketch(duration: 14).buffers(ahead: 8)
                            .fetches(MeasurementExample.lastSegmentPath, at: 4800).loads(700).plays(11.8).ended(1000)),
                           fires: true, verdict: .glitch),
            VerdictExample("plays to the end", playedThrough, fires: false, verdict: .seamless),
        ]),
        VerdictRule(id: "picture-unreadable", source: .picture, summary: "a capture that could not be read or showed no "
                    + "frame code: named in the reason, never a verdict", read: { m, _ in
            guard let picture = m.picture, picture.result != CaptureAnalysis.Result.measured.rawValue else { return nil }
            return VerdictEvidence(rule: "picture-unreadable", source: .picture, verdict: nil,
                                   words: "the capture (\(picture.input)) gave no picture to judge: \(picture.result)"
                                    + (picture.notes.first.map { ", \($0)" } ?? ""))
        }, examples: [
            VerdictExample("no frame codes", with(playedThrough, PictureMeasurement(result: "noFrameCodes", input: ":99")),
                           fires: true, verdict: .seamless, reasonHolds: "gave no picture to judge"),
            VerdictExample("a picture read", with(playedThrough, picture(["primary", "ad of control"], transitions: [transition(stallMs: 0)])),
                           fires: false, verdict: .seamless),
        ]),
        VerdictRule(id: "picture-ad-never-shown", source: .picture, summary: "the receiver reported playing past the ad, yet "
                    + "not one frame of it reached the screen: failed, whatever /playback-info said", read: { m, _ in
            guard let picture = m.picture, picture.adNeverShown else { return nil }
            let held = (picture.switchFreezes ?? []).max { $0.ms < $1.ms }.map { "; \($0.words)" } ?? ""
            return VerdictEvidence(rule: "picture-ad-never-shown", source: .picture, verdict: .failed,
                                   words: PictureMeasurement.adNeverShownWords + held)
        }, examples: [
            VerdictExample("Kodi HEVC stitched: primary held 2.17 s, no ad frame", kodiHEVC, fires: true, verdict: .failed,
                           reasonHolds: "no frame of the ad was seen on screen"),
            VerdictExample("the ad on screen", with(playedThrough, picture(["primary", "ad of control", "primary"],
                                                                           transitions: [transition(stallMs: 0)])),
                           fires: false, verdict: .seamless),
        ]),
        VerdictRule(id: "picture-stall-at-switch", source: .picture, summary: "the picture froze at a switch (a transition's "
                    + "stall, or the primary's frame held at its break) for stallMinimumMs or more: a stall of the picture's ms, "
                    + "even when /playback-info moved on", read: { m, thresholds in
            guard let picture = m.picture, let ms = picture.switchStallMs, ms >= thresholds.stallMinimumMs else { return nil }
            let words = picture.transitions.first { $0.stallMs == ms }
                .map { "the picture stalled \(Int(ms.rounded())) ms from \($0.from.label) #\($0.from.frame) to \($0.to.label) #\($0.to.frame)" }
                ?? (picture.switchFreezes ?? []).first { $0.ms == ms }.map { "the picture froze: \($0.words)" } ?? ""
            return VerdictEvidence(rule: "picture-stall-at-switch", source: .picture, verdict: .stall, stallMs: ms, words: words)
        }, examples: [
            VerdictExample("900 ms on screen, none in the polls", with(playedThrough, picture(["primary", "ad of control"],
                                                                                              transitions: [transition(stallMs: 900)])),
                           fires: true, verdict: .stall, stallMs: 900, reasonHolds: "the picture stalled 900 ms"),
            VerdictExample("primary held at its break, no switch seen", with(playedThrough, picture(["primary", "ad of control"],
                            switchFreezes: [SwitchFreeze(at: "the ad's start", frame: 179, ms: 640)])),
                           fires: true, verdict: .stall, stallMs: 640, reasonHolds: "primary #179 held 640 ms"),
            VerdictExample("a 120 ms switch is seamless", with(playedThrough, picture(["primary", "ad of control"],
                                                                                      transitions: [transition(stallMs: 120)])),
                           fires: false, verdict: .seamless),
            VerdictExample("the polls saw a longer stall", with(example(PlaybackSketch(duration: 14).loads(700).plays(6).freezes(1500)
                                                                            .plays(8).ended(600)),
                                                                  picture(["primary", "ad of control"], transitions: [transition(stallMs: 1000)])),
                           fires: true, verdict: .stall, stallMs: 1500),
        ]),
        VerdictRule(id: "picture-seamless", source: .picture, summary: "every switch the picture saw was under stallMinimumMs "
                    + "(named in the reason, so a stall the polls saw and the screen did not is a named disagreement)",
                    read: { m, thresholds in
            guard let picture = m.picture, !picture.transitions.isEmpty, !picture.adNeverShown,
                  let ms = picture.switchStallMs, ms < thresholds.stallMinimumMs else { return nil }
            return VerdictEvidence(rule: "picture-seamless", source: .picture, verdict: .seamless,
                                   words: "\(picture.transitions.count) switches on screen, the longest \(Int(ms.rounded())) ms")
        }, examples: [
            VerdictExample("clean on screen", with(playedThrough, picture(["primary", "ad of control"], transitions: [transition(stallMs: 33)])),
                           fires: true, verdict: .seamless, reasonHolds: "1 switches on screen"),
            VerdictExample("no capture", playedThrough, fires: false, verdict: .seamless),
        ]),
        VerdictRule(id: "sound-gap", source: .sound, summary: "the tones went silent across a switch for stallMinimumMs or "
                    + "more while the picture switched: a glitch a viewer hears", read: { m, thresholds in
            guard let gap = m.picture?.transitions.compactMap(\.audioGapMs).max(), gap >= thresholds.stallMinimumMs else { return nil }
            return VerdictEvidence(rule: "sound-gap", source: .sound, verdict: .glitch,
                                   words: "audio gap \(Int(gap.rounded())) ms at a switch")
        }, examples: [
            VerdictExample("450 ms of silence at a clean cut", with(playedThrough, picture(["primary", "ad of control"],
                            transitions: [transition(stallMs: 0, audioGapMs: 450)])), fires: true, verdict: .glitch,
                           reasonHolds: "audio gap 450 ms"),
            VerdictExample("tones meet", with(playedThrough, picture(["primary", "ad of control"],
                            transitions: [transition(stallMs: 0, audioGapMs: 20)])), fires: false, verdict: .seamless),
        ]),
    ]
}
