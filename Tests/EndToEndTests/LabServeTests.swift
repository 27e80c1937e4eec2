import Foundation
import LabCore
import LabRun
import LabServer
import SeamcheckTestSupport
import XCTest

/// `seamcheck lab serve` as a lab runs it, over real HTTP on 127.0.0.1 (curl as the client). The
/// suite here is a layout with placeholder bytes: what these tests check is the serving and the
/// log, not the media (the generated suite and real players are in LabClientsTests).
final class LabServeTests: XCTestCase {
    var folder = ""
    var database = ""

    override func setUpWithError() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("labserve-\(UUID().uuidString)")
            .resolvingSymlinksInPath().path
        folder = base + "/suite"
        database = base + "/lab.sqlite"
        try Self.makeSuite(at: folder, outside: base + "/outside")
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: folder).deletingLastPathComponent().path)
    }

    /// cases/mid/{master,media}.m3u8 with the origin placeholder, primary/ shared by a link,
    /// and a link that points out of the suite.
    static func makeSuite(at folder: String, outside: String) throws {
        let fm = FileManager.default
        for dir in ["primary", "cases/mid/ad", outside] {
            try fm.createDirectory(atPath: dir.hasPrefix("/") ? dir : folder + "/" + dir, withIntermediateDirectories: true)
        }
        try fm.createSymbolicLink(atPath: folder + "/cases/mid/primary", withDestinationPath: "../../primary")
        try Data("secret outside the suite".utf8).write(to: URL(fileURLWithPath: outside + "/secret.txt"))
        try fm.createSymbolicLink(atPath: folder + "/cases/mid/leak.txt", withDestinationPath: outside + "/secret.txt")
        try Data(repeating: 7, count: 1000).write(to: URL(fileURLWithPath: folder + "/primary/init.mp4"))
        for i in 0..<3 { try Data(repeating: UInt8(i), count: 4000).write(to: URL(fileURLWithPath: folder + "/primary/seg_00\(i).m4s")) }
        try "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=300000\nmedia.m3u8\n".write(toFile: folder + "/cases/mid/master.m3u8", atomically: true, encoding: .utf8)
        try """
            #EXTM3U
            #EXT-X-TARGETDURATION:2
            #EXT-X-MAP:URI="primary/init.mp4"
            #EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:00.000Z
            #EXT-X-DATERANGE:ID="ad",CLASS="com.apple.hls.interstitial",START-DATE="2026-01-01T00:00:02.000Z",X-ASSET-URI="{LAB_ORIGIN}/cases/mid/ad/ad.m3u8",X-RESUME-OFFSET=0
            #EXTINF:2,
            primary/seg_000.m4s
            #EXTINF:2,
            primary/seg_001.m4s
            #EXT-X-ENDLIST

            """.write(toFile: folder + "/cases/mid/media.m3u8", atomically: true, encoding: .utf8)
        let manifest = LabManifest(generator: "test", primaryTimeline: (0..<3).map { LabSegment(file: "seg_00\($0).m4s", start: Double($0) * 2, duration: 2) },
                                   cases: [LabCase(id: "mid", kind: .transition, varies: "none", title: "mid", rules: [],
                                                   playlist: "cases/mid/master.m3u8", interstitialPrefix: "cases/mid/ad/",
                                                   primary: LabMedia(duration: 6), variants: [LabVariant(path: "cases/mid/media.m3u8", role: .primary)])])
        try JSONEncoder().encode(manifest).write(to: URL(fileURLWithPath: folder + "/lab.json"))
    }

    func curl(_ arguments: [String]) throws -> CommandResult {
        try Command.run("curl", ["-s", "--max-time", "20"] + arguments, timeout: 60)
    }

    func testServesTheSuiteOverOneKeptAliveConnectionWithRangesAndHLSTypesAndLogsEveryRequest() throws {
        try LabServerProcess.with(streams: folder, database: database, arguments: ["--no-browse"]) { server in
            let format = "%{http_code} %{content_type} %{size_download} %{num_connects}\\n"
            let result = try curl(["-o", "/dev/null", "-w", format, server.url("/cases/mid/master.m3u8"),
                                   "--next", "-s", "-o", "/dev/null", "-w", format, server.url("/cases/mid/media.m3u8"),
                                   "--next", "-s", "-o", "/dev/null", "-w", format, "-r", "100-199", server.url("/cases/mid/primary/seg_001.m4s"),
                                   "--next", "-s", "-o", "/dev/null", "-w", format, "-H", "Range: bytes=-10", server.url("/cases/mid/primary/seg_002.m4s"),
                                   "--next", "-s", "-o", "/dev/null", "-w", format, "-r", "999999-", server.url("/cases/mid/primary/seg_000.m4s"),
                                   "--next", "-s", "-o", "/dev/null", "-w", format, server.url("/cases/mid/nothing.m4s")])
            XCTAssertEqual(result.stdout.split(separator: "\n"), [
                "200 application/vnd.apple.mpegurl \(Self.size(folder + "/cases/mid/master.m3u8")) 1",
                "200 application/vnd.apple.mpegurl \(try Self.templatedLength(folder, port: server.port)) 0",
                "206 video/iso.segment 100 0",
                "206 video/iso.segment 10 0",
                "416  0 0",
                "404  0 0",
            ], "one connection for all (num_connects 0 after the first): keep-alive")
            XCTAssertEqual(server.stop(), 0)

            let logged = try LabStore(path: database, create: false).requests()
            XCTAssertEqual(logged.map { "\($0.status) \($0.path) \($0.range ?? "-") \($0.bytes) \($0.caseId ?? "-")" }, [
                "200 /cases/mid/master.m3u8 - \(Self.size(folder + "/cases/mid/master.m3u8")) mid",
                "200 /cases/mid/media.m3u8 - \(try Self.templatedLength(folder, port: server.port)) mid",
                "206 /cases/mid/primary/seg_001.m4s bytes=100-199 100 mid",
                "206 /cases/mid/primary/seg_002.m4s bytes=-10 10 mid",
                "416 /cases/mid/primary/seg_000.m4s bytes=999999- 0 mid",
                "404 /cases/mid/nothing.m4s - 0 mid",
            ], "every request is in the database after SIGTERM")
            XCTAssertTrue(logged.allSatisfy { $0.client == "127.0.0.1" && $0.userAgent?.hasPrefix("curl/") == true && $0.completed })
        }
    }

    static func size(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? -1
    }

    static func templatedLength(_ folder: String, port: Int) throws -> Int {
        let text = try String(contentsOfFile: folder + "/cases/mid/media.m3u8", encoding: .utf8)
        return text.replacingOccurrences(of: "{LAB_ORIGIN}", with: "http://127.0.0.1:\(port)").utf8.count
    }

    func testPlaylistsNameTheAssetAtTheOriginTheClientUsed() throws {
        try LabServerProcess.with(streams: folder, database: database, arguments: ["--no-browse"]) { server in
            let body = try curl([server.url("/cases/mid/media.m3u8")]).stdout
            XCTAssertTrue(body.contains("X-ASSET-URI=\"http://127.0.0.1:\(server.port)/cases/mid/ad/ad.m3u8\""), body)
            XCTAssertFalse(body.contains("{LAB_ORIGIN}"))
            let other = try curl(["-H", "Host: labhost.local:9999", server.url("/cases/mid/media.m3u8")]).stdout
            XCTAssertTrue(other.contains("X-ASSET-URI=\"http://labhost.local:9999/cases/mid/ad/ad.m3u8\""), other)
        }
    }

    func testNothingOutsideTheSuiteIsServedAndEveryAttemptIsLogged() throws {
        try LabServerProcess.with(streams: folder, database: database, arguments: ["--no-browse"]) { server in
            let attempts = ["/cases/mid/leak.txt", "/cases/../../outside/secret.txt", "/cases/%2e%2e/%2e%2e/outside/secret.txt",
                            "/cases/mid/primary/..%2f..%2f..%2foutside%2fsecret.txt", "/%2e%2e/outside/secret.txt", "/cases/mid/%00.m3u8",
                            "/cases/mid/primary/../../../outside/secret.txt"]
            for path in attempts {
                let result = try curl(["--path-as-is", "-w", "\n%{http_code}", server.url(path)])
                XCTAssertFalse(result.stdout.contains("secret"), "\(path) leaked: \(result.stdout)")
                let status = Int(result.stdout.split(separator: "\n").last ?? "") ?? 0
                XCTAssertTrue((400..<500).contains(status), "\(path): \(status)")
            }
            server.stop()
            XCTAssertEqual(try LabStore(path: database, create: false).requests().filter { $0.status >= 400 }.count, attempts.count)
        }
    }

    func testAClientThatGoesAwayMidBodyIsLoggedAsCutAndOthersAreStillServed() throws {
        // Larger than what loopback socket buffers absorb (a few MB), so the server is still writing when the client leaves.
        let size = 48 << 20
        try Data(repeating: 9, count: size).write(to: URL(fileURLWithPath: folder + "/primary/big.m4s"))
        try LabServerProcess.with(streams: folder, database: database, arguments: ["--no-browse"]) { server in
            _ = try curl(["--limit-rate", "100k", "--max-time", "1", "-o", "/dev/null", server.url("/cases/mid/primary/big.m4s")])
            XCTAssertEqual(try curl(["-o", "/dev/null", "-w", "%{http_code}", server.url("/cases/mid/primary/seg_000.m4s")]).stdout, "200")
            server.stop()
            let big = try XCTUnwrap(try LabStore(path: database, create: false).requests().first { $0.path.hasSuffix("big.m4s") })
            XCTAssertFalse(big.completed)
            XCTAssertEqual(big.expectedBytes, size)
            XCTAssertLessThan(big.bytes, size)
        }
    }

    func testAConnectionThatSendsNothingIsClosedAtTheIdleTimeout() throws {
        try LabServerProcess.with(streams: folder, database: database, arguments: ["--no-browse", "--idle-timeout", "0.5"]) { server in
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            defer { close(fd) }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(server.port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            XCTAssertEqual(connected, 0)
            var timeout = timeval(tv_sec: 10, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            let started = Date()
            var byte: UInt8 = 0
            XCTAssertEqual(recv(fd, &byte, 1, 0), 0, "the server closes the idle connection (0 = EOF, -1 = our 10 s timeout)")
            XCTAssertLessThan(Date().timeIntervalSince(started), 5)
        }
    }

    func testABusyPortAForeignAddressAndAMissingSuiteAreExit2WithWhatToDo() throws {
        try LabServerProcess.with(streams: folder, database: database, arguments: ["--no-browse"]) { server in
            let busy = try SeamcheckBinary.run(["lab", "serve", "--streams", folder, "--bind", "127.0.0.1", "--port", String(server.port),
                                                "--db", database, "--no-browse"])
            XCTAssertEqual(busy.status, 2)
            XCTAssertTrue(busy.stderr.contains("127.0.0.1:\(server.port) is already in use"), busy.stderr)
            XCTAssertTrue(busy.stderr.contains("--port"), busy.stderr)

            let foreign = try SeamcheckBinary.run(["lab", "serve", "--streams", folder, "--bind", "192.0.2.1", "--port", "0",
                                                   "--db", database, "--no-browse"])
            XCTAssertEqual(foreign.status, 2)
            XCTAssertTrue(foreign.stderr.contains("192.0.2.1 is not an address of this host"), foreign.stderr)
            XCTAssertTrue(foreign.stderr.contains("127.0.0.1"), foreign.stderr)

            let missing = try SeamcheckBinary.run(["lab", "serve", "--streams", folder + "/nope", "--db", database, "--no-browse"])
            XCTAssertEqual(missing.status, 2)
            XCTAssertTrue(missing.stderr.contains("seamcheck lab streams --output"), missing.stderr)
        }
    }

    func testWithoutAvahiItServesAndSaysWhyClientsStayUnmapped() throws {
        try LabServerProcess.with(streams: folder, database: database,
                                  environment: ProcessInfo.processInfo.environment.merging(
                                      ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/nonexistent/seamcheck-bus"]) { _, new in new }) { server in
            XCTAssertEqual(try curl(["-o", "/dev/null", "-w", "%{http_code}", server.url("/cases/mid/master.m3u8")]).stdout, "200")
            let deadline = Date().addingTimeInterval(10)
            while !server.process.output.contains("cannot map clients to receivers"), Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
            XCTAssertTrue(server.process.output.contains("cannot map clients to receivers through Avahi"), server.process.output)
            XCTAssertTrue(server.process.output.contains("--inventory"), server.process.output)
        }
    }
}
