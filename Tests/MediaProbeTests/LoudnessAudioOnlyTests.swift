import Foundation
import HLS
@testable import MediaProbe
import SeamcheckTestSupport
import XCTest

/// The meter decodes only the audio (MP4 without FFmpeg's read-ahead, the other streams skipped
/// by the demuxer) and still reads what ffmpeg's own ebur128 reads, to the three decimals it
/// reports, in every container; and a resource fetched ahead is counted by its first reader.
final class LoudnessAudioOnlyTests: XCTestCase {
    /// The last integrated value ffmpeg's ebur128 attaches to its frames, as the meter reads it.
    func ffmpegMetadataIntegrated(_ path: String) throws -> Double {
        let result = try Command.run("ffmpeg", ["-nostdin", "-hide_banner", "-i", path, "-map", "0:a:0",
                                                "-af", "ebur128=metadata=1,ametadata=mode=print:key=lavfi.r128.I:file=-",
                                                "-f", "null", "-"])
        let line = try XCTUnwrap(result.stdout.components(separatedBy: "\n").last { $0.hasPrefix("lavfi.r128.I=") }, result.stderr)
        return try XCTUnwrap(Double(line.dropFirst("lavfi.r128.I=".count)), line)
    }

    func testEveryContainerMeasuresWhatFFmpegsEbur128ReadsToThreeDecimals() throws {
        let fixtures: [(String, MediaFixture)] = [
            ("mp4", Fixtures.primary), ("mp4 +12 dB", Fixtures.loud), ("fMP4", Fixtures.fragmented), ("MPEG-TS", Fixtures.transportStream),
            ("Matroska", Fixtures.matroska), ("AAC 5.1", Fixtures.surround), ("E-AC-3 5.1(side)", Fixtures.surroundSide),
            ("AAC 7.1", Fixtures.sevenOne), ("audio late by 200 ms", Fixtures.lateAudio),
        ]
        for (name, fixture) in fixtures {
            let path = try fixture.path()
            let measured = try LoudnessMeter().measure(path: path)
            XCTAssertEqual(measured.integrated, try ffmpegMetadataIntegrated(path), name)
            let inMemory = try LoudnessMeter().measure(bytes: try Data(contentsOf: URL(fileURLWithPath: path)), label: name)
            XCTAssertEqual(inMemory.integrated, measured.integrated, name)
            XCTAssertEqual(inMemory.seconds, measured.seconds, name)
        }
    }

    func testAResourceFetchedAheadIsCountedByItsFirstReaderOnly() throws {
        let path = try Fixtures.primary.path()
        let cache = SegmentCache()
        let reader = SegmentReader(timeout: 10, maxBytes: MediaProber.maxSegmentBytes)
        let interrupt = InterruptState(deadline: Date().addingTimeInterval(10), cancellation: ProbeCancellation())
        cache.warm(.file(path: path), offset: 0, length: nil, limit: MediaProber.maxSegmentBytes, reader: reader, interrupt: interrupt)
        let first = try cache.read(.file(path: path), offset: 0, length: nil, limit: MediaProber.maxSegmentBytes, reader: reader, interrupt: interrupt)
        XCTAssertTrue(first.fetched, "the first reader counts the bytes fetched for it")
        XCTAssertEqual(first.data, try Data(contentsOf: URL(fileURLWithPath: path)))
        let second = try cache.read(.file(path: path), offset: 0, length: nil, limit: MediaProber.maxSegmentBytes, reader: reader, interrupt: interrupt)
        XCTAssertFalse(second.fetched)
        // A failed head start is not remembered: the reader asks again and gets the error itself.
        let missing = path + ".missing"
        cache.warm(.file(path: missing), offset: 0, length: nil, limit: MediaProber.maxSegmentBytes, reader: reader, interrupt: interrupt)
        XCTAssertThrowsError(try cache.read(.file(path: missing), offset: 0, length: nil, limit: MediaProber.maxSegmentBytes, reader: reader,
                                            interrupt: interrupt)) { error in
            guard case .fileNotFound? = error as? ProbeError else { return XCTFail("\(error)") }
        }
    }
}
