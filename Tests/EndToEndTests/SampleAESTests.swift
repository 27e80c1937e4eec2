import Foundation
import SeamcheckTestSupport
import XCTest

/// fMP4 renditions whose samples are encrypted (METHOD=SAMPLE-AES or SAMPLE-AES-CTR, FairPlay
/// `skd://` keys): probed from what the container says in the clear, never decrypted, no key
/// fetched; what only decoding tells is null, not garbage. MPEG-TS SAMPLE-AES stays
/// media-not-probed, naming the method.
final class SampleAESTests: ServedStreamTestCase {
    /// The reference primary's parameters (H.264 High 320x180 29.97 fps, AAC-LC 48 kHz stereo), encrypted.
    static let matching = SampleAESRendition.fixture("cenc-h264-2997-16x9-aac48-stereo")
    /// 4:3 at 25 fps with 44.1 kHz audio, encrypted: three transitions the container alone shows.
    static let fourByThree25 = SampleAESRendition.fixture("cenc-h264-25-4x3-aac44-stereo", video: {
        var video = MediaFixture.Video()
        video.width = 240
        video.rate = "25"
        return video
    }(), audio: {
        var audio = MediaFixture.Audio()
        audio.sampleRate = 44100
        return audio
    }())

    /// `seamcheck probe` of a served playlist: the media object, with the run for messages.
    func probe(_ path: String) throws -> (media: [String: Any], run: JSONRun) {
        let run = try self.run("probe", [server.url(path)])
        let media = (run.document["media"] as? [[String: Any]])?.first ?? run.document
        return (media, run)
    }

    func testTheClearContainerOfAnEncryptedFMP4RenditionIsProbedWithoutAnyKey() throws {
        // The same parameters in the clear, decoded: what the encrypted probe must agree with.
        try InterstitialStream.copyRendition(HLSFixture(name: "clear", source: Fixtures.matching, segmentType: .fmp4),
                                             to: root.appendingPathComponent("clear"))
        let clear = try probe("/files/clear/index.m3u8")
        XCTAssertEqual(clear.run.status, 0, clear.run.stderr)
        XCTAssertTrue(clear.media["encryption"] is NSNull, "\(clear.media)")
        let clearVideo = try XCTUnwrap((clear.media["video"] as? [[String: Any]])?.first)
        XCTAssertEqual(clearVideo["pixelFormat"] as? String, "yuv420p", "decoded as ever")
        let cases = [("ctr-skd", SampleAESRendition.fairPlayKey(method: "SAMPLE-AES-CTR")),
                     ("cbcs-skd", SampleAESRendition.fairPlayKey(method: "SAMPLE-AES")),
                     // An http key beside the playlist: still not fetched, since reading the container needs none.
                     ("ctr-http", "#EXT-X-KEY:METHOD=SAMPLE-AES-CTR,URI=\"key.bin\",KEYFORMAT=\"identity\"")]
        for (name, tag) in cases {
            let folder = root.appendingPathComponent(name)
            try SampleAESRendition.write(Self.matching, keyTag: tag, into: folder)
            try Data(repeating: 0x42, count: 16).write(to: folder.appendingPathComponent("key.bin"))
            let (media, run) = try probe("/files/\(name)/index.m3u8")
            XCTAssertEqual(run.status, 0, "\(name): \(run.stderr)")
            let method = tag.contains("SAMPLE-AES-CTR") ? "SAMPLE-AES-CTR" : "SAMPLE-AES"
            XCTAssertEqual(media["encryption"] as? String, method, "\(name): \(media)")
            let video = try XCTUnwrap((media["video"] as? [[String: Any]])?.first, "\(name): \(media)")
            XCTAssertEqual(video["codec"] as? String, "h264", name)
            XCTAssertEqual(video["width"] as? Int, 320, name)
            XCTAssertEqual(video["height"] as? Int, 180, name)
            XCTAssertEqual(video["frameRateExact"] as? String, "30000/1001", "\(name): from the trun timing, not an average of failed decodes")
            XCTAssertEqual(video["profile"] as? String, "High", "\(name): from the clear avcC")
            XCTAssertEqual(video["profile"] as? String, clearVideo["profile"] as? String, name)
            XCTAssertEqual(video["level"] as? Int, clearVideo["level"] as? Int, "\(name): from the clear avcC")
            XCTAssertTrue(video["pixelFormat"] is NSNull, "\(name): needs decoded samples, so unknown: \(video)")
            XCTAssertTrue(video["bitDepth"] is NSNull, "\(name): \(video)")
            XCTAssertTrue(video["fieldOrder"] is NSNull || video["fieldOrder"] as? String == "progressive", "\(name): \(video)")
            let audio = try XCTUnwrap((media["audio"] as? [[String: Any]])?.first, "\(name): \(media)")
            XCTAssertEqual(audio["codec"] as? String, "aac", name)
            XCTAssertEqual(audio["profile"] as? String, "LC", "\(name): from the clear esds")
            XCTAssertEqual(audio["sampleRate"] as? Int, 48000, name)
            XCTAssertEqual(audio["channels"] as? Int, 2, name)
            XCTAssertEqual(audio["channelLayout"] as? String, "stereo", name)
        }
        let paths = try requested()
        XCTAssertFalse(paths.contains { $0.hasSuffix("key.bin") }, "no key is fetched to read a container: \(paths)")
        for name in cases.map(\.0) {
            XCTAssertTrue(paths.contains("/files/\(name)/init.mp4") && paths.contains("/files/\(name)/seg0.m4s"), "\(name): \(paths)")
        }

        let text = try SeamcheckBinary.run(["probe", server.url("/files/ctr-skd/index.m3u8"), "--format", "table"])
        XCTAssertEqual(text.status, 0, text.stderr)
        XCTAssertTrue(text.stdout.contains("samples encrypted (SAMPLE-AES-CTR): container facts only, not decoded"), text.stdout)
    }

    func testEncryptedHEVCKeepsWhatItsClearParameterSetsSay() throws {
        let hevc = SampleAESRendition.fixture("cenc-hevc-24", video: {
            var video = MediaFixture.Video()
            video.encoder = "libx265"
            video.rate = "24"
            return video
        }(), audio: nil)
        try SampleAESRendition.write(hevc, keyTag: SampleAESRendition.fairPlayKey(method: "SAMPLE-AES"),
                                     into: root.appendingPathComponent("hevc"))
        let (media, run) = try probe("/files/hevc/index.m3u8")
        XCTAssertEqual(run.status, 0, run.stderr)
        let video = try XCTUnwrap((media["video"] as? [[String: Any]])?.first, "\(media)")
        XCTAssertEqual(video["codec"] as? String, "hevc")
        XCTAssertEqual(video["profile"] as? String, "Main")
        XCTAssertEqual(video["tier"] as? String, "Main")
        XCTAssertEqual(video["frameRateExact"] as? String, "24/1")
        // FFmpeg's HEVC decoder reads the pixel format from the hvcC's SPS, which is in the clear.
        XCTAssertEqual(video["pixelFormat"] as? String, "yuv420p", "\(video)")
        XCTAssertEqual(media["encryption"] as? String, "SAMPLE-AES")
    }

    /// The reverse: a primary whose media cannot be probed (SAMPLE-AES inside MPEG-TS) and a clear
    /// ad. Its transitions are not audited, but its keys are in its playlist: the change is seen.
    func testAnUnprobeablePrimaryStillShowsTheEncryptionChangeToAClearAd() throws {
        let stream = InterstitialStream(primary: Fixtures.primaryWithSegments, primaryCodecs: "avc1.64000d,mp4a.40.2",
                                        ads: [.init(id: "clear-match", source: Fixtures.matching, boundary: 2)],
                                        primarySegmentType: .mpegts)
        let path = try stream.write(into: root, port: server.port)
        try InterstitialStream.insert([SampleAESRendition.fairPlayKey(method: "SAMPLE-AES")],
                                      beforeFirstSegmentOf: root.appendingPathComponent("primary/index.m3u8"))
        let audit = try run("audit", [server.url(path), "--profile", "smart-tv-low-end", "--no-loudness"])
        let notProbed = audit.findings("media-not-probed")
        XCTAssertFalse(notProbed.isEmpty, "the primary is not probed: \(audit.findings)")
        let change = audit.findings("encryption-change")
        XCTAssertEqual(change.count, 1, "\(audit.findings)")
        let finding = try XCTUnwrap(change.first)
        XCTAssertEqual(finding["expected"] as? String, "SAMPLE-AES (FairPlay)")
        XCTAssertEqual(finding["actual"] as? String, "clear")
        XCTAssertEqual(finding["deviceClass"] as? String, "smart-tv-low-end")
        XCTAssertTrue(audit.string(finding, "message").contains("read from its playlist: the primary's media could not be probed"), "\(finding)")
        // No media rule compared an unknown primary against the ad.
        XCTAssertEqual(audit.findings("frame-rate-mismatch").count + audit.findings("video-codec-mismatch").count, 0, "\(audit.findings)")
    }

    func testAnAuditFlagsAnEncryptedAdFromItsContainerAndNamesTheMethodOfATransportStreamOne() throws {
        let stream = InterstitialStream(primary: Fixtures.primaryWithSegments, primaryCodecs: "avc1.64000d,mp4a.40.2",
                                        ads: [.init(id: "enc-match", source: nil, rawPath: "/files/enc-match/index.m3u8", boundary: 1),
                                              .init(id: "enc-4x3-25", source: nil, rawPath: "/files/enc-4x3-25/index.m3u8", boundary: 2),
                                              .init(id: "ts-sample-aes", source: nil, rawPath: "/files/ts-sample-aes/index.m3u8", boundary: 3)])
        let path = try stream.write(into: root, port: server.port)
        try SampleAESRendition.write(Self.matching, keyTag: SampleAESRendition.fairPlayKey(method: "SAMPLE-AES-CTR"),
                                     into: root.appendingPathComponent("enc-match"))
        try SampleAESRendition.write(Self.fourByThree25, keyTag: SampleAESRendition.fairPlayKey(method: "SAMPLE-AES"),
                                     into: root.appendingPathComponent("enc-4x3-25"))
        let transport = root.appendingPathComponent("ts-sample-aes")
        try InterstitialStream.copyRendition(HLSFixture(name: "ts-sample-aes", source: Fixtures.matching, segmentType: .mpegts), to: transport)
        try InterstitialStream.insert([SampleAESRendition.fairPlayKey(method: "SAMPLE-AES")],
                                      beforeFirstSegmentOf: transport.appendingPathComponent("index.m3u8"))

        let audit = try run("audit", [server.url(path), "--profile", "smart-tv-low-end"])
        func subjects(_ rule: String) -> [String] {
            audit.findings(rule).compactMap { ($0["subject"] as? String)?.components(separatedBy: " (").first }
        }
        for rule in ["frame-rate-mismatch", "aspect-ratio-mismatch", "sample-rate-mismatch"] {
            XCTAssertEqual(subjects(rule), ["interstitial 2"], "\(rule): \(audit.findings)")
        }
        XCTAssertEqual(subjects("media-not-probed"), ["interstitial 3"], "the fMP4 ads are probed: \(audit.findings)")
        let notProbed = try XCTUnwrap(audit.findings("media-not-probed").first)
        XCTAssertTrue(audit.string(notProbed, "actual").contains("SAMPLE-AES"), "\(notProbed)")
        // Its keys are in its playlist: the encryption change is seen though its media is not.
        XCTAssertEqual(subjects("encryption-change"), ["interstitial 1", "interstitial 2", "interstitial 3"], "\(audit.findings)")
        let unprobed = try XCTUnwrap(audit.findings("encryption-change").last)
        XCTAssertEqual(unprobed["actual"] as? String, "SAMPLE-AES (FairPlay)")
        XCTAssertTrue(audit.string(unprobed, "message").contains("read from its playlist"), "\(unprobed)")
        // The encrypted ad that matches the primary in its media raises only what catalog v3 reads
        // from its playlist: the encryption change, and its one segment of 2 s against the
        // primary's 1 s target duration. No unknown was compared.
        let first = audit.findings.filter { ($0["subject"] as? String)?.hasPrefix("interstitial 1") == true }
        XCTAssertEqual(Set(first.compactMap { $0["rule"] as? String }), ["encryption-change", "segment-duration-change"], "\(audit.findings)")
        let encryption = try XCTUnwrap(first.first { $0["rule"] as? String == "encryption-change" })
        XCTAssertEqual(encryption["actual"] as? String, "SAMPLE-AES-CTR (FairPlay)")
        XCTAssertEqual(encryption["expected"] as? String, "clear")
        let encrypted = audit.assets.filter { (($0["media"] as? [String: Any])?["encryption"] as? String) != nil }
        XCTAssertEqual(encrypted.count, 2, "both fMP4 ads say their samples were not decoded: \(audit.assets)")

        let table = try SeamcheckBinary.run(["audit", server.url(path), "--profile", "smart-tv-low-end", "--format", "table"])
        XCTAssertTrue(table.stdout.contains("(samples encrypted, SAMPLE-AES: container facts only)")
                      && table.stdout.contains("(samples encrypted, SAMPLE-AES-CTR: container facts only)"), table.stdout)

        let transportProbe = try SeamcheckBinary.run(["probe", server.url("/files/ts-sample-aes/index.m3u8")])
        XCTAssertNotEqual(transportProbe.status, 0)
        XCTAssertTrue(transportProbe.stderr.contains("METHOD=SAMPLE-AES") && transportProbe.stderr.contains("only fMP4 keeps them in the clear"),
                      transportProbe.stderr)
    }
}
