import Foundation
@testable import MediaProbe
import SeamcheckTestSupport
import XCTest

/// Every fixture's probe against `ffprobe -show_streams -show_format -of json`, field by field,
/// for the fields both report. A disagreement names the fixture, the stream and the field.
final class FFprobeDifferentialTests: XCTestCase {
    func testEveryFixtureAgreesWithFFprobe() throws {
        for fixture in Fixtures.all {
            let path = try fixture.path()
            let ours = try MediaProber().probe(path)
            let theirs = try ffprobe(path)
            compare(ours, theirs, name: fixture.name)
        }
    }

    struct FFprobeOutput: Decodable {
        struct Stream: Decodable {
            var index: Int
            var codec_type: String
            var codec_name: String?
            var codec_tag_string: String?
            var profile: String?
            var level: Int?
            var width: Int?
            var height: Int?
            var avg_frame_rate: String?
            var r_frame_rate: String?
            var sample_aspect_ratio: String?
            var display_aspect_ratio: String?
            var pix_fmt: String?
            var field_order: String?
            var color_transfer: String?
            var sample_rate: String?
            var channels: Int?
            var channel_layout: String?
            var bits_per_raw_sample: String?
            var start_time: String?
            var tags: [String: String]?
            var side_data_list: [[String: AnyDecodable]]?
        }
        struct Format: Decodable {
            var format_name: String
            var duration: String?
        }
        var streams: [Stream]
        var format: Format
    }

    /// Decodes any JSON value, keeping strings and numbers as text.
    struct AnyDecodable: Decodable {
        var text: String?
        init(from decoder: Decoder) throws {
            let c = try decoder.singleValueContainer()
            text = (try? c.decode(String.self)) ?? (try? c.decode(Int.self)).map(String.init)
        }
    }

    func ffprobe(_ path: String) throws -> FFprobeOutput {
        let result = try Command.run("ffprobe", ["-v", "error", "-show_streams", "-show_format", "-of", "json", path])
        XCTAssertEqual(result.status, 0, result.stderr)
        return try JSONDecoder().decode(FFprobeOutput.self, from: Data(result.stdout.utf8))
    }

    func compare(_ ours: MediaDescription, _ theirs: FFprobeOutput, name: String) {
        XCTAssertEqual(ours.container, theirs.format.format_name, "\(name): container")
        if let duration = theirs.format.duration.flatMap(Double.init) {
            XCTAssertEqual(ours.duration ?? -1, duration, accuracy: 0.001, "\(name): duration")
        }
        for stream in theirs.streams {
            let label = "\(name) stream \(stream.index)"
            switch stream.codec_type {
            case "video":
                guard let v = ours.video.first(where: { $0.index == stream.index }) else {
                    XCTFail("\(label): video stream missing from our probe"); continue
                }
                XCTAssertEqual(v.codec, stream.codec_name, "\(label): codec")
                XCTAssertEqual(v.codecTag, printableTag(stream.codec_tag_string), "\(label): codec tag")
                XCTAssertEqual(v.profile, stream.profile, "\(label): profile")
                XCTAssertEqual(v.level, stream.level.flatMap { $0 > 0 ? $0 : nil }, "\(label): level")
                XCTAssertEqual(v.width, stream.width, "\(label): width")
                XCTAssertEqual(v.height, stream.height, "\(label): height")
                if let rate = stream.avg_frame_rate, rate != "0/0" {
                    XCTAssertEqual(v.frameRateExact?.description, rate, "\(label): frame rate")
                }
                if let sar = stream.sample_aspect_ratio, sar != "0:1" {
                    XCTAssertEqual(v.sampleAspectRatio.description, sar, "\(label): SAR")
                }
                if let dar = stream.display_aspect_ratio, dar != "0:1" {
                    XCTAssertEqual(v.displayAspectRatio.description, dar, "\(label): DAR")
                }
                XCTAssertEqual(v.pixelFormat, stream.pix_fmt, "\(label): pixel format")
                XCTAssertEqual(v.fieldOrder, stream.field_order, "\(label): field order")
                switch stream.color_transfer {
                case "smpte2084": XCTAssertTrue([.hdr10, .dolbyVision].contains(v.dynamicRange), "\(label): PQ is HDR")
                case "arib-std-b67": XCTAssertEqual(v.dynamicRange, .hlg, "\(label): HLG")
                default: XCTAssertEqual(v.dynamicRange, .sdr, "\(label): SDR")
                }
                let dovi = stream.side_data_list?.first { $0["side_data_type"]?.text == "DOVI configuration record" }
                XCTAssertEqual(v.dolbyVision?.profile.description, dovi?["dv_profile"]?.text, "\(label): Dolby Vision profile")
                XCTAssertEqual(v.dolbyVision?.level.description, dovi?["dv_level"]?.text, "\(label): Dolby Vision level")
                assertStart(v.startTime, stream.start_time, label)
            case "audio":
                guard let a = ours.audio.first(where: { $0.index == stream.index }) else {
                    XCTFail("\(label): audio stream missing from our probe"); continue
                }
                XCTAssertEqual(a.codec, stream.codec_name, "\(label): codec")
                XCTAssertEqual(a.codecTag, printableTag(stream.codec_tag_string), "\(label): codec tag")
                XCTAssertEqual(a.profile, stream.profile, "\(label): profile")
                XCTAssertEqual(a.sampleRate.description, stream.sample_rate, "\(label): sample rate")
                XCTAssertEqual(a.channels, stream.channels, "\(label): channels")
                XCTAssertEqual(a.channelLayout, stream.channel_layout, "\(label): channel layout")
                let rawBits = stream.bits_per_raw_sample.flatMap(Int.init).flatMap { $0 > 0 ? $0 : nil }
                XCTAssertEqual(a.bitDepth, rawBits, "\(label): bit depth")
                let language = stream.tags?["language"].flatMap { $0 == "und" ? nil : $0 }
                XCTAssertEqual(a.language, language, "\(label): language")
                assertStart(a.startTime, stream.start_time, label)
            default:
                continue
            }
        }
        XCTAssertEqual(ours.video.count, theirs.streams.filter { $0.codec_type == "video" }.count, "\(name): video count")
        XCTAssertEqual(ours.audio.count, theirs.streams.filter { $0.codec_type == "audio" }.count, "\(name): audio count")
    }

    func assertStart(_ ours: Double?, _ theirs: String?, _ label: String) {
        guard let theirs = theirs.flatMap(Double.init) else { return XCTAssertNil(ours, "\(label): start time") }
        XCTAssertEqual(ours ?? -1, theirs, accuracy: 0.000_001, "\(label): start time")
    }

    /// ffprobe prints "[0][0][0][0]" or "[27][0][0][0]" for tags that are not a fourcc; we report none.
    func printableTag(_ tag: String?) -> String? {
        guard let tag, !tag.contains("[") else { return nil }
        return tag
    }
}
