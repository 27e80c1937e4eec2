import Foundation
import SeamcheckTestSupport
import XCTest

/// loudness-mismatch in playlist audits, over HTTP on 127.0.0.1: the interstitial measured whole,
/// the programme around each break (the sides it has), what it cost, and what was not measured.
final class PlaylistLoudnessTests: XCTestCase {
    /// A 24 s programme at -23 LUFS (a 440 Hz tone 1.2 dB down: -23.0 by ffmpeg's ebur128), 2 s segments.
    static let programme = MediaFixture.clip("h264-2997-aac48-24s-minus23lufs", duration: 24, video: gop60, audio: level(-1.2))
    /// 4 s ads: one at the programme's level, one 12 dB louder (-11 LUFS).
    static let matchingAd = MediaFixture.clip("h264-2997-aac48-4s-minus23lufs", duration: 4, video: gop60, audio: level(-1.2))
    static let loudAd = MediaFixture.clip("h264-2997-aac48-4s-minus11lufs", duration: 4, video: gop60, audio: level(10.8))
    static let silentAd = MediaFixture.clip("h264-2997-4s-no-audio", duration: 4, video: gop60, audio: nil)

    static var gop60: MediaFixture.Video {
        var video = MediaFixture.Video()
        video.extra = ["-g", "60", "-keyint_min", "60"]
        return video
    }

    static func level(_ decibels: Double) -> MediaFixture.Audio {
        var audio = MediaFixture.Audio()
        audio.extra = ["-af", "volume=\(decibels)dB"]
        return audio
    }

    /// Breaks at 6 s (loud), 12 s (matching; the segment 18-20 s after it answers 404) and 16 s
    /// (silent), a matching pre-roll and a loud post-roll.
    static let stream = InterstitialStream(
        primary: programme, primaryCodecs: "avc1.64000d,mp4a.40.2",
        ads: [
            .init(id: "pre", source: matchingAd, boundary: 0, cue: "PRE"),
            .init(id: "loud", source: loudAd, boundary: 3),
            .init(id: "match", source: matchingAd, boundary: 6),
            .init(id: "silent", source: silentAd, boundary: 8),
            .init(id: "post", source: loudAd, boundary: 12, cue: "POST"),
        ],
        segmentSeconds: 2)

    var root: URL!
    var server: TestHTTPServer!

    override func setUpWithError() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("seamcheck-loudness-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        server = try TestHTTPServer(root: root.path)
    }

    override func tearDownWithError() throws {
        server.stop()
        try? FileManager.default.removeItem(at: root)
    }

    func audit(_ stream: InterstitialStream, _ extra: [String] = [], removing: [String] = []) throws -> [String: Any] {
        let url = server.url(try stream.write(into: root, port: server.port))
        for path in removing { try FileManager.default.removeItem(at: root.appendingPathComponent(path)) }
        let result = try SeamcheckBinary.run(["audit", url, "--format", "json", "--fail-on", "never"] + extra)
        XCTAssertEqual(result.status, 0, result.stderr)
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], result.stderr)
    }

    func asset(_ json: [String: Any], _ id: String) throws -> [String: Any] {
        let assets = json["assets"] as? [[String: Any]] ?? []
        return try XCTUnwrap(assets.first { ($0["placement"] as? [String: Any])?["id"] as? String == id }, "no asset \(id)")
    }

    /// The asset's loudness entries (one per group of classes playing the same renditions).
    func loudness(_ json: [String: Any], _ id: String) throws -> [[String: Any]] {
        try XCTUnwrap(try asset(json, id)["loudness"] as? [[String: Any]])
    }

    func loudnessFindings(_ json: [String: Any], _ id: String) throws -> [[String: Any]] {
        let role = try XCTUnwrap(try asset(json, id)["role"] as? String)
        return (json["findings"] as? [[String: Any]] ?? []).filter {
            $0["rule"] as? String == "loudness-mismatch" && ($0["subject"] as? String ?? "").hasPrefix(role + " (")
        }
    }

    func testATwelveDecibelLouderAdFiresAtItsBreakAndTheMatchingOnesDoNot() throws {
        let json = try audit(Self.stream, removing: ["primary/seg9.m4s"])
        let classes = try XCTUnwrap(json["deviceClasses"] as? [String])

        let loud = try loudnessFindings(json, "loud")
        XCTAssertEqual(Set(loud.compactMap { $0["deviceClass"] as? String }), Set(classes), "every class hears the jump")
        let message = try XCTUnwrap(loud.first?["message"] as? String)
        for part in ["12.0 LU louder", "-11.0 LUFS over the whole asset", "-23.0 LUFS around break \"loud\" at 6.0 s", "before: -23.0 LUFS",
                     "after: -23.0 LUFS"] {
            XCTAssertTrue(message.contains(part), "\(part) in: \(message)")
        }
        let fix = try XCTUnwrap(loud.first?["remediation"] as? String)
        XCTAssertTrue(fix.contains("loudnorm=I=-23.0"), fix)
        XCTAssertTrue(fix.contains("aformat=channel_layouts=stereo"), "loudnorm drops the layout: \(fix)")
        let entry = try XCTUnwrap(try loudness(json, "loud").first)
        XCTAssertEqual(entry["sides"] as? [String], ["before", "after"])
        XCTAssertEqual(try XCTUnwrap(entry["difference"] as? Double), 12, accuracy: 0.5)
        let before = try XCTUnwrap(entry["before"] as? [String: Any]), after = try XCTUnwrap(entry["after"] as? [String: Any])
        XCTAssertEqual(before["segments"] as? Int, 3, "6 s of programme before the break at 6 s")
        XCTAssertEqual(after["segments"] as? Int, 5, "10 s of programme after it")
        XCTAssertEqual(try XCTUnwrap(before["seconds"] as? Double), 6, accuracy: 0.1)

        XCTAssertEqual(try loudnessFindings(json, "match").count, 0, "the matching ad")
        let match = try XCTUnwrap(try loudness(json, "match").first)
        XCTAssertEqual(try XCTUnwrap(match["difference"] as? Double), 0, accuracy: 0.5)

        // One primary segment after the 12 s break answers 404: said, and the rest measured.
        let matchAfter = try XCTUnwrap(match["after"] as? [String: Any])
        XCTAssertEqual(matchAfter["segmentsAsked"] as? Int, 5)
        XCTAssertEqual(matchAfter["segments"] as? Int, 4)
        let skipped = try XCTUnwrap(matchAfter["skipped"] as? [String])
        XCTAssertEqual(skipped.count, 1)
        XCTAssertTrue(skipped[0].hasPrefix("seg9.m4s: ") && skipped[0].contains("404"), skipped[0])
        XCTAssertNotNil(matchAfter["integrated"] as? Double)

        // A pre-roll has only the programme after it, a post-roll only the programme before it.
        XCTAssertEqual(try loudness(json, "pre").first?["sides"] as? [String], ["after"])
        XCTAssertEqual(try loudnessFindings(json, "pre").count, 0)
        XCTAssertEqual(try loudness(json, "post").first?["sides"] as? [String], ["before"])
        let post = try loudnessFindings(json, "post")
        XCTAssertEqual(post.count, classes.count)
        XCTAssertTrue((post.first?["message"] as? String ?? "").contains("post-roll: programme before it only"), "\(post)")

        // An ad without audio: said so, no loudness finding.
        let silent = try loudness(json, "silent")
        XCTAssertEqual(silent.count, 1)
        XCTAssertEqual(silent.first?["problem"] as? String, "not measured: the interstitial has no audio track")
        XCTAssertEqual(try loudnessFindings(json, "silent").count, 0)

        let cost = try XCTUnwrap(json["loudness"] as? [String: Any])
        XCTAssertEqual(cost["measured"] as? Bool, true)
        XCTAssertEqual(cost["programmeSeconds"] as? Double, 10)
        XCTAssertGreaterThan(cost["bytesRead"] as? Int ?? 0, 0)
        XCTAssertGreaterThan(cost["milliseconds"] as? Int ?? 0, 0)
    }

    func testTheTerminalReportSaysWhatLoudnessCostAndWhatWasNotMeasured() throws {
        let url = server.url(try Self.stream.write(into: root, port: server.port))
        let result = try SeamcheckBinary.run(["audit", url, "--format", "table", "--fail-on", "never", "--profile", "smart-tv-low-end"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let lines = result.stdout.components(separatedBy: "\n")
        XCTAssertEqual(lines.filter { $0.hasPrefix("loudness: ") && $0.contains("MB read and") && $0.contains("ms beyond the probes") }.count, 1,
                       result.stdout)
        XCTAssertTrue(lines.contains("  loudness: not measured: the interstitial has no audio track"), result.stdout)
        XCTAssertTrue(lines.contains("  loudness: -11.0 LUFS against the programme's -23.0 LUFS (before and after the break): +12.0 LU"),
                      result.stdout)
    }

    /// The loudness step's bytes are every byte past the probes' (the same audit with
    /// --no-loudness), each segment is fetched once whatever the number of classes (the probes'
    /// init sections and first segments are not fetched again for loudness), and
    /// --no-loudness reads nothing past each rendition's init section and first segment.
    func testLoudnessCountsEveryExtraByteAndNoLoudnessReadsNone() throws {
        let off = try audit(Self.stream, ["--no-loudness"])
        let offLog = try server.log()
        XCTAssertEqual(off["loudness"] as? [String: Any] as NSDictionary?,
                       ["measured": false, "reason": "turned off with --no-loudness", "programmeSeconds": NSNull(), "bytesRead": 0,
                        "measurements": 0, "notMeasured": 0, "segments": 0, "milliseconds": 0] as NSDictionary)
        let media = offLog.filter { !$0.path.hasSuffix(".m3u8") }.map(\.path)
        XCTAssertEqual(Set(media.map { ($0 as NSString).lastPathComponent }), ["init.mp4", "seg0.m4s"], "\(media)")
        XCTAssertEqual(media.count, Set(media).count, "each rendition probed once")
        try server.resetLog()

        let on = try audit(Self.stream)
        let onLog = try server.log()
        let cost = try XCTUnwrap(on["loudness"] as? [String: Any])
        XCTAssertEqual(cost["bytesRead"] as? Int, onLog.map(\.bytes).reduce(0, +) - offLog.map(\.bytes).reduce(0, +),
                       "the reported cost is every byte past the probes'")
        // The loud ad's second segment is only read by loudness: once, though 7 classes play it.
        XCTAssertEqual(onLog.filter { $0.path == "/files/loud/seg1.m4s" }.count, 1)
        // Windows overlap here (breaks 6 s apart, 10 s each side): each programme segment is
        // still fetched once, and the init section and seg0 the probe read are not fetched again.
        let programme = Dictionary(grouping: onLog.filter { $0.path.hasPrefix("/files/primary/") && !$0.path.hasSuffix(".m3u8") },
                                   by: \.path).mapValues(\.count)
        XCTAssertEqual(programme.count, 13, "init and 12 segments: \(programme)")
        for (path, count) in programme { XCTAssertEqual(count, 1, path) }
        // No playlist is read again: the primary's and the assets' media playlists were loaded already.
        let playlists = { (log: [TestHTTPServer.Request]) in Dictionary(grouping: log.filter { $0.path.hasSuffix(".m3u8") }, by: \.path).mapValues(\.count) }
        XCTAssertEqual(playlists(onLog), playlists(offLog))
        XCTAssertEqual(on["findings"].map { ($0 as? [[String: Any]] ?? []).filter { $0["rule"] as? String == "loudness-mismatch" }.isEmpty }, false)
        XCTAssertEqual((off["findings"] as? [[String: Any]] ?? []).filter { $0["rule"] as? String == "loudness-mismatch" }.count, 0)
    }

    func testTransportStreamSegmentsAreMeasuredToo() throws {
        let stream = InterstitialStream(primary: Self.programme, primaryCodecs: "avc1.64000d,mp4a.40.2",
                                        ads: [.init(id: "loud", source: Self.loudAd, boundary: 3), .init(id: "match", source: Self.matchingAd, boundary: 6)],
                                        segmentType: .mpegts, segmentSeconds: 2)
        let json = try audit(stream, ["--profile", "smart-tv-low-end"])
        XCTAssertEqual(try loudnessFindings(json, "loud").count, 1)
        XCTAssertEqual(try loudnessFindings(json, "match").count, 0)
        let entry = try XCTUnwrap(try loudness(json, "loud").first)
        XCTAssertEqual(try XCTUnwrap((entry["interstitial"] as? [String: Any])?["integrated"] as? Double), -11, accuracy: 0.5)
        XCTAssertEqual(try XCTUnwrap(entry["programme"] as? Double), -23, accuracy: 0.5)
        XCTAssertTrue(((entry["interstitial"] as? [String: Any])?["rendition"] as? String ?? "").hasSuffix("/files/loud/index.m3u8"))
    }

    func testATargetAndATolerancePassThroughToPlaylistAudits() throws {
        let stream = InterstitialStream(primary: Self.programme, primaryCodecs: "avc1.64000d,mp4a.40.2",
                                        ads: [.init(id: "match", source: Self.matchingAd, boundary: 6)], segmentSeconds: 2)
        XCTAssertEqual(try loudnessFindings(try audit(stream, ["--profile", "mac"]), "match").count, 0)
        let targeted = try loudnessFindings(try audit(stream, ["--profile", "mac", "--loudness-target", "-20"]), "match")
        XCTAssertEqual(targeted.count, 1, "-23 LUFS is 3 LU off a -20 target")
        XCTAssertTrue((targeted.first?["remediation"] as? String ?? "").contains("loudnorm=I=-20.0"), "\(targeted)")
        XCTAssertEqual(try loudnessFindings(try audit(stream, ["--profile", "mac", "--loudness-target", "-20", "--loudness-tolerance", "4"]), "match").count, 0)
    }

    /// An AES-128 ad is decrypted and measured like a clear one; an ad whose later segments are
    /// SAMPLE-AES is probed (its first segment is clear) but its loudness is not measured, and said so.
    func testAnAES128AdIsMeasuredAndASampleAESOneIsSaidNotToBe() throws {
        let stream = InterstitialStream(primary: Self.programme, primaryCodecs: "avc1.64000d,mp4a.40.2",
                                        ads: [.init(id: "aes", source: nil, rawPath: "/files/aes/index.m3u8", boundary: 3),
                                              .init(id: "sample", source: nil, rawPath: "/files/aes/sample.m3u8", boundary: 6)],
                                        segmentSeconds: 2)
        let url = server.url(try stream.write(into: root, port: server.port))
        let folder = root.appendingPathComponent("aes").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Data((0..<16).map { UInt8(0x30 + $0) }).write(to: URL(fileURLWithPath: folder + "/key.bin"))
        try "key.bin\n\(folder)/key.bin\n".write(toFile: folder + "/keyinfo", atomically: true, encoding: .utf8)
        let made = try Command.run("ffmpeg", ["-nostdin", "-v", "error", "-y", "-i", try Self.loudAd.path(), "-c", "copy",
                                              "-bsf:v", "h264_mp4toannexb", "-f", "hls", "-hls_time", "2", "-hls_playlist_type", "vod",
                                              "-hls_key_info_file", folder + "/keyinfo", "-hls_segment_filename", folder + "/seg%d.ts",
                                              folder + "/index.m3u8"])
        XCTAssertEqual(made.status, 0, made.stderr)
        // The same segments, the second one marked SAMPLE-AES (the first stays AES-128, so the probe succeeds).
        var lines = try String(contentsOfFile: folder + "/index.m3u8", encoding: .utf8).components(separatedBy: "\n")
        let second = try XCTUnwrap(lines.firstIndex(of: "seg1.ts"))
        lines.insert("#EXT-X-KEY:METHOD=SAMPLE-AES,URI=\"key.bin\",KEYFORMAT=\"identity\"", at: second - 1)
        try lines.joined(separator: "\n").write(toFile: folder + "/sample.m3u8", atomically: true, encoding: .utf8)

        let result = try SeamcheckBinary.run(["audit", url, "--format", "json", "--fail-on", "never", "--profile", "apple-tv-4k"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(try loudnessFindings(json, "aes").count, 1, "the decrypted ad is 12 LU louder")
        let aes = try XCTUnwrap(try loudness(json, "aes").first?["interstitial"] as? [String: Any])
        XCTAssertEqual(try XCTUnwrap(aes["integrated"] as? Double), -11, accuracy: 0.5)
        XCTAssertEqual(aes["segments"] as? Int, aes["segmentsAsked"] as? Int)

        XCTAssertEqual(try loudnessFindings(json, "sample").count, 0)
        let sample = try XCTUnwrap(try loudness(json, "sample").first)
        XCTAssertEqual(sample["problem"] as? String,
                       "not measured (the interstitial): encrypted with METHOD=SAMPLE-AES; only AES-128 segments are decrypted here")
        XCTAssertFalse(result.stdout.contains("303132333435"), "the key never appears in output")
    }

    /// A programme segment that does not arrive within --timeout is left out and named in both
    /// windows that want it; the rest of each is measured.
    func testASegmentThatTimesOutIsLeftOutAndTheRestMeasured() throws {
        let url = server.url(try Self.stream.write(into: root, port: server.port))
        let media = root.appendingPathComponent("primary/index.m3u8")
        let text = try String(contentsOf: media, encoding: .utf8)
        try text.replacingOccurrences(of: "\nseg9.m4s", with: "\n/slow/30/primary/seg9.m4s").write(to: media, atomically: true, encoding: .utf8)
        let started = Date()
        let result = try SeamcheckBinary.run(["audit", url, "--format", "json", "--fail-on", "never", "--profile", "smart-tv-low-end",
                                              "--timeout", "2"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertLessThan(Date().timeIntervalSince(started), 15, "the 2 s timeout bounds the wait, not the server's 30 s")
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        for (id, side) in [("match", "after"), ("post", "before")] {
            let span = try XCTUnwrap(try loudness(json, id).first?[side] as? [String: Any], id)
            XCTAssertEqual(span["skipped"] as? [String], ["/slow/30/primary/seg9.m4s: timed out after 2 s"], id)
            XCTAssertEqual(span["segments"] as? Int, (span["segmentsAsked"] as? Int ?? 0) - 1, id)
            XCTAssertEqual(try XCTUnwrap(span["integrated"] as? Double), -23, accuracy: 0.5, id)
        }
        XCTAssertEqual(try loudnessFindings(json, "post").count, 1, "the loud post-roll is still found")
    }

    /// A primary whose audio is a rendition of its own (EXT-X-MEDIA): the programme is measured
    /// on that rendition, and its video segments are never read past the probe's first one.
    func testTheProgrammeIsMeasuredOnTheAudioRenditionTheClassPlays() throws {
        let video = MediaFixture.clip("h264-2997-24s-gop60-no-audio", duration: 24, video: Self.gop60, audio: nil)
        let audio = MediaFixture.clip("aac48-24s-minus23lufs", container: "m4a", duration: 24, video: nil, audio: Self.level(-1.2))
        for (folder, source) in [("video", video), ("audio", audio), ("loud", Self.loudAd)] {
            let made = try HLSFixture(name: "loudness-\(folder)", source: source, segmentType: .fmp4, segmentSeconds: 2).directory()
            try FileManager.default.copyItem(atPath: made, toPath: root.appendingPathComponent(folder).path)
        }
        let media = root.appendingPathComponent("video/index.m3u8")
        let text = try String(contentsOf: media, encoding: .utf8)
        let tags = "#EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:00.000Z\n#EXT-X-DATERANGE:ID=\"loud\",CLASS=\"com.apple.hls.interstitial\","
            + "START-DATE=\"2026-01-01T00:00:06.006Z\",X-ASSET-URI=\"\(server.url("/files/loud/index.m3u8"))\",X-RESUME-OFFSET=0\n#EXTINF:"
        try text.replacingOccurrences(of: "#EXT-X-MAP:URI=\"init.mp4\"\n#EXTINF:", with: "#EXT-X-MAP:URI=\"init.mp4\"\n" + tags)
            .write(to: media, atomically: true, encoding: .utf8)
        try """
            #EXTM3U
            #EXT-X-INDEPENDENT-SEGMENTS
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="English",LANGUAGE="en",DEFAULT=YES,AUTOSELECT=YES,CHANNELS="2",URI="../audio/index.m3u8"
            #EXT-X-STREAM-INF:BANDWIDTH=500000,CODECS="avc1.64000d,mp4a.40.2",RESOLUTION=320x180,FRAME-RATE=29.970,VIDEO-RANGE=SDR,AUDIO="aud"
            index.m3u8

            """.write(to: root.appendingPathComponent("video/main.m3u8"), atomically: true, encoding: .utf8)

        let result = try SeamcheckBinary.run(["audit", server.url("/files/video/main.m3u8"), "--format", "json", "--fail-on", "never",
                                              "--profile", "smart-tv-low-end", "--profile", "speaker-audio-only"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let entries = try loudness(json, "loud")
        XCTAssertEqual(entries.count, 1, "both classes play the same audio rendition: \(entries)")
        XCTAssertEqual(entries.first?["deviceClasses"] as? [String], ["smart-tv-low-end", "speaker-audio-only"])
        for side in ["before", "after"] {
            let span = try XCTUnwrap(entries.first?[side] as? [String: Any], side)
            XCTAssertEqual(span["rendition"] as? String, server.url("/files/audio/index.m3u8"), side)
            XCTAssertEqual(try XCTUnwrap(span["integrated"] as? Double), -23, accuracy: 0.5, side)
        }
        XCTAssertEqual(try loudnessFindings(json, "loud").count, 2)
        let videoReads = try server.log().map(\.path).filter { $0.hasPrefix("/files/video/") && !$0.hasSuffix(".m3u8") }
        XCTAssertEqual(Set(videoReads), ["/files/video/init.mp4", "/files/video/seg0.m4s"], "the video is only probed")
    }

    /// An asset list of two ads at one break: each asset is measured whole and compared with
    /// the same programme; only the loud one fires.
    func testEachAssetOfAnAssetListIsMeasured() throws {
        let stream = InterstitialStream(primary: Self.programme, primaryCodecs: "avc1.64000d,mp4a.40.2",
                                        ads: [.init(id: "pod", source: nil, rawPath: "/files/list.json", boundary: 3)], segmentSeconds: 2)
        let url = server.url(try stream.write(into: root, port: server.port))
        for (folder, source) in [("loud", Self.loudAd), ("match", Self.matchingAd)] {
            let made = try HLSFixture(name: folder, source: source, segmentType: .fmp4, segmentSeconds: 2).directory()
            try FileManager.default.copyItem(atPath: made, toPath: root.appendingPathComponent(folder).path)
        }
        let list = #"{"ASSETS": [{"URI": "\#(server.url("/files/loud/index.m3u8"))", "DURATION": 4.004}, "#
            + #"{"URI": "\#(server.url("/files/match/index.m3u8"))", "DURATION": 4.004}]}"#
        try list.write(to: root.appendingPathComponent("list.json"), atomically: true, encoding: .utf8)
        let media = root.appendingPathComponent("primary/index.m3u8")
        try String(contentsOf: media, encoding: .utf8).replacingOccurrences(of: "X-ASSET-URI=", with: "X-ASSET-LIST=")
            .write(to: media, atomically: true, encoding: .utf8)

        let result = try SeamcheckBinary.run(["audit", url, "--format", "json", "--fail-on", "never", "--profile", "mac"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let assets = (json["assets"] as? [[String: Any]] ?? []).filter { $0["role"] as? String != "primary" }
        XCTAssertEqual(assets.count, 2)
        let levels = assets.compactMap { (($0["loudness"] as? [[String: Any]])?.first?["interstitial"] as? [String: Any])?["integrated"] as? Double }
        XCTAssertEqual(levels.count, 2, "\(assets)")
        XCTAssertEqual(levels.first ?? 0, -11, accuracy: 0.5)
        XCTAssertEqual(levels.last ?? 0, -23, accuracy: 0.5)
        let programmes = Set(assets.compactMap { ($0["loudness"] as? [[String: Any]])?.first?["programme"] as? Double })
        XCTAssertEqual(programmes.count, 1, "one programme level for the break")
        let fired = (json["findings"] as? [[String: Any]] ?? []).filter { $0["rule"] as? String == "loudness-mismatch" }
        XCTAssertEqual(fired.compactMap { $0["subject"] as? String }.map { $0.hasPrefix("interstitial 1 (") }, [true])
    }

    /// The fix printed for the loud ad of a playlist audit runs as printed (reading the ad over
    /// HTTP), and once its output replaces the ad's segments the break is quiet again.
    func testThePrintedFixRunsAndTheReauditedBreakIsWithinTolerance() throws {
        let stream = InterstitialStream(primary: Self.programme, primaryCodecs: "avc1.64000d,mp4a.40.2",
                                        ads: [.init(id: "loud", source: Self.loudAd, boundary: 3)], segmentSeconds: 2)
        let json = try audit(stream, ["--profile", "smart-tv-low-end"])
        XCTAssertEqual(try loudnessFindings(json, "loud").count, 1)
        let fixes = try XCTUnwrap(try asset(json, "loud")["fixes"] as? [[String: Any]])
        XCTAssertEqual(fixes.count, 1)
        let argv = try ShellWords.split(try XCTUnwrap(fixes.first?["command"] as? String))
        let work = root.appendingPathComponent("fix")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        let ran = try Command.run("ffmpeg", ["-nostdin", "-v", "error", "-y"] + argv.dropFirst(), currentDirectory: work)
        XCTAssertEqual(ran.status, 0, ran.stderr)
        // Package the output as the ad's rendition again, in place.
        let folder = root.appendingPathComponent("loud").path
        for name in try FileManager.default.contentsOfDirectory(atPath: folder) { try FileManager.default.removeItem(atPath: folder + "/" + name) }
        let packaged = try Command.run("ffmpeg", ["-nostdin", "-v", "error", "-y", "-i", work.appendingPathComponent(argv.last ?? "").path,
                                                  "-c", "copy", "-f", "hls", "-hls_time", "2", "-hls_playlist_type", "vod",
                                                  "-hls_segment_type", "fmp4", "-hls_fmp4_init_filename", "init.mp4",
                                                  "-hls_segment_filename", folder + "/seg%d.m4s", folder + "/index.m3u8"])
        XCTAssertEqual(packaged.status, 0, packaged.stderr)
        let url = server.url("/files/primary/main.m3u8")
        let again = try SeamcheckBinary.run(["audit", url, "--format", "json", "--fail-on", "never", "--profile", "smart-tv-low-end"])
        let after = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(again.stdout.utf8)) as? [String: Any], again.stderr)
        XCTAssertEqual(try loudnessFindings(after, "loud").count, 0, "\((try? loudness(after, "loud")) ?? [])")
        XCTAssertEqual(try XCTUnwrap(try loudness(after, "loud").first?["difference"] as? Double), 0, accuracy: 2)
        XCTAssertEqual((after["findings"] as? [[String: Any]] ?? []).filter { ($0["subject"] as? String ?? "").hasPrefix("interstitial 1 (") }.count, 0,
                       "the fix adds no finding")
    }

    /// A remote programme playlist that names a local file for a segment: the file is never read
    /// (though it is real media), the segment is left out and named.
    func testALocalFileNamedByARemotePlaylistIsNeverMeasured() throws {
        let url = server.url(try Self.stream.write(into: root, port: server.port))
        let local = FileManager.default.temporaryDirectory.appendingPathComponent("loudness-local-\(UUID().uuidString).m4s")
        try FileManager.default.copyItem(at: root.appendingPathComponent("primary/seg9.m4s"), to: local)
        defer { try? FileManager.default.removeItem(at: local) }
        let media = root.appendingPathComponent("primary/index.m3u8")
        try String(contentsOf: media, encoding: .utf8).replacingOccurrences(of: "\nseg9.m4s", with: "\n" + local.absoluteString)
            .write(to: media, atomically: true, encoding: .utf8)
        let result = try SeamcheckBinary.run(["audit", url, "--format", "json", "--fail-on", "never", "--profile", "mac"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let span = try XCTUnwrap(try loudness(json, "match").first?["after"] as? [String: Any])
        XCTAssertEqual(span["segments"] as? Int, 4)
        let skipped = try XCTUnwrap(span["skipped"] as? [String])
        XCTAssertEqual(skipped.count, 1)
        XCTAssertTrue(skipped[0].hasPrefix(local.absoluteString + ": refused: the remote playlist "), skipped[0])
    }

    /// `matrix run` measures loudness as `audit` does, in playlist cases and explicit-input cases
    /// alike, so a cell and an audit of the same title agree; `--no-loudness` turns it off there too.
    func testAMatrixRunFindsTheLoudAdInPlaylistAndFileCasesUnlessLoudnessIsOff() throws {
        let stream = InterstitialStream(primary: Self.programme, primaryCodecs: "avc1.64000d,mp4a.40.2",
                                        ads: [.init(id: "loud", source: Self.loudAd, boundary: 3)], segmentSeconds: 2)
        let playlist = server.url(try stream.write(into: root, port: server.port))
        let matrix = root.appendingPathComponent("matrix.yaml")
        try """
        name: loudness
        defaults: {jobs: 2, timeout: 60}
        deviceClasses: [apple-tv-4k, smart-tv-low-end]
        cases:
          - {id: title, playlist: "\(playlist)"}
          - {id: files, primary: "\(try Self.programme.path())", interstitials: ["\(try Self.loudAd.path())"]}

        """.write(to: matrix, atomically: true, encoding: .utf8)
        for (index, extra) in [[], ["--no-loudness"]].enumerated() {
            let result = try SeamcheckBinary.run(["matrix", "run", matrix.path, "--db", root.appendingPathComponent("results.sqlite").path,
                                                  "--output", root.appendingPathComponent("reports-\(index)").path, "--format", "json"] + extra)
            let document = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], result.stderr)
            for matrixCase in document["cases"] as? [[String: Any]] ?? [] {
                let cells = matrixCase["cells"] as? [[String: Any]] ?? []
                XCTAssertEqual(cells.count, 2, "\(matrixCase)")
                for cell in cells {
                    let rules = (cell["findings"] as? [[String: Any]] ?? []).compactMap { $0["rule"] as? String }
                    XCTAssertEqual(rules.contains("loudness-mismatch"), extra.isEmpty,
                                   "\(matrixCase["id"] ?? "") \(cell["deviceClass"] ?? "") \(extra): \(rules)")
                }
            }
            XCTAssertEqual((document["cases"] as? [Any])?.count, 2, result.stdout)
        }
    }
}
