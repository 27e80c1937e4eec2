import Foundation
import SeamcheckTestSupport
import XCTest

/// Streams as CDNs serve them: a variant that answers 404, a file: URI in a remote playlist, a
/// primary whose segments are gone. Each failure is a finding on that part, with its URL and
/// status; the run goes on, players' failover is followed, and what was not probed is never
/// called seamless.
final class PartialFailureTests: XCTestCase {
    var root: URL!
    var server: TestHTTPServer!
    var path = ""

    static let stream = InterstitialStream(
        primary: Fixtures.primaryWithSegments, primaryCodecs: "avc1.64000d,mp4a.40.2",
        ads: [.init(id: "ad-25fps", source: Fixtures.fps25, boundary: 2)])

    override func setUpWithError() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("seamcheck-partial-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        server = try TestHTTPServer(root: root.path)
        path = try Self.stream.write(into: root, port: server.port)
    }

    override func tearDownWithError() throws {
        server.stop()
        try? FileManager.default.removeItem(at: root)
    }

    /// The primary's multivariant playlist: a preferred (higher-bandwidth) variant that is
    /// missing, the real one, and a local file a remote playlist must not read.
    func writeLadder(withLocalFile: Bool = true) throws {
        var text = """
        #EXTM3U
        #EXT-X-STREAM-INF:BANDWIDTH=900000,CODECS="avc1.64000d,mp4a.40.2",RESOLUTION=320x180,FRAME-RATE=29.970
        missing.m3u8
        #EXT-X-STREAM-INF:BANDWIDTH=500000,CODECS="avc1.64000d,mp4a.40.2",RESOLUTION=320x180,FRAME-RATE=29.970
        index.m3u8

        """
        if withLocalFile {
            text += "#EXT-X-STREAM-INF:BANDWIDTH=100000,CODECS=\"avc1.64000d,mp4a.40.2\",RESOLUTION=320x180\nfile:///etc/passwd\n"
        }
        try text.write(to: root.appendingPathComponent("primary/main.m3u8"), atomically: true, encoding: .utf8)
    }

    func json(_ text: String, _ context: String = "") throws -> [String: Any] {
        try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], context)
    }

    func findings(_ document: [String: Any]) -> [[String: Any]] { (document["findings"] as? [[String: Any]]) ?? [] }

    func testInspectShowsTheModelWithTheUnloadedVariantsMarked() throws {
        try writeLadder()
        let result = try SeamcheckBinary.run(["inspect", server.url(path), "--format", "json"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let document = try json(result.stdout, result.stderr)
        XCTAssertEqual((document["variants"] as? [[String: Any]])?.count, 3)
        XCTAssertEqual((document["mediaPlaylists"] as? [[String: Any]])?.count, 1)
        let unreachable = try XCTUnwrap(document["unreachable"] as? [[String: Any]])
        XCTAssertEqual(unreachable.map { $0["uri"] as? String }, ["missing.m3u8", "file:///etc/passwd"])
        XCTAssertEqual(unreachable.first?["status"] as? Int, 404)
        XCTAssertEqual(unreachable.first?["url"] as? String, server.url("/files/primary/missing.m3u8"))
        XCTAssertTrue((unreachable.last?["reason"] as? String ?? "").contains("local"), "\(unreachable)")
        XCTAssertNotNil(document["schedule"] as? [String: Any], "the schedule comes from the variant that loaded")

        let table = try SeamcheckBinary.run(["inspect", server.url(path), "--format", "table"])
        XCTAssertEqual(table.status, 0, table.stderr)
        XCTAssertTrue(table.stdout.contains("missing.m3u8: NOT LOADED (HTTP 404)"), table.stdout)
        XCTAssertFalse(try server.log().contains { $0.path.contains("passwd") })
    }

    func testLintReportsEachUnloadedMediaPlaylistAndLintsTheRest() throws {
        try writeLadder()
        let result = try SeamcheckBinary.run(["lint", server.url(path), "--format", "json"])
        XCTAssertEqual(result.status, 1, "media-playlist-unreachable is an error: \(result.stderr)")
        let document = try json(result.stdout, result.stderr)
        let unreachable = findings(document).filter { $0["rule"] as? String == "media-playlist-unreachable" }
        XCTAssertEqual(unreachable.count, 2, "\(unreachable)")
        let notFound = try XCTUnwrap(unreachable.first { ($0["subject"] as? String ?? "").contains("missing.m3u8") })
        XCTAssertEqual(notFound["actual"] as? String, server.url("/files/primary/missing.m3u8") + ": HTTP 404")
        XCTAssertTrue((notFound["subject"] as? String ?? "").contains("line 2"), "\(notFound)")
        XCTAssertEqual(document["playlists"] as? [String], [server.url("/files/primary/index.m3u8")])
    }

    func testAClassWhoseVariantIsMissingFailsOverAndKeepsItsTransitionFindings() throws {
        try writeLadder(withLocalFile: false)
        let result = try SeamcheckBinary.run(["audit", server.url(path), "--format", "json"])
        XCTAssertEqual(result.status, 1, result.stderr)
        let document = try json(result.stdout, result.stderr)
        let all = findings(document)
        XCTAssertFalse(all.contains { $0["rule"] as? String == "no-playable-variant" }, "\(all.map { $0["message"] ?? "" })")
        let failover = all.filter { $0["rule"] as? String == "media-not-probed" && $0["deviceClass"] as? String == "smart-tv-low-end" }
        XCTAssertEqual(failover.count, 1, "\(failover)")
        let message = failover.first?["message"] as? String ?? ""
        XCTAssertTrue(message.contains("missing.m3u8") && message.contains("HTTP 404")
                      && message.contains("fail over to " + server.url("/files/primary/index.m3u8")), message)
        XCTAssertTrue(all.contains { $0["rule"] as? String == "frame-rate-mismatch" && $0["deviceClass"] as? String == "smart-tv-low-end" },
                      "the 25 fps ad is still found against the variant the class failed over to")
        // The speaker selects the lowest bandwidth, which loads: no failover for it.
        XCTAssertFalse(all.contains { $0["rule"] as? String == "media-not-probed" && $0["deviceClass"] as? String == "speaker-audio-only" })
        let primary = (document["assets"] as? [[String: Any]])?.first { $0["role"] as? String == "primary" }
        let selections = (primary?["selections"] as? [[String: Any]]) ?? []
        XCTAssertEqual(selections.map { $0["rendition"] as? String }, [server.url("/files/primary/index.m3u8")])
    }

    func testAPrimaryThatCannotBeProbedLeavesCellsNotAuditedNeverSeamless() throws {
        for segment in 0..<6 { try FileManager.default.removeItem(at: root.appendingPathComponent("primary/seg\(segment).m4s")) }
        try FileManager.default.removeItem(at: root.appendingPathComponent("primary/init.mp4"))
        let result = try SeamcheckBinary.run(["audit", server.url(path), "--profile", "smart-tv-low-end", "--format", "json"])
        XCTAssertEqual(result.status, 1, "nothing of the primary could be read: an error (NothingReadTests): \(result.stderr)")
        let document = try json(result.stdout, result.stderr)
        let notProbed = findings(document).filter { $0["rule"] as? String == "media-not-probed" }
        XCTAssertEqual(Set(notProbed.compactMap { ($0["subject"] as? String)?.components(separatedBy: " (").first }),
                       ["primary", "interstitial 1"], "\(notProbed)")
        XCTAssertTrue(notProbed.allSatisfy { ($0["message"] as? String ?? "").contains("not audited") }, "\(notProbed)")

        let table = try SeamcheckBinary.run(["audit", server.url(path), "--profile", "smart-tv-low-end", "--format", "table",
                                             "--fail-on", "warning"])
        XCTAssertEqual(table.status, 1, table.stderr)
        XCTAssertTrue(table.stdout.contains("not audited"), table.stdout)
        XCTAssertFalse(table.stdout.contains("seamless"), table.stdout)
        let markdown = try SeamcheckBinary.run(["audit", server.url(path), "--profile", "smart-tv-low-end", "--format", "markdown"])
        XCTAssertTrue(markdown.stdout.contains("| not audited |"), markdown.stdout)
    }

    func testOfflineReadsLocalChildrenFetchesNothingAndSaysWhatWasNotChecked() throws {
        let folder = root.appendingPathComponent("primary")
        try """
        #EXTM3U
        #EXT-X-STREAM-INF:BANDWIDTH=900000,CODECS="avc1.64000d,mp4a.40.2",RESOLUTION=320x180
        \(server.url("/files/primary/index.m3u8"))
        #EXT-X-STREAM-INF:BANDWIDTH=500000,CODECS="avc1.64000d,mp4a.40.2",RESOLUTION=320x180
        index.m3u8

        """.write(to: folder.appendingPathComponent("offline.m3u8"), atomically: true, encoding: .utf8)
        try server.resetLog()
        let result = try SeamcheckBinary.run(["lint", folder.appendingPathComponent("offline.m3u8").path, "--offline", "--format", "json"])
        let document = try json(result.stdout, result.stderr)
        XCTAssertFalse(findings(document).contains { $0["rule"] as? String == "media-playlist-unreachable" || $0["rule"] as? String == "asset-unreachable" },
                       "what was not fetched is not a finding: \(findings(document))")
        let notChecked = (document["notChecked"] as? [String]) ?? []
        XCTAssertTrue(notChecked.contains { $0.contains(server.url("/files/primary/index.m3u8")) }, "\(notChecked)")
        XCTAssertTrue(notChecked.contains { $0.contains("1 interstitial(s)") }, "\(notChecked)")
        XCTAssertEqual(document["playlists"] as? [String], [folder.appendingPathComponent("index.m3u8").path])
        XCTAssertEqual(try server.log().count, 0, "--offline fetches nothing")

        let inspect = try SeamcheckBinary.run(["inspect", folder.appendingPathComponent("offline.m3u8").path, "--offline", "--format", "table"])
        XCTAssertEqual(inspect.status, 0, inspect.stderr)
        XCTAssertTrue(inspect.stdout.contains("Not checked (--offline)"), inspect.stdout)
        let remote = try SeamcheckBinary.run(["lint", server.url(path), "--offline"])
        XCTAssertEqual(remote.status, 2, "--offline needs a local playlist")
    }

    /// An ad whose preferred variant is gone is audited on the variant players fail over to, and
    /// its fix reads that variant (given the multivariant playlist, ffmpeg picks a variant itself).
    func testAnAdWithABrokenVariantIsAuditedOnTheOtherAndItsFixReadsThatOne() throws {
        let stream = InterstitialStream(primary: Fixtures.primaryWithSegments, primaryCodecs: "avc1.64000d,mp4a.40.2",
                                        ads: [.init(id: "ad-4x3", source: Fixtures.fourByThree, multivariantCodecs: "avc1.64000d,mp4a.40.2",
                                                    boundary: 2)])
        // A folder and server of its own: asset URIs are absolute from the server's root.
        let adRoot = root.appendingPathComponent("second")
        try FileManager.default.createDirectory(at: adRoot, withIntermediateDirectories: true)
        let adServer = try TestHTTPServer(root: adRoot.path)
        defer { adServer.stop() }
        let primaryPath = try stream.write(into: adRoot, port: adServer.port)
        let adMain = adRoot.appendingPathComponent("ad-4x3/main.m3u8")
        let ladder = try String(contentsOf: adMain, encoding: .utf8)
        try ladder.replacingOccurrences(of: "#EXTM3U\n", with: """
            #EXTM3U
            #EXT-X-STREAM-INF:BANDWIDTH=9000000,CODECS="avc1.64000d,mp4a.40.2",RESOLUTION=320x240
            gone/index.m3u8

            """).write(to: adMain, atomically: true, encoding: .utf8)
        let result = try SeamcheckBinary.run(["audit", adServer.url(primaryPath),
                                              "--profile", "apple-tv-4k", "--format", "json"])
        let document = try json(result.stdout, result.stderr)
        let all = findings(document)
        XCTAssertTrue(all.contains { $0["rule"] as? String == "aspect-ratio-mismatch" }, "the 4:3 ad is still found: \(all)")
        let failover = all.first { $0["rule"] as? String == "media-not-probed" }
        XCTAssertTrue((failover?["message"] as? String ?? "").contains("gone/index.m3u8"), "\(all)")
        let ad = try XCTUnwrap((document["assets"] as? [[String: Any]])?.first { $0["role"] as? String == "interstitial 1" })
        let fix = try XCTUnwrap((ad["fixes"] as? [[String: Any]])?.first?["command"] as? String, "\(ad)")
        let argv = try ShellWords.split(fix)
        XCTAssertEqual(argv.dropFirst().first, "-i")
        XCTAssertEqual(argv.dropFirst(2).first, adServer.url("/files/ad-4x3/index.m3u8"), fix)
        let run = try Command.run("ffmpeg", ["-nostdin", "-v", "error", "-y"] + argv.dropFirst(), currentDirectory: root)
        XCTAssertEqual(run.status, 0, "\(fix)\n\(run.stderr)")
    }
}
