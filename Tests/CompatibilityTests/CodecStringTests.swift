@testable import Compatibility
import XCTest

final class CodecStringTests: XCTestCase {
    func testVideoCodecStrings() {
        let avc = CodecString("avc1.640028")
        XCTAssertEqual(avc.kind, .video)
        XCTAssertEqual(avc.codec, "h264")
        XCTAssertEqual(avc.profile, "High")
        XCTAssertEqual(avc.level, 40)
        XCTAssertEqual(CodecString("avc1.4d401f").profile, "Main")
        XCTAssertEqual(CodecString("avc1.42e01e").profile, "Constrained Baseline")
        XCTAssertEqual(CodecString("avc1.42001e").profile, "Baseline")
        let hevc = CodecString("hvc1.2.4.L153.B0")
        XCTAssertEqual(hevc.codec, "hevc")
        XCTAssertEqual(hevc.profile, "Main 10")
        XCTAssertEqual(hevc.level, 153)
        XCTAssertEqual(CodecString("hev1.1.6.L120.90").profile, "Main")
        let dv = CodecString("dvh1.08.07/db1p")
        XCTAssertEqual(dv.codec, "hevc")
        XCTAssertEqual(dv.dolbyVisionProfile, 8)
        XCTAssertEqual(dv.brands, ["db1p"])
        XCTAssertEqual(CodecString("av01.0.08M.10").codec, "av1")
    }

    func testAudioAndTextCodecStrings() {
        XCTAssertEqual(CodecString("mp4a.40.2").codec, "aac")
        XCTAssertEqual(CodecString("mp4a.40.2").profile, "LC")
        XCTAssertEqual(CodecString("mp4a.40.5").profile, "HE-AAC")
        XCTAssertEqual(CodecString("ec-3").codec, "eac3")
        XCTAssertEqual(CodecString("ac-3").codec, "ac3")
        XCTAssertEqual(CodecString("fLaC").codec, "flac")
        XCTAssertEqual(CodecString("stpp.ttml.im1t").kind, .text)
        XCTAssertEqual(CodecString("xyz1.2").kind, .unknown)
        XCTAssertNil(CodecString("xyz1.2").codec)
    }

    func testListSplitsOnCommasAndTrims() {
        XCTAssertEqual(CodecString.list("avc1.64001f, mp4a.40.2").map(\.codec), ["h264", "aac"])
        XCTAssertEqual(CodecString.list("").count, 0)
    }
}
