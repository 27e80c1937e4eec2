import Foundation
import SeamcheckTestSupport
import XCTest

/// `seamcheck lint` and `seamcheck inspect` run as a user would, on local files and over HTTP.
final class LintInspectCommandTests: XCTestCase {
    var scratch: URL!
    var server: TestHTTPServer?

    override func setUpWithError() throws {
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: SeamcheckBinary.path), "build seamcheck first: \(SeamcheckBinary.path)")
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("seamcheck-lint-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        server?.stop()
        try? FileManager.default.removeItem(at: scratch)
    }

    private func write(_ name: String, _ text: String) throws -> String {
        let path = scratch.appendingPathComponent(name).path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    private func json(_ text: String) throws -> [String: Any] {
        try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], text)
    }

    /// The WWDC23 pod with local VOD assets, its break on the boundary between the primary's two
    /// segments: clean under every rule.
    private func writePod(adDuration: Int = 10) throws -> String {
        let ad1 = try write("ad1.m3u8", "#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:\(adDuration),\nad1.ts\n#EXT-X-ENDLIST\n")
        let ad2 = try write("ad2.m3u8", "#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:10,\nad2.ts\n#EXT-X-ENDLIST\n")
        return try write("pod.m3u8", """
            #EXTM3U
            #EXT-X-TARGETDURATION:10
            #EXT-X-PLAYLIST-TYPE:VOD
            #EXT-X-PROGRAM-DATE-TIME:2023-06-06T12:00:00.000Z
            #EXTINF:5.0,
            main.ts
            #EXT-X-DATERANGE:ID="ad1",CLASS="com.apple.hls.interstitial",START-DATE="2023-06-06T12:00:05.000Z",DURATION=10.0,X-ASSET-URI="file://\(ad1)",X-RESUME-OFFSET=0,X-RESTRICT="SKIP"
            #EXT-X-DATERANGE:ID="ad2",CLASS="com.apple.hls.interstitial",START-DATE="2023-06-06T12:00:05.000Z",DURATION=10.0,X-ASSET-URI="file://\(ad2)",X-RESUME-OFFSET=0
            #EXTINF:5.0,
            main2.ts
            #EXT-X-ENDLIST

            """)
    }

    func testLintOfACleanPodExitsZeroWithTheInterfaceJSON() throws {
        let result = try SeamcheckBinary.run(["lint", try writePod(), "--format", "json"])
        XCTAssertEqual(result.status, 0, result.stderr + result.stdout)
        let document = try json(result.stdout)
        XCTAssertEqual(document["schemaVersion"] as? Int, 1)
        XCTAssertEqual(document["deviceClasses"] as? [String], [])
        XCTAssertEqual((document["findings"] as? [Any])?.count, 0)
        XCTAssertEqual(document["summary"] as? [String: Int], ["error": 0, "warning": 0, "info": 0, "accepted": 0])
    }

    func testLintFindingsSetTheExitCodeAndNameTheTag() throws {
        let path = try writePod(adDuration: 4)
        let text = try String(contentsOfFile: path, encoding: .utf8)
            .replacingOccurrences(of: "X-RESTRICT=\"SKIP\"", with: "X-RESTRICT=\"SKIPP\",CUE=\"PRE,POST\"")
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let result = try SeamcheckBinary.run(["lint", path, "--format", "json"])
        XCTAssertEqual(result.status, 1, result.stderr)
        let findings = try XCTUnwrap(try json(result.stdout)["findings"] as? [[String: Any]])
        let byRule = Dictionary(grouping: findings) { $0["rule"] as? String ?? "" }
        XCTAssertEqual(Set(byRule.keys), ["cue-pre-and-post", "unknown-enumerated-value", "interstitial-duration-mismatch"])
        let cue = try XCTUnwrap(byRule["cue-pre-and-post"]?.first)
        XCTAssertEqual(cue["subject"] as? String, "EXT-X-DATERANGE ID=\"ad1\" (line 7)")
        XCTAssertEqual(cue["severity"] as? String, "error")
        XCTAssertTrue(cue["deviceClass"] is NSNull)
        XCTAssertTrue(cue["remediation"] is NSNull)
        XCTAssertEqual(byRule["unknown-enumerated-value"]?.first?["severity"] as? String, "warning")

        let lenient = try SeamcheckBinary.run(["lint", path, "--format", "table", "--fail-on", "never"])
        XCTAssertEqual(lenient.status, 0)
        XCTAssertTrue(lenient.stdout.contains("cue-pre-and-post  EXT-X-DATERANGE ID=\"ad1\" (line 7)"), lenient.stdout)
    }

    func testInspectShowsThePodAsATimeline() throws {
        let table = try SeamcheckBinary.run(["inspect", try writePod(), "--format", "table"])
        XCTAssertEqual(table.status, 0, table.stderr)
        XCTAssertTrue(table.stdout.contains("00:00:05.000  mid-roll pod of 2"), table.stdout)
        XCTAssertTrue(table.stdout.contains("1. ad1 (line 7)  10 s  resume +0 s  restrict SKIP"), table.stdout)
        XCTAssertTrue(table.stdout.contains("2. ad2 (line 8)"), table.stdout)
        XCTAssertTrue(table.stdout.contains("00:00:05.000  primary resumes"), table.stdout)

        let result = try SeamcheckBinary.run(["inspect", try writePod(), "--format", "json"])
        let document = try json(result.stdout)
        XCTAssertEqual(document["kind"] as? String, "media")
        let media = try XCTUnwrap((document["mediaPlaylists"] as? [[String: Any]])?.first)
        XCTAssertEqual(media["segmentCount"] as? Int, 2)
        XCTAssertEqual(media["startDate"] as? String, "2023-06-06T12:00:00.000Z")
        let schedule = try XCTUnwrap(document["schedule"] as? [String: Any])
        let pods = try XCTUnwrap(schedule["pods"] as? [[String: Any]])
        XCTAssertEqual(pods.first?["ids"] as? [String], ["ad1", "ad2"])
        XCTAssertEqual(pods.first?["resumesAt"] as? Double, 5)
    }

    func testNotAPlaylistAndMissingFilesExitTwoNamingTheInput() throws {
        let html = try write("error.m3u8", "<!DOCTYPE html><html><body>404</body></html>")
        for (path, words) in [(html, "HTML page"), (scratch.appendingPathComponent("none.m3u8").path, "no such file")] {
            for command in ["lint", "inspect"] {
                let result = try SeamcheckBinary.run([command, path, "--format", "json"])
                XCTAssertEqual(result.status, 2, "\(command) \(path)")
                XCTAssertEqual(result.stdout, "")
                XCTAssertTrue(result.stderr.contains(path) && result.stderr.contains(words), result.stderr)
            }
        }
    }

    func testOverHTTPAMultivariantPlaylistIsInspectedAndErrorsNameTheURL() throws {
        let root = scratch.appendingPathComponent("www").path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let server = try TestHTTPServer(root: root, lifetime: 300)
        self.server = server
        try "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=800000,RESOLUTION=640x360,CODECS=\"avc1.4d401e,mp4a.40.2\"\nv/360p.m3u8\n"
            .write(toFile: root + "/master.m3u8", atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(atPath: root + "/v", withIntermediateDirectories: true)
        try "#EXTM3U\n#EXT-X-TARGETDURATION:6\n#EXTINF:6,\na.ts\n#EXTINF:6,\nb.ts\n#EXT-X-ENDLIST\n"
            .write(toFile: root + "/v/360p.m3u8", atomically: true, encoding: .utf8)

        let result = try SeamcheckBinary.run(["inspect", server.url("/redirect/2/master.m3u8"), "--format", "json"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let document = try json(result.stdout)
        XCTAssertEqual(document["kind"] as? String, "multivariant")
        XCTAssertEqual((document["variants"] as? [[String: Any]])?.first?["bandwidth"] as? Int, 800_000)
        let media = try XCTUnwrap((document["mediaPlaylists"] as? [[String: Any]])?.first)
        XCTAssertEqual(media["location"] as? String, server.url("/files/v/360p.m3u8"))
        XCTAssertEqual(media["segmentCount"] as? Int, 2)
        XCTAssertEqual(media["duration"] as? Double, 12)

        let lint = try SeamcheckBinary.run(["lint", server.url("/files/master.m3u8"), "--format", "json"])
        XCTAssertEqual(lint.status, 0, lint.stderr)

        for (path, words) in [("/files/missing.m3u8", "HTTP 404"), ("/loop", "redirect loop"), ("/html", "HTML page"),
                              ("/huge/2147483648", "limit")] {
            let failed = try SeamcheckBinary.run(["lint", server.url(path)])
            XCTAssertEqual(failed.status, 2, path)
            XCTAssertTrue(failed.stderr.contains(server.url(path)) && failed.stderr.contains(words), failed.stderr)
        }
        let slow = try SeamcheckBinary.run(["inspect", server.url("/slow/30/master.m3u8"), "--timeout", "1"])
        XCTAssertEqual(slow.status, 2)
        XCTAssertTrue(slow.stderr.contains("no response within 1 s"), slow.stderr)
    }
}
