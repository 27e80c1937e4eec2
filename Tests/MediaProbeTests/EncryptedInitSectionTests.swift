import Foundation
import HLS
@testable import MediaProbe
import SeamcheckTestSupport
import XCTest

/// fMP4 renditions with METHOD=AES-128 (RFC 8216 4.3.2.4-5, 5.2): ffmpeg writes the rendition in
/// the clear, openssl encrypts its init section and segments as a packager would (full-segment
/// AES-128-CBC, PKCS#7), the test server serves them. An EXT-X-MAP after an AES-128 key is
/// encrypted with that key and its IV; one before the key is clear; a key may change between the
/// init section and the first segment.
final class EncryptedInitSectionTests: XCTestCase {
    static let keyA = "a0a1a2a3a4a5a6a7a8a9aaabacadaeaf"
    static let keyB = "b0b1b2b3b4b5b6b7b8b9babbbcbdbebf"
    static let ivA = "000102030405060708090a0b0c0d0e0f"
    /// ivA with every byte's high nibble set: decrypting with the other garbles "ftyp" into bytes above 0x7F.
    static let ivB = "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff"
    static let zeroIV = String(repeating: "0", count: 32)

    var root: URL!
    var server: TestHTTPServer!
    var packager: AESPackager!

    override func setUpWithError() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("seamcheck-liveprobe-aes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        packager = AESPackager(clear: try HLSFixture(name: "primary", source: Fixtures.primaryWithSegments, segmentType: .fmp4).directory(),
                               output: root)
        try packager.writeKey(Self.keyA, as: "a.key")
        try packager.writeKey(Self.keyB, as: "b.key")
        server = try TestHTTPServer(root: root.path)
    }

    override func tearDownWithError() throws {
        server.stop()
        try? FileManager.default.removeItem(at: root)
    }

    func encrypt(_ file: String, key: String, iv: String, as name: String) throws {
        try packager.encrypt(file, key: key, iv: iv, as: name)
    }

    func copyClear(_ file: String, as name: String) throws {
        try? FileManager.default.removeItem(at: root.appendingPathComponent(name))
        try FileManager.default.copyItem(atPath: packager.clear + "/" + file, toPath: root.appendingPathComponent(name).path)
    }

    /// A VOD fMP4 playlist: `head` (keys and EXT-X-MAP, in order), then the two segments.
    func writePlaylist(_ name: String, sequence: Int = 0, head: [String], segments: [String] = ["seg0.m4s", "seg1.m4s"]) throws {
        let lines = ["#EXTM3U", "#EXT-X-VERSION:6", "#EXT-X-TARGETDURATION:1", "#EXT-X-MEDIA-SEQUENCE:\(sequence)", "#EXT-X-PLAYLIST-TYPE:VOD"]
            + head + segments.flatMap { ["#EXTINF:1.0,", $0] } + ["#EXT-X-ENDLIST"]
        try (lines.joined(separator: "\n") + "\n").write(to: root.appendingPathComponent(name), atomically: true, encoding: .utf8)
    }

    func probe(_ name: String) async throws(ProbeError) -> MediaDescription {
        let location: InputLocation
        do { location = try InputLocation(parsing: server.url("/files/" + name)) } catch { throw .invalidInput(error) }
        return try await ProbeSession().describe(location)
    }

    func assertClearMedia(_ media: MediaDescription, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(media.container, "mov,mp4,m4a,3gp,3g2,mj2", file: file, line: line)
        XCTAssertEqual(media.primaryVideo?.codec, "h264", file: file, line: line)
        XCTAssertEqual(media.primaryVideo?.width, 320, file: file, line: line)
        XCTAssertEqual(media.primaryAudio?.codec, "aac", file: file, line: line)
        XCTAssertEqual(media.primaryAudio?.sampleRate, 48000, file: file, line: line)
    }

    func requests(_ path: String) throws -> Int {
        try server.log().filter { $0.path == "/files/" + path }.count
    }

    func testAnInitSectionAfterAnAES128KeyIsDecryptedWithTheKeysIV() async throws {
        try encrypt("init.mp4", key: Self.keyA, iv: Self.ivA, as: "init-a.mp4")
        try encrypt("seg0.m4s", key: Self.keyA, iv: Self.ivA, as: "seg0-a.m4s")
        try encrypt("seg1.m4s", key: Self.keyA, iv: Self.ivA, as: "seg1-a.m4s")
        try writePlaylist("keyed-map.m3u8", head: ["#EXT-X-KEY:METHOD=AES-128,URI=\"a.key\",IV=0x\(Self.ivA)", "#EXT-X-MAP:URI=\"init-a.mp4\""],
                          segments: ["seg0-a.m4s", "seg1-a.m4s"])
        assertClearMedia(try await probe("keyed-map.m3u8"))
        XCTAssertEqual(try requests("a.key"), 1, "one key for the init section and the segment: fetched once")
        XCTAssertEqual(try requests("seg1-a.m4s"), 0, "only the first segment is read")

        // The same init section declared clear (the key written after the EXT-X-MAP) is not MP4 to FFmpeg.
        try writePlaylist("map-before-key.m3u8", head: ["#EXT-X-MAP:URI=\"init-a.mp4\"", "#EXT-X-KEY:METHOD=AES-128,URI=\"a.key\",IV=0x\(Self.ivA)"],
                          segments: ["seg0-a.m4s", "seg1-a.m4s"])
        do {
            _ = try await probe("map-before-key.m3u8")
            XCTFail("an encrypted init section read as clear cannot be probed")
        } catch {
            XCTAssertFalse(error.description.contains("a.key"), "the segment's key is not the problem: \(error)")
        }
    }

    func testAClearInitSectionBeforeTheKeyAndSegmentsWithTheMediaSequenceAsIV() async throws {
        try copyClear("init.mp4", as: "init.mp4")
        // MEDIA-SEQUENCE 7: without an IV attribute, segment n is decrypted with IV n.
        try encrypt("seg0.m4s", key: Self.keyA, iv: AESPackager.sequenceIV(7), as: "seg0-s7.m4s")
        try encrypt("seg1.m4s", key: Self.keyA, iv: AESPackager.sequenceIV(8), as: "seg1-s8.m4s")
        try writePlaylist("clear-map.m3u8", sequence: 7, head: ["#EXT-X-MAP:URI=\"init.mp4\"", "#EXT-X-KEY:METHOD=AES-128,URI=\"a.key\""],
                          segments: ["seg0-s7.m4s", "seg1-s8.m4s"])
        assertClearMedia(try await probe("clear-map.m3u8"))
        let text = try String(contentsOf: root.appendingPathComponent("clear-map.m3u8"), encoding: .utf8)
        let parsed = try PlaylistParser.parse(Data(text.utf8))
        XCTAssertEqual(parsed.diagnostics, [], "a clear init section needs no IV")
        XCTAssertNil(parsed.playlist.media?.segments.first?.map?.key, "the key comes after the EXT-X-MAP")

        // The same segments under a key written before the EXT-X-MAP: the clear init section is
        // taken for encrypted, and the error says which part failed.
        try writePlaylist("clear-map-keyed.m3u8", sequence: 7, head: ["#EXT-X-KEY:METHOD=AES-128,URI=\"a.key\",IV=0x\(Self.ivA)", "#EXT-X-MAP:URI=\"init.mp4\""],
                          segments: ["seg0-s7.m4s", "seg1-s8.m4s"])
        do {
            _ = try await probe("clear-map-keyed.m3u8")
            XCTFail("a clear init section under an AES-128 key does not decrypt")
        } catch {
            XCTAssertTrue(error.description.contains("init section"), error.description)
        }
    }

    func testAKeyRotationBetweenTheInitSectionAndTheFirstSegment() async throws {
        try encrypt("init.mp4", key: Self.keyA, iv: Self.ivA, as: "init-a.mp4")
        try encrypt("seg0.m4s", key: Self.keyB, iv: Self.ivB, as: "seg0-b.m4s")
        try encrypt("seg1.m4s", key: Self.keyB, iv: Self.ivB, as: "seg1-b.m4s")
        try writePlaylist("rotation.m3u8", head: ["#EXT-X-KEY:METHOD=AES-128,URI=\"a.key\",IV=0x\(Self.ivA)", "#EXT-X-MAP:URI=\"init-a.mp4\"",
                                                  "#EXT-X-KEY:METHOD=AES-128,URI=\"b.key\",IV=0x\(Self.ivB)"],
                          segments: ["seg0-b.m4s", "seg1-b.m4s"])
        assertClearMedia(try await probe("rotation.m3u8"))
        XCTAssertEqual(try requests("a.key"), 1)
        XCTAssertEqual(try requests("b.key"), 1)

        // METHOD=NONE between them: a clear first segment after an encrypted init section.
        try copyClear("seg0.m4s", as: "seg0.m4s")
        try copyClear("seg1.m4s", as: "seg1.m4s")
        try writePlaylist("then-clear.m3u8", head: ["#EXT-X-KEY:METHOD=AES-128,URI=\"a.key\",IV=0x\(Self.ivA)", "#EXT-X-MAP:URI=\"init-a.mp4\"",
                                                    "#EXT-X-KEY:METHOD=NONE"])
        assertClearMedia(try await probe("then-clear.m3u8"))
    }

    func testAnInitSectionKeyWithoutIVIsReportedAndTriedWithAZeroIVAsHlsJsDoes() async throws {
        try encrypt("seg0.m4s", key: Self.keyA, iv: AESPackager.sequenceIV(0), as: "seg0-s0.m4s")
        try encrypt("seg1.m4s", key: Self.keyA, iv: AESPackager.sequenceIV(1), as: "seg1-s1.m4s")
        let head = ["#EXT-X-KEY:METHOD=AES-128,URI=\"a.key\"", "#EXT-X-MAP:URI=\"init-x.mp4\""]
        try writePlaylist("no-iv.m3u8", head: head, segments: ["seg0-s0.m4s", "seg1-s1.m4s"])
        let text = try String(contentsOf: root.appendingPathComponent("no-iv.m3u8"), encoding: .utf8)
        let diagnostics = try PlaylistParser.parse(Data(text.utf8)).diagnostics
        XCTAssertEqual(diagnostics.map(\.tag), ["EXT-X-MAP"])
        XCTAssertEqual(diagnostics.map(\.line), [7], "the EXT-X-MAP's line")
        XCTAssertTrue(diagnostics.first?.message.contains("RFC 8216 4.3.2.5") == true, "\(diagnostics)")

        // Encrypted with a zero IV: read, as hls.js reads it.
        try encrypt("init.mp4", key: Self.keyA, iv: Self.zeroIV, as: "init-x.mp4")
        assertClearMedia(try await probe("no-iv.m3u8"))

        // Encrypted with another IV, which the playlist does not give: an error naming the missing IV.
        try encrypt("init.mp4", key: Self.keyA, iv: Self.ivB, as: "init-x.mp4")
        do {
            _ = try await probe("no-iv.m3u8")
            XCTFail("an init section encrypted with an unknown IV cannot be read")
        } catch {
            XCTAssertTrue(error.description.contains("has no IV, which RFC 8216 4.3.2.5 requires"), error.description)
        }
    }

    func testByteRangesOfOneFileEachEncryptedOnTheirOwn() async throws {
        // One file holding the encrypted init section and segments back to back, addressed with byte ranges.
        var parts: [Data] = []
        for (file, name) in [("init.mp4", "r-init"), ("seg0.m4s", "r-seg0"), ("seg1.m4s", "r-seg1")] {
            try encrypt(file, key: Self.keyA, iv: Self.ivA, as: name)
            parts.append(try Data(contentsOf: root.appendingPathComponent(name)))
        }
        try parts.reduce(Data(), +).write(to: root.appendingPathComponent("all.bin"))
        let offsets = parts.indices.map { parts[..<$0].map(\.count).reduce(0, +) }
        try writePlaylist("ranges.m3u8", head: ["#EXT-X-KEY:METHOD=AES-128,URI=\"a.key\",IV=0x\(Self.ivA)",
                                                "#EXT-X-MAP:URI=\"all.bin\",BYTERANGE=\"\(parts[0].count)@0\""],
                          segments: ["#EXT-X-BYTERANGE:\(parts[1].count)@\(offsets[1])\nall.bin", "#EXT-X-BYTERANGE:\(parts[2].count)@\(offsets[2])\nall.bin"])
        assertClearMedia(try await probe("ranges.m3u8"))
        let reads = try server.log().filter { $0.path == "/files/all.bin" }
        // The init section and the first segment are fetched at once (either may arrive first): each once.
        XCTAssertEqual(Set(reads.compactMap(\.range)), ["bytes=0-\(parts[0].count - 1)", "bytes=\(offsets[1])-\(offsets[2] - 1)"])
        XCTAssertEqual(reads.count, 2)
    }

    func testAWrongIVOrKeyForTheInitSectionSaysSo() async throws {
        try encrypt("init.mp4", key: Self.keyA, iv: Self.ivB, as: "init-b.mp4")
        try encrypt("seg0.m4s", key: Self.keyA, iv: Self.ivA, as: "seg0-a.m4s")
        try encrypt("seg1.m4s", key: Self.keyA, iv: Self.ivA, as: "seg1-a.m4s")
        // CBC with the wrong IV garbles the first block only: the padding is fine, the box is not.
        try writePlaylist("wrong-iv.m3u8", head: ["#EXT-X-KEY:METHOD=AES-128,URI=\"a.key\",IV=0x\(Self.ivA)", "#EXT-X-MAP:URI=\"init-b.mp4\""],
                          segments: ["seg0-a.m4s", "seg1-a.m4s"])
        do {
            _ = try await probe("wrong-iv.m3u8")
            XCTFail("a wrong IV must not pass")
        } catch {
            XCTAssertTrue(error.description.contains("the EXT-X-KEY's IV is not the one it was encrypted with"), error.description)
        }
        // The wrong key: the padding check catches it.
        try writePlaylist("wrong-key.m3u8", head: ["#EXT-X-KEY:METHOD=AES-128,URI=\"b.key\",IV=0x\(Self.ivB)", "#EXT-X-MAP:URI=\"init-b.mp4\""],
                          segments: ["seg0-a.m4s", "seg1-a.m4s"])
        do {
            _ = try await probe("wrong-key.m3u8")
            XCTFail("a wrong key must not pass")
        } catch {
            XCTAssertTrue(error.description.contains("decryption of the init section gave no valid padding"), error.description)
        }
    }
}
