import Foundation
import MediaProbe
import Processes
import SeamcheckTestSupport
import XCTest
@testable import LabCore

/// The sound's numbers against media whose truth is known by construction: 2 s of stream 1
/// (frame codes, its tone), 2 s of stream 2, 2 s of stream 1 again; the tones cut or delayed
/// at the first switch, aligned at the return.
struct SoundTruth {
    var name: String
    /// Silence before stream 2's tone: the primary's tone ends `cut` early, stream 2's starts `delay` late.
    var cut = 0.0
    var delay = 0.0
    var sampleRate = 48000

    static let delayed = SoundTruth(name: "delayed-200ms", delay: 0.2)
    static let cut = SoundTruth(name: "cut-300ms", cut: 0.3)
    static let resampled = SoundTruth(name: "resampled-44100", sampleRate: 44100)

    var gapMs: Double { (cut + delay) * 1000 }
    /// At the first switch: the incoming tone's first sample after the incoming stream's first frame.
    var avOffsetMs: Double { delay * 1000 }

    /// The sound: stream 1's tone, `cut + delay` of silence, stream 2's, stream 1's again; as `[au]`.
    var audioGraph: String {
        let (one, two, r) = (LabFrameCode.current.tone(stream: 1), LabFrameCode.current.tone(stream: 2), sampleRate)
        return ["sine=frequency=\(one):sample_rate=\(r),atrim=end=\(2 - cut)[s1]",
                "anullsrc=r=\(r):cl=mono,atrim=end=\(cut + delay + 0.0001)[z]",
                "sine=frequency=\(two):sample_rate=\(r),atrim=end=\(2 - delay)[s2]",
                "sine=frequency=\(one):sample_rate=\(r),atrim=end=2[s3]",
                "[s1][z][s2][s3]concat=n=4:v=0:a=1,aformat=channel_layouts=stereo[au]"].joined(separator: ";")
    }

    /// The sound alone as WAV, to 4.5 s (past the return), for a player with no picture.
    func sound() throws -> String {
        try MediaFixture(name: "sound-truth-\(name)-wav", fileExtension: "wav",
                         arguments: ["-filter_complex", audioGraph, "-map", "[au]", "-t", "4.5", "-c:a", "pcm_s16le"]).path()
    }

    func media() throws -> String {
        let code = LabFrameCode.current
        func graph(_ stream: Int, _ label: String) -> String {
            code.lavfiGraph(pattern: "testsrc2", width: 320, height: 180, rate: "30", stream: stream, after: "null")
                .replacingOccurrences(of: "[picture]", with: "[picture\(label)]").replacingOccurrences(of: "[code]", with: "[code\(label)]")
                .replacingOccurrences(of: "[out0]", with: "[\(label)]")
        }
        let filter = [graph(1, "p"), graph(2, "a"), graph(1, "q"),
                      "[p]trim=end=2,setpts=PTS-STARTPTS[p1]", "[a]trim=end=2,setpts=PTS-STARTPTS[a1]",
                      "[q]trim=start=2:end=4,setpts=PTS-STARTPTS[q1]", "[p1][a1][q1]concat=n=3:v=1:a=0,format=yuv420p[v]",
                      audioGraph].joined(separator: ";")
        return try MediaFixture(name: "sound-truth-\(name)", fileExtension: "mkv",
                                arguments: ["-filter_complex", filter, "-map", "[v]", "-map", "[au]", "-c:v", "libx264", "-preset",
                                            "veryfast", "-crf", "16", "-g", "30", "-c:a", "pcm_s16le", "-ar", String(sampleRate)]).path()
    }
}

final class SoundAccuracyTests: XCTestCase {
    /// The recording itself (`--capture-audio same`): no player, no capture latency; the numbers are the media's.
    func testTheRecordingsOwnSoundGivesEachGapAndOffset() throws {
        for truth in [SoundTruth.delayed, .cut, .resampled] {
            var analyzer = CaptureAnalyzer(streams: CaptureStreams())
            analyzer.measuresOwnSound = true
            let analysis = try analyzer.analyze(CaptureInput(target: try truth.media()))
            let sound = try XCTUnwrap(analysis.sound)
            XCTAssertEqual(sound.result, "measured", "\(truth.name): \(sound.notes)")
            XCTAssertEqual(sound.transitions.count, 2, "\(truth.name): \(sound.transitions)")
            guard sound.transitions.count == 2 else { continue }
            let (start, back) = (sound.transitions[0], sound.transitions[1])
            XCTAssertEqual(sound.channels, 2, "\(truth.name): the recording's channels, not only its first")
            XCTAssertEqual(start.channelsAfter, 2, "\(truth.name): both channels heard")
            XCTAssertEqual(start.gapMs ?? -1, truth.gapMs, accuracy: 5, "\(truth.name): the gap at the first switch")
            XCTAssertEqual(back.gapMs ?? -1, 0, accuracy: 5, "\(truth.name): the tones meet at the return")
            XCTAssertEqual(start.avOffsetMs ?? -1000, truth.avOffsetMs, accuracy: 1000 / 30, "\(truth.name): A/V at the first switch")
            XCTAssertEqual(back.avOffsetMs ?? -1000, 0, accuracy: 1000 / 30, "\(truth.name): A/V at the return")
            print("sound truth (recording) \(truth.name): gap \(start.gapMs.map { "\($0)" } ?? "-") ms (truth \(truth.gapMs)), "
                  + "A/V \(start.avOffsetMs.map { "\($0)" } ?? "-") ms (truth \(truth.avOffsetMs)), return gap \(back.gapMs ?? -1) "
                  + "A/V \(back.avOffsetMs ?? -1); clicks \(sound.clicks.count)")
        }
    }

    /// A muted source is `silent`, a rate too low for the tones `unusableRate`: a result naming it, no numbers.
    func testSilenceAndACoarseRateAreResultsNotNumbers() {
        var muted = SoundTrack(tones: CaptureStreams().tones)
        for block in 0..<300 { muted.add(time: Double(block) * 0.02, samples: [Float](repeating: 0, count: 960), sampleRate: 48000) }
        let silent = muted.finish(input: "pulse:tv.monitor", streams: CaptureStreams())
        XCTAssertEqual(silent.result, "silent")
        XCTAssertTrue(silent.transitions.isEmpty)
        XCTAssertTrue(silent.notes.first?.contains("muted") == true, "\(silent.notes)")
        var coarse = SoundTrack(tones: CaptureStreams().tones)
        coarse.add(time: 0, samples: (0..<800).map { Float(sin(Double($0) * 0.3)) }, sampleRate: 4000)
        let unusable = coarse.finish(input: "alsa:hw:1,0", streams: CaptureStreams())
        XCTAssertEqual(unusable.result, "unusableRate")
        XCTAssertTrue(unusable.notes.first?.contains("4000 Hz") == true, "\(unusable.notes)")
    }

    /// The stamps' jitter and the first packet's error are no drop; a step that holds is one, where it happened.
    func testTheClockTakesTheMedianAndFindsAHeldStepAsADrop() {
        var points: [(sample: Double, stamp: Double)] = [(0, 0)]  // the first packet 160 ms off the rest
        for tenth in 1..<70 {
            let t = Double(tenth) / 10
            let jitter = tenth % 3 == 0 ? 0.012 : -0.004
            points.append((t, t + 0.16 + jitter + (t >= 3 ? 0.1 : 0)))
        }
        let clock = SoundClock(points)
        XCTAssertEqual(clock.drops.count, 1, "\(clock.drops)")
        XCTAssertEqual(clock.drops.first?.at ?? -1, 3)
        XCTAssertEqual(clock.drops.first?.seconds ?? 0, 0.1, accuracy: 0.001)
        XCTAssertEqual(clock.drift, 0, accuracy: 0.001)
        XCTAssertEqual(clock.stamp(1.5), 1.5 + 0.156, accuracy: 0.001, "the median, not the first packet")
    }

    /// A FIFO with no writer (a capture pipe whose producer never started): the open ends at its
    /// deadline, naming the input, instead of hanging (the picture's reader does the same).
    func testAFIFOWithoutAWriterEndsAtTheOpenDeadline() throws {
        let fifo = NSTemporaryDirectory() + "sound-fifo-\(UUID().uuidString)"
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        defer { unlink(fifo) }
        let started = Date()
        XCTAssertThrowsError(try AudioCaptureReader(input: CaptureInput(target: fifo, format: nil, options: [:]), openTimeout: 1)) { error in
            XCTAssertTrue(String(describing: error).contains(fifo), "\(error)")
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 30, "bounded, not a hang")
    }

    /// A PulseAudio server that is not there: the open fails at once, naming the input and what to check.
    func testAnAbsentPulseServerIsNamedWithWhatToCheck() {
        XCTAssertThrowsError(try AudioCaptureReader(input: CaptureInput(target: "nothing.monitor", format: "pulse",
                                                                        options: ["server": "unix:/nonexistent/pulse.sock"]),
                                                    openTimeout: 3)) { error in
            let text = String(describing: error)
            XCTAssertTrue(text.contains("pulse:nothing.monitor") && text.contains("server="), text)
        }
    }

    /// A real player (ffplay) plays each case into a PulseAudio null sink started here (a unix
    /// socket, nothing on the network) and a private X display; its sound is heard live through
    /// the sink's monitor, its picture by x11grab. The player's own output latency is one
    /// constant for all switches: the return (aligned by construction) measures it, and the first
    /// switch's offset less it must be the truth within one video frame. The gap is held to 12 ms
    /// here: ffplay on this 2-core machine at load 8 now and then writes its sound 5-10 ms late
    /// after a silence (an underrun), which lengthens the gap as played, and the monitor hears it
    /// so (200-210, 300-309 and 0 ms). A player that cannot underrun (below) reads 0-10 ms long too.
    func testAPlayerHeardThroughPulseAudioGivesEachGapAndOffset() throws {
        let ffplay = try TestEnvironment.require("ffplay")
        let cases = [SoundTruth.delayed, .cut, .resampled]
        let files = try cases.map { try $0.media() }
        try PulseNullSink.with { pulse in
            try XvfbDisplay.with(size: "320x180") { display in
                for (truth, file) in zip(cases, files) {
                    var (picture, sound) = try Self.play(file, ffplay: ffplay, display: display, pulse: pulse)
                    // A capture that dropped sound or fell behind (the machine too busy to read it in time) is
                    // named so and gives no figures near it, as it must (`testAStarvedSoundCaptureRefusesItsNumbers`);
                    // it says nothing of accuracy, so such a play is played again, twice at most.
                    for _ in 0..<2 where sound.notes.contains(where: { $0.contains("dropped") || $0.contains("came late") }) {
                        print("sound truth \(truth.name): played again, the capture dropped sound: \(sound.notes)")
                        (picture, sound) = try Self.play(file, ffplay: ffplay, display: display, pulse: pulse)
                    }
                    XCTAssertEqual(picture.result, .measured, "\(truth.name): \(picture.notes)")
                    XCTAssertEqual(sound.result, "measured", "\(truth.name): \(sound.notes)")
                    XCTAssertEqual(sound.transitions.count, 2, "\(truth.name): \(sound.transitions)")
                    guard sound.transitions.count == 2 else { continue }
                    let (start, back) = (sound.transitions[0], sound.transitions[1])
                    let latency = try XCTUnwrap(back.avOffsetMs, "\(truth.name): the return seen and heard")
                    let offset = try XCTUnwrap(start.avOffsetMs, "\(truth.name): the first switch seen and heard: \(start) \(sound.notes) "
                                               + "\(picture.transitions.map { "\($0.from.stream)->\($0.to.stream) at \($0.to.at)" })")
                    XCTAssertEqual(start.gapMs ?? -1, truth.gapMs, accuracy: 12, "\(truth.name): the gap at the first switch")
                    XCTAssertEqual(back.gapMs ?? -1, 0, accuracy: 12, "\(truth.name): the tones meet at the return")
                    // Each offset is a whole-millisecond sound time less a picture time known to a frame:
                    // their difference is within one frame plus a millisecond of rounding (a CI run read 34).
                    XCTAssertEqual(offset - latency, truth.avOffsetMs, accuracy: 1000 / 30 + 1,
                                   "\(truth.name): A/V at the first switch less the player's own (\(latency) ms)")
                    print("sound truth (ffplay via PulseAudio) \(truth.name): gap \(start.gapMs ?? -1) ms (truth \(truth.gapMs)), "
                          + "A/V \(offset) ms, the player's own \(latency) ms, so \(offset - latency) (truth \(truth.avOffsetMs)); "
                          + "return gap \(back.gapMs ?? -1); clicks \(sound.clicks.count); capture \(picture.capture.measuredRate) fps; "
                          + "drift \(sound.clockDriftMs ?? 0) ms; \(sound.notes)")
                }
            }
        }
    }

    /// The gap alone, from a player that cannot underrun: paplay (half a second of buffer) plays
    /// each case's sound into the null sink, heard through its monitor. Within 10 ms of the truth:
    /// even with a full buffer the sink now and then plays a gap a few ms long (below), so the
    /// issue's 5 ms holds from a recording, not through a PulseAudio null sink.
    func testTheGapOfAPlayerThatCannotUnderrunIsTheTruthWithin10ms() throws {
        let paplay = try TestEnvironment.require("paplay")
        let cases = [SoundTruth.delayed, .cut, .resampled]
        let files = try cases.map { try $0.sound() }
        // One second of silence first: an idle null sink renders in 2 s blocks, and the first stream
        // played into it came out with its first gap 7-9 ms long in every run; after the warm-up the
        // gaps read 0-6 ms long. The sink, not the capture: from the file itself they are exact.
        let warmUp = try MediaFixture(name: "sound-truth-silence-1s-wav", fileExtension: "wav",
                                      arguments: ["-f", "lavfi", "-i", "anullsrc=r=48000:cl=stereo", "-t", "1", "-c:a", "pcm_s16le"]).path()
        try PulseNullSink.with { pulse in
            guard case .device(let input) = AudioInput.parse(pulse.monitorInput) else { return XCTFail(pulse.monitorInput) }
            let capture = SoundCapture(input: input, streams: CaptureStreams())
            XCTAssertTrue(capture.waitForFirstBlock(timeout: 5), "the sink's monitor heard within 5 s")
            for file in [warmUp] + files {
                let player = try RunningProcess(paplay, ["--server=\(pulse.server)", "-d", PulseNullSink.sink,
                                                         "--latency-msec=500", file], environment: ProcessInfo.processInfo.environment)
                XCTAssertEqual(player.wait(timeout: 15), 0, "paplay: \(player.stderr.suffix(300))")
            }
            let sound = capture.finish()
            XCTAssertEqual(sound.result, "measured", "\(sound.notes)")
            let truth: [Double] = cases.flatMap { [$0.gapMs, 0] }
            XCTAssertEqual(sound.transitions.count, truth.count, "\(sound.transitions.map { "\($0.fromStream)->\($0.toStream)" }) \(sound.notes)")
            for (heard, gap) in zip(sound.transitions, truth) {
                if let reason = heard.notMeasured {  // refused, never wrong (a busy machine)
                    XCTAssertTrue(reason.contains("fell") && heard.gapMs == nil, reason)
                    continue
                }
                // 10 ms: what a PulseAudio null sink adds now and then (above); from a recording it is exact.
                XCTAssertEqual(heard.gapMs ?? -1, gap, accuracy: 10, "\(heard.fromStream)->\(heard.toStream) at \(heard.incomingStart) \(heard.notes)")
            }
            print("sound truth (paplay via PulseAudio): gaps \(sound.transitions.map { $0.gapMs ?? -1 }) ms (truth \(truth)); "
                  + "behind \(sound.fellBehindMs ?? -1) ms; \(sound.notes)")
        }
    }

    /// The sound's reader held 300 ms in every 500 ms of sound (a machine too busy to schedule it):
    /// it falls behind and catches up again, and every switch it touched reads "not measured"
    /// with how far and where. A switch it did not touch must read the truth within one frame
    /// (against the player's own offset, measured at the return when that is given).
    func testAStarvedSoundCaptureRefusesItsNumbers() throws {
        let ffplay = try TestEnvironment.require("ffplay")
        let truth = SoundTruth.delayed
        let file = try truth.media()
        try PulseNullSink.with { pulse in
            try XvfbDisplay.with(size: "320x180") { display in
                let held = Locked(0.0)
                let (picture, sound) = try Self.play(file, ffplay: ffplay, display: display, pulse: pulse) { time in
                    guard time >= held.get() else { return }
                    held.set(time + 0.5)
                    usleep(300_000)
                }
                XCTAssertEqual(picture.result, .measured, "\(picture.notes)")
                XCTAssertEqual(sound.result, "measured", "\(sound.notes)")
                XCTAssertGreaterThanOrEqual(sound.fellBehindMs ?? 0, 250, "the reader's lag seen: \(sound.notes)")
                XCTAssertTrue(sound.notes.contains { $0.contains("the sound came late") && $0.contains("the capture fell behind") },
                              "a reader held is the capture's lateness, not the source's: \(sound.notes)")
                XCTAssertFalse(sound.transitions.isEmpty, "\(sound.notes)")
                let latency = sound.transitions.last.flatMap { $0.notMeasured == nil ? $0.avOffsetMs : nil }
                for (index, heard) in sound.transitions.enumerated() {
                    if let reason = heard.notMeasured {
                        XCTAssertTrue(reason.hasPrefix("not measured: the sound capture fell") && reason.contains(" ms behind at "), reason)
                        XCTAssertNil(heard.gapMs)
                        XCTAssertNil(heard.avOffsetMs)
                    } else {
                        let truthGap = index == 0 ? truth.gapMs : 0, truthAV = index == 0 ? truth.avOffsetMs : 0
                        XCTAssertEqual(heard.gapMs ?? -1, truthGap, accuracy: 12, "\(heard)")
                        if let offset = heard.avOffsetMs, let latency, index == 0 {
                            XCTAssertEqual(offset - latency, truthAV, accuracy: 1000 / 30, "\(heard)")
                        }
                    }
                }
                print("sound truth (starved) \(truth.name): behind \(sound.fellBehindMs ?? -1) ms; "
                      + sound.transitions.map { $0.notMeasured ?? "gap \($0.gapMs ?? -1) A/V \($0.avOffsetMs ?? -1)" }.joined(separator: "; "))
            }
        }
    }

    /// Plays `file` once with both captures running; what each saw and heard.
    static func play(_ file: String, ffplay: String, display: XvfbDisplay, pulse: PulseNullSink,
                     starve: (@Sendable (Double) -> Void)? = nil) throws -> (CaptureAnalysis, SoundMeasurement) {
        let streams = CaptureStreams()
        let audio = AudioInput.parse(pulse.monitorInput)
        guard case .device(let heard) = audio else { throw TestEnvironment.missing("not a device: \(audio)") }
        let sound = SoundCapture(input: heard, streams: streams, duration: nil, beforeEachBlock: starve)
        var analyzer = CaptureAnalyzer(streams: streams, duration: 8)
        analyzer.noCodeLimit = 6
        let video = CaptureInput(target: display.name, format: "x11grab", options: ["framerate": "60", "video_size": "320x180"])
        let done = DispatchSemaphore(value: 0)
        let outcome = Locked<Result<CaptureAnalysis, CaptureError>?>(nil)
        let (ready, input) = (analyzer, video)
        Thread {
            outcome.set(Result { () throws(CaptureError) -> CaptureAnalysis in try ready.analyze(input) })
            done.signal()
        }.start()
        // The sink warm before the player starts (`SoundCapture.waitForFirstBlock`): on a sink
        // nothing played into, the player's sound started up to 700 ms behind its picture.
        XCTAssertTrue(sound.waitForFirstBlock(timeout: 5), "the sink's monitor heard within 5 s")
        usleep(200_000)
        let player = try RunningProcess(ffplay, ["-v", "error", "-autoexit", "-noborder", "-left", "0", "-top", "0", "-x", "320",
                                                 "-y", "180", file], environment: pulse.environment(display.environment))
        defer { player.terminate() }
        _ = player.wait(timeout: 15)
        XCTAssertEqual(done.wait(timeout: .now() + 20), .success, "the picture's capture ends after its duration")
        let picture = try XCTUnwrap(outcome.get()).get()
        let measured = sound.finish(picture: picture.transitions, pictureOrigin: picture.clockOrigin)
        return (picture, measured)
    }
}
