import Foundation
import SeamcheckTestSupport
import XCTest

/// `seamcheck audit PLAYLIST` over HTTP on 127.0.0.1: a generated primary whose interstitials
/// each differ in one parameter, one matching and one unreachable. The right rules fire for the
/// right classes and nothing else does.
final class PlaylistAuditTests: XCTestCase {
    var root: URL!
    var server: TestHTTPServer!
    var playlistURL = ""

    static let stream = InterstitialStream(
        primary: Fixtures.primaryWithSegments, primaryCodecs: "avc1.64000d,mp4a.40.2",
        ads: [
            .init(id: "ad-match", source: Fixtures.matching, boundary: 1),
            .init(id: "ad-25fps", source: Fixtures.fps25, boundary: 2),
            .init(id: "ad-ac3", source: Fixtures.ac3, multivariantCodecs: "avc1.64000d,ac-3", boundary: 3),
            .init(id: "ad-44k", source: Fixtures.aac44, boundary: 4),
            .init(id: "ad-51", source: Fixtures.surround, boundary: 5),
            .init(id: "ad-gone", source: nil, rawPath: "/status/404", boundary: 5),
        ])

    override func setUpWithError() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("seamcheck-stream-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        server = try TestHTTPServer(root: root.path)
        playlistURL = server.url(try Self.stream.write(into: root, port: server.port))
    }

    override func tearDownWithError() throws {
        server.stop()
        try? FileManager.default.removeItem(at: root)
    }

    typealias Fired = Set<String>  // "rule@class" or "rule@*" for findings without a class

    func audit(_ extra: [String] = []) throws -> (status: Int32, json: [String: Any]) {
        let result = try SeamcheckBinary.run(["audit", playlistURL, "--format", "json"] + extra)
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], result.stderr)
        return (result.status, json)
    }

    func fired(_ json: [String: Any], role: String) -> Fired {
        let findings = (json["findings"] as? [[String: Any]]) ?? []
        return Set(findings.filter { ($0["subject"] as? String ?? "").hasPrefix(role + " (") }
            .map { "\($0["rule"] as? String ?? "")@\(($0["deviceClass"] as? String) ?? "*")" })
    }

    static let video = ["apple-tv-4k", "apple-tv-hd", "mac", "screen-mirroring", "smart-tv-dolby-vision", "smart-tv-low-end"]
    static let all = video + ["speaker-audio-only"]
    func on(_ rule: String, _ classes: [String]) -> Fired { Set(classes.map { "\(rule)@\($0)" }) }

    func testEachPlaylistIsFetchedOnceAndAFailedAssetOnce() throws {
        // Loudness on (the default): it reads its renditions from the playlists the loader read too.
        _ = try audit()
        let log = try server.log()
        // The loader's fetch of the asset that answers 404 is the only one: the audit does not ask again.
        XCTAssertEqual(log.filter { $0.path == "/status/404" }.count, 1, "\(log.map(\.path))")
        // Every other playlist once, by the loader: the audit reads assets and probes renditions from what it loaded.
        let playlists = Dictionary(grouping: log.filter { $0.path.hasSuffix(".m3u8") }, by: \.path).mapValues(\.count)
        XCTAssertEqual(Set(playlists.keys), ["/files/primary/main.m3u8", "/files/primary/index.m3u8", "/files/ad-match/index.m3u8",
                                             "/files/ad-25fps/index.m3u8", "/files/ad-ac3/main.m3u8", "/files/ad-ac3/index.m3u8",
                                             "/files/ad-44k/index.m3u8", "/files/ad-51/index.m3u8"])
        for (path, count) in playlists { XCTAssertEqual(count, 1, path) }
        // Without loudness, every rendition is read once: its first segment.
        try server.resetLog()
        _ = try audit(["--no-loudness"])
        let probeLog = try server.log()
        let segments = Dictionary(grouping: probeLog.filter { $0.path.hasSuffix("seg0.m4s") }, by: \.path).mapValues(\.count)
        XCTAssertEqual(segments.count, 6, "the primary and five ads: \(segments)")
        for (path, count) in segments { XCTAssertEqual(count, 1, path) }
    }

    func testEachInterstitialFiresItsRuleForTheRightClassesAndNothingElse() throws {
        let (status, json) = try audit()
        XCTAssertEqual(status, 1, "the low-end TV takes these switches as errors")
        let assets = try XCTUnwrap(json["assets"] as? [[String: Any]])
        XCTAssertEqual(assets.compactMap { ($0["placement"] as? [String: Any])?["id"] as? String },
                       ["ad-match", "ad-25fps", "ad-ac3", "ad-44k", "ad-51", "ad-gone"])

        XCTAssertEqual(fired(json, role: "primary"), [], "the primary plays everywhere and matches its declaration")
        XCTAssertEqual(fired(json, role: "interstitial 1"), [], "ad-match matches the primary")
        XCTAssertEqual(fired(json, role: "interstitial 2"), on("frame-rate-mismatch", Self.video), "ad-25fps")
        XCTAssertEqual(fired(json, role: "interstitial 3"),
                       on("audio-codec-mismatch", ["apple-tv-4k", "apple-tv-hd", "mac", "screen-mirroring", "smart-tv-dolby-vision"])
                           .union(on("no-playable-variant", ["smart-tv-low-end", "speaker-audio-only"])),
                       "ad-ac3: AAC-only classes have nothing to play, the others switch decoders")
        XCTAssertEqual(fired(json, role: "interstitial 4"), on("sample-rate-mismatch", Self.all), "ad-44k")
        XCTAssertEqual(fired(json, role: "interstitial 5"),
                       on("channel-layout-mismatch", Self.all).union(on("unsupported-channel-count", ["smart-tv-low-end", "speaker-audio-only"])),
                       "ad-51")
        XCTAssertEqual(fired(json, role: "interstitial 6"), [], "ad-gone is reported once, by the spec rule")
        let spec = ((json["findings"] as? [[String: Any]]) ?? []).filter { $0["deviceClass"] is NSNull }
        XCTAssertEqual(spec.map { $0["rule"] as? String }, ["asset-unreachable"], "the only class-independent finding")
        XCTAssertTrue((spec.first?["subject"] as? String ?? "").hasPrefix("EXT-X-DATERANGE ID=\"ad-gone\""), "\(spec)")
    }

    func testSeveritiesAndRemediationsFollowTheClass() throws {
        let (_, json) = try audit()
        let findings = try XCTUnwrap(json["findings"] as? [[String: Any]])
        let frameRate = findings.filter { $0["rule"] as? String == "frame-rate-mismatch" }
        let severity = Dictionary(uniqueKeysWithValues: frameRate.map { ($0["deviceClass"] as! String, $0["severity"] as! String) })
        XCTAssertEqual(severity["smart-tv-low-end"], "error")
        XCTAssertEqual(severity["apple-tv-4k"], "info")
        XCTAssertEqual(frameRate.first?["remediation"] as? String, "-c:v libx264 -profile:v high -pix_fmt yuv420p -r 30000/1001 -c:a copy")
        let ad = try XCTUnwrap((json["assets"] as? [[String: Any]])?.first { ($0["placement"] as? [String: Any])?["id"] as? String == "ad-ac3" })
        let selections = try XCTUnwrap(ad["selections"] as? [[String: Any]])
        XCTAssertEqual(selections.first?["deviceClasses"] as? [String], ["apple-tv-4k", "apple-tv-hd", "mac", "screen-mirroring", "smart-tv-dolby-vision"])
    }

    func testOneClassAndTheTable() throws {
        let result = try SeamcheckBinary.run(["audit", playlistURL, "--profile", "apple-tv-4k", "--format", "table"])
        XCTAssertEqual(result.status, 0, "Apple TV 4K takes these switches as info: \(result.stdout)")
        XCTAssertTrue(result.stdout.contains("Interstitial 2  ID=\"ad-25fps\" mid-roll at 2"), result.stdout)
        XCTAssertTrue(result.stdout.contains("apple-tv-4k: " + server.url("/files/ad-25fps/index.m3u8")), result.stdout)
        let gone = try XCTUnwrap(result.stdout.range(of: "ID=\"ad-gone\""))
        XCTAssertTrue(result.stdout[gone.upperBound...].contains("asset-unreachable"),
                      "the spec finding is listed under its interstitial: \(result.stdout)")
    }

    func testOneClassesUnreadableRenditionFailsOverAndTheOtherClassesKeepTheirResults() throws {
        let splitRoot = root.appendingPathComponent("split")
        try FileManager.default.createDirectory(at: splitRoot, withIntermediateDirectories: true)
        let splitServer = try TestHTTPServer(root: splitRoot.path)
        defer { splitServer.stop() }
        let stream = InterstitialStream(primary: Fixtures.primaryWithSegments, primaryCodecs: "avc1.64000d,mp4a.40.2", ads: [
            .init(id: "ad-split", source: Fixtures.fps25, multivariantCodecs: "avc1.64000d,mp4a.40.2", boundary: 1),
        ])
        let path = try stream.write(into: splitRoot, port: splitServer.port)
        // The speaker takes the lowest-bandwidth variant, which is missing; video classes take the other.
        try """
        #EXTM3U
        #EXT-X-STREAM-INF:BANDWIDTH=900000,CODECS="avc1.64000d,mp4a.40.2",RESOLUTION=320x180,FRAME-RATE=25.000
        index.m3u8
        #EXT-X-STREAM-INF:BANDWIDTH=100000,CODECS="avc1.64000d,mp4a.40.2",RESOLUTION=320x180,FRAME-RATE=25.000
        missing.m3u8
        """.write(to: splitRoot.appendingPathComponent("ad-split/main.m3u8"), atomically: true, encoding: .utf8)
        let result = try SeamcheckBinary.run(["audit", splitServer.url(path), "--format", "json"])
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], result.stderr)
        let fired = fired(json, role: "interstitial 1")
        // As players do, the speaker fails over to the variant that loads (it used to be skipped as unreachable).
        XCTAssertTrue(fired.contains("media-not-probed@speaker-audio-only"), "\(fired)")
        XCTAssertFalse(fired.contains("asset-unreachable@speaker-audio-only"), "\(fired)")
        XCTAssertTrue(fired.contains("frame-rate-mismatch@smart-tv-low-end"), "the video classes keep their findings: \(fired)")
        XCTAssertFalse(fired.contains("asset-unreachable@smart-tv-low-end"), "\(fired)")
    }

    func testAMediaPlaylistThatImportsVariablesIsProbedAsTheLoaderReadIt() throws {
        // The segment names come from the multivariant playlist (EXT-X-DEFINE IMPORT): read alone,
        // the media playlist names {$dir}/seg0.m4s, which no server has.
        let media = try String(contentsOf: root.appendingPathComponent("primary/index.m3u8"), encoding: .utf8)
            .replacingOccurrences(of: "#EXTM3U\n", with: "#EXTM3U\n#EXT-X-DEFINE:IMPORT=\"dir\"\n")
            .replacingOccurrences(of: "URI=\"init.mp4\"", with: "URI=\"{$dir}/init.mp4\"")
            .replacingOccurrences(of: "\nseg", with: "\n{$dir}/seg")
        XCTAssertTrue(media.contains("{$dir}/seg0.m4s") && media.contains("{$dir}/init.mp4"), media)
        try media.write(to: root.appendingPathComponent("primary/imported.m3u8"), atomically: true, encoding: .utf8)
        try "#EXTM3U\n#EXT-X-DEFINE:NAME=\"dir\",VALUE=\"here\"\n#EXT-X-STREAM-INF:BANDWIDTH=500000,CODECS=\"avc1.64000d,mp4a.40.2\"\nimported.m3u8\n"
            .write(to: root.appendingPathComponent("primary/imported-main.m3u8"), atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(at: root.appendingPathComponent("primary/here"), withIntermediateDirectories: true)
        for file in try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("primary").path)
        where file.hasSuffix(".m4s") || file.hasSuffix(".mp4") {
            try FileManager.default.moveItem(at: root.appendingPathComponent("primary/" + file), to: root.appendingPathComponent("primary/here/" + file))
        }
        let result = try SeamcheckBinary.run(["audit", server.url("/files/primary/imported-main.m3u8"), "--profile", "apple-tv-4k", "--format", "json"])
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], result.stderr)
        let primary = try XCTUnwrap((json["assets"] as? [[String: Any]])?.first { $0["role"] as? String == "primary" })
        let media0 = try XCTUnwrap((primary["selections"] as? [[String: Any]])?.first?["media"] as? [String: Any], "\(json)")
        XCTAssertEqual((media0["video"] as? [[String: Any]])?.first?["codec"] as? String, "h264")
        XCTAssertFalse(fired(json, role: "primary").contains("media-not-probed@apple-tv-4k"), "\(json["findings"] ?? "")")
        XCTAssertTrue(try server.log().contains { $0.path == "/files/primary/here/seg0.m4s" })
    }

    func testUnreachablePrimaryIsExitTwo() throws {
        let result = try SeamcheckBinary.run(["audit", server.url("/status/404"), "--format", "json"])
        XCTAssertEqual(result.status, 2)
        XCTAssertEqual(result.stdout, "")
        XCTAssertTrue(result.stderr.contains("404"), result.stderr)
    }
}
