import ArgumentParser
import Foundation
import HLS
import LabCore
import LabRun
import LabServer
import MediaProbe
import Reporting
import ResultsReporting

/// `seamcheck lab measure CAPTURE`: frame codes read from a capture of a receiver's output.
struct LabMeasureCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "measure",
        abstract: "Read the frame codes of a capture: start-up, transitions, freezes, black, skipped frames, audio gaps.",
        discussion: """
        CAPTURE is a recording (any file FFmpeg reads), a V4L2 device (/dev/video0: an HDMI capture card), an X display \
        (:99 or x11grab::99.0), or FORMAT:TARGET for another FFmpeg input device. Devices are read for --duration \
        seconds (default 60). Without frame codes in the first --no-code-limit seconds the result is "no frame codes seen".
        """)

    @Argument(help: "The capture: a file, /dev/videoN, :DISPLAY, or FORMAT:TARGET.")
    var capture: String

    @Option(help: "The suite folder made by `seamcheck lab streams` (names the streams; default Reports/lab when it exists).")
    var streams: String?

    @Option(help: "Seconds of capture to read (default: a file whole, a device 60).")
    var duration: Double?

    @Option(help: "Give up when no frame code was seen in this many seconds of capture.")
    var noCodeLimit: Double = 10

    @Option(name: .customLong("capture-option"), help: "An option of the input device, KEY=VALUE (framerate=30, video_size=1280x720); repeatable.")
    var captureOptions: [String] = []

    @Option(name: .customLong("capture-audio"), help: "Hear the receiver's sound too: same (the capture's own audio track), pulse:SOURCE[?server=unix:PATH], alsa:DEVICE (alsa:hw:1,0), or a recording of it.")
    var captureAudio: String?

    @Option(help: "table (default on a terminal) or json.")
    var format: ListFormat?

    func validate() throws {
        try OptionChecks.number(duration, "--duration", in: 0.1...86_400, unit: "s")
        try OptionChecks.number(noCodeLimit, "--no-code-limit", in: 0.1...86_400, unit: "s")
        for option in captureOptions where !option.contains("=") {
            throw ValidationError("--capture-option \(option): give KEY=VALUE, e.g. framerate=30")
        }
    }

    func run() async throws {
        var input = CaptureInput.parse(capture)
        for option in captureOptions {
            let parts = option.split(separator: "=", maxSplits: 1).map(String.init)
            input.options[parts[0]] = parts[1]
        }
        if input.format == nil, !FileManager.default.fileExists(atPath: input.target) {
            throw CLIFailure.input("\(capture): no such file; give a recording, /dev/videoN, :DISPLAY or FORMAT:TARGET")
        }
        let manifest: LabManifest?
        if let streams {
            manifest = try LabSuite.load(streams).manifest
        } else {
            manifest = try? LabSuite.load("Reports/lab").manifest
        }
        var analyzer = CaptureAnalyzer(streams: CaptureStreams(manifest: manifest),
                                       duration: duration ?? (input.isDevice ? 60 : nil))
        analyzer.noCodeLimit = noCodeLimit
        let audio = captureAudio.map(AudioInput.parse)
        analyzer.measuresOwnSound = audio == .sameAsPicture
        var sound: SoundCapture?
        if case .device(let heard)? = audio {
            if heard.format == nil, !FileManager.default.fileExists(atPath: heard.target) {
                throw CLIFailure.input("--capture-audio \(heard.target): no such file; give same, pulse:SOURCE, alsa:DEVICE or a recording")
            }
            // Opened here first: a source that cannot be is exit 2 before the picture is read.
            _ = try AudioCaptureReader(input: heard)
            sound = SoundCapture(input: heard, streams: analyzer.streams, duration: analyzer.duration)
        }
        let trap = InterruptTrap(stopping: "reading the capture") { _ in }
        let (ready, source) = (analyzer, input)
        var analysis = try await Self.blocking { () throws(CaptureError) -> CaptureAnalysis in
            try withExtendedLifetime(trap) { () throws(CaptureError) -> CaptureAnalysis in
                try ready.analyze(source, isCancelled: { trap.received != nil })
            }
        }
        if let sound {
            // A recording of the sound is read to its end; a device stops with the picture.
            let heard = sound
            let transitions = analysis.transitions, origin = analysis.clockOrigin
            analysis.sound = await Self.waiting { heard.finish(picture: transitions, pictureOrigin: origin, timeout: 60) }
        }
        switch ListFormat.resolve(format) {
        case .json:
            let data = try JSONDocument.encoder().encode(analysis)
            try Output.write(String(decoding: data, as: UTF8.self) + "\n", to: nil)
        case .table:
            try Output.write(CaptureAnalysisTable.render(analysis), to: nil)
        }
        // The result is printed for scripts either way; nothing measured is unusable input (exit 2).
        if analysis.result == .noFrameCodes {
            throw CLIFailure.input("\(capture): no frame codes seen in the first \(String(format: "%g", noCodeLimit)) s of capture; "
                + "check that it shows the receiver's output while it plays a case of a suite made by `seamcheck lab streams` "
                + "(suites made before frame codes have none)")
        }
    }

    /// Waits for blocking work on a thread of its own.
    static func waiting<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in Thread { continuation.resume(returning: body()) }.start() }
    }

    /// Runs blocking FFmpeg work on a thread of its own, not on the cooperative pool.
    static func blocking<T: Sendable>(_ body: @escaping @Sendable () throws(CaptureError) -> T) async throws(CaptureError) -> T {
        let result: Result<T, CaptureError> = await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: Result { () throws(CaptureError) -> T in try body() }) }.start()
        }
        return try result.get()
    }
}

extension CaptureError: ExitCoded {}
