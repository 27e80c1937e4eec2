import Foundation
import SeamcheckTestSupport
import XCTest

/// An audit of 32 interstitials against the loopback test server, counted from the server's log:
/// the rendition probes and the loudness measurements share what they fetch, so every playlist,
/// init section and segment the audit needs is asked for once (issue 36), and none is left out.
final class AuditFetchOnceTests: XCTestCase {
    static let adCount = 32
    /// 32 distinct 2 s ads (1 s segments) on the 6 s primary's five inner boundaries.
    static let stream = InterstitialStream(
        primary: Fixtures.primaryWithSegments, primaryCodecs: "avc1.64000d,mp4a.40.2",
        ads: (1...adCount).map { .init(id: "ad\($0)", source: Fixtures.matching, boundary: 1 + ($0 - 1) % 5) })

    var root: URL!
    var server: TestHTTPServer!

    override func setUpWithError() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("seamcheck-fetch-once-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        server = try TestHTTPServer(root: root.path)
    }

    override func tearDownWithError() throws {
        server.stop()
        try? FileManager.default.removeItem(at: root)
    }

    func testEachResourceOfA32InterstitialAuditIsFetchedOnce() throws {
        let url = server.url(try Self.stream.write(into: root, port: server.port))
        try server.resetLog()
        let result = try SeamcheckBinary.run(["audit", url, "--format", "json", "--fail-on", "never"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], result.stderr)

        let log = try server.log()
        XCTAssertEqual(log.filter { $0.status >= 400 }.map(\.path), [], "every request answered")
        var asked: [String: Int] = [:]
        for request in log { asked[request.path + " " + (request.range ?? ""), default: 0] += 1 }
        XCTAssertEqual(asked.filter { $0.value > 1 }.keys.sorted(), [], "asked more than once")

        // What the audit needs: the primary's playlists, init section and every segment (the
        // programme around the breaks), every ad's playlist, init section and segments (each ad's
        // loudness is measured whole).
        let paths = Set(log.map(\.path))
        var needed = ["/files/primary/main.m3u8", "/files/primary/index.m3u8"]
        needed += try Self.resources(of: root.appendingPathComponent("primary")).map { "/files/primary/\($0)" }
        for n in 1...Self.adCount {
            needed += ["/files/ad\(n)/index.m3u8"] + (try Self.resources(of: root.appendingPathComponent("ad\(n)")).map { "/files/ad\(n)/\($0)" })
        }
        XCTAssertEqual(needed.filter { !paths.contains($0) }, [], "not fetched")
        XCTAssertEqual(paths.subtracting(needed).sorted(), [], "fetched but not needed")
        XCTAssertEqual(log.count, needed.count, "one request per resource")

        // And it measured what it read: every ad's loudness, whole, and the programme around its break.
        let assets = try XCTUnwrap(json["assets"] as? [[String: Any]]).filter { ($0["role"] as? String)?.hasPrefix("interstitial") == true }
        XCTAssertEqual(assets.count, Self.adCount)
        for asset in assets {
            let entries = try XCTUnwrap(asset["loudness"] as? [[String: Any]], "\(asset["role"] ?? "")")
            XCTAssertFalse(entries.isEmpty)
            for entry in entries {
                let whole = try XCTUnwrap(entry["interstitial"] as? [String: Any], "\(entry)")
                XCTAssertNotNil(whole["integrated"] as? Double, "\(entry)")
                XCTAssertEqual(whole["segments"] as? Int, 2, "\(entry)")
                XCTAssertNotNil(entry["difference"] as? Double, "\(entry)")
            }
        }
    }

    /// The init section and segment files a generated rendition's media playlist names.
    static func resources(of folder: URL) throws -> [String] {
        let text = try String(contentsOf: folder.appendingPathComponent("index.m3u8"), encoding: .utf8)
        var names: [String] = []
        for line in text.components(separatedBy: "\n") {
            if line.hasPrefix("#EXT-X-MAP:"), let start = line.range(of: "URI=\"") {
                names.append(String(line[start.upperBound...].prefix { $0 != "\"" }))
            } else if !line.isEmpty, !line.hasPrefix("#") {
                names.append(line)
            }
        }
        return names
    }
}
