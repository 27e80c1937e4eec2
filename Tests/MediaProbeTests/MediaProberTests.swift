import Foundation
import HLS
@testable import MediaProbe
import SeamcheckTestSupport
import XCTest

final class MediaProberTests: XCTestCase {
    let prober = MediaProber()

    func probe(_ fixture: MediaFixture) throws -> MediaDescription {
        try prober.probe(try fixture.path())
    }

    func testH264PrimaryReportsCodecRateAspectAndAudio() throws {
        let media = try probe(Fixtures.primary)
        XCTAssertTrue(media.container.contains("mp4"), media.container)
        XCTAssertEqual(try XCTUnwrap(media.duration), 1.0, accuracy: 0.1)
        let video = try XCTUnwrap(media.primaryVideo)
        XCTAssertEqual(video.codec, "h264")
        XCTAssertEqual(video.codecTag, "avc1")
        XCTAssertEqual(video.profile, "High")
        XCTAssertEqual(video.width, 320)
        XCTAssertEqual(video.height, 180)
        XCTAssertEqual(video.frameRateExact, Rational(30000, 1001))
        XCTAssertEqual(try XCTUnwrap(video.frameRate), 29.97, accuracy: 0.001)
        XCTAssertEqual(video.sampleAspectRatio, Ratio(1, 1))
        XCTAssertEqual(video.displayAspectRatio, Ratio(16, 9))
        XCTAssertEqual(video.bitDepth, 8)
        XCTAssertEqual(video.pixelFormat, "yuv420p")
        XCTAssertEqual(video.dynamicRange, .sdr)
        XCTAssertNil(video.dolbyVision)
        XCTAssertEqual(try XCTUnwrap(video.startTime), 0, accuracy: 0.001)

        let audio = try XCTUnwrap(media.primaryAudio)
        XCTAssertEqual(audio.codec, "aac")
        XCTAssertEqual(audio.codecTag, "mp4a")
        XCTAssertEqual(audio.profile, "LC")
        XCTAssertEqual(audio.sampleRate, 48000)
        XCTAssertNil(audio.bitDepth, "AAC is lossy: it has no sample bit depth")
        XCTAssertEqual(audio.channels, 2)
        XCTAssertEqual(audio.channelLayout, "stereo")
    }

    func testHEVCReportsHvc1TagAndMainProfile() throws {
        let video = try XCTUnwrap(try probe(Fixtures.hevc).primaryVideo)
        XCTAssertEqual(video.codec, "hevc")
        XCTAssertEqual(video.codecTag, "hvc1")
        XCTAssertEqual(video.profile, "Main")
        XCTAssertEqual(video.dynamicRange, .sdr)
    }

    func testTwentyFiveFpsIsExact() throws {
        let video = try XCTUnwrap(try probe(Fixtures.fps25).primaryVideo)
        XCTAssertEqual(video.frameRateExact, Rational(25, 1))
        XCTAssertEqual(video.frameRate, 25)
    }

    func testFourByThreeDisplaysAtFourByThree() throws {
        let video = try XCTUnwrap(try probe(Fixtures.fourByThree).primaryVideo)
        XCTAssertEqual(video.sampleAspectRatio, Ratio(1, 1))
        XCTAssertEqual(video.displayAspectRatio, Ratio(4, 3))
    }

    func testAnamorphicFourByThreePixelsDisplayAtSixteenByNine() throws {
        let video = try XCTUnwrap(try probe(Fixtures.anamorphic).primaryVideo)
        XCTAssertEqual(video.width, 240)
        XCTAssertEqual(video.height, 180)
        XCTAssertEqual(video.sampleAspectRatio, Ratio(4, 3))
        XCTAssertEqual(video.displayAspectRatio, Ratio(16, 9))
    }

    func testAAC441AndSurroundAndAC3() throws {
        XCTAssertEqual(try probe(Fixtures.aac44).primaryAudio?.sampleRate, 44100)

        let surround = try XCTUnwrap(try probe(Fixtures.surround).primaryAudio)
        XCTAssertEqual(surround.channels, 6)
        XCTAssertEqual(surround.channelLayout, "5.1")

        let ac3 = try XCTUnwrap(try probe(Fixtures.ac3).primaryAudio)
        XCTAssertEqual(ac3.codec, "ac3")
        XCTAssertEqual(ac3.codecTag, "ac-3")
        XCTAssertEqual(ac3.sampleRate, 48000)
        XCTAssertEqual(ac3.channels, 2)
        XCTAssertNil(ac3.bitDepth)
    }

    func testHDR10FromPQTransferAndTenBitDepth() throws {
        let video = try XCTUnwrap(try probe(Fixtures.hdr10).primaryVideo)
        XCTAssertEqual(video.dynamicRange, .hdr10)
        XCTAssertEqual(video.bitDepth, 10)
        XCTAssertEqual(video.pixelFormat, "yuv420p10le")
        XCTAssertEqual(video.profile, "Main 10")
    }

    func testLosslessAudioReportsTwentyFourBitDepth() throws {
        let media = try probe(Fixtures.flac24)
        XCTAssertTrue(media.video.isEmpty)
        let audio = try XCTUnwrap(media.primaryAudio)
        XCTAssertEqual(audio.codec, "flac")
        XCTAssertEqual(audio.bitDepth, 24)
    }

    func testTransportStreamHasFrameRateAndNoFourCC() throws {
        let media = try probe(Fixtures.transportStream)
        XCTAssertEqual(media.container, "mpegts")
        let video = try XCTUnwrap(media.primaryVideo)
        XCTAssertEqual(video.codec, "h264")
        XCTAssertNil(video.codecTag)
        XCTAssertEqual(try XCTUnwrap(video.frameRate), 29.97, accuracy: 0.01)
    }

    func testProbeJSONUsesInterfaceFieldNamesAndExplicitNulls() throws {
        let data = try JSONEncoder().encode(try probe(Fixtures.primary))
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let video = try XCTUnwrap((object["video"] as? [[String: Any]])?.first)
        XCTAssertEqual(video["frameRateExact"] as? String, "30000/1001")
        XCTAssertEqual(video["displayAspectRatio"] as? String, "16:9")
        XCTAssertEqual(video["dynamicRange"] as? String, "SDR")
        XCTAssertTrue(video["dolbyVision"] is NSNull)
        let audio = try XCTUnwrap((object["audio"] as? [[String: Any]])?.first)
        XCTAssertTrue(audio["bitDepth"] is NSNull)
        XCTAssertEqual(audio["channelLayout"] as? String, "stereo")
    }
}

final class MediaProberFieldTests: XCTestCase {
    func probe(_ fixture: MediaFixture) throws -> MediaDescription {
        try MediaProber().probe(try fixture.path())
    }

    func testDolbyVisionFromItsConfigurationRecord() throws {
        let video = try XCTUnwrap(try probe(Fixtures.dolbyVision).primaryVideo)
        XCTAssertEqual(video.dynamicRange, .dolbyVision)
        XCTAssertEqual(video.codecTag, "dvh1")
        let dv = try XCTUnwrap(video.dolbyVision)
        XCTAssertEqual(dv.profile, 8)
        XCTAssertEqual(dv.level, 1)
        XCTAssertEqual(dv.baseLayerCompatibilityId, 1)
        XCTAssertTrue(dv.rpuPresent)
        XCTAssertTrue(dv.baseLayerPresent)
        XCTAssertFalse(dv.enhancementLayerPresent)
    }

    func testHLGWithHev1Tag() throws {
        let video = try XCTUnwrap(try probe(Fixtures.hlg).primaryVideo)
        XCTAssertEqual(video.dynamicRange, .hlg)
        XCTAssertEqual(video.codecTag, "hev1")
        XCTAssertEqual(video.bitDepth, 10)
    }

    func testHDVAnamorphicLevelAndDisplayAspect() throws {
        let video = try XCTUnwrap(try probe(Fixtures.hdv).primaryVideo)
        XCTAssertEqual(video.level, 40)
        XCTAssertEqual(video.sampleAspectRatio, Ratio(4, 3))
        XCTAssertEqual(video.displayAspectRatio, Ratio(16, 9))
    }

    func testSideAndSevenOneLayouts() throws {
        let side = try XCTUnwrap(try probe(Fixtures.surroundSide).primaryAudio)
        XCTAssertEqual(side.codec, "eac3")
        XCTAssertEqual(side.codecTag, "ec-3")
        XCTAssertEqual(side.channelLayout, "5.1(side)")
        XCTAssertEqual(side.channels, 6)
        let seven = try XCTUnwrap(try probe(Fixtures.sevenOne).primaryAudio)
        XCTAssertEqual(seven.channelLayout, "7.1")
        XCTAssertEqual(seven.channels, 8)
    }

    func testALACReportsTwentyFourBits() throws {
        let audio = try XCTUnwrap(try probe(Fixtures.alac24).primaryAudio)
        XCTAssertEqual(audio.codec, "alac")
        XCTAssertEqual(audio.bitDepth, 24)
    }

    func testDelayedAudioStartAndLanguage() throws {
        let media = try probe(Fixtures.delayedAudio)
        let audio = try XCTUnwrap(media.primaryAudio)
        let video = try XCTUnwrap(media.primaryVideo)
        XCTAssertEqual(audio.language, "fra")
        XCTAssertEqual(try XCTUnwrap(audio.startTime) - (video.startTime ?? 0), 0.5, accuracy: 0.05)
    }

    func testFragmentedMatroskaWebMAndAudioOnlyContainers() throws {
        XCTAssertEqual(try probe(Fixtures.fragmented).primaryVideo?.codecTag, "avc1")
        let mkv = try probe(Fixtures.matroska)
        XCTAssertEqual(mkv.container, "matroska,webm")
        XCTAssertNil(mkv.primaryVideo?.codecTag, "Matroska has no fourcc")
        let webm = try probe(Fixtures.webm)
        XCTAssertEqual(webm.primaryVideo?.codec, "vp9")
        XCTAssertEqual(webm.primaryAudio?.codec, "opus")
        let audioOnly = try probe(Fixtures.audioOnly)
        XCTAssertTrue(audioOnly.video.isEmpty)
        XCTAssertEqual(audioOnly.primaryAudio?.codec, "aac")
    }
}
