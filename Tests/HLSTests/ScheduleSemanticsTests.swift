@testable import HLS
import XCTest

/// Timeline semantics that are easy to get wrong: clocks restarted after a discontinuity, date
/// ranges completed by later tags, byte ranges that continue the previous one.
final class ScheduleSemanticsTests: XCTestCase {
    func media(_ text: String) throws -> MediaPlaylist {
        try XCTUnwrap(try PlaylistParser.parse(text).playlist.media)
    }

    func segments(_ count: Int, from start: Int = 0) -> String {
        (start..<start + count).map { "#EXTINF:2.0,\nseg\($0).ts" }.joined(separator: "\n")
    }

    func testADateAfterADiscontinuityIsPlacedFromTheNewClock() throws {
        let playlist = try media("""
        #EXTM3U
        #EXT-X-TARGETDURATION:2
        #EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:00.000Z
        #EXT-X-DATERANGE:ID="ad",CLASS="com.apple.hls.interstitial",START-DATE="2026-01-01T05:00:06.000Z",DURATION=5,X-ASSET-URI="https://a.example/ad.m3u8"
        \(segments(6))
        #EXT-X-DISCONTINUITY
        #EXT-X-PROGRAM-DATE-TIME:2026-01-01T05:00:00.000Z
        \(segments(6, from: 6))
        #EXT-X-ENDLIST
        """)
        let entry = try XCTUnwrap(InterstitialSchedule(primary: playlist).entries.first)
        XCTAssertEqual(try XCTUnwrap(entry.offset), 18, accuracy: 0.001, "12 s of the first clock, then 6 s into the second")
        XCTAssertEqual(entry.onSegmentBoundary, true)
    }

    /// The definition, as a scan over every segment: the last PROGRAM-DATE-TIME (in playlist
    /// order) at or before the date, else the first one, counted back.
    private func scanOffset(_ playlist: MediaPlaylist, _ date: Date) -> Double? {
        var elapsed = 0.0, found: Double?, first: (Date, Double)?
        for segment in playlist.segments {
            if let stamp = segment.programDateTime {
                if first == nil { first = (stamp, elapsed) }
                if stamp.timeIntervalSince(date) <= 0.0005 { found = elapsed + date.timeIntervalSince(stamp) }
            }
            elapsed += segment.duration
        }
        return found ?? first.map { $0.1 + date.timeIntervalSince($0.0) }
    }

    func testTheDateIndexPlacesDatesLikeTheScanWhetherClocksRunForwardOrJumpBack() throws {
        let base = try XCTUnwrap(HLSDate.parse("2026-01-01T05:00:00.000Z"))
        // A tag on every segment (forward: binary search), and a clock restarted earlier after a
        // discontinuity (backward: scan).
        let forward = try media("#EXTM3U\n#EXT-X-TARGETDURATION:2\n" + (0..<40).map {
            "#EXT-X-PROGRAM-DATE-TIME:\(HLSDate.format(base.addingTimeInterval(Double($0) * 2)))\n#EXTINF:2.0,\nseg\($0).ts"
        }.joined(separator: "\n") + "\n#EXT-X-ENDLIST\n")
        let backward = try media("""
        #EXTM3U
        #EXT-X-TARGETDURATION:2
        #EXT-X-PROGRAM-DATE-TIME:2026-01-01T05:00:00.000Z
        \(segments(6))
        #EXT-X-DISCONTINUITY
        #EXT-X-PROGRAM-DATE-TIME:2026-01-01T04:00:00.000Z
        \(segments(6, from: 6))
        #EXT-X-DISCONTINUITY
        #EXT-X-PROGRAM-DATE-TIME:2026-01-01T06:00:00.000Z
        \(segments(6, from: 12))
        #EXT-X-ENDLIST
        """)
        let probes: [Double] = [-3600, -10, -0.0004, 0, 0.0004, 1, 3, 11.9995, 12, 37, 79, 80, 500, 3600, 3601, 7200 + 5]
        for playlist in [forward, backward] {
            let index = ProgramDateTimeIndex(playlist)
            for seconds in probes {
                let date = base.addingTimeInterval(seconds)
                XCTAssertEqual(try XCTUnwrap(index.offset(of: date)), try XCTUnwrap(scanOffset(playlist, date)), accuracy: 1e-6, "at \(seconds) s")
            }
        }
        XCTAssertEqual(try XCTUnwrap(ProgramDateTimeIndex(forward).offset(of: base.addingTimeInterval(37))), 37, accuracy: 1e-6)
        XCTAssertEqual(try XCTUnwrap(ProgramDateTimeIndex(backward).offset(of: base.addingTimeInterval(3605))), 24 + 5, accuracy: 1e-6,
                       "06:00:05 is 5 s into the third clock")
        XCTAssertNil(ProgramDateTimeIndex(try media("#EXTM3U\n#EXT-X-TARGETDURATION:2\n\(segments(2))\n#EXT-X-ENDLIST\n")).offset(of: base))
    }

    func testLaterTagsWithoutClassCompleteTheInterstitialAndEndDateGivesItsLength() throws {
        let playlist = try media("""
        #EXTM3U
        #EXT-X-TARGETDURATION:2
        #EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:00.000Z
        #EXT-X-DATERANGE:ID="ad1",CLASS="com.apple.hls.interstitial",START-DATE="2026-01-01T00:00:02.000Z",END-DATE="2026-01-01T00:00:08.000Z",X-ASSET-URI="https://a.example/1.m3u8"
        #EXT-X-DATERANGE:ID="ad2",CLASS="com.apple.hls.interstitial",START-DATE="2026-01-01T00:00:10.000Z",X-ASSET-URI="https://a.example/2.m3u8"
        \(segments(4))
        #EXT-X-DATERANGE:ID="ad2",START-DATE="2026-01-01T00:00:10.000Z",DURATION=15
        \(segments(4, from: 4))
        #EXT-X-ENDLIST
        """)
        let entries = InterstitialSchedule(primary: playlist).entries
        XCTAssertEqual(entries.map(\.id), ["ad1", "ad2"])
        XCTAssertEqual(entries[0].playedDuration, 6, "END-DATE minus START-DATE")
        XCTAssertEqual(entries[1].playedDuration, 15, "DURATION from the later tag without CLASS")
        XCTAssertEqual(entries[1].resumeOffset, 15)
    }

    func testAByteRangeWithoutOffsetContinuesThePreviousSubRange() throws {
        let parsed = try PlaylistParser.parse("""
        #EXTM3U
        #EXT-X-TARGETDURATION:2
        #EXT-X-BYTERANGE:18800@0
        #EXT-X-GAP
        #EXTINF:2.0,
        media.ts
        #EXT-X-BYTERANGE:20000
        #EXTINF:2.0,
        media.ts
        #EXT-X-BYTERANGE:500
        #EXTINF:2.0,
        other.ts
        #EXT-X-ENDLIST
        """)
        let segments = try XCTUnwrap(parsed.playlist.media?.segments)
        XCTAssertEqual(segments[1].byteRange, ByteRange(length: 20000, offset: 18800))
        XCTAssertEqual(segments[2].byteRange, ByteRange(length: 500, offset: 0))
        XCTAssertTrue(parsed.diagnostics.contains { $0.message.contains("no previous sub-range of \"other.ts\"") }, "\(parsed.diagnostics)")
    }
}
