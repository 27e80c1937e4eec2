import Foundation
import HLS
import MediaProbe
import XCTest

/// The packaging facts a rendition probe reports as `playlist` (catalog v3 reads them).
final class RenditionPlaylistTests: XCTestCase {
    func facts(_ lines: [String]) throws -> RenditionPlaylist {
        let parsed = try PlaylistParser.parse(Data((lines.joined(separator: "\n") + "\n").utf8))
        return RenditionPlaylist(try XCTUnwrap(parsed.playlist.media))
    }

    func testKeysAreDistinctByMethodAndFormatTheInitSectionsIncludedAndNoneLeftOut() throws {
        let facts = try facts([
            "#EXTM3U", "#EXT-X-VERSION:6", "#EXT-X-TARGETDURATION:4",
            "#EXT-X-KEY:METHOD=SAMPLE-AES,URI=\"skd://a\",KEYFORMAT=\"com.apple.streamingkeydelivery\",KEYFORMATVERSIONS=\"1\"",
            "#EXT-X-MAP:URI=\"init.mp4\"",
            "#EXTINF:4.004,", "a.m4s",
            "#EXT-X-KEY:METHOD=SAMPLE-AES,URI=\"skd://b\",KEYFORMAT=\"com.apple.streamingkeydelivery\",KEYFORMATVERSIONS=\"1\"",
            "#EXTINF:3.5,", "b.m4s",
            "#EXT-X-KEY:METHOD=NONE",
            "#EXTINF:2,", "c.m4s",
            "#EXT-X-KEY:METHOD=AES-128,URI=\"k.bin\"",
            "#EXTINF:2,", "d.m4s", "#EXT-X-ENDLIST",
        ])
        XCTAssertEqual(facts.version, 6)
        XCTAssertEqual(facts.targetDuration, 4)
        XCTAssertEqual(facts.longestSegment, 4.004)
        XCTAssertEqual(facts.keys, [.init(method: "SAMPLE-AES", keyFormat: "com.apple.streamingkeydelivery"), .init(method: "AES-128")],
                       "a rotated key of the same system is one system; METHOD=NONE is clear")
        XCTAssertEqual(facts.keys.map(\.description), ["SAMPLE-AES (FairPlay)", "AES-128"])
    }

    func testAPlaylistWithoutVersionIsVersionOneAndClear() throws {
        let facts = try facts(["#EXTM3U", "#EXT-X-TARGETDURATION:10", "#EXTINF:9.9,", "a.ts", "#EXT-X-ENDLIST"])
        XCTAssertEqual(facts.version, 1, "RFC 8216 4.3.1.2: no EXT-X-VERSION means version 1")
        XCTAssertEqual(facts.keys, [])
    }

    func testAVariantAndItsAudioRenditionMergeToWhatTheReceiverLoads() {
        let video = RenditionPlaylist(version: 6, targetDuration: 2, longestSegment: 2.0, keys: [.init(method: "AES-128")])
        let audio = RenditionPlaylist(version: 7, targetDuration: 4, longestSegment: 3.9, keys: [.init(method: "AES-128"), .init(method: "SAMPLE-AES")])
        let merged = video.merged(with: audio)
        XCTAssertEqual(merged, RenditionPlaylist(version: 7, targetDuration: 4, longestSegment: 3.9,
                                                 keys: [.init(method: "AES-128"), .init(method: "SAMPLE-AES")]))
    }
}
