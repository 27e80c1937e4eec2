import Foundation
@testable import HLS
import XCTest

/// A segment's URI is kept as a range of the playlist's bytes until read, and its rare tags in one
/// box (issue 36): read, they are what the parser read, and segments compare and encode as before.
final class SegmentURITests: XCTestCase {
    /// The URI lines' bytes as the parser trims them, decoded as the parser used to.
    private func formerURIs(_ body: [UInt8]) -> [String] {
        var lines = body.split(separator: 0x0A, omittingEmptySubsequences: false).map(Array.init)
        if let first = lines.first, first.starts(with: [0xEF, 0xBB, 0xBF]) { lines[0] = Array(first.dropFirst(3)) }
        return lines.compactMap { line -> String? in
            var slice = line[...]
            while let last = slice.last, [0x0D, 0x20, 0x09].contains(last) { slice = slice.dropLast() }
            while let first = slice.first, [0x20, 0x09].contains(first) { slice = slice.dropFirst() }
            guard let first = slice.first, first != UInt8(ascii: "#") else { return nil }
            return String(decoding: slice, as: UTF8.self)
        }
    }

    func testURIsReadAsTheStringsTheyWere() throws {
        var body = Array("\u{FEFF}#EXTM3U\r\n#EXT-X-TARGETDURATION:6\r\n#EXT-X-DEFINE:NAME=\"v\",VALUE=\"720p\"\n".utf8)
        let lines: [[UInt8]] = [Array("#EXTINF:6,\r\n  seg 1.ts \t\r\n".utf8), Array("#EXTINF:6,\nhttps://cdn.example/{$v}/s2.ts\n".utf8),
                                Array("#EXTINF:6,\n".utf8) + [0x73, 0xFF, 0xC3, 0x28, 0x2E, 0x74, 0x73, 0x0A],  // invalid UTF-8, repaired
                                Array("#EXTINF:6,\ncaf\u{E9}/\u{1F600}.ts\n".utf8), Array("#EXT-X-BYTERANGE:100@0\n#EXTINF:6,\nr.ts\n".utf8),
                                Array("#EXT-X-BYTERANGE:100\n#EXTINF:6,\nr.ts\n".utf8), Array("orphan.ts\n".utf8),
                                Array("#EXTINF:6,\nsegment_000001.m4s".utf8)]
        for line in lines { body += line }
        let parsed = try PlaylistParser.parse(Data(body))
        let media = try XCTUnwrap(parsed.playlist.media)
        var expected = formerURIs(body)
        expected[1] = "https://cdn.example/720p/s2.ts"
        XCTAssertEqual(media.segments.map(\.uri), expected)
        XCTAssertEqual(media.segments[5].byteRange, ByteRange(length: 100, offset: 100), "the range continues r.ts")
        XCTAssertEqual(media.segments[2].uri, "s\u{FFFD}\u{FFFD}(.ts")

        // Made from a String or kept as bytes, a segment is equal, encodes the same and can be set.
        var copy = media.segments[3]
        let made = Segment(uri: copy.uri, duration: copy.duration, title: copy.title, byteRange: copy.byteRange, discontinuity: copy.discontinuity,
                           programDateTime: copy.programDateTime, sharedKey: nil, sharedMap: nil, gap: copy.gap, bitrate: copy.bitrate, line: copy.line)
        XCTAssertEqual(made, copy)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        XCTAssertEqual(try encoder.encode(made), try encoder.encode(copy))
        XCTAssertEqual(try JSONDecoder().decode(Segment.self, from: encoder.encode(copy)), copy)
        copy.uri = "other.ts"
        XCTAssertEqual(copy.uri, "other.ts")
        XCTAssertNotEqual(copy, media.segments[3])
        // Equality is String's: the same text in another normal form is equal.
        copy.uri = "cafe\u{301}/\u{1F600}.ts"
        XCTAssertEqual(copy, media.segments[3])
        XCTAssertEqual(try PlaylistParser.parse(Data(body)), parsed, "two parses of one body are equal")
    }

    func testRareTagsAreReadSetAndComparedAsStoredOnes() throws {
        let body = "#EXTM3U\n#EXT-X-TARGETDURATION:6\n#EXTINF:6,plain\na.ts\n#EXT-X-DISCONTINUITY\n#EXT-X-GAP\n#EXT-X-BITRATE:800\n"
            + "#EXT-X-PROGRAM-DATE-TIME:2024-01-01T00:00:00Z\n#EXT-X-BYTERANGE:10@5\n#EXTINF:6,title\nb.ts\n#EXTINF:6,\nc.ts\n"
        let segments = try XCTUnwrap(PlaylistParser.parse(body).playlist.media).segments
        XCTAssertEqual(segments.map(\.title), ["plain", "title", nil])
        XCTAssertEqual(segments.map(\.discontinuity), [false, true, false])
        XCTAssertEqual(segments.map(\.gap), [false, true, false])
        XCTAssertEqual(segments.map(\.bitrate), [nil, 800, 800])
        XCTAssertEqual(segments.map(\.byteRange), [nil, ByteRange(length: 10, offset: 5), nil])
        XCTAssertEqual(segments.map { $0.programDateTime?.timeIntervalSince1970 }, [nil, 1_704_067_200, nil])
        XCTAssertNotNil(segments[2].extras, "EXT-X-BITRATE applies on to c.ts")
        var changed = segments[1]
        changed.title = nil
        changed.discontinuity = false
        changed.gap = false
        changed.bitrate = nil
        changed.byteRange = nil
        changed.programDateTime = nil
        XCTAssertNil(changed.extras, "a segment whose rare tags are all unset holds no box")
        var plain = segments[1]
        plain.uri = changed.uri
        XCTAssertNotEqual(plain, changed)
        changed.title = "title"
        changed.discontinuity = true
        changed.gap = true
        changed.bitrate = 800
        changed.byteRange = ByteRange(length: 10, offset: 5)
        changed.programDateTime = segments[1].programDateTime
        XCTAssertEqual(changed, segments[1])
    }
}
