import Foundation
import SeamcheckTestSupport
import XCTest

final class ProbeCommandTests: XCTestCase {
    var scratch: URL!

    override func setUpWithError() throws {
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: SeamcheckBinary.path), "build seamcheck first: \(SeamcheckBinary.path)")
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("seamcheck-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: scratch)
    }

    func testProbeJSONHasInterfaceFields() throws {
        let path = try Fixtures.anamorphic.path()
        let result = try SeamcheckBinary.run(["probe", path, "--format", "json"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(json["schemaVersion"] as? Int, 1)
        XCTAssertEqual(json["input"] as? String, path)
        let video = try XCTUnwrap((json["video"] as? [[String: Any]])?.first)
        XCTAssertEqual(video["codec"] as? String, "h264")
        XCTAssertEqual(video["sampleAspectRatio"] as? String, "4:3")
        XCTAssertEqual(video["displayAspectRatio"] as? String, "16:9")
        XCTAssertEqual(video["frameRateExact"] as? String, "30000/1001")
        let audio = try XCTUnwrap((json["audio"] as? [[String: Any]])?.first)
        XCTAssertEqual(audio["sampleRate"] as? Int, 48000)
        XCTAssertEqual(audio["channelLayout"] as? String, "stereo")
    }

    func testProbeOfSeveralInputsListsThemInOrder() throws {
        let a = try Fixtures.primary.path(), b = try Fixtures.ac3.path()
        let result = try SeamcheckBinary.run(["probe", a, b, "--format", "json"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let probes = try XCTUnwrap(json["probes"] as? [[String: Any]])
        XCTAssertEqual(probes.map { $0["input"] as? String }, [a, b])
    }

    func testProbeTableIsReadable() throws {
        let result = try SeamcheckBinary.run(["probe", try Fixtures.surround.path(), "--format", "table"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("video #0: h264"), result.stdout)
        XCTAssertTrue(result.stdout.contains("aac LC 48 kHz 5.1"), result.stdout)
    }

    /// Bad inputs: exit 2, one line on stderr naming the input, nothing on stdout.
    func assertRefused(_ path: String, mentioning words: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let result = try SeamcheckBinary.run(["probe", path, "--format", "json"])
        XCTAssertEqual(result.status, 2, result.stderr, file: file, line: line)
        XCTAssertEqual(result.stdout, "", "no partial JSON on stdout", file: file, line: line)
        let lines = result.stderr.split(separator: "\n")
        XCTAssertEqual(lines.count, 1, result.stderr, file: file, line: line)
        XCTAssertTrue(result.stderr.contains(path), result.stderr, file: file, line: line)
        XCTAssertTrue(result.stderr.contains(words), result.stderr, file: file, line: line)
    }

    func testMissingFile() throws {
        try assertRefused(scratch.appendingPathComponent("missing.mp4").path, mentioning: "no such file")
    }

    func testEmptyFile() throws {
        let path = scratch.appendingPathComponent("empty.mp4").path
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data()))
        try assertRefused(path, mentioning: "empty")
    }

    func testRandomBytes() throws {
        let path = scratch.appendingPathComponent("noise.mp4").path
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data((0..<100_000).map { _ in UInt8.random(in: 0...255) })))
        try assertRefused(path, mentioning: "not a supported media file")
    }

    func testTruncatedMP4() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: try Fixtures.primary.path()))
        let path = scratch.appendingPathComponent("cut.mp4").path
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: data.prefix(data.count / 2)))
        try assertRefused(path, mentioning: "truncated")
    }

    func testAbsurdTimeoutIsAUsageErrorNotAnOverflow() throws {
        let result = try SeamcheckBinary.run(["probe", try Fixtures.primary.path(), "--timeout", "1e300"])
        XCTAssertEqual(result.status, 2, result.stderr)
        XCTAssertTrue(result.stderr.contains("--timeout"), result.stderr)
    }

    func testOneBadInputAmongGoodOnesPrintsNothingOnStdout() throws {
        let missing = scratch.appendingPathComponent("missing.mp4").path
        let result = try SeamcheckBinary.run(["probe", try Fixtures.primary.path(), missing, "--format", "json"])
        XCTAssertEqual(result.status, 2)
        XCTAssertEqual(result.stdout, "")
        XCTAssertTrue(result.stderr.contains(missing))
    }

    /// FFmpeg's own logger writes "[http @ 0x…] HTTP error 404" to stderr; every FFmpeg call, the
    /// segment reads that happen before any probe included, must go through ours instead.
    func testAMissingInitSectionIsOneErrorLineWithoutFFmpegsLogNoise() throws {
        let rendition = scratch.appendingPathComponent("rendition")
        try FileManager.default.createDirectory(at: rendition, withIntermediateDirectories: true)
        try """
        #EXTM3U
        #EXT-X-VERSION:7
        #EXT-X-TARGETDURATION:2
        #EXT-X-MAP:URI="init.mp4"
        #EXTINF:2.0,
        seg0.m4s
        #EXT-X-ENDLIST

        """.write(to: rendition.appendingPathComponent("index.m3u8"), atomically: true, encoding: .utf8)
        let server = try TestHTTPServer(root: scratch.path)
        defer { server.stop() }
        let result = try SeamcheckBinary.run(["probe", server.url("/files/rendition/index.m3u8"), "--format", "json"])
        XCTAssertEqual(result.status, 2, result.stderr)
        XCTAssertEqual(result.stdout, "")
        let lines = result.stderr.split(separator: "\n")
        XCTAssertEqual(lines.count, 1, result.stderr)
        XCTAssertTrue(result.stderr.hasPrefix("seamcheck: error: ") && result.stderr.contains("init.mp4") && result.stderr.contains("404"),
                      result.stderr)
        XCTAssertFalse(result.stderr.contains(" @ 0x"), result.stderr)
    }

    /// A segment read says what the server said (FFmpeg's own error is "Server returned 5XX"),
    /// and a redirect to the local disk is refused as such, not as "Invalid argument".
    func testASegmentReadNamesTheServersStatusAndARedirectToALocalFile() throws {
        let rendition = scratch.appendingPathComponent("rendition")
        try FileManager.default.createDirectory(at: rendition, withIntermediateDirectories: true)
        try Data("secret".utf8).write(to: scratch.appendingPathComponent("local.mp4"))
        let server = try TestHTTPServer(root: scratch.path)
        defer { server.stop() }
        for (name, initURI, expected) in [("busy", "/status/503", "the server answered 503 Service Unavailable"),
                                          ("local", "/goto?to=file://\(scratch.path)/local.mp4",
                                           "refused: the server redirected it to something other than http(s), such as a local file")] {
            try """
            #EXTM3U
            #EXT-X-VERSION:7
            #EXT-X-TARGETDURATION:2
            #EXT-X-MAP:URI="\(server.url(initURI))"
            #EXTINF:2.0,
            seg0.m4s
            #EXT-X-ENDLIST

            """.write(to: rendition.appendingPathComponent("\(name).m3u8"), atomically: true, encoding: .utf8)
            let result = try SeamcheckBinary.run(["probe", server.url("/files/rendition/\(name).m3u8"), "--format", "json"])
            XCTAssertEqual(result.status, 2, result.stderr)
            XCTAssertTrue(result.stderr.contains(expected), "\(name): \(result.stderr)")
        }
    }
}
