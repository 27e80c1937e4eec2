import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import SeamcheckTestSupport
import XCTest

/// Where command output goes and what happens when it cannot get there: `--output` onto what is
/// not a regular file, a stdout that fails (exit 2, one line on stderr) or whose reader has gone.
final class OutputTests: XCTestCase {
    var scratch: URL!

    override func setUpWithError() throws {
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: SeamcheckBinary.path), "build seamcheck first: \(SeamcheckBinary.path)")
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("seamcheck-output-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: scratch)
    }

    private func auditArguments() throws -> [String] {
        ["audit", "--primary", try Fixtures.primary.path(), "--interstitial", try Fixtures.ac3.path(), "--fail-on", "never"]
    }

    private func fileType(_ path: String) -> mode_t {
        var info = stat()
        XCTAssertEqual(lstat(path, &info), 0, path)
        return info.st_mode & S_IFMT
    }

    private func json(_ data: Data) throws -> [String: Any] {
        try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any], String(decoding: data, as: UTF8.self))
    }

    // MARK: - --output onto what is not a regular file

    func testOutputOntoAFIFOWritesThroughItAndLeavesTheFIFO() throws {
        let fifo = scratch.appendingPathComponent("report.fifo").path
        XCTAssertEqual(mkfifo(fifo, 0o600), 0, String(cString: strerror(errno)))

        // The reader opens the FIFO (blocking until seamcheck opens it for writing) and reads to the end.
        let received = ReceivedData()
        let reader = Thread {
            received.set(FileHandle(forReadingAtPath: fifo)?.readDataToEndOfFile() ?? Data())
        }
        reader.start()
        let result = try SeamcheckBinary.run(try auditArguments() + ["--format", "json", "--output", fifo])
        if !received.wait(seconds: 10) {
            // seamcheck never opened it: let the reader's open return so the thread ends.
            let unblock = open(fifo, O_WRONLY | O_NONBLOCK)
            if unblock >= 0 { close(unblock) }
            _ = received.wait(seconds: 10)
        }
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stdout, "")
        let document = try json(received.value)
        XCTAssertEqual(document["schemaVersion"] as? Int, 1)
        XCTAssertEqual(fileType(fifo), S_IFIFO, "the FIFO is still a FIFO, not replaced by a file")
    }

    func testOutputOntoASymlinkWritesItsTargetAndKeepsTheLink() throws {
        let target = scratch.appendingPathComponent("target.md").path
        let link = scratch.appendingPathComponent("link.md").path
        try "an older, longer report that must not survive in part ".write(toFile: target, atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "target.md")

        let result = try SeamcheckBinary.run(try auditArguments() + ["--format", "markdown", "--output", link])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(fileType(link), S_IFLNK, "the link is still a link")
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: link), "target.md")
        let report = try String(contentsOfFile: target, encoding: .utf8)
        XCTAssertTrue(report.hasPrefix("# Seamcheck audit\n"), report)
        XCTAssertTrue(report.contains("audio-codec-mismatch"), report)
        XCTAssertFalse(report.contains("must not survive"), "the target is truncated before it is written")

        // A link whose target does not exist yet: the target is made, as `>` would.
        let dangling = scratch.appendingPathComponent("dangling.json").path
        try FileManager.default.createSymbolicLink(atPath: dangling, withDestinationPath: "made-by-seamcheck.json")
        let second = try SeamcheckBinary.run(try auditArguments() + ["--format", "json", "--output", dangling])
        XCTAssertEqual(second.status, 0, second.stderr)
        XCTAssertEqual(fileType(dangling), S_IFLNK)
        let made = try Data(contentsOf: scratch.appendingPathComponent("made-by-seamcheck.json"))
        XCTAssertEqual(try json(made)["schemaVersion"] as? Int, 1)
    }

    func testOutputOntoADirectoryOrALinkToOneIsExitTwo() throws {
        let directory = scratch.appendingPathComponent("reports").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let link = scratch.appendingPathComponent("reports-link").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: directory)
        for path in [directory, link] {
            let result = try SeamcheckBinary.run(try auditArguments() + ["--format", "json", "--output", path])
            XCTAssertEqual(result.status, 2, path)
            XCTAssertEqual(result.stdout, "")
            XCTAssertEqual(result.stderr, "seamcheck: error: cannot write the output to \(path): Is a directory\n")
        }
        XCTAssertEqual(fileType(link), S_IFLNK)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory), [], "nothing written inside the directory")
    }

    func testOutputOntoARegularFileReplacesItWholeAndKeepsItsMode() throws {
        let path = scratch.appendingPathComponent("nested/report.json").path
        let first = try SeamcheckBinary.run(try auditArguments() + ["--format", "json", "--output", path])
        XCTAssertEqual(first.status, 0, first.stderr)
        XCTAssertEqual(fileType(path), S_IFREG)
        XCTAssertEqual(chmod(path, 0o640), 0)
        let second = try SeamcheckBinary.run(try auditArguments() + ["--format", "markdown", "--output", path])
        XCTAssertEqual(second.status, 0, second.stderr)
        XCTAssertTrue(try String(contentsOfFile: path, encoding: .utf8).hasPrefix("# Seamcheck audit\n"))
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        XCTAssertEqual((attributes[.posixPermissions] as? NSNumber)?.intValue, 0o640)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: scratch.appendingPathComponent("nested").path),
                       ["report.json"], "no temporary file is left behind")
    }

    // MARK: - A stdout that fails

    /// Runs seamcheck with stdout redirected to /dev/full by the shell.
    private func runToFullDevice(_ arguments: [String]) throws -> CommandResult {
        try Command.run("/bin/sh", ["-c", "exec \"$0\" \"$@\" > /dev/full", SeamcheckBinary.path] + arguments,
                        environment: ["NO_COLOR": "1"], currentDirectory: URL(fileURLWithPath: MediaFixture.packageRoot))
    }

    func testEveryCommandFailsWithExitTwoAndOneLineWhenStdoutIsFull() throws {
        let playlist = scratch.appendingPathComponent("media.m3u8").path
        try "#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:10,\na.ts\n#EXT-X-ENDLIST\n".write(toFile: playlist, atomically: true, encoding: .utf8)
        let media = try Fixtures.primary.path()
        let commands: [[String]] = [
            ["rules", "list", "--format", "table"],
            ["rules", "list", "--format", "json"],
            ["rules", "show", "video-codec-mismatch", "--format", "table"],
            ["profiles", "list", "--format", "table"],
            ["profiles", "show", "apple-tv-4k", "--format", "json"],
            ["profiles", "validate"],
            ["probe", media, "--format", "json"],
            ["probe", media, "--format", "table"],
            try auditArguments() + ["--format", "json"],
            try auditArguments() + ["--format", "table"],
            ["lint", playlist, "--format", "json"],
            ["lint", playlist, "--format", "table"],
            ["inspect", playlist, "--format", "json"],
            ["inspect", playlist, "--format", "table"],
            ["--help"],
            ["--version"],
        ]
        for arguments in commands {
            let result = try runToFullDevice(arguments)
            let name = arguments.joined(separator: " ")
            XCTAssertEqual(result.status, 2, name)
            XCTAssertEqual(result.stderr, "seamcheck: error: cannot write the output to standard output: No space left on device\n", name)
        }
    }

    func testMatrixHistoryAndDiffFailWithExitTwoWhenStdoutIsFull() throws {
        // A run to have a database: one case, one class.
        let matrix = scratch.appendingPathComponent("matrix.yaml").path
        try """
            name: output
            deviceClasses: [smart-tv-low-end]
            cases:
              - id: ac3
                primary: \(try Fixtures.primary.path())
                interstitials: [\(try Fixtures.ac3.path())]

            """.write(toFile: matrix, atomically: true, encoding: .utf8)
        let database = scratch.appendingPathComponent("results.sqlite").path
        let reports = scratch.appendingPathComponent("reports").path
        for _ in 0..<2 {
            let run = try SeamcheckBinary.run(["matrix", "run", matrix, "--db", database, "--output", reports, "--format", "json", "--jobs", "1"])
            XCTAssertTrue([0, 1].contains(run.status), run.stderr)
        }
        for arguments in [["matrix", "history", "--db", database, "--format", "table"],
                          ["matrix", "history", "--db", database, "--format", "json"],
                          ["matrix", "diff", "--db", database, "--format", "table"],
                          ["matrix", "diff", "--db", database, "--format", "json"],
                          ["matrix", "run", matrix, "--db", database, "--output", reports, "--format", "table", "--jobs", "1"]] {
            let result = try runToFullDevice(arguments)
            let name = arguments.joined(separator: " ")
            XCTAssertEqual(result.status, 2, name)
            XCTAssertTrue(result.stderr.hasSuffix("seamcheck: error: cannot write the output to standard output: No space left on device\n"),
                          "\(name): \(result.stderr)")
            XCTAssertFalse(result.stderr.contains("Fatal error"), name)
        }
    }

    /// A reader that has gone, with SIGPIPE ignored (as some parents leave it): no crash, no message;
    /// the process ends as SIGPIPE would have ended it.
    func testAStdoutReaderThatHasGoneEndsTheCommandQuietly() throws {
        for arguments in [["rules", "list", "--format", "table"], ["rules", "list", "--format", "json"], ["--help"]] {
            let pipe = Pipe()
            try pipe.fileHandleForReading.close()  // every write gets EPIPE
            let errors = Pipe()
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", "trap '' PIPE; exec \"$0\" \"$@\"", SeamcheckBinary.path] + arguments
            process.standardOutput = pipe.fileHandleForWriting
            process.standardError = errors
            process.standardInput = FileHandle.nullDevice
            try process.run()
            try pipe.fileHandleForWriting.close()
            let stderr = errors.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            let name = arguments.joined(separator: " ")
            XCTAssertEqual(String(decoding: stderr, as: UTF8.self), "", name)
            XCTAssertEqual(process.terminationReason, .uncaughtSignal, name)
            XCTAssertEqual(process.terminationStatus, SIGPIPE, name)
        }
    }

    // MARK: - Control characters from playlists

    func testLintAndInspectTablesShowControlCharactersFromThePlaylistEscaped() throws {
        let ad = scratch.appendingPathComponent("ad.m3u8").path
        try "#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:10,\nad.ts\n#EXT-X-ENDLIST\n".write(toFile: ad, atomically: true, encoding: .utf8)
        let id = "ad\u{1B}[31mRED\u{1B}]0;owned\u{07}\u{7F}"
        let playlist = scratch.appendingPathComponent("escape.m3u8").path
        try """
            #EXTM3U
            #EXT-X-TARGETDURATION:10
            #EXT-X-PROGRAM-DATE-TIME:2023-06-06T12:00:00.000Z
            #EXTINF:10.0,
            main.ts
            #EXT-X-DATERANGE:ID="\(id)",CLASS="com.apple.hls.interstitial",START-DATE="2023-06-06T12:00:05.000Z",CUE="PRE,POST",X-ASSET-URI="file://\(ad)"
            #EXT-X-ENDLIST

            """.write(toFile: playlist, atomically: true, encoding: .utf8)

        let lint = try SeamcheckBinary.run(["lint", playlist, "--format", "table"])
        XCTAssertEqual(lint.status, 1, lint.stderr)
        XCTAssertTrue(lint.stdout.contains("cue-pre-and-post"), lint.stdout)
        XCTAssertTrue(lint.stdout.contains(#"ID="ad\u{1B}[31mRED\u{1B}]0;owned\u{07}\u{7F}""#), lint.stdout)
        let inspect = try SeamcheckBinary.run(["inspect", playlist, "--format", "table"])
        XCTAssertEqual(inspect.status, 0, inspect.stderr)
        XCTAssertTrue(inspect.stdout.contains(#"1. ad\u{1B}[31mRED"#), inspect.stdout)
        for (name, text) in [("lint", lint.stdout), ("inspect", inspect.stdout)] {
            let controls = text.unicodeScalars.filter { ($0.value < 0x20 && $0 != "\n") || $0.value == 0x7F }
            XCTAssertEqual(controls.map(\.value), [], "\(name) printed raw control characters")
        }

        // JSON keeps the ID as it is (the encoder escapes it).
        let json = try SeamcheckBinary.run(["lint", playlist, "--format", "json"])
        let findings = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])["findings"]
        XCTAssertTrue((findings as? [[String: Any]] ?? []).contains { ($0["subject"] as? String)?.contains(id) == true }, json.stdout)
    }

    /// An audit of a playlist served over HTTP whose interstitial's DATERANGE ID carries ESC and BEL:
    /// the table and Markdown show them escaped, JUnit stays well-formed XML.
    func testAuditReportsShowAControlCharacterIDEscaped() throws {
        let root = scratch.appendingPathComponent("www")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let server = try TestHTTPServer(root: root.path, lifetime: 300)
        defer { server.stop() }
        let stream = InterstitialStream(primary: Fixtures.primaryWithSegments, primaryCodecs: "avc1.64000d,mp4a.40.2",
                                        ads: [.init(id: "ad-25fps", source: Fixtures.fps25, boundary: 2)])
        let url = server.url(try stream.write(into: root, port: server.port))
        let media = root.appendingPathComponent("primary/index.m3u8")
        let text = try String(contentsOf: media, encoding: .utf8)
        XCTAssertTrue(text.contains("ID=\"ad-25fps\""))
        try text.replacingOccurrences(of: "ID=\"ad-25fps\"", with: "ID=\"ad\u{1B}[31m25\u{07}fps\"")
            .write(to: media, atomically: true, encoding: .utf8)

        let base = ["audit", url, "--profile", "smart-tv-low-end", "--fail-on", "never"]
        for format in ["table", "markdown"] {
            let result = try SeamcheckBinary.run(base + ["--format", format])
            XCTAssertEqual(result.status, 0, result.stderr)
            XCTAssertTrue(result.stdout.contains(#"ad\u{1B}[31m25\u{07}fps"#), "\(format):\n\(result.stdout)")
            let controls = result.stdout.unicodeScalars.filter { ($0.value < 0x20 && $0 != "\n") || $0.value == 0x7F }
            XCTAssertEqual(controls.map(\.value), [], "\(format) printed raw control characters")
        }
        let junit = try SeamcheckBinary.run(base + ["--format", "junit"])
        XCTAssertEqual(junit.status, 0, junit.stderr)
        let parser = XMLParser(data: Data(junit.stdout.utf8))
        XCTAssertTrue(parser.parse(), "JUnit is not well-formed XML: \(String(describing: parser.parserError))")
        XCTAssertFalse(junit.stdout.contains("\u{1B}"))
    }

    func testErrorMessagesShowControlCharactersFromThePlaylistEscaped() throws {
        let playlist = scratch.appendingPathComponent("master.m3u8").path
        try "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=800000\nmissing\u{1B}[2J\u{1B}[31m.m3u8\n"
            .write(toFile: playlist, atomically: true, encoding: .utf8)
        // The missing variant is a finding now (media-playlist-unreachable), not exit 2: its text is escaped in the report.
        let result = try SeamcheckBinary.run(["lint", playlist, "--format", "table"])
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertTrue(result.stdout.contains("media-playlist-unreachable"), result.stdout)
        XCTAssertFalse(result.stdout.contains("\u{1B}"), result.stdout)
        XCTAssertTrue(result.stdout.contains(#"\u{1B}[2J"#) || result.stdout.contains("%1B%5B2J"), result.stdout)
    }
}

/// Bytes handed over from a reader thread.
private final class ReceivedData: @unchecked Sendable {
    private let condition = NSCondition()
    private var data: Data?

    func set(_ value: Data) {
        condition.lock()
        data = value
        condition.broadcast()
        condition.unlock()
    }

    func wait(seconds: Double) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        let deadline = Date(timeIntervalSinceNow: seconds)
        while data == nil {
            if !condition.wait(until: deadline) { return data != nil }
        }
        return true
    }

    var value: Data {
        condition.lock()
        defer { condition.unlock() }
        return data ?? Data()
    }
}
