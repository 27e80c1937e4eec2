import Foundation
import MediaProbe
import SeamcheckTestSupport
import XCTest
@testable import LabCore
@testable import LabRun
@testable import LabServer

/// The frame code: its check, its drawing by the ffmpeg command in every lab stream, and its reading
/// after what a receiver and a capture do to a picture (scaling, overscan, pillarbox, lossy encodes).
final class FrameCodeTests: XCTestCase {
    let code = LabFrameCode.current

    func testEveryWordDecodesToItsStreamAndFrameAndEveryOneOrTwoBitMisreadIsRejected() {
        for stream in [0, 1, 22, 127] {
            for frame in [0, 1, 2, 299, 1799, code.frameModulus - 1] {
                let word = code.word(stream: stream, frame: frame)
                XCTAssertEqual(code.decode(word: word)?.stream, stream)
                XCTAssertEqual(code.decode(word: word)?.frame, frame)
                for bit in 0..<code.wordBits {
                    XCTAssertNil(code.decode(word: word ^ (1 << bit)), "one flipped bit \(bit) of \(stream)/\(frame)")
                    for other in 0..<bit {
                        XCTAssertNil(code.decode(word: word ^ (1 << bit) ^ (1 << other)), "bits \(bit),\(other) of \(stream)/\(frame)")
                    }
                }
            }
        }
        XCTAssertEqual(code.modules(word: code.word(stream: 5, frame: 9)).count, code.bandModules)
        XCTAssertEqual(code.word(stream: 3, frame: code.frameModulus + 4), code.word(stream: 3, frame: 4), "indexes wrap")
    }

    func testStreamIdsAndTonesAreOnePerEncodeAndTheSameWhateverCasesARunMakes() async throws {
        let streams = LabStreamPlans.all(scale: .small).map(\.stream)
        XCTAssertEqual(streams.map(\.id), Array(streams.indices))
        XCTAssertEqual(streams.first?.folder, "primary")
        XCTAssertEqual(streams.first?.tone, 440)
        XCTAssertEqual(Set(streams.map(\.folder)).count, streams.count)
        XCTAssertEqual(Set(streams.compactMap(\.tone)).count, streams.compactMap(\.tone).count, "a tone per stream")
        XCTAssertLessThan(streams.count, 1 << code.streamBits)
        XCTAssertNil(streams.first { $0.caseId == "track-set-audio-only" }?.frameRate)
        XCTAssertNil(streams.first { $0.caseId == "track-set-video-only" }?.tone)

        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("lab-codes-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let one = try await LabStreamsGenerator(scale: .small).generate(output: folder, caseIds: ["frame-rate-25"])
        XCTAssertEqual(one.manifest.streams, streams, "the manifest lists the catalog's streams, not the run's")
        XCTAssertEqual(one.manifest.frameCode, code)
        XCTAssertEqual(one.manifest.streams?.first { $0.folder == "cases/frame-rate-25/ad" }?.frameRate, "25/1")
    }

    /// Every frame of a sample of the suite's video streams (16:9 and 4:3, 25 to 59.94 fps,
    /// H.264 and HEVC 10-bit) reads as its own stream and index, at the suite's small scale.
    func testEveryFrameOfTheSmallSuiteReadsAsItsStreamAndIndex() async throws {
        let result = try await LabStreamsGenerator(scale: .small).generate(output: LabStreamsTests.folder)
        let streams = try XCTUnwrap(result.manifest.streams)
        let sample = ["primary", "cases/aspect-ratio-4x3/ad", "cases/frame-rate-59.94/ad", "cases/frame-rate-25/ad",
                      "cases/capability-ladder/video-hevc-hdr10"]
        for folder in sample {
            let stream = try XCTUnwrap(streams.first { $0.folder == folder })
            let frames = try Self.grayFrames(result.root + "/" + folder + "/encoded.m3u8", filter: nil)
            XCTAssertEqual(Double(frames.count), (stream.duration * stream.framesPerSecond).rounded(), accuracy: 1, folder)
            var reader = FrameCodeReader(code: code)
            for (index, frame) in frames.enumerated() {
                XCTAssertEqual(reader.read(frame), .code(stream: stream.id, frame: index), "\(folder) frame \(index)")
            }
        }
    }

    /// A 720p stream shown on a 1080p screen with 4% overscan, captured and scaled to 480x270,
    /// encoded again at a low bitrate; and a 4:3 one pillarboxed the same way.
    func testCodesSurviveA1080pCaptureScaledTo480x270WithOverscanAndALossyEncode() throws {
        let chains = [
            (MediaSpec.Video(), "scale=1920:1080,crop=1844:1036,scale=1920:1080,scale=480:270"),
            ({ var v = MediaSpec.Video(); v.aspectWidth = 4; v.aspectHeight = 3; return v }(),
             "scale=1440:1080,pad=1920:1080:240:0,crop=1844:1036,scale=1920:1080,scale=480:270"),
        ]
        for (video, chain) in chains {
            let width = LabScale.full.width(video)
            let graph = code.lavfiGraph(pattern: "smptehdbars", width: width, height: 720, rate: video.rate, stream: 9,
                                        after: "null")
            let source = MediaFixture(name: "code-720p-\(width)", fileExtension: "mp4",
                                      arguments: ["-f", "lavfi", "-i", graph, "-t", "2", "-c:v", "libx264", "-preset", "veryfast",
                                                  "-b:v", "2500k", "-pix_fmt", "yuv420p"])
            let capture = MediaFixture(name: "code-capture-480-\(width)", fileExtension: "mp4",
                                       arguments: ["-i", try source.path(), "-vf", chain, "-c:v", "libx264", "-preset", "veryfast",
                                                   "-crf", "32", "-pix_fmt", "yuv420p"])
            let frames = try Self.grayFrames(try capture.path(), filter: nil)
            XCTAssertEqual(frames.first?.width, 480)
            XCTAssertEqual(frames.count, 60)
            var reader = FrameCodeReader(code: code)
            for (index, frame) in frames.enumerated() {
                XCTAssertEqual(reader.read(frame), .code(stream: 9, frame: index), "\(width) wide, frame \(index)")
            }
        }
    }

    func testAPictureWithoutACodeIsBlackOrUnreadableNeverACode() throws {
        var reader = FrameCodeReader(code: code)
        XCTAssertEqual(reader.read(GrayImage(width: 480, height: 270, pixels: Array(repeating: 16, count: 480 * 270))), .black)
        let bars = MediaFixture(name: "no-code-bars", fileExtension: "mp4",
                                arguments: ["-f", "lavfi", "-i", "smptehdbars=size=480x270:rate=30,format=yuv420p", "-t", "1",
                                            "-c:v", "libx264", "-preset", "veryfast"])
        let pattern = MediaFixture.clip("no-code-testsrc2", duration: 1, audio: nil)
        for fixture in [bars, pattern] {
            for frame in try Self.grayFrames(try fixture.path(), filter: nil) {
                XCTAssertEqual(reader.read(frame), .unreadable, fixture.name)
            }
        }
    }

    /// Every frame of `input` as 8-bit grey at its own size, through the ffmpeg command.
    static func grayFrames(_ input: String, filter: String?) throws -> [GrayImage] {
        let probe = try Command.run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=width,height",
                                                "-of", "csv=p=0", input])
        let size = probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ",").compactMap { Int($0) }
        guard size.count == 2 else { throw CommandError.failed("ffprobe \(input)", probe) }
        let raw = FileManager.default.temporaryDirectory.appendingPathComponent("gray-\(UUID().uuidString).raw").path
        defer { try? FileManager.default.removeItem(atPath: raw) }
        let result = try Command.run("ffmpeg", ["-nostdin", "-v", "error", "-y", "-i", input] + (filter.map { ["-vf", $0] } ?? [])
                                     + ["-fps_mode", "passthrough", "-f", "rawvideo", "-pix_fmt", "gray", raw])
        guard result.status == 0 else { throw CommandError.failed("ffmpeg \(input)", result) }
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: raw)))
        let frame = size[0] * size[1]
        return stride(from: 0, to: bytes.count - frame + 1, by: frame).map {
            GrayImage(width: size[0], height: size[1], pixels: Array(bytes[$0..<($0 + frame)]))
        }
    }
}
