import CFFmpeg
import Foundation
@testable import MediaProbe
import XCTest

/// What the clear configuration records of encrypted fMP4 say, named as FFmpeg names them when
/// it decodes the parameter sets itself.
final class EncryptedSamplesTests: XCTestCase {
    override func setUpWithError() throws {
        try FFmpegRuntime.requireLibraries(for: "EncryptedSamplesTests")
    }

    func testTheAACProfileIsTheAudioObjectTypeOfTheConfig() {
        XCTAssertEqual(EncryptedSamples.aacProfile([0x12, 0x10]), "LC", "AOT 2, 44.1 kHz stereo")
        XCTAssertEqual(EncryptedSamples.aacProfile([0x2B, 0x92, 0x08, 0x00]), "HE-AAC", "AOT 5: explicit SBR")
        XCTAssertEqual(EncryptedSamples.aacProfile([0xEB, 0x09, 0x88, 0x00]), "HE-AACv2", "AOT 29: explicit PS")
        XCTAssertEqual(EncryptedSamples.aacProfile([0xF8, 0x1E, 0x20]), nil, "AOT 31+ escape (32 + 0): not an AAC profile FFmpeg names")
        XCTAssertNil(EncryptedSamples.aacProfile([]))
        XCTAssertNil(EncryptedSamples.aacProfile([0xF8]), "escape without its second byte")
        XCTAssertNil(EncryptedSamples.aacProfile([0x00, 0x00]), "AOT 0 is null")
    }

    func testH264ProfileAndLevelComeFromTheAvcCWithTheirConstraintFlags() throws {
        let high = try XCTUnwrap(EncryptedSamples.videoProfile(codec: AV_CODEC_ID_H264, record: [1, 100, 0x00, 31, 0xFF]))
        XCTAssertEqual(high.0, "High")
        XCTAssertEqual(high.1, 31)
        XCTAssertEqual(EncryptedSamples.videoProfile(codec: AV_CODEC_ID_H264, record: [1, 66, 0xC0, 30])?.0, "Constrained Baseline",
                       "constraint_set1_flag")
        XCTAssertEqual(EncryptedSamples.videoProfile(codec: AV_CODEC_ID_H264, record: [1, 66, 0x80, 30])?.0, "Baseline")
        XCTAssertEqual(EncryptedSamples.videoProfile(codec: AV_CODEC_ID_H264, record: [1, 110, 0x10, 40])?.0, "High 10 Intra",
                       "constraint_set3_flag")
        XCTAssertNil(EncryptedSamples.videoProfile(codec: AV_CODEC_ID_H264, record: [0, 100, 0, 31]), "Annex B, not an avcC")
        XCTAssertNil(EncryptedSamples.videoProfile(codec: AV_CODEC_ID_H264, record: [1, 100]), "too short")
    }

    func testHEVCProfileAndLevelComeFromTheHvcC() throws {
        // configurationVersion, profile space/tier/profile (Main 10), 4 compatibility bytes, 6 constraint bytes, level 4.0 (120).
        let record: [UInt8] = [1, 0x02, 0x20, 0, 0, 0, 0x90, 0, 0, 0, 0, 0, 120]
        let found = try XCTUnwrap(EncryptedSamples.videoProfile(codec: AV_CODEC_ID_HEVC, record: record))
        XCTAssertEqual(found.0, "Main 10")
        XCTAssertEqual(found.1, 120)
        XCTAssertNil(EncryptedSamples.videoProfile(codec: AV_CODEC_ID_AV1, record: record), "other codecs: FFmpeg's own fields stay")
    }
}
