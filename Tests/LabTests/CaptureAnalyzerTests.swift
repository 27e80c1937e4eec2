import Foundation
import MediaProbe
import SeamcheckTestSupport
import XCTest
@testable import LabCore
@testable import LabRun
@testable import LabServer

/// `CaptureAnalyzer` on captures made by the ffmpeg command from the small suite, with freezes,
/// black and silence of known lengths spliced in; and on inputs without codes or that cannot open.
final class CaptureAnalyzerTests: XCTestCase {
    static let frame = 1001.0 / 30000 * 1000

    func suite() async throws -> LabStreamsResult {
        try await LabStreamsGenerator(scale: .small).generate(output: LabStreamsTests.folder)
    }

    /// Primary frames 0-179, the last held 500 ms, 200 ms of black and silence, the control's ad
    /// (frames 0-119), then the primary from frame 180: at the suite's own 29.97 fps.
    func testASplicedCaptureGivesTheFreezeTheBlackAndTheAudioGapOfEachTransition() async throws {
        let result = try await suite()
        let primary = result.root + "/primary/encoded.m3u8", ad = result.root + "/cases/control/ad/encoded.m3u8"
        // Picture and sound are made apart (one filter graph holding both loses the held frames), then muxed.
        let picture = MediaFixture(name: "capture-spliced-control-video", fileExtension: "mkv", arguments: [
            "-i", primary, "-i", ad, "-filter_complex",
            "[0:v]split[v0][v2];[v0]trim=end_frame=180,setpts=PTS-STARTPTS,tpad=stop_mode=clone:stop_duration=0.5[p];"
                + "color=c=black:size=320x180:rate=30000/1001:duration=0.2,format=yuv420p[k];[1:v]setpts=PTS-STARTPTS[a];"
                + "[v2]trim=start_frame=180,setpts=PTS-STARTPTS[r];[p][k][a][r]concat=n=4:v=1:a=0[v]",
            "-map", "[v]", "-c:v", "libx264", "-preset", "veryfast", "-crf", "23"])
        let sound = MediaFixture(name: "capture-spliced-control-audio", fileExtension: "mka", arguments: [
            "-i", primary, "-i", ad, "-filter_complex",
            "[0:a]asplit[a0][a2];[a0]atrim=end=6.006,asetpts=PTS-STARTPTS[pa];anullsrc=r=48000:cl=stereo,atrim=end=0.7[ka];"
                + "[1:a]asetpts=PTS-STARTPTS[aa];[a2]atrim=start=6.006,asetpts=PTS-STARTPTS[ra];[pa][ka][aa][ra]concat=n=4:v=0:a=1[out]",
            "-map", "[out]", "-c:a", "aac"])
        let capture = MediaFixture(name: "capture-spliced-control", fileExtension: "mkv",
                                   arguments: ["-i", try picture.path(), "-i", try sound.path(), "-map", "0:v", "-map", "1:a", "-c", "copy"])
        var analyzer = CaptureAnalyzer(streams: CaptureStreams(manifest: result.manifest))
        analyzer.keepFilmstrips = true
        let analysis = try analyzer.analyze(CaptureInput(target: try capture.path()))
        XCTAssertEqual(analysis.result, .measured)
        XCTAssertEqual(analysis.startup ?? -1, 0, accuracy: 0.001)
        // The filmstrips: the pictures before each switch and the first ones after it, as small BMPs.
        let strips = try XCTUnwrap(analysis.filmstrips)
        XCTAssertEqual(strips.count, 2)
        XCTAssertEqual(strips[0].frames.map(\.label), ["primary #178", "primary #179", "black", "ad of control #0", "ad of control #1",
                                                       "ad of control #2"])
        XCTAssertEqual(strips[1].frames.map(\.label), ["ad of control #117", "ad of control #118", "ad of control #119", "primary #180",
                                                       "primary #181", "primary #182"])
        let bmp = try XCTUnwrap(Data(base64Encoded: strips[0].frames[2].bmp))
        XCTAssertEqual(Array(bmp.prefix(2)), Array("BM".utf8))
        XCTAssertEqual(bmp.count, 14 + 40 + 1024 + 128 * 72)
        XCTAssertTrue(bmp.suffix(128 * 72).allSatisfy { $0 < 40 }, "the black picture is black")
        XCTAssertEqual(analysis.segments.map(\.label), ["primary", "ad of control", "primary"])
        XCTAssertEqual(analysis.transitions.count, 2)
        let toAd = analysis.transitions[0], back = analysis.transitions[1]
        XCTAssertEqual(toAd.from.frame, 179)
        XCTAssertEqual(toAd.to.frame, 0)
        XCTAssertEqual(toAd.skippedFrames, 0)
        XCTAssertEqual(toAd.frozenMs, 500, accuracy: Self.frame)
        XCTAssertEqual(toAd.blackFrames, 6)
        XCTAssertEqual(toAd.stallMs, 700, accuracy: Self.frame)
        XCTAssertEqual(toAd.audioGapMs ?? -1, 700, accuracy: 40)
        XCTAssertEqual(back.from.frame, 119)
        XCTAssertEqual(back.to.frame, 180)
        XCTAssertEqual(back.skippedFrames, 0)
        XCTAssertEqual(back.stallMs, 0, accuracy: Self.frame)
        XCTAssertEqual(back.audioGapMs ?? -1, 0, accuracy: 40)
        XCTAssertEqual(analysis.segments[0].freezes.map(\.frame), [179])
        XCTAssertEqual(analysis.segments.map(\.skippedFrames), [0, 0, 0])
        XCTAssertEqual(analysis.capture.droppedFrames, 0)
    }

    func testACaptureWithoutCodesEndsWithNoFrameCodesSeenAfterTheLimit() throws {
        let blank = MediaFixture.clip("capture-no-codes-30s", duration: 30, audio: nil)
        var analyzer = CaptureAnalyzer(streams: CaptureStreams())
        analyzer.noCodeLimit = 2
        let path = try blank.path()  // encoded first (30 s of video on a cold cache), outside the timed window
        let started = Date()
        let analysis = try analyzer.analyze(CaptureInput(target: path))
        XCTAssertEqual(analysis.result, .noFrameCodes)
        XCTAssertEqual(analysis.capture.seconds, 2, accuracy: 0.1, "stopped at the limit, not at the end of 30 s")
        XCTAssertLessThan(Date().timeIntervalSince(started), 10)
        XCTAssertTrue(analysis.notes.contains { $0.contains("no frame codes seen in 2.0 s") }, "\(analysis.notes)")
        XCTAssertTrue(analysis.transitions.isEmpty)
    }

    /// Ten frames cut from a 29.97 fps capture (their timestamps kept): the capture's drop, not a skip.
    func testACaptureThatDroppedFramesSaysSoWithItsMeasuredRate() async throws {
        let result = try await suite()
        let capture = MediaFixture(name: "capture-dropped-10", fileExtension: "mkv",
                                   arguments: ["-i", result.root + "/primary/encoded.m3u8", "-vf", "select='not(between(n,30,39))'",
                                               "-fps_mode", "passthrough", "-an", "-c:v", "libx264", "-preset", "veryfast"])
        let analysis = try CaptureAnalyzer(streams: CaptureStreams(manifest: result.manifest))
            .analyze(CaptureInput(target: try capture.path()))
        XCTAssertEqual(analysis.capture.droppedFrames, 10)
        XCTAssertEqual(analysis.capture.precisionMs, 11 * Self.frame, accuracy: 1)
        XCTAssertTrue(analysis.notes.contains { $0.contains("the capture dropped 10 frames") }, "\(analysis.notes)")
        XCTAssertEqual(analysis.segments.map(\.skippedFrames), [0], "frames the capture missed are not the player's skips")
        XCTAssertEqual(analysis.segments.first?.framesShown, 350)
    }

    func testADeviceThatCannotBeOpenedIsNamedWithWhatToCheck() {
        for (text, expected) in [("/dev/video97", "v4l2:/dev/video97"), (":97", "x11grab::97")] {
            XCTAssertThrowsError(try CaptureAnalyzer(streams: CaptureStreams()).analyze(CaptureInput.parse(text))) { error in
                guard case .cannotOpen(let input, _)? = error as? CaptureError else { return XCTFail("\(error)") }
                XCTAssertEqual(input.description, expected)
                XCTAssertTrue("\(error)".contains("cannot open capture \(expected)"), "\(error)")
                XCTAssertTrue("\(error)".contains("check"), "\(error)")
            }
        }
    }

    // MARK: - The timeline alone, to the millisecond

    func testA25FpsStreamCapturedAt30RepeatsButNeitherSkipsNorFreezes() {
        let readings = (0..<60).map { index -> (time: Double, reading: FrameReading) in
            let time = Double(index) / 30
            return (time, .code(stream: 3, frame: Int(time * 25)))
        }
        let built = CaptureTimeline(streams: CaptureStreams(manifest: nil), interval: 1 / 30).build(readings)
        XCTAssertEqual(built.segments.count, 1)
        XCTAssertEqual(built.segments[0].skippedFrames, 0)
        XCTAssertEqual(built.segments[0].freezes, [])
        XCTAssertEqual(built.segments[0].frameRate, 25, accuracy: 0.5)
    }

    func testAFrameHeldAndFramesSkippedInOneStreamAreCounted() {
        var readings: [(time: Double, reading: FrameReading)] = []
        var time = 0.0
        for frame in 0..<30 { readings.append((time, .code(stream: 0, frame: frame))); time += 0.04 }
        for _ in 0..<10 { readings.append((time, .code(stream: 0, frame: 29))); time += 0.04 }  // held 400 ms more
        for frame in 35..<50 { readings.append((time, .code(stream: 0, frame: frame))); time += 0.04 }  // 5 skipped
        let built = CaptureTimeline(streams: CaptureStreams(), interval: 0.04).build(readings)
        let segment = built.segments[0]
        XCTAssertEqual(segment.freezes.map(\.frame), [29])
        XCTAssertEqual(segment.freezes.first?.ms ?? 0, 400, accuracy: 1)
        XCTAssertEqual(segment.skippedFrames, 5)
        XCTAssertEqual(segment.repeatedFrames, 10)
    }
}
