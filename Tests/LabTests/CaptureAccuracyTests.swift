import Foundation
import MediaProbe
import Processes
import SeamcheckTestSupport
import XCTest
@testable import LabCore
@testable import LabRun
@testable import LabServer

/// Accuracy against a known stall: a real player (ffplay) renders the suite's primary into a
/// private X display, is stopped with SIGSTOP for a timed pause and resumed with SIGCONT, while
/// the analyzer captures the display with x11grab at 60 fps. A pause of P stops the player inside
/// a frame's own period, so the stall a viewer sees is P less the part of that period still to
/// run: between P - 1/29.97 s and P. The measured freeze must be within one capture frame of that.
final class CaptureAccuracyTests: XCTestCase {
    func testAPlayerPausedForAKnownTimeIsMeasuredWithinOneCaptureFrame() async throws {
        let ffplay = try TestEnvironment.require("ffplay")
        let result = try await LabStreamsGenerator(scale: .small).generate(output: LabStreamsTests.folder)
        let manifest = result.manifest
        let primary = result.root + "/primary/encoded.m3u8"
        let pauses = [0.25, 0.5, 1.0]
        let (analysis, paused) = try XvfbDisplay.with { display -> (CaptureAnalysis, [Double]) in
            // Video is the master clock: after the pause playback goes on from the next frame, no catching up.
            let player = try RunningProcess(ffplay, ["-v", "error", "-an", "-noborder", "-left", "0", "-top", "0", "-sync", "video",
                                                     primary], environment: display.environment)
            defer {
                kill(player.pid, SIGCONT)
                player.terminate()
            }
            usleep(800_000)
            let analyzer = {
                var made = CaptureAnalyzer(streams: CaptureStreams(manifest: manifest), duration: 9)
                made.noCodeLimit = 3
                return made
            }()
            let input = CaptureInput(target: display.name, format: "x11grab", options: ["framerate": "60", "video_size": "320x180"])
            let done = DispatchSemaphore(value: 0)
            let outcome = Locked<Result<CaptureAnalysis, CaptureError>?>(nil)
            Thread {
                outcome.set(Result { () throws(CaptureError) -> CaptureAnalysis in try analyzer.analyze(input) })
                done.signal()
            }.start()
            var paused: [Double] = []
            for pause in pauses {
                usleep(2_000_000)
                let stopped = DispatchTime.now().uptimeNanoseconds
                kill(player.pid, SIGSTOP)
                usleep(UInt32(pause * 1_000_000))
                kill(player.pid, SIGCONT)
                paused.append(Double(DispatchTime.now().uptimeNanoseconds - stopped) / 1e9)
            }
            XCTAssertEqual(done.wait(timeout: .now() + 30), .success, "the capture ends after its duration")
            return (try XCTUnwrap(outcome.get()).get(), paused)
        }
        XCTAssertEqual(analysis.result, .measured, "\(analysis.notes)")
        XCTAssertEqual(analysis.capture.measuredRate, 60, accuracy: 3, "x11grab kept its rate")
        let segment = try XCTUnwrap(analysis.segments.first)
        XCTAssertEqual(analysis.segments.count, 1)
        let freezes = segment.freezes.filter { $0.ms >= 150 }
        XCTAssertEqual(freezes.count, pauses.count, "\(segment.freezes)")
        let captureFrame = 1000 / analysis.capture.measuredRate
        let streamFrame = 1001.0 / 30
        for (freeze, pause) in zip(freezes, paused) {
            let delay = try XCTUnwrap(freeze.delayMs)
            let range = (pause * 1000 - streamFrame - captureFrame)...(pause * 1000 + captureFrame)
            XCTAssertTrue(range.contains(delay), "pause \(Int(pause * 1000)) ms measured as \(delay) ms (held \(freeze.ms) ms)")
            XCTAssertTrue(range.contains(freeze.ms), "pause \(Int(pause * 1000)) ms: the frame held \(freeze.ms) ms beyond its own")
            print("capture accuracy: paused \(Int((pause * 1000).rounded())) ms, measured delay \(Int(delay)) ms, "
                  + "frame held \(Int(freeze.ms)) ms beyond its own (capture \(String(format: "%.1f", analysis.capture.measuredRate)) fps)")
        }
    }
}

/// A value set on one thread and read on another.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func set(_ newValue: Value) { lock.withLock { value = newValue } }

    func get() -> Value { lock.withLock { value } }
}
