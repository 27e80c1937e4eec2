import Foundation
import HLS
@testable import MediaProbe
import SeamcheckTestSupport
import XCTest

/// `ProbeSession` on HLS media playlists: init section and first segment only.
final class RenditionProbeTests: XCTestCase {
    var root: URL!
    var server: TestHTTPServer!

    override func setUpWithError() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("seamcheck-hls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        for (name, fixture) in [("fmp4", HLSFixture(name: "hevc-fmp4", source: Fixtures.hevc, segmentType: .fmp4)),
                                ("ts", HLSFixture(name: "h264-ts", source: Fixtures.fps25, segmentType: .mpegts)),
                                ("single", HLSFixture(name: "h264-single", source: Fixtures.keyframeEverySecond, segmentType: .fmp4,
                                                      singleFile: true))] {
            try FileManager.default.copyItem(atPath: try fixture.directory(), toPath: root.appendingPathComponent(name).path)
        }
        server = try TestHTTPServer(root: root.path)
    }

    override func tearDownWithError() throws {
        server.stop()
        try? FileManager.default.removeItem(at: root)
    }

    func describe(_ text: String) async throws(ProbeError) -> MediaDescription {
        let location: InputLocation
        do { location = try InputLocation(parsing: text) } catch { throw .invalidInput(error) }
        return try await ProbeSession().describe(location)
    }

    func write(_ name: String, _ text: String) throws {
        try text.write(to: root.appendingPathComponent(name), atomically: true, encoding: .utf8)
    }

    func testLocalFragmentedMP4Rendition() async throws {
        let media = try await describe(root.appendingPathComponent("fmp4/index.m3u8").path)
        XCTAssertEqual(media.primaryVideo?.codec, "hevc")
        XCTAssertEqual(media.primaryAudio?.codec, "aac")
        XCTAssertEqual(try XCTUnwrap(media.duration), 1.0, accuracy: 0.1, "the playlist's duration")
    }

    func testRemoteTransportStreamRenditionReadsOnlyItsFirstSegment() async throws {
        let media = try await describe(server.url("/files/ts/index.m3u8"))
        XCTAssertEqual(media.container, "mpegts")
        XCTAssertEqual(try XCTUnwrap(media.primaryVideo?.frameRate), 25, accuracy: 0.01)
        let paths = try server.log().map(\.path)
        XCTAssertEqual(paths, ["/files/ts/index.m3u8", "/files/ts/seg0.ts"])
    }

    func testSingleFileRenditionUsesBoundedRangeRequests() async throws {
        let playlist = try String(contentsOf: root.appendingPathComponent("single/index.m3u8"), encoding: .utf8)
        XCTAssertTrue(playlist.contains("#EXT-X-BYTERANGE"), "ffmpeg wrote a byte-range playlist")
        let media = try await describe(server.url("/files/single/index.m3u8"))
        XCTAssertEqual(media.primaryVideo?.width, 1280)
        let log = try server.log().filter { $0.path.hasSuffix("media.mp4") }
        XCTAssertEqual(log.count, 2, "init section and first segment")
        XCTAssertTrue(log.allSatisfy { $0.status == 206 && ($0.range ?? "").range(of: #"^bytes=\d+-\d+$"#, options: .regularExpression) != nil },
                      "closed byte ranges only: \(log)")
        let fileSize = try FileManager.default.attributesOfItem(atPath: root.appendingPathComponent("single/media.mp4").path)[.size] as! Int
        XCTAssertLessThan(log.map(\.bytes).reduce(0, +), fileSize / 2)
    }

    func testRemotePlaylistCannotReachALocalFile() async throws {
        try write("evil.m3u8", "#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXTINF:1,\nfile:///etc/passwd\n#EXT-X-ENDLIST\n")
        do {
            _ = try await describe(server.url("/files/evil.m3u8"))
            XCTFail("a remote playlist must not lead to a local file")
        } catch {
            XCTAssertEqual(error, .playlist(.localReferenceFromRemote(reference: "file:///etc/passwd",
                                                                       playlist: server.url("/files/evil.m3u8"))))
        }
    }

    func testEncryptedAndEmptyAndMultivariantPlaylistsSayWhat() async throws {
        // AES-128 is decrypted (EncryptedRenditionTests); sample encryption is not.
        try write("enc.m3u8", "#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXT-X-KEY:METHOD=SAMPLE-AES,URI=\"skd://k\",KEYFORMAT=\"com.apple.streamingkeydelivery\"\n#EXTINF:1,\nfmp4/seg0.m4s\n#EXT-X-ENDLIST\n")
        try write("empty.m3u8", "#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXT-X-ENDLIST\n")
        try write("main.m3u8", "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=100000\nfmp4/index.m3u8\n")
        let base = root.path
        await assertError(base + "/enc.m3u8", .encryptedRendition(base + "/enc.m3u8", method: "SAMPLE-AES"))
        await assertError(base + "/empty.m3u8", .emptyPlaylist(base + "/empty.m3u8"))
        await assertError(base + "/main.m3u8", .multivariantPlaylist(base + "/main.m3u8", variants: ["fmp4/index.m3u8"]))
    }

    func testHugeByteRangeIsAnErrorNotAnOverflow() async throws {
        // The parser drops a range that overflows; the largest one that does not is refused by size.
        try write("huge.m3u8", "#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXT-X-BYTERANGE:9223372036854775807@0\n#EXTINF:1,\nsingle/media.mp4\n#EXT-X-ENDLIST\n")
        do {
            _ = try await describe(server.url("/files/huge.m3u8"))
            XCTFail("a 9 EB byte range must be refused")
        } catch {
            XCTAssertTrue(error.description.contains("exceeds the"), error.description)
        }
    }

    func testMissingSegmentIsNamed() async throws {
        try write("gone.m3u8", "#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXTINF:1,\nnope.ts\n#EXT-X-ENDLIST\n")
        do {
            _ = try await describe(server.url("/files/gone.m3u8"))
            XCTFail()
        } catch {
            XCTAssertTrue(error.description.contains(server.url("/files/nope.ts")), error.description)
            XCTAssertTrue(error.description.contains("404"), error.description)
        }
    }

    func testALoadedPlaylistIsProbedAsItIsWithoutFetchingItAgain() async throws {
        // Served under another name than it is asked for: a fetch of the asked URL would be a 404.
        let text = try String(contentsOf: root.appendingPathComponent("ts/index.m3u8"), encoding: .utf8)
        let parsed = try PlaylistParser.parse(text)
        let media = try XCTUnwrap(parsed.playlist.media)
        let servedAt = try InputLocation(parsing: server.url("/files/ts/index.m3u8"))
        let asked = try InputLocation(parsing: server.url("/files/not-served.m3u8"))
        let loaded = LoadedMediaPlaylist(location: servedAt, reference: "not-served.m3u8", playlist: media, diagnostics: parsed.diagnostics)
        let described = try await ProbeSession().describeRendition(asked, loaded: loaded)
        XCTAssertEqual(described.container, "mpegts")
        XCTAssertEqual(described.liveWindow, false, "a VOD playlist")
        XCTAssertEqual(try server.log().map(\.path), ["/files/ts/seg0.ts"], "segments resolve against where it was loaded from")

        // The same playlist as a live window and as an EVENT: only the window's first segment is a cut.
        var live = media
        live.endList = false
        live.playlistType = nil
        live.mediaSequence = 40
        let window = LoadedMediaPlaylist(location: servedAt, reference: "live.m3u8", playlist: live, diagnostics: [])
        let liveAsked = try InputLocation(parsing: server.url("/files/live.m3u8"))
        let liveMedia = try await ProbeSession().describeRendition(liveAsked, loaded: window)
        XCTAssertEqual(liveMedia.liveWindow, true)
        live.playlistType = .event
        let event = LoadedMediaPlaylist(location: servedAt, reference: "event.m3u8", playlist: live, diagnostics: [])
        let eventMedia = try await ProbeSession().describeRendition(try InputLocation(parsing: server.url("/files/event.m3u8")), loaded: event)
        XCTAssertEqual(eventMedia.liveWindow, false, "an EVENT playlist keeps its first segment")
    }

    private func assertError(_ input: String, _ expected: ProbeError, line: UInt = #line) async {
        do {
            _ = try await describe(input)
            XCTFail("expected \(expected)", line: line)
        } catch {
            XCTAssertEqual(error, expected, line: line)
        }
    }
}
