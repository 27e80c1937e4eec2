import Foundation
import SeamcheckTestSupport
import XCTest

/// `seamcheck audit` and `lint` on an fMP4 AES-128 primary whose init section is encrypted too
/// (the EXT-X-KEY before the EXT-X-MAP, RFC 8216 4.3.2.5), encrypted with openssl and served on
/// 127.0.0.1: the primary is probed (not `media-not-probed`) from the playlist the loader read,
/// and a key without the IV such an init section requires is a `playlist-syntax` error.
final class EncryptedInitAuditTests: XCTestCase {
    static let key = "a0a1a2a3a4a5a6a7a8a9aaabacadaeaf"
    static let iv = "000102030405060708090a0b0c0d0e0f"
    var root: URL!
    var server: TestHTTPServer!

    override func setUpWithError() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("seamcheck-liveprobe-aesaudit-\(UUID().uuidString)")
        let primary = root.appendingPathComponent("primary")
        try FileManager.default.createDirectory(at: primary, withIntermediateDirectories: true)
        server = try TestHTTPServer(root: root.path)
        let clear = try HLSFixture(name: "primary", source: Fixtures.primaryWithSegments, segmentType: .fmp4).directory()
        try FileManager.default.copyItem(atPath: try HLSFixture(name: "ad-match", source: Fixtures.matching, segmentType: .fmp4).directory(),
                                         toPath: root.appendingPathComponent("ad-match").path)
        let packager = AESPackager(clear: clear, output: primary)
        try packager.writeKey(Self.key, as: "k.bin")

        // ffmpeg's playlist, its segments encrypted: with the key's IV, and (no-iv) with their media sequence numbers.
        let text = try String(contentsOfFile: clear + "/index.m3u8", encoding: .utf8)
        var segments: [(extinf: String, uri: String)] = []
        let lines = text.components(separatedBy: "\n")
        for (index, line) in lines.enumerated() where line.hasPrefix("#EXTINF:") { segments.append((line, lines[index + 1])) }
        XCTAssertGreaterThanOrEqual(segments.count, 2, text)
        try packager.encrypt("init.mp4", key: Self.key, iv: Self.iv, as: "init-iv.mp4")
        try packager.encrypt("init.mp4", key: Self.key, iv: String(repeating: "0", count: 32), as: "init-zero.mp4")
        for (number, segment) in segments.enumerated() {
            try packager.encrypt(segment.uri, key: Self.key, iv: Self.iv, as: "iv-" + segment.uri)
            try packager.encrypt(segment.uri, key: Self.key, iv: AESPackager.sequenceIV(number), as: "seq-" + segment.uri)
        }
        let ad = "#EXT-X-DATERANGE:ID=\"ad\",CLASS=\"com.apple.hls.interstitial\",START-DATE=\"2026-01-01T00:00:02.002Z\","
            + "X-ASSET-URI=\"\(server.url("/files/ad-match/index.m3u8"))\",X-RESUME-OFFSET=0"
        func media(key: String, map: String, prefix: String) -> String {
            (["#EXTM3U", "#EXT-X-VERSION:7", "#EXT-X-TARGETDURATION:1", "#EXT-X-PLAYLIST-TYPE:VOD", key, "#EXT-X-MAP:URI=\"\(map)\"",
              "#EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:00.000Z", ad]
                + segments.flatMap { [$0.extinf, prefix + $0.uri] } + ["#EXT-X-ENDLIST"]).joined(separator: "\n") + "\n"
        }
        try media(key: "#EXT-X-KEY:METHOD=AES-128,URI=\"k.bin\",IV=0x\(Self.iv)", map: "init-iv.mp4", prefix: "iv-")
            .write(to: primary.appendingPathComponent("index.m3u8"), atomically: true, encoding: .utf8)
        try media(key: "#EXT-X-KEY:METHOD=AES-128,URI=\"k.bin\"", map: "init-zero.mp4", prefix: "seq-")
            .write(to: primary.appendingPathComponent("no-iv.m3u8"), atomically: true, encoding: .utf8)
        try "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=500000,CODECS=\"avc1.64000d,mp4a.40.2\",RESOLUTION=320x180,FRAME-RATE=29.970\nindex.m3u8\n"
            .write(to: primary.appendingPathComponent("main.m3u8"), atomically: true, encoding: .utf8)
    }

    override func tearDownWithError() throws {
        server.stop()
        try? FileManager.default.removeItem(at: root)
    }

    func run(_ arguments: [String]) throws -> (status: Int32, json: [String: Any]) {
        let result = try SeamcheckBinary.run(arguments + ["--format", "json"])
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], result.stderr)
        return (result.status, json)
    }

    func testTheEncryptedPrimaryIsProbedFromThePlaylistTheLoaderRead() throws {
        // Without loudness: the probes alone (loudness reads more segments, below).
        let (status, json) = try run(["audit", server.url("/files/primary/main.m3u8"), "--no-loudness"])
        // The clear ad matches the AES-128 primary in every media parameter; what changes is the
        // encryption (catalog v3): an error on the low-end TV, so exit 1.
        XCTAssertEqual(status, 1, "\(json["findings"] ?? "")")
        let findings = (json["findings"] as? [[String: Any]]) ?? []
        XCTAssertEqual(Set(findings.map { $0["rule"] as? String ?? "" }), ["encryption-change"], "nothing unprobed, nothing else mismatched")
        XCTAssertEqual(findings.count, 7, "one per class")
        XCTAssertTrue(findings.allSatisfy { $0["expected"] as? String == "AES-128" && $0["actual"] as? String == "clear" }, "\(findings)")
        let primary = try XCTUnwrap((json["assets"] as? [[String: Any]])?.first { $0["role"] as? String == "primary" })
        let selection = try XCTUnwrap((primary["selections"] as? [[String: Any]])?.first)
        let media = try XCTUnwrap(selection["media"] as? [String: Any])
        XCTAssertEqual((media["video"] as? [[String: Any]])?.first?["codec"] as? String, "h264", "\(media)")
        XCTAssertEqual(media["liveWindow"] as? Bool, false)
        let log = try server.log().map(\.path)
        XCTAssertEqual(log.filter { $0 == "/files/primary/index.m3u8" }.count, 1, "\(log)")
        XCTAssertEqual(log.filter { $0 == "/files/primary/k.bin" }.count, 1, "one key for init section and segment: \(log)")
        XCTAssertEqual(log.filter { $0.hasPrefix("/files/primary/iv-") }.count, 1, "the first segment only: \(log)")
    }

    func testLoudnessDecryptsTheInitSectionToo() throws {
        let (_, json) = try run(["audit", server.url("/files/primary/main.m3u8"), "--profile", "mac"])
        let ad = try XCTUnwrap((json["assets"] as? [[String: Any]])?.first { $0["role"] as? String == "interstitial 1" })
        let measured = try XCTUnwrap((ad["loudness"] as? [[String: Any]])?.first, "\(ad)")
        XCTAssertTrue(measured["problem"] is NSNull, "the programme around the break is measured: \(measured)")
        XCTAssertNotNil(measured["programme"] as? Double, "\(measured)")
        let before = try XCTUnwrap(measured["before"] as? [String: Any], "\(measured)")
        XCTAssertEqual(before["skipped"] as? [String], [], "no encrypted segment left out: \(before)")
    }

    func testAKeyWithoutTheIVAnInitSectionRequiresIsASyntaxErrorAndAZeroIVIsTried() throws {
        let url = server.url("/files/primary/no-iv.m3u8")
        let (lintStatus, lint) = try run(["lint", url])
        XCTAssertEqual(lintStatus, 1, "an error")
        let syntax = ((lint["findings"] as? [[String: Any]]) ?? []).filter { $0["rule"] as? String == "playlist-syntax" }
        XCTAssertEqual(syntax.count, 1, "\(lint)")
        XCTAssertEqual(syntax.first?["severity"] as? String, "error")
        XCTAssertTrue((syntax.first?["subject"] as? String ?? "").contains("EXT-X-MAP (line 6)"), "\(syntax)")
        XCTAssertTrue((syntax.first?["message"] as? String ?? "").contains("RFC 8216 4.3.2.5"), "\(syntax)")

        // Encrypted with a zero IV, as hls.js would read it: probed, and the finding stands.
        let (_, audit) = try run(["audit", url])
        let rules = Set(((audit["findings"] as? [[String: Any]]) ?? []).map { $0["rule"] as? String ?? "" })
        XCTAssertEqual(rules, ["playlist-syntax", "encryption-change"], "the AES-128 primary's clear ad is an encryption change: \(audit)")
    }
}
