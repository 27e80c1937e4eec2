import Foundation
import SeamcheckTestSupport
import XCTest

/// An origin that serves none of an asset (every segment or init 404, every answer 5xx, the key
/// gone, every request past the timeout) must fail CI: `audit` exits 1 at the default fail-on with
/// one error finding on that asset, and `matrix run` gives error cells. An asset some rendition of
/// which can be read stays a warning (partial failure), as before.
final class NothingReadTests: XCTestCase {
    var root: URL!
    var server: TestHTTPServer!
    var path = ""

    static let stream = InterstitialStream(
        primary: Fixtures.primaryWithSegments, primaryCodecs: "avc1.64000d,mp4a.40.2",
        ads: [.init(id: "ad-match", source: Fixtures.matching, boundary: 2),
              .init(id: "aes", source: nil, rawPath: "/files/aes/index.m3u8", boundary: 4)])

    override func setUpWithError() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("seamcheck-unread-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        server = try TestHTTPServer(root: root.path)
        path = try Self.stream.write(into: root, port: server.port)
        try EncryptedRendition.write(into: root.appendingPathComponent("aes").path)
    }

    override func tearDownWithError() throws {
        server.stop()
        try? FileManager.default.removeItem(at: root)
    }

    /// Every file of `folder` (init and segments, not playlists) answers `fault`.
    func breakMedia(of folder: String, with fault: TestHTTPServer.Fault) throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent(folder).path)
        let media = names.filter { $0.hasSuffix(".m4s") || $0.hasSuffix(".mp4") || $0.hasSuffix(".ts") }
        XCTAssertFalse(media.isEmpty, folder)
        for name in media { try server.inject(fault, at: "/files/\(folder)/\(name)") }
    }

    struct Audit {
        var status: Int32
        var findings: [[String: Any]]
        var stderr: String

        /// The error findings saying nothing of an asset was read, by the asset's role.
        var unread: [String: [String: Any]] {
            var byRole: [String: [String: Any]] = [:]
            for finding in findings where finding["rule"] as? String == "media-not-probed" && finding["deviceClass"] is NSNull
                && finding["severity"] as? String == "error" {
                byRole[((finding["subject"] as? String) ?? "").components(separatedBy: " (").first ?? ""] = finding
            }
            return byRole
        }
    }

    func audit(_ extra: [String] = []) throws -> Audit {
        let run = try SeamcheckBinary.run(["audit", server.url(path), "--format", "json", "--profile", "smart-tv-low-end",
                                           "--no-loudness"] + extra)
        let document = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any], run.stderr)
        return Audit(status: run.status, findings: (document["findings"] as? [[String: Any]]) ?? [], stderr: run.stderr)
    }

    func testAPrimaryWhoseEverySegmentAndInitAnswers404FailsTheAudit() throws {
        try breakMedia(of: "primary", with: .status(404))
        let audit = try audit()
        XCTAssertEqual(audit.status, 1, "nothing of the primary could be read: \(audit.findings)")
        let primary = try XCTUnwrap(audit.unread["primary"], "\(audit.findings)")
        XCTAssertTrue((primary["actual"] as? String ?? "").contains("404"), "\(primary)")
        XCTAssertTrue((primary["message"] as? String ?? "").contains("fix the origin"), "\(primary)")
        XCTAssertNil(audit.unread["interstitial 1"], "the ads were read: \(audit.findings)")
    }

    func testAPrimaryWhoseServerFailsEveryMediaRequestFailsTheAudit() throws {
        for status in [500, 503] {
            try server.clearFaults()
            try breakMedia(of: "primary", with: .status(status))
            let audit = try audit()
            XCTAssertEqual(audit.status, 1, "HTTP \(status): \(audit.findings)")
            XCTAssertNotNil(audit.unread["primary"], "HTTP \(status): \(audit.findings)")
        }
    }

    func testAPrimaryWhoseEveryMediaRequestTimesOutFailsTheAudit() throws {
        try breakMedia(of: "primary", with: .delay(3))
        let started = Date()
        let audit = try audit(["--timeout", "1"])
        XCTAssertEqual(audit.status, 1, "\(audit.findings)")
        XCTAssertTrue((audit.unread["primary"]?["actual"] as? String ?? "").contains("1 s"), "\(audit.findings)")
        XCTAssertLessThan(Date().timeIntervalSince(started), 15)
    }

    func testAnInterstitialWhoseMediaIsAllGoneFailsTheAuditAndTheOtherAssetsStand() throws {
        try breakMedia(of: "ad-match", with: .status(404))
        let audit = try audit()
        XCTAssertEqual(audit.status, 1, "\(audit.findings)")
        XCTAssertEqual(Set(audit.unread.keys), ["interstitial 1"], "\(audit.findings)")
        XCTAssertTrue((audit.unread["interstitial 1"]?["message"] as? String ?? "").hasPrefix("interstitial 1 \"ad-match\": nothing"),
                      "\(audit.findings)")
    }

    func testAnInterstitialWhoseKeyIsMissingFailsTheAudit() throws {
        try server.inject(.status(404), at: "/files/aes/key.bin")
        let audit = try audit()
        XCTAssertEqual(audit.status, 1, "\(audit.findings)")
        let aes = try XCTUnwrap(audit.unread["interstitial 2"], "\(audit.findings)")
        XCTAssertTrue((aes["actual"] as? String ?? "").contains("key.bin"), "\(aes)")
    }

    func testAnInterstitialWhosePlaylistIsGoneStaysTheSpecRulesAsTheProfilesGradeIt() throws {
        // No asset at that URI: players skip the ad. That is asset-unreachable (a warning unless a
        // profile or the project file says otherwise), reported once, not an unread origin.
        try server.inject(.status(404), at: "/files/ad-match/index.m3u8")
        let audit = try audit()
        XCTAssertTrue(audit.unread.isEmpty, "\(audit.findings)")
        XCTAssertTrue(audit.findings.contains { $0["rule"] as? String == "asset-unreachable" && $0["severity"] as? String == "warning" },
                      "\(audit.findings)")
    }

    func testAPartialFailureStaysAWarning() throws {
        // The preferred variant's media is gone; the class fails over to the other, which reads.
        let folder = root.appendingPathComponent("primary")
        try FileManager.default.copyItem(at: folder.appendingPathComponent("index.m3u8"), to: folder.appendingPathComponent("hi.m3u8"))
        try FileManager.default.createDirectory(at: root.appendingPathComponent("primary/hi"), withIntermediateDirectories: true)
        let hi = try String(contentsOf: folder.appendingPathComponent("index.m3u8"), encoding: .utf8)
            .replacingOccurrences(of: "seg", with: "gone-seg").replacingOccurrences(of: "init.mp4", with: "gone-init.mp4")
        try hi.write(to: folder.appendingPathComponent("hi.m3u8"), atomically: true, encoding: .utf8)
        let main = try String(contentsOf: folder.appendingPathComponent("main.m3u8"), encoding: .utf8)
        let variant = main.components(separatedBy: "\n").first { $0.hasPrefix("#EXT-X-STREAM-INF") }!
        try (main + variant.replacingOccurrences(of: "BANDWIDTH=", with: "BANDWIDTH=9") + "\nhi.m3u8\n")
            .write(to: folder.appendingPathComponent("main.m3u8"), atomically: true, encoding: .utf8)
        let audit = try audit()
        XCTAssertTrue(audit.unread.isEmpty, "\(audit.findings)")
        // (The mono AES-128 MPEG-TS ad is an error of its own on the low-end TV: channel-layout-mismatch,
        // and, against the clear fMP4 primary, container-change and encryption-change: nothing about reading.)
        XCTAssertEqual(Set(audit.findings.filter { $0["severity"] as? String == "error" }.compactMap { $0["rule"] as? String }),
                       ["channel-layout-mismatch", "container-change", "encryption-change"], "\(audit.findings)")
        XCTAssertTrue(audit.findings.contains { $0["rule"] as? String == "media-not-probed" && $0["severity"] as? String == "warning" },
                      "the failover is still said: \(audit.findings)")
    }

    func testMatrixRunGivesErrorCellsForAPrimaryNothingOfWhichIsRead() throws {
        try breakMedia(of: "primary", with: .status(404))
        let matrix = root.appendingPathComponent("matrix.yaml").path
        try """
        name: broken-origin
        deviceClasses: [apple-tv-4k, smart-tv-low-end]
        cases:
          - {id: title-1, playlist: "\(server.url(path))"}
        """.write(toFile: matrix, atomically: true, encoding: .utf8)
        let result = try SeamcheckBinary.run(["matrix", "run", matrix, "--db", root.appendingPathComponent("r.sqlite").path,
                                              "--output", root.appendingPathComponent("reports").path, "--format", "json", "--no-loudness"])
        XCTAssertEqual(result.status, 2, "error cells are exit 2 (docs/matrix.md): \(result.stderr)")
        let doc = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], result.stderr)
        let matrixCase = try XCTUnwrap((doc["cases"] as? [[String: Any]])?.first)
        let cells = try XCTUnwrap(matrixCase["cells"] as? [[String: Any]])
        XCTAssertEqual(cells.map { $0["status"] as? String }, ["error", "error"], "\(matrixCase)")
        XCTAssertTrue("\(matrixCase)".contains("nothing of it could be read"), "\(matrixCase)")
    }
}
