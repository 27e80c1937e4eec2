import Compatibility
import Foundation
import HLS
@testable import seamcheck
import XCTest

/// `JSONDocumentWriter` (lint's and inspect's JSON) writes the bytes Foundation's encoder, set up
/// by `JSONDocument.encoder`, writes: for lint and inspect documents of odd playlists, and for
/// odd values in every date style, pretty and compact.
final class JSONDocumentWriterTests: XCTestCase {
    private func assertSameBytes<T: Encodable>(_ value: T, pretty: Bool = true, dates: JSONDocument.Dates = .numeric,
                                               file: StaticString = #filePath, line: UInt = #line) throws {
        let foundation = try JSONDocument.encoder(pretty: pretty, dates: dates).encode(value)
        guard let written = try JSONDocumentWriter(pretty: pretty, dates: dates).encode(value) else {
            return XCTFail("the writer left \(T.self) to Foundation", file: file, line: line)
        }
        if written != Array(foundation) {
            let a = String(decoding: foundation, as: UTF8.self), b = String(decoding: written, as: UTF8.self)
            let at = zip(a, b).prefix { $0 == $1 }.count
            XCTFail("\(T.self) differs at character \(at): Foundation \(a.dropFirst(max(0, at - 80)).prefix(160).debugDescription) writer \(b.dropFirst(max(0, at - 80)).prefix(160).debugDescription)",
                    file: file, line: line)
        }
        XCTAssertEqual(try JSONDocument.encode(value, pretty: pretty, dates: dates), Array(foundation), file: file, line: line)
    }

    // MARK: Lint and inspect documents

    static let odd = "#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-TARGETDURATION:7\n#EXT-X-MEDIA-SEQUENCE:18446744073709551615\n#EXT-X-PLAYLIST-TYPE:VOD\n"
        + "#EXT-X-PROGRAM-DATE-TIME:2024-01-01T00:00:00.123456789+02:00\n"
        + "#EXT-X-DATERANGE:ID=\"ad\\\"1\\\\ \u{1}\u{7}\u{1F}\u{7F} é e\u{301} 日本 🎬 /slash\",CLASS=\"com.apple.hls.interstitial\",START-DATE=\"2024-01-01T00:00:01.5Z\",DURATION=0.1,"
        + "X-ASSET-URI=\"https://ads.example/a b/é.m3u8?x=1&y=\\\"\",X-SNAP=\"IN\",X-RESUME-OFFSET=6.006,X-B=0.0000001,X-A=123456789012345678,"
        + "X-HEX=0xDEADbeef,X-Z=\"\t tab\",X-PLAYOUT-LIMIT=1e-7,CUE=\"PRE,ONCE\"\n"
        + "#EXT-X-DATERANGE:ID=\"second\",CLASS=\"com.apple.hls.interstitial\",START-DATE=\"2024-01-01T00:00:13Z\",X-ASSET-LIST=\"list.json\",X-TIMELINE-OCCUPIES=\"RANGE\"\n"
        + "#EXT-X-DATERANGE:ID=\"plain\",START-DATE=\"2024-01-01T00:00:03Z\",PLANNED-DURATION=99999999999999999999.5,SCTE35-OUT=0xFC30\n"
        + "#EXT-X-MAP:URI=\"init.mp4\"\n#EXTINF:6.006,ünïcode title \"quoted\"\nseg 0.m4s\n#EXTINF:0.1,\nseg1.m4s\n#EXT-X-DISCONTINUITY\n"
        + "#EXTINF:1e-7,\nseg2.m4s\n#EXT-X-BOGUS:what\n#EXTINF:7.5,\n\u{1}odd.m4s\n#EXT-X-ENDLIST\n"

    static func generated(segments: Int, ranges: Int) -> String {
        var lines = ["#EXTM3U", "#EXT-X-VERSION:7", "#EXT-X-TARGETDURATION:2", "#EXT-X-PLAYLIST-TYPE:VOD", "#EXT-X-MAP:URI=\"init.mp4\""]
        for r in 0..<ranges {
            let at = String(format: "2024-01-01T00:%02d:%02d.%03dZ", r * 7 / 60, r * 7 % 60, r * 37 % 1000)
            lines.append("#EXT-X-DATERANGE:ID=\"ad\(r)\",CLASS=\"com.apple.hls.interstitial\",START-DATE=\"\(at)\",DURATION=15.0,"
                         + "X-ASSET-URI=\"https://ads.example/\(r).m3u8\",X-COM-EXAMPLE-WEIGHT=\(Double(r) / 7),X-SNAP=\"\(r % 2 == 0 ? "OUT" : "IN")\"")
        }
        lines.append("#EXT-X-PROGRAM-DATE-TIME:2024-01-01T00:00:00.000Z")
        for i in 0..<segments { lines += ["#EXTINF:2.002,", "segment_\(i).m4s"] }
        return (lines + ["#EXT-X-ENDLIST"]).joined(separator: "\n") + "\n"
    }

    static let multivariant = "#EXTM3U\n#EXT-X-INDEPENDENT-SEGMENTS\n"
        + "#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"a\",NAME=\"Français\",LANGUAGE=\"fr\",URI=\"audio.m3u8\"\n"
        + "#EXT-X-STREAM-INF:BANDWIDTH=1280000,CODECS=\"avc1.640028,mp4a.40.2\",RESOLUTION=1920x1080,FRAME-RATE=29.970,AUDIO=\"a\"\nodd.m3u8\n"
        + "#EXT-X-STREAM-INF:BANDWIDTH=640000,RESOLUTION=640x360\nmissing.m3u8\n"
        + "#EXT-X-STREAM-INF:BANDWIDTH=1\nhttps://remote.example/v.m3u8\n"

    private func documents(_ files: [String: String], input: String) async throws -> (LintDocument, InspectDocument) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("json-writer-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for (name, text) in files { try text.write(to: folder.appendingPathComponent(name), atomically: true, encoding: .utf8) }
        let path = folder.appendingPathComponent(input).path
        let linted = try await PlaylistInput.load(path, timeout: 5, fetchAssets: true, offline: true)
        let findings = SpecLinter.lint(linted) + BoundaryRule.findings(in: linted) + LocalizationRules.findings(in: linted)
        var lint = LintDocument(input: path, presentation: linted, findings: findings)
        lint.notChecked = PlaylistInput.notChecked(linted, offline: true)
        let inspected = try await PlaylistInput.load(path, timeout: 5, fetchAssets: false, offline: true)
        var inspect = InspectDocument(input: path, presentation: inspected)
        inspect.notChecked = PlaylistInput.notChecked(inspected, offline: true)
        return (lint, inspect)
    }

    func testLintAndInspectDocumentsOfOddPlaylistsAreFoundationsBytes() async throws {
        let inputs: [([String: String], String)] = [
            (["odd.m3u8": Self.odd], "odd.m3u8"),
            (["big.m3u8": Self.generated(segments: 3000, ranges: 60)], "big.m3u8"),
            (["main.m3u8": Self.multivariant, "odd.m3u8": Self.odd, "audio.m3u8": Self.generated(segments: 5, ranges: 0)], "main.m3u8"),
        ]
        for (files, input) in inputs {
            let (lint, inspect) = try await documents(files, input: input)
            XCTAssertFalse(lint.findings.isEmpty, "\(input): a document with findings is the point")
            try assertSameBytes(lint, dates: .iso8601Milliseconds)
            try assertSameBytes(inspect, dates: .iso8601Milliseconds)
            try assertSameBytes(lint, pretty: false, dates: .iso8601)
            try assertSameBytes(inspect, pretty: false, dates: .numeric)
            XCTAssertEqual(try PlaylistInput.json(lint),
                           String(decoding: try JSONDocument.encoder(dates: .iso8601Milliseconds).encode(lint), as: UTF8.self) + "\n")
        }
    }

    // MARK: Odd values

    struct Numbers: Encodable {
        var doubles: [Double] = [0.1, 1e-7, 6.006, 1e21, 1e22, -0.0, 0, 2.5e-308, .greatestFiniteMagnitude, .leastNonzeroMagnitude,
                                 123456789012345678, 0.30000000000000004, .nan, .infinity, -.infinity, 100, -2]
        var floats: [Float] = [0.1, 1e-7, 6.006, .nan, 3]
        var ints = [Int.max, Int.min, 0, -1]
        var unsigned: UInt64 = .max
        var small: Int8 = -128
        var optionalDouble: Double? = 1e-7
        var missing: Double? = nil
    }

    struct Texts: Encodable {
        var control = String((0..<32).map { Character(Unicode.Scalar(UInt8($0))) }) + "\u{7F}"
        var marks = "\"quoted\" back\\slash /slash/ </script>"
        var unicode = "é e\u{301} 日本語 🎬👩‍👩‍👧 \u{2028}\u{2029} \u{FEFF}"
        var empty = ""
    }

    struct Containers: Encodable {
        var emptyArray: [Int] = []
        var emptyObject: [String: Int] = [:]
        var nested: [[String]] = [[], ["a"], [String](repeating: "b", count: 3)]
        var keys: [String: Int] = ["b": 1, "B": 2, "a10": 3, "a9": 4, "_": 5, "é": 6, "e\u{301}x": 7, "Z": 8, "": 9, "ab": 10, "a": 11]
        var many = Dictionary(uniqueKeysWithValues: (0..<40).map { ("k\($0)", $0) })
        var intKeys: [Int: String] = [10: "ten", 9: "nine", -1: "minus"]
        var dates = [Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: 1_700_000_000.1234), Date(timeIntervalSinceReferenceDate: -1e10)]
        var url = URL(string: "https://example.com/a%20b/é?q=1#f")!
        var nothing = [Nothing(), Nothing()]
        var optionals: [String?] = ["x", nil]
    }

    /// Writes no container at all: Foundation writes `{}`.
    struct Nothing: Encodable {
        func encode(to encoder: Encoder) throws {}
    }

    /// A keyed container asked for twice, a key written twice, nested containers by hand.
    struct HandWritten: Encodable {
        enum Key: String, CodingKey { case a, b, nested, list, same }
        func encode(to encoder: Encoder) throws {
            var first = encoder.container(keyedBy: Key.self)
            try first.encode(1, forKey: .a)
            try first.encode("old", forKey: .same)
            var second = encoder.container(keyedBy: Key.self)
            try second.encode(2.5, forKey: .b)
            try second.encode("new", forKey: .same)
            var nested = second.nestedContainer(keyedBy: Key.self, forKey: .nested)
            try nested.encodeNil(forKey: .a)
            var again = second.nestedContainer(keyedBy: Key.self, forKey: .nested)
            try again.encode(true, forKey: .b)
            var list = second.nestedUnkeyedContainer(forKey: .list)
            try list.encode(1)
            var inner = list.nestedContainer(keyedBy: Key.self)
            try inner.encode(false, forKey: .a)
            var deeper = list.nestedUnkeyedContainer()
            try deeper.encodeNil()
            try deeper.encode(Nothing())
        }
    }

    func testOddValuesAreFoundationsBytesInEveryStyle() throws {
        for pretty in [true, false] {
            for dates in [JSONDocument.Dates.numeric, .iso8601, .iso8601Milliseconds] {
                try assertSameBytes(Numbers(), pretty: pretty, dates: dates)
                try assertSameBytes(Texts(), pretty: pretty, dates: dates)
                try assertSameBytes(Containers(), pretty: pretty, dates: dates)
                try assertSameBytes(HandWritten(), pretty: pretty, dates: dates)
                try assertSameBytes(["top", "level"], pretty: pretty, dates: dates)
            }
        }
    }

    func testWhatOnlyFoundationWritesIsLeftToIt() throws {
        struct Odd: Encodable { var data = Data([0, 1, 2, 255]); var decimal = Decimal(string: "0.1")! }
        XCTAssertNil(try JSONDocumentWriter().encode(Odd()))
        XCTAssertEqual(try JSONDocument.encode(Odd()), Array(try JSONDocument.encoder().encode(Odd())))
        XCTAssertThrowsError(try JSONDocument.encode(Nothing()), "a document that writes nothing is Foundation's error")
    }
}
