@testable import Compatibility
import HLS
import SeamcheckTestSupport
import XCTest

/// Per-class selection on a mixed ladder: AVC SDR + HEVC HDR10 + Dolby Vision 8.1, with an AAC
/// stereo group and an E-AC-3 5.1 group.
final class VariantSelectorTests: XCTestCase {
    struct SelectionFailed: Error, CustomStringConvertible { var description: String }

    static let ladder = """
    #EXTM3U
    #EXT-X-INDEPENDENT-SEGMENTS
    #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aac",NAME="English",LANGUAGE="en",DEFAULT=YES,AUTOSELECT=YES,CHANNELS="2",URI="audio/aac/en.m3u8"
    #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="ec3",NAME="English 5.1",LANGUAGE="en",DEFAULT=YES,AUTOSELECT=YES,CHANNELS="6",URI="audio/ec3/en.m3u8"
    #EXT-X-STREAM-INF:BANDWIDTH=2000000,CODECS="avc1.64001f,mp4a.40.2",RESOLUTION=1280x720,FRAME-RATE=29.970,VIDEO-RANGE=SDR,AUDIO="aac"
    avc/720p.m3u8
    #EXT-X-STREAM-INF:BANDWIDTH=5000000,CODECS="avc1.640028,mp4a.40.2",RESOLUTION=1920x1080,FRAME-RATE=29.970,VIDEO-RANGE=SDR,AUDIO="aac"
    avc/1080p.m3u8
    #EXT-X-STREAM-INF:BANDWIDTH=9000000,CODECS="hvc1.2.4.L153.B0,mp4a.40.2",RESOLUTION=3840x2160,FRAME-RATE=29.970,VIDEO-RANGE=PQ,AUDIO="aac"
    hdr10/2160p.m3u8
    #EXT-X-STREAM-INF:BANDWIDTH=9500000,CODECS="hvc1.2.4.L153.B0,ec-3",SUPPLEMENTAL-CODECS="dvh1.08.07/db1p",RESOLUTION=3840x2160,FRAME-RATE=29.970,VIDEO-RANGE=PQ,AUDIO="ec3"
    dv/2160p.m3u8
    """

    static var profiles: [String: DeviceProfile] {
        let all = (try? ProfileLoader.loadDirectory(MediaFixture.packageRoot + "/DeviceProfiles")) ?? []
        return Dictionary(uniqueKeysWithValues: all.map { ($0.id, $0) })
    }

    func choice(_ profile: String, _ text: String = ladder) throws -> RenditionChoice {
        let parsed = try PlaylistParser.parse(text)
        let playlist = try XCTUnwrap(parsed.playlist.multivariant)
        let plays = try XCTUnwrap(Self.profiles[profile]).plays
        switch VariantSelector.select(from: playlist, for: plays) {
        case .selected(let choice): return choice
        case .noPlayableVariant(let reason): throw SelectionFailed(description: "\(profile): nothing selected: \(reason)")
        }
    }

    func testLowEndTVTakesTheTopAVCVariantAndStereoAAC() throws {
        let choice = try choice("smart-tv-low-end")
        XCTAssertEqual(choice.variantURI, "avc/1080p.m3u8")
        XCTAssertEqual(choice.audioURI, "audio/aac/en.m3u8")
        XCTAssertEqual(choice.declared.dynamicRange, "SDR")
        XCTAssertEqual(choice.declared.channelCount, 2)
    }

    func testAppleTVHDStaysSDRAt1080p() throws {
        let choice = try choice("apple-tv-hd")
        XCTAssertEqual(choice.variantURI, "avc/1080p.m3u8")
    }

    func testDolbyVisionClassesTakeTheDolbyVisionVariantWithEC3() throws {
        for profile in ["apple-tv-4k", "smart-tv-dolby-vision"] {
            let choice = try choice(profile)
            XCTAssertEqual(choice.variantURI, "dv/2160p.m3u8", profile)
            XCTAssertEqual(choice.declared.dynamicRange, "DolbyVision", profile)
            XCTAssertEqual(choice.audioURI, "audio/ec3/en.m3u8", profile)
        }
    }

    func testHDR10ClassWithoutDolbyVisionTakesHDR10() throws {
        var plays = try XCTUnwrap(Self.profiles["smart-tv-dolby-vision"]).plays
        plays.dynamicRanges = ["SDR", "HDR10", "HLG"]
        let playlist = try XCTUnwrap(try PlaylistParser.parse(Self.ladder).playlist.multivariant)
        guard case .selected(let choice) = VariantSelector.select(from: playlist, for: plays) else { return XCTFail() }
        // The DV variant's base layer is HDR10 (db1p) with E-AC-3: it ranks with the HDR10 one, and wins on bandwidth.
        XCTAssertEqual(choice.declared.dynamicRange, "HDR10")
        XCTAssertEqual(choice.variantURI, "dv/2160p.m3u8")
        XCTAssertEqual(choice.audioURI, "audio/ec3/en.m3u8")
    }

    func testSpeakerTakesTheLowestBandwidthVariantWithPlayableAudio() throws {
        let choice = try choice("speaker-audio-only")
        XCTAssertEqual(choice.variantURI, "avc/720p.m3u8")
        XCTAssertEqual(choice.audioURI, "audio/aac/en.m3u8")
    }

    func testAVariantWithoutCodecsIsNotTakenForSilent() throws {
        // CODECS is optional in practice: its absence says nothing about audio.
        let undeclared = "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=200000\nprimary/index.m3u8\n"
        XCTAssertEqual(try choice("speaker-audio-only", undeclared).variantURI, "primary/index.m3u8")
        // A CODECS that lists video only, with no audio group, does declare silence.
        let videoOnly = "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=200000,CODECS=\"avc1.64001f\"\nprimary/index.m3u8\n"
        XCTAssertThrowsError(try choice("speaker-audio-only", videoOnly)) { error in
            XCTAssertTrue("\(error)".contains("no audio for an audio-only receiver"), "\(error)")
        }
    }

    func testNothingPlayableSaysWhyPerVariant() throws {
        let hevcOnly = """
        #EXTM3U
        #EXT-X-STREAM-INF:BANDWIDTH=9000000,CODECS="hvc1.2.4.L153.B0,ec-3",RESOLUTION=3840x2160,VIDEO-RANGE=PQ
        hdr10/2160p.m3u8
        """
        let playlist = try XCTUnwrap(try PlaylistParser.parse(hevcOnly).playlist.multivariant)
        let plays = try XCTUnwrap(Self.profiles["smart-tv-low-end"]).plays
        guard case .noPlayableVariant(let reason) = VariantSelector.select(from: playlist, for: plays) else {
            return XCTFail("an H.264-only TV has nothing to play here")
        }
        XCTAssertTrue(reason.contains("line 2 (hdr10/2160p.m3u8): video codec hvc1.2.4.L153.B0 is not decoded"), reason)
    }

    func testTooManyChannelsInTheOnlyGroupIsStillSelected() throws {
        let surroundOnly = """
        #EXTM3U
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aac",NAME="5.1",DEFAULT=YES,CHANNELS="6",URI="a.m3u8"
        #EXT-X-STREAM-INF:BANDWIDTH=2000000,CODECS="avc1.64001f,mp4a.40.2",RESOLUTION=1280x720,AUDIO="aac"
        v.m3u8
        """
        let playlist = try XCTUnwrap(try PlaylistParser.parse(surroundOnly).playlist.multivariant)
        guard case .selected(let choice) = VariantSelector.select(
            from: playlist, for: try XCTUnwrap(Self.profiles["smart-tv-low-end"]).plays) else {
            return XCTFail("a stereo TV downmixes 5.1 AAC: unsupported-channel-count grades it, selection does not reject it")
        }
        XCTAssertEqual(choice.audioURI, "a.m3u8")
    }

    func testAtmosJOCIsNotSixteenSpeakers() throws {
        let atmos = """
        #EXTM3U
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="atmos",NAME="Atmos",DEFAULT=YES,CHANNELS="16/JOC",URI="atmos.m3u8"
        #EXT-X-STREAM-INF:BANDWIDTH=9000000,CODECS="hvc1.2.4.L153.B0,ec-3",RESOLUTION=3840x2160,VIDEO-RANGE=PQ,AUDIO="atmos"
        hdr.m3u8
        """
        let playlist = try XCTUnwrap(try PlaylistParser.parse(atmos).playlist.multivariant)
        guard case .selected(let choice) = VariantSelector.select(from: playlist, for: try XCTUnwrap(Self.profiles["apple-tv-4k"]).plays) else {
            return XCTFail("Apple TV 4K plays Atmos")
        }
        XCTAssertEqual(choice.audioURI, "atmos.m3u8")
        XCTAssertEqual(choice.declared.channels, "16/JOC")
    }
}
