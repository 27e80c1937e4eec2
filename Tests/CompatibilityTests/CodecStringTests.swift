@testable import Compatibility
import MediaProbe
import SeamcheckTestSupport
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

    func testTierDolbyVisionLevelAndJOCAreRead() {
        XCTAssertEqual(CodecString("hvc1.2.4.L153.B0").tier, "Main")
        XCTAssertEqual(CodecString("hvc1.2.4.H153.B0").tier, "High")
        XCTAssertEqual(CodecString("dvh1.08.07").dolbyVisionLevel, 7)
        XCTAssertTrue(CodecString("ec+3").joc)
        XCTAssertEqual(CodecString("ec+3").codec, "eac3")
        XCTAssertFalse(CodecString("ec-3").joc)
    }

    /// Real streams: x264's level 4.0 against a level-3.1 string, AAC-LC against mp4a.40.5.
    func testDeclaredCodecsCatchesALowLevelAndAWrongAACObjectTypeOnProbedMedia() throws {
        let rule = try XCTUnwrap(RuleCatalog.declaredRule("declared-codecs-mismatch"))
        let level40 = try MediaProber().probe(try Fixtures.hdv.path())
        XCTAssertEqual(level40.primaryVideo?.level, 40)
        let low = try XCTUnwrap(rule.evaluate(DeclaredRules.declared("avc1.64001f"), level40))
        XCTAssertTrue(low.message.contains("level 3.1 is declared for a level-4.0 stream"), low.message)
        XCTAssertTrue(low.message.contains("RFC 6381"), low.message)
        XCTAssertNil(rule.evaluate(DeclaredRules.declared("avc1.640028"), level40))
        let lc = try MediaProber().probe(try Fixtures.primary.path())
        let heaac = try XCTUnwrap(rule.evaluate(DeclaredRules.declared("avc1.640028,mp4a.40.5"), lc))
        XCTAssertTrue(heaac.message.contains("AAC object type HE-AAC is declared for LC audio"), heaac.message)
        XCTAssertNil(rule.evaluate(DeclaredRules.declared("avc1.640028,mp4a.40.2"), lc))
    }

    func testListSplitsOnCommasAndTrims() {
        XCTAssertEqual(CodecString.list("avc1.64001f, mp4a.40.2").map(\.codec), ["h264", "aac"])
        XCTAssertEqual(CodecString.list("").count, 0)
    }
}
