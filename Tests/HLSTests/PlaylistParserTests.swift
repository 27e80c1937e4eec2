import Foundation
@testable import HLS
import XCTest

final class PlaylistParserTests: XCTestCase {
    func testMultivariantPlaylistKeepsEveryStreamInfAttribute() throws {
        let parsed = try PlaylistParser.parse(SeedPlaylists.multivariant)
        XCTAssertEqual(parsed.diagnostics, [])
        let p = try XCTUnwrap(parsed.playlist.multivariant)
        XCTAssertEqual(p.version, 9)
        XCTAssertTrue(p.independentSegments)
        XCTAssertEqual(p.variants.count, 2)
        let v = p.variants[0]
        XCTAssertEqual(v.uri, "https://cdn.example/v/1080p.m3u8", "variables substitute in URI lines")
        XCTAssertEqual(v.bandwidth, 6_000_000)
        XCTAssertEqual(v.averageBandwidth, 5_000_000)
        XCTAssertEqual(v.codecs, ["hvc1.2.4.L123.B0", "mp4a.40.2"])
        XCTAssertEqual(v.supplementalCodecs, ["dvh1.08.07/db4h"])
        XCTAssertEqual(v.resolution, Resolution(width: 1920, height: 1080))
        XCTAssertEqual(v.frameRate, 29.97)
        XCTAssertEqual(v.videoRange, "PQ")
        XCTAssertEqual(v.hdcpLevel, "TYPE-0")
        XCTAssertEqual(v.audio, "aac")
        XCTAssertEqual(v.subtitles, "subs")
        XCTAssertEqual(v.closedCaptions, "cc")
        XCTAssertEqual(v.score, 2.5)
        XCTAssertEqual(v.stableVariantID, "v1080")
        XCTAssertEqual(v.line, 11)
        XCTAssertTrue(p.variants[1].closedCaptionsNone)
        XCTAssertNil(p.variants[1].closedCaptions)

        XCTAssertEqual(p.renditions.count, 4)
        let en = p.renditions[0]
        XCTAssertEqual(en.type, .audio)
        XCTAssertEqual(en.groupID, "aac")
        XCTAssertEqual(en.name, "English")
        XCTAssertEqual(en.language, "en")
        XCTAssertTrue(en.isDefault)
        XCTAssertTrue(en.autoselect)
        XCTAssertEqual(en.channels, "2")
        XCTAssertEqual(en.uri, "https://cdn.example/v/audio/en.m3u8", "variables substitute in quoted strings")
        XCTAssertEqual(p.renditions[1].name, "Français")
        XCTAssertEqual(p.renditions[3].type, .closedCaptions)
        XCTAssertEqual(p.renditions[3].instreamID, "CC1")
        XCTAssertEqual(p.iFrameStreams.first?.uri, "720p-iframes.m3u8")
        XCTAssertEqual(p.iFrameStreams.first?.bandwidth, 300_000)
        XCTAssertEqual(p.sessionData.first?.dataID, "com.example.title")
        XCTAssertEqual(p.sessionKeys.first?.method, "SAMPLE-AES")
    }

    func testMediaPlaylistSegmentsCarryTheirTags() throws {
        let text = """
            #EXTM3U
            #EXT-X-VERSION:7
            #EXT-X-TARGETDURATION:6
            #EXT-X-MEDIA-SEQUENCE:100
            #EXT-X-DISCONTINUITY-SEQUENCE:3
            #EXT-X-PLAYLIST-TYPE:EVENT
            #EXT-X-INDEPENDENT-SEGMENTS
            #EXT-X-START:TIME-OFFSET=-12.5,PRECISE=YES
            #EXT-X-MAP:URI="init.mp4",BYTERANGE="720@0"
            #EXT-X-KEY:METHOD=AES-128,URI="key.bin",IV=0x0123456789abcdef0123456789abcdef
            #EXT-X-PROGRAM-DATE-TIME:2020-01-02T21:55:40.500+01:00
            #EXTINF:5.005,first segment
            #EXT-X-BYTERANGE:1000@720
            main.mp4
            #EXT-X-DISCONTINUITY
            #EXT-X-KEY:METHOD=NONE
            #EXT-X-GAP
            #EXTINF:6,
            #EXT-X-BYTERANGE:2000
            main.mp4
            """
        let parsed = try PlaylistParser.parse(text)
        XCTAssertEqual(parsed.diagnostics, [])
        let p = try XCTUnwrap(parsed.playlist.media)
        XCTAssertEqual(p.version, 7)
        XCTAssertEqual(p.targetDuration, 6)
        XCTAssertEqual(p.mediaSequence, 100)
        XCTAssertEqual(p.discontinuitySequence, 3)
        XCTAssertEqual(p.playlistType, .event)
        XCTAssertFalse(p.isVOD)
        XCTAssertTrue(p.independentSegments)
        XCTAssertEqual(p.start, StartPoint(timeOffset: -12.5, precise: true))
        XCTAssertEqual(p.segments.count, 2)
        let s0 = p.segments[0], s1 = p.segments[1]
        XCTAssertEqual(s0.duration, 5.005)
        XCTAssertEqual(s0.title, "first segment")
        XCTAssertEqual(s0.byteRange, ByteRange(length: 1000, offset: 720))
        XCTAssertEqual(s0.map, MediaInitialization(uri: "init.mp4", byteRange: ByteRange(length: 720, offset: 0)))
        XCTAssertEqual(s0.key?.method, "AES-128")
        XCTAssertEqual(s0.key?.iv, "0x0123456789abcdef0123456789abcdef")
        XCTAssertEqual(s0.programDateTime, Date(timeIntervalSince1970: 1_578_002_140.5 - 3600))
        XCTAssertEqual(s0.line, 14)
        XCTAssertTrue(s1.discontinuity)
        XCTAssertNil(s1.key, "METHOD=NONE ends encryption")
        XCTAssertTrue(s1.gap)
        XCTAssertNil(s1.title)
        XCTAssertEqual(s1.byteRange, ByteRange(length: 2000, offset: 1720), "continues the previous 1000-byte sub-range at 720")
        XCTAssertEqual(p.totalDuration, 11.005, accuracy: 1e-9)
    }

    func testDateRangeKeepsStandardAndClientAttributesWithTheirTypes() throws {
        let text = """
            #EXTM3U
            #EXT-X-TARGETDURATION:6
            #EXT-X-PROGRAM-DATE-TIME:2020-01-02T21:55:40Z
            #EXT-X-DATERANGE:ID="splice-6FFFFFF0",CLASS="com.example.ad",START-DATE="2020-01-02T21:55:44.000Z",END-DATE="2020-01-02T21:55:59Z",PLANNED-DURATION=15,SCTE35-OUT=0xFC002F0000000000FF,X-COM-EXAMPLE-AD-ID="XYZ123",X-COM-EXAMPLE-WEIGHT=-0.5,X-COM-EXAMPLE-HASH=0xABCDEF
            #EXTINF:6,
            a.ts
            """
        let p = try XCTUnwrap(try PlaylistParser.parse(text).playlist.media)
        let range = try XCTUnwrap(p.dateRanges.first)
        XCTAssertEqual(range.id, "splice-6FFFFFF0")
        XCTAssertEqual(range.classification, "com.example.ad")
        XCTAssertEqual(range.line, 4)
        XCTAssertEqual(range.endDate?.timeIntervalSince(range.startDate!), 15)
        XCTAssertEqual(range.plannedDuration, 15)
        XCTAssertEqual(range.scte35Out, "0xFC002F0000000000FF")
        XCTAssertEqual(range.clientAttributes["X-COM-EXAMPLE-AD-ID"], .quotedString("XYZ123"))
        XCTAssertEqual(range.clientAttributes["X-COM-EXAMPLE-WEIGHT"], .decimal(-0.5, text: "-0.5"))
        XCTAssertEqual(range.clientAttributes["X-COM-EXAMPLE-HASH"], .hexadecimal("0xABCDEF"))
        XCTAssertEqual(range.label, "EXT-X-DATERANGE ID=\"splice-6FFFFFF0\" (line 4)")
        XCTAssertEqual(range.typeProblems, [])
    }

    func testAttributeListGrammarProblemsAreDiagnosticsWithLineNumbers() throws {
        let text = """
            #EXTM3U
            #EXT-X-TARGETDURATION:6
            #EXT-X-DATERANGE:ID="a",ID="b",START-DATE="2020-01-02T21:55:44Z",BROKEN,X-A="unterminated
            #EXTINF:abc,
            a.ts
            b.ts
            #EXT-X-PROGRAM-DATE-TIME:yesterday
            """
        let parsed = try PlaylistParser.parse(text)
        let lines = parsed.diagnostics.map(\.line)
        XCTAssertEqual(lines, [3, 3, 3, 4, 6, 7], "\(parsed.diagnostics)")
        XCTAssertTrue(parsed.diagnostics[0].message.contains("ID appears more than once"))
        XCTAssertTrue(parsed.diagnostics[2].message.contains("no closing quote"))
        XCTAssertEqual(parsed.playlist.media?.dateRanges.first?.id, "a", "the first value wins")
        XCTAssertEqual(parsed.playlist.media?.segments.count, 2)
    }

    func testNotAPlaylistIsTheOnlyFatalError() {
        let cases: [(String, PlaylistParseError)] = [
            ("", .empty), ("  \n\n", .empty),
            ("<!DOCTYPE html><html><body>503</body></html>", .html),
            ("\n<html><head>", .html),
            ("#EXTINF:6,\na.ts", .missingHeader(firstLine: "#EXTINF:6,")),
            ("#EXTM3U8\n", .missingHeader(firstLine: "#EXTM3U8")),
        ]
        for (text, expected) in cases {
            XCTAssertThrowsError(try PlaylistParser.parse(text), text) { error in
                XCTAssertEqual(error as? PlaylistParseError, expected, text)
            }
        }
        XCTAssertThrowsError(try PlaylistParser.parse(Data([0x00, 0x00, 0x00, 0x18, 0x66, 0x74, 0x79, 0x70]))) { error in
            XCTAssertEqual(error as? PlaylistParseError, .notUTF8)
        }
        XCTAssertNoThrow(try PlaylistParser.parse(Data([0xEF, 0xBB, 0xBF] + Array("#EXTM3U\r\n#EXT-X-TARGETDURATION:2\r\n".utf8))))
    }

    func testVariablesImportAndQueryParameters() throws {
        let text = """
            #EXTM3U
            #EXT-X-DEFINE:IMPORT="cdn"
            #EXT-X-DEFINE:QUERYPARAM="token"
            #EXT-X-TARGETDURATION:6
            #EXTINF:6,
            {$cdn}/a.ts?t={$token}
            #EXTINF:6,
            {$missing}/b.ts
            """
        let context = PlaylistParsingContext(importedVariables: ["cdn": "https://cdn.example"], queryParameters: ["token": "abc"])
        let parsed = try PlaylistParser.parse(text, context: context)
        let p = try XCTUnwrap(parsed.playlist.media)
        XCTAssertEqual(p.segments[0].uri, "https://cdn.example/a.ts?t=abc")
        XCTAssertEqual(p.segments[1].uri, "{$missing}/b.ts")
        XCTAssertEqual(parsed.diagnostics.map(\.line), [8])
        XCTAssertEqual(p.definitions.map(\.kind), [.import, .queryParameter])
    }

    func testLowLatencyTagsAreTolerated() throws {
        let text = """
            #EXTM3U
            #EXT-X-TARGETDURATION:4
            #EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES,PART-HOLD-BACK=1.0,CAN-SKIP-UNTIL=24.0
            #EXT-X-PART-INF:PART-TARGET=0.33334
            #EXT-X-MEDIA-SEQUENCE:266
            #EXT-X-SKIP:SKIPPED-SEGMENTS=3
            #EXT-X-PROGRAM-DATE-TIME:2019-02-14T02:13:36.106Z
            #EXTINF:4.00008,
            fileSequence266.mp4
            #EXT-X-PART:DURATION=0.33334,URI="filePart267.0.mp4",INDEPENDENT=YES
            #EXT-X-PART:DURATION=0.33334,URI="filePart267.1.mp4"
            #EXT-X-PRELOAD-HINT:TYPE=PART,URI="filePart267.2.mp4"
            #EXT-X-RENDITION-REPORT:URI="../1M/waitForMSN.php",LAST-MSN=273,LAST-PART=2
            """
        let parsed = try PlaylistParser.parse(text)
        XCTAssertEqual(parsed.diagnostics, [])
        let p = try XCTUnwrap(parsed.playlist.media)
        XCTAssertEqual(p.segments.count, 1)
        XCTAssertEqual(p.partCount, 2)
        XCTAssertEqual(p.serverControl?["CAN-BLOCK-RELOAD"], .enumerated("YES"))
    }

    /// A date without a time zone is read as UTC and flagged; every spelling of a zone and
    /// fractions of any length are read exactly; a date that is no date is still refused.
    func testDatesWithoutATimeZoneAreReadAsUTCAndFlagged() throws {
        let utc = 1_578_002_144.0
        let spellings: [(String, Double, Bool)] = [
            ("2020-01-02T21:55:44", utc, false), ("2020-01-02T21:55:44.500", utc + 0.5, false), ("2020-01-02t21:55:44.5", utc + 0.5, false),
            ("2020-01-02T21:55:44Z", utc, true), ("2020-01-02t21:55:44z", utc, true), ("2020-01-02T22:55:44+01:00", utc, true),
            ("2020-01-02T22:55:44+0100", utc, true), ("2020-01-02T22:55:44+01", utc, true), ("2020-01-02T16:55:44-05:00", utc, true),
            ("2020-01-02T21:55:44.1Z", utc + 0.1, true), ("2020-01-02T21:55:44.123456789Z", utc + 0.123456789, true),
            ("2020-01-02T21:55:44.12345678901234567890123Z", utc + 0.123456789012345, true),
        ]
        for (text, seconds, zone) in spellings {
            let read = try XCTUnwrap(HLSDate.parseAssumingUTC(text), text)
            XCTAssertEqual(read.date.timeIntervalSince1970, seconds, accuracy: 1e-6, text)
            XCTAssertEqual(read.hasTimeZone, zone, text)
            XCTAssertEqual(HLSDate.parse(text) != nil, zone, "the strict parse wants a zone: \(text)")
        }
        for bad in ["2020-01-02T21:55:44.", "2020-01-02T21:55:44 UTC", "2020-01-02T21:55:44+1", "2020-01-02T21:55", "2020-13-02T21:55:44"] {
            XCTAssertNil(HLSDate.parseAssumingUTC(bad), bad)
        }
        let text = """
            #EXTM3U
            #EXT-X-TARGETDURATION:6
            #EXT-X-PROGRAM-DATE-TIME:2020-01-02T21:55:40
            #EXTINF:6,
            a.ts
            #EXT-X-DATERANGE:ID="ad1",CLASS="com.apple.hls.interstitial",START-DATE="2020-01-02T21:55:44.000",END-DATE="2020-01-02T21:55:59Z",X-ASSET-URI="https://a.example/ad.m3u8"
            #EXT-X-ENDLIST
            """
        let parsed = try PlaylistParser.parse(text)
        let media = try XCTUnwrap(parsed.playlist.media)
        XCTAssertEqual(parsed.diagnostics, [])
        XCTAssertEqual(media.programDateTimesWithoutTimeZone, [ZonelessDate(text: "2020-01-02T21:55:40", line: 3)])
        XCTAssertEqual(media.segments.first?.programDateTime?.timeIntervalSince1970, utc - 4)
        let range = try XCTUnwrap(media.dateRanges.first)
        XCTAssertEqual(range.datesWithoutTimeZone, ["START-DATE"])
        XCTAssertEqual(range.typeProblems, [])
        XCTAssertEqual(InterstitialSchedule(primary: media).entries.first?.offset, 4, "scheduled 4 s in, both dates read as UTC")
    }

    /// rfc8216bis 4.3: {$NAME} is substituted in hexadecimal-sequences (in any tag), not in other unquoted values.
    func testVariablesAreSubstitutedInHexadecimalSequences() throws {
        let text = """
            #EXTM3U
            #EXT-X-TARGETDURATION:6
            #EXT-X-DEFINE:NAME="id",VALUE="ab12"
            #EXT-X-DEFINE:NAME="cmd",VALUE="0xFC30"
            #EXT-X-DEFINE:NAME="bad",VALUE="ZZ"
            #EXT-X-DEFINE:NAME="n",VALUE="15"
            #EXT-X-KEY:METHOD=AES-128,URI="k.bin",IV=0x{$id}{$id}{$id}{$id}{$id}{$id}{$id}{$id}
            #EXTINF:6,
            a.ts
            #EXT-X-DATERANGE:ID="s1",START-DATE="2020-01-02T21:55:44Z",SCTE35-OUT={$cmd},X-A=0x{$id},X-B=0X{$bad},X-C={$n},X-D=0x{$nope}
            #EXT-X-ENDLIST
            """
        let parsed = try PlaylistParser.parse(text)
        let media = try XCTUnwrap(parsed.playlist.media)
        let range = try XCTUnwrap(media.dateRanges.first)
        XCTAssertEqual(range.attributes["SCTE35-OUT"], .hexadecimal("0xFC30"))
        XCTAssertEqual(range.scte35Out, "0xFC30")
        XCTAssertEqual(range.attributes["X-A"], .hexadecimal("0xab12"))
        XCTAssertEqual(range.attributes["X-B"], .enumerated("0XZZ"), "substituted, then not hexadecimal")
        XCTAssertEqual(range.attributes["X-C"], .enumerated("{$n}"), "4.3 allows no reference in a decimal: left as written")
        XCTAssertEqual(range.attributes["X-D"], .enumerated("0x{$nope}"))
        XCTAssertEqual(media.segments.first?.key?.iv?.lowercased(), "0x" + String(repeating: "ab12", count: 8))
        let messages = parsed.diagnostics.map(\.message)
        XCTAssertEqual(messages.count, 2, "\(messages)")
        XCTAssertTrue(messages.contains { $0.hasPrefix("X-C={$n}: a variable reference in an unquoted value") }, "\(messages)")
        XCTAssertTrue(messages.contains { $0.contains("{$nope} has no EXT-X-DEFINE") }, "\(messages)")
    }

    func testNumbersAndDatesParseExactly() {
        XCTAssertEqual(HLSNumber.parse("6.006"), 6.006)
        XCTAssertEqual(HLSNumber.parse("0.1"), 0.1)
        XCTAssertEqual(HLSNumber.parse("-2.5"), -2.5)
        XCTAssertEqual(HLSNumber.parse("12345678901234567890.5"), 12345678901234567890.5)
        XCTAssertNil(HLSNumber.parse("1e5"))
        XCTAssertNil(HLSNumber.parse("-"))
        XCTAssertNil(HLSNumber.parse("1.2.3"))
        XCTAssertEqual(HLSDate.parse("2020-01-02T21:55:44.000Z")?.timeIntervalSince1970, 1_578_002_144)
        XCTAssertEqual(HLSDate.parse("2020-01-02T22:55:44+01:00")?.timeIntervalSince1970, 1_578_002_144)
        XCTAssertEqual(HLSDate.parse("2020-01-02T16:25:44.25-0530")?.timeIntervalSince1970, 1_578_002_144.25)
        XCTAssertNil(HLSDate.parse("2020-01-02T21:55:44"), "a time zone is required")
        XCTAssertNil(HLSDate.parse("2021-02-29T00:00:00Z"))
        XCTAssertEqual(HLSDate.format(Date(timeIntervalSince1970: 1_578_002_144.5)), "2020-01-02T21:55:44.500Z")
    }

    func testAttributeValuesAreTypedByTheirSpelling() {
        func value(_ text: String) -> AttributeValue? {
            var diagnostics: [PlaylistDiagnostic] = []
            var copy = "A=" + text
            return copy.withUTF8 { AttributeListParser.parse($0, line: 1, tag: "T", variables: VariableTable(), diagnostics: &diagnostics) }["A"]
        }
        XCTAssertEqual(value("\"a,b\""), .quotedString("a,b"))
        XCTAssertEqual(value("0x1F"), .hexadecimal("0x1F"))
        XCTAssertEqual(value("42")?.integer, 42)
        XCTAssertEqual(value("-4.5")?.typeName, "decimal-floating-point")
        XCTAssertEqual(value("1920x1080"), .resolution(width: 1920, height: 1080))
        XCTAssertEqual(value("PQ"), .enumerated("PQ"))
    }
}
