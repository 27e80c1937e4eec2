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

    static func with(_ m: CellMeasurement, sound: SoundMeasurement) -> CellMeasurement {
        var copy = m
        copy.sound = sound
        return copy
    }

    /// Sound heard switching from the primary to the ad, with a gap and an A/V offset.
    static func heard(gapMs: Double, avOffsetMs: Double? = nil, expected: Double? = nil) -> SoundMeasurement {
        let t = SoundTransition(at: "the ad's start", from: "primary", to: "ad of control", fromStream: 1, toStream: 2,
                                outgoingEnd: 6.5, incomingStart: 6.5 + gapMs / 1000, gapMs: gapMs, silenceMs: gapMs, clicks: 0,
                                levelBeforeDb: -20, levelAfterDb: -20.5, levelJumpDb: -0.5, expectedLevelJumpDb: -0.4,
                                avOffsetMs: avOffsetMs, expectedAvOffsetMs: avOffsetMs == nil ? nil : (expected ?? 0), notes: [])
        return SoundMeasurement(result: "measured", input: "pulse:seamcheck_null.monitor", seconds: 14, sampleRate: 48000, channels: 2,
                                transitions: [t])
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
                    + "even when /playback-info moved on; one no longer than the capture's own longest gap (precisionMs) is "
                    + "named, not counted", read: { m, thresholds in
            guard let picture = m.picture, let ms = picture.switchStallMs, ms >= thresholds.stallMinimumMs else { return nil }
            if let precision = picture.capture?.precisionMs, ms <= precision {
                return VerdictEvidence(rule: "picture-stall-at-switch", source: .picture, verdict: nil,
                                       words: "a \(Int(ms.rounded())) ms freeze at a switch, within the capture's own precision "
                                        + "(±\(Int(precision.rounded())) ms: it dropped frames): not counted")
            }
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
            VerdictExample("361 ms held, in a capture good to ±542 ms", with(playedThrough, {
                var loose = picture(["primary", "ad of control"], switchFreezes: [SwitchFreeze(at: "the ad's start", frame: 144, ms: 361)])
                loose.capture = CaptureQuality(frames: 500, seconds: 16, width: 480, height: 270, nominalRate: 30, measuredRate: 30,
                                               droppedFrames: 75, precisionMs: 542)
                return loose
            }()), fires: true, verdict: .seamless, reasonHolds: "within the capture's own precision"),
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
        VerdictRule(id: "sound-unreadable", source: .sound, summary: "a sound capture that failed, was silent throughout "
                    + "(muted), too coarse for the tones or held none: named in the reason, never a verdict", read: { m, _ in
            guard let sound = m.sound, !sound.isMeasured else { return nil }
            return VerdictEvidence(rule: "sound-unreadable", source: .sound, verdict: nil,
                                   words: "the sound (\(sound.input)) gave nothing to judge: \(sound.result)"
                                    + (sound.notes.last.map { ", \($0)" } ?? ""))
        }, examples: [
            VerdictExample("a muted TV", with(playedThrough, sound: SoundMeasurement(result: "silent", input: "pulse:tv.monitor",
                                                                                 notes: ["the sound was silent for all 14.0 s"])),
                           fires: true, verdict: .seamless, reasonHolds: "gave nothing to judge: silent"),
            VerdictExample("heard", with(playedThrough, sound: heard(gapMs: 0)), fires: false, verdict: .seamless),
        ]),
        VerdictRule(id: "sound-not-measured", source: .sound, summary: "switches whose sound the capture could not be trusted "
                    + "at (the capture fell behind, the source sent nothing, the picture missed frames): the reason named, no "
                    + "verdict, never a number", read: { m, _ in
            guard let sound = m.sound, sound.isMeasured else { return nil }
            let refused = sound.transitions.filter { $0.notMeasured != nil }
            guard let first = refused.first?.notMeasured else { return nil }
            return VerdictEvidence(rule: "sound-not-measured", source: .sound, verdict: nil,
                                   words: "\(refused.count) of \(sound.transitions.count) switches heard not measured: \(first)")
        }, examples: [
            VerdictExample("a starved capture at the ad's start", with(playedThrough, sound: {
                var starved = heard(gapMs: 0, avOffsetMs: 10)
                starved.transitions[0].refuse("not measured: the sound capture fell 386 ms behind at 6.65 s")
                return starved
            }()), fires: true, verdict: .seamless, reasonHolds: "1 of 1 switches heard not measured: not measured: the sound capture fell 386 ms"),
            VerdictExample("heard", with(playedThrough, sound: heard(gapMs: 0)), fires: false, verdict: .seamless),
        ]),
        VerdictRule(id: "sound-gap", source: .sound, summary: "the tones went silent across a switch for audioGapMs or "
                    + "more: a glitch a viewer hears (from --capture-audio, else the capture's own audio)", read: { m, thresholds in
            let heard = m.sound?.isMeasured == true ? m.sound?.transitions.compactMap { t in t.gapMs.map { ($0, t.at) } } : nil
            let gaps = heard ?? (m.picture?.transitions.compactMap { $0.audioGapMs.map { ($0, "a switch") } } ?? [])
            guard let worst = gaps.max(by: { $0.0 < $1.0 }), worst.0 >= thresholds.audioGapMs else { return nil }
            return VerdictEvidence(rule: "sound-gap", source: .sound, verdict: .glitch,
                                   words: "audio gap \(Int(worst.0.rounded())) ms at \(worst.1)")
        }, examples: [
            VerdictExample("450 ms of silence at a clean cut", with(playedThrough, picture(["primary", "ad of control"],
                            transitions: [transition(stallMs: 0, audioGapMs: 450)])), fires: true, verdict: .glitch,
                           reasonHolds: "audio gap 450 ms"),
            VerdictExample("tones meet", with(playedThrough, picture(["primary", "ad of control"],
                            transitions: [transition(stallMs: 0, audioGapMs: 20)])), fires: false, verdict: .seamless),
            VerdictExample("heard live: 300 ms silent at the ad", with(playedThrough, sound: heard(gapMs: 300)), fires: true,
                           verdict: .glitch, reasonHolds: "audio gap 300 ms at the ad's start"),
        ]),
        VerdictRule(id: "sound-av-offset", source: .sound, summary: "at a switch both seen and heard, the incoming tone's first "
                    + "sample and first frame apart by more than avOffsetMs beyond what the streams say: lips out of sync, a glitch",
                    read: { m, thresholds in
            func error(_ t: SoundTransition) -> Double? { t.avOffsetMs.map { $0 - (t.expectedAvOffsetMs ?? 0) } }
            guard let sound = m.sound, sound.isMeasured,
                  let t = sound.transitions.filter({ error($0) != nil }).max(by: { abs(error($0)!) < abs(error($1)!) }),
                  let error = error(t), abs(error) > thresholds.avOffsetMs else { return nil }
            return VerdictEvidence(rule: "sound-av-offset", source: .sound, verdict: .glitch,
                                   words: "the sound \(error > 0 ? "lagged" : "led") the picture by \(Int(abs(t.avOffsetMs!).rounded())) ms "
                                    + "at \(t.at)" + (t.expectedAvOffsetMs.map { $0 != 0 ? " (the stream's own: \(Int($0)) ms)" : "" } ?? ""))
        }, examples: [
            VerdictExample("sound 120 ms late at the ad", with(playedThrough, sound: heard(gapMs: 0, avOffsetMs: 120)), fires: true,
                           verdict: .glitch, reasonHolds: "lagged the picture by 120 ms"),
            VerdictExample("av-start-200ms played as made", with(playedThrough, sound: heard(gapMs: 0, avOffsetMs: 210, expected: 200)),
                           fires: false, verdict: .seamless),
        ]),
        VerdictRule(id: "sound-dropout", source: .sound, summary: "the sound fell silent inside one stream's tone (20 ms or "
                    + "more, audioGapMs or more counts): a dropout a viewer hears, a glitch", read: { m, thresholds in
            guard let sound = m.sound, sound.isMeasured,
                  let worst = sound.dropouts.max(by: { $0.ms < $1.ms }), worst.ms >= thresholds.audioGapMs else { return nil }
            return VerdictEvidence(rule: "sound-dropout", source: .sound, verdict: .glitch,
                                   words: "the sound dropped out \(Int(worst.ms)) ms inside the \(worst.stream) at \(MeasureText.seconds(worst.at))")
        }, examples: [
            VerdictExample("250 ms of silence inside the ad", with(playedThrough, sound: {
                var dropped = heard(gapMs: 0)
                dropped.dropouts = [SoundDropout(stream: "ad of control", at: 8.2, ms: 250)]
                return dropped
            }()), fires: true, verdict: .glitch, reasonHolds: "dropped out 250 ms"),
            VerdictExample("clean", with(playedThrough, sound: heard(gapMs: 0)), fires: false, verdict: .seamless),
        ]),
        VerdictRule(id: "sound-seamless", source: .sound, summary: "every switch heard under audioGapMs, in sync within "
                    + "avOffsetMs (named in the reason)", read: { m, thresholds in
            guard let sound = m.sound, sound.isMeasured, !sound.transitions.isEmpty,
                  !sound.transitions.contains(where: { $0.notMeasured != nil }),  // sound-not-measured names those
                  (sound.longestGapMs ?? 0) < thresholds.audioGapMs,
                  abs(sound.worstAVErrorMs ?? 0) <= thresholds.avOffsetMs else { return nil }
            let offsets = sound.transitions.compactMap(\.avOffsetMs).map { "\(Int($0))" }
            return VerdictEvidence(rule: "sound-seamless", source: .sound, verdict: .seamless,
                                   words: "\(sound.transitions.count) switches heard, the longest gap \(Int(sound.longestGapMs ?? 0)) ms"
                                    + (offsets.isEmpty ? "" : ", A/V \(offsets.joined(separator: "/")) ms"))
        }, examples: [
            VerdictExample("clean", with(playedThrough, sound: heard(gapMs: 12, avOffsetMs: 20)), fires: true, verdict: .seamless,
                           reasonHolds: "1 switches heard, the longest gap 12 ms, A/V 20 ms"),
            VerdictExample("no sound captured", playedThrough, fires: false, verdict: .seamless),
        ]),
    ]
}
