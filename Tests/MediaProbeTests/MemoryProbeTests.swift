import Foundation
@testable import MediaProbe
import SeamcheckTestSupport
import XCTest

/// Probing bytes already fetched: an HLS rendition's init section and first segment.
final class MemoryProbeTests: XCTestCase {
    func bytes(_ paths: [String]) throws -> Data {
        try paths.reduce(into: Data()) { $0.append(try Data(contentsOf: URL(fileURLWithPath: $1))) }
    }

    func testFragmentedMP4InitPlusFirstSegmentDescribesTheRendition() throws {
        let folder = try HLSFixture(name: "hevc-fmp4", source: Fixtures.hevc, segmentType: .fmp4).directory()
        let media = try MediaProber().probe(bytes: try bytes(["\(folder)/init.mp4", "\(folder)/seg0.m4s"]), label: "hevc/index.m3u8")
        XCTAssertEqual(media.input, "hevc/index.m3u8")
        let video = try XCTUnwrap(media.primaryVideo)
        XCTAssertEqual(video.codec, "hevc")
        XCTAssertEqual(video.codecTag, "hvc1")
        XCTAssertEqual(video.frameRateExact, Rational(30000, 1001))
        XCTAssertEqual(video.displayAspectRatio, Ratio(16, 9))
        XCTAssertEqual(media.primaryAudio?.codec, "aac")
        XCTAssertEqual(media.primaryAudio?.sampleRate, 48000)
    }

    func testTransportStreamSegmentAlone() throws {
        let folder = try HLSFixture(name: "h264-ts", source: Fixtures.fps25, segmentType: .mpegts).directory()
        let media = try MediaProber().probe(bytes: try bytes(["\(folder)/seg0.ts"]), label: "ts/index.m3u8")
        XCTAssertEqual(media.container, "mpegts")
        XCTAssertEqual(media.primaryVideo?.codec, "h264")
        XCTAssertEqual(try XCTUnwrap(media.primaryVideo?.frameRate), 25, accuracy: 0.01)
        XCTAssertEqual(media.primaryAudio?.channelLayout, "stereo")
    }

    func testDolbyVisionSurvivesTheHLSMuxer() throws {
        let folder = try HLSFixture(name: "dv-fmp4", source: Fixtures.dolbyVision, segmentType: .fmp4).directory()
        let media = try MediaProber().probe(bytes: try bytes(["\(folder)/init.mp4", "\(folder)/seg0.m4s"]), label: "dv")
        XCTAssertEqual(media.primaryVideo?.dynamicRange, .dolbyVision)
        XCTAssertEqual(media.primaryVideo?.dolbyVision?.profile, 8)
    }

    func testRandomBytesAndEmptyDataAreRefused() {
        let noise = Data((0..<40_000).map { _ in UInt8.random(in: 0...255) })
        XCTAssertThrowsError(try MediaProber().probe(bytes: noise, label: "noise")) { error in
            guard case .notMedia("noise", _) = error as? ProbeError else { return XCTFail("\(error)") }
        }
        XCTAssertThrowsError(try MediaProber().probe(bytes: Data(), label: "empty")) { error in
            XCTAssertEqual(error as? ProbeError, .emptyFile("empty"))
        }
    }

    func testAPlaylistInMemoryIsNotFollowed() {
        let playlist = Data("#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXTINF:1,\nfile:///etc/passwd\n#EXT-X-ENDLIST\n".utf8)
        XCTAssertThrowsError(try MediaProber().probe(bytes: playlist, label: "evil.m3u8")) { error in
            guard case .notMedia = error as? ProbeError else { return XCTFail("\(error)") }
        }
    }
}
