import Foundation
import SeamcheckTestSupport
import XCTest

/// AES-128 renditions (RFC 8216 5.2) made by ffmpeg's `-hls_key_info_file`, served over HTTP on
/// 127.0.0.1: probed like clear media with their key; a bad key, a missing key and a key a remote
/// playlist names on the local disk are each an error on that rendition, and the key's bytes
/// never appear in output.
final class EncryptedRenditionTests: XCTestCase {
    static let key = EncryptedRendition.key
    var folder = ""

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("aes-\(UUID().uuidString)").path
        try EncryptedRendition.write(into: folder + "/aes")
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: folder)
    }

    func probe(_ server: TestHTTPServer, _ playlist: String) throws -> CommandResult {
        try SeamcheckBinary.run(["probe", server.url("/files/aes/" + playlist), "--format", "json"])
    }

    func testAnAES128RenditionIsDecryptedWithItsKeyAndProbed() throws {
        let text = try String(contentsOfFile: folder + "/aes/index.m3u8", encoding: .utf8)
        XCTAssertTrue(text.contains("#EXT-X-KEY:METHOD=AES-128,URI=\"key.bin\""), text)
        let server = try TestHTTPServer(root: folder)
        let result = try probe(server, "index.m3u8")
        XCTAssertEqual(result.status, 0, result.stderr)
        let document = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let media = (document["media"] as? [[String: Any]])?.first ?? document
        XCTAssertEqual((media["video"] as? [[String: Any]])?.first?["codec"] as? String, "h264", result.stdout)
        XCTAssertEqual((media["audio"] as? [[String: Any]])?.first?["codec"] as? String, "aac", result.stdout)
        let log = try server.log()
        XCTAssertTrue(log.contains { $0.path.hasSuffix("/key.bin") }, "the key was fetched from the server")
        XCTAssertEqual(log.filter { $0.path == "/files/aes/index.m3u8" }.count, 1,
                       "the playlist is fetched once: loaded to tell its kind, then probed as loaded: \(log.map(\.path))")
    }

    func testABadMissingOrLocalKeyIsAnErrorThatNeverShowsTheKey() throws {
        let text = try String(contentsOfFile: folder + "/aes/index.m3u8", encoding: .utf8)
        try Data(repeating: 0x42, count: 7).write(to: URL(fileURLWithPath: folder + "/aes/short.bin"))
        try text.replacingOccurrences(of: "key.bin", with: "short.bin").write(toFile: folder + "/aes/short.m3u8", atomically: true, encoding: .utf8)
        try text.replacingOccurrences(of: "key.bin", with: "gone.bin").write(toFile: folder + "/aes/gone.m3u8", atomically: true, encoding: .utf8)
        try Data(repeating: 0x11, count: 16).write(to: URL(fileURLWithPath: folder + "/aes/wrong.bin"))
        try text.replacingOccurrences(of: "key.bin", with: "wrong.bin").write(toFile: folder + "/aes/wrong.m3u8", atomically: true, encoding: .utf8)
        try text.replacingOccurrences(of: "key.bin", with: "file://" + folder + "/aes/key.bin")
            .write(toFile: folder + "/aes/local.m3u8", atomically: true, encoding: .utf8)
        let server = try TestHTTPServer(root: folder)
        let keyHex = Self.key.map { String(format: "%02x", $0) }.joined()

        let short = try probe(server, "short.m3u8")
        XCTAssertEqual(short.status, 2)
        XCTAssertTrue(short.stderr.contains("the AES-128 key at \(server.url("/files/aes/short.bin")) is 7 bytes, not 16"), short.stderr)
        let gone = try probe(server, "gone.m3u8")
        XCTAssertEqual(gone.status, 2)
        XCTAssertTrue(gone.stderr.contains("gone.bin"), gone.stderr)
        let wrong = try probe(server, "wrong.m3u8")
        XCTAssertEqual(wrong.status, 2)
        XCTAssertTrue(wrong.stderr.contains("no valid padding"), wrong.stderr)
        let local = try probe(server, "local.m3u8")
        XCTAssertEqual(local.status, 2, "a remote playlist never reads a local key")
        XCTAssertFalse(try server.log().contains { $0.path.hasSuffix("/key.bin") })
        for result in [short, gone, wrong, local] {
            XCTAssertFalse((result.stdout + result.stderr).lowercased().contains(keyHex), "the key's bytes are never printed")
        }
    }
}
