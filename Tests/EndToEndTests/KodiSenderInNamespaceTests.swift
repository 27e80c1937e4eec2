import Foundation
import Processes
import SeamcheckTestSupport
import XCTest

/// The sender's own tests against real Kodi (`AirPlayTests.KodiSenderTests`), which this process
/// cannot run itself: Kodi lives in its network namespace. They run here as a child process inside
/// that namespace (this very test bundle, filtered to that class), given Kodi's address and the
/// stream they expect, served by the test HTTP server on the namespace's loopback. In the outer run they show as skipped; this test fails when any of
/// them fails, or when they skipped instead of running.
final class KodiSenderInNamespaceTests: XCTestCase {
    /// The stream the sender's Kodi tests expect: 20 s of H.264 320x180 + AAC in MPEG-TS segments of 4 s.
    static let stream = HLSFixture(name: "kodi-sender-ts-20s",
                                   source: MediaFixture.clip("h264-aac-20s-gop120", container: "mp4", duration: 20, video: {
                                       var video = MediaFixture.Video()
                                       video.extra = ["-g", "120", "-keyint_min", "120", "-sc_threshold", "0"]
                                       return video
                                   }()),
                                   segmentType: .mpegts, segmentSeconds: 4)

    func testTheSendersKodiTestsRunInsideKodisNamespace() async throws {
        let folder = try Self.stream.directory()
        let bundle = try XCTUnwrap(Self.testBundle(), "the running test bundle's path")
        try await KodiReceiver.with { kodi in
            // The test HTTP server inside the namespace, on its loopback: only Kodi reaches it.
            let server = try kodi.spawn([try TestEnvironment.require("python3"), MediaFixture.packageRoot + "/Tests/Server/test_http_server.py",
                                         "--root", folder, "--lifetime", "900"])
            defer { server.terminate() }
            let port = try Self.port(of: server)
            let result = try kodi.run([bundle, "AirPlayTests.KodiSenderTests"],
                                      environment: ["SEAMCHECK_AIRPLAY_RECEIVER": kodi.airplayEndpoint,
                                                    "SEAMCHECK_AIRPLAY_MEDIA": "http://127.0.0.1:\(port)/files/index.m3u8"],
                                      timeout: 600)
            let output = result.stdout + result.stderr
            print(output.split(separator: "\n").filter { $0.hasPrefix("KODI") || $0.contains("Executed") || $0.contains("error:") }
                .joined(separator: "\n"))
            XCTAssertEqual(result.status, 0, output)
            // Seven tests; only the password one skips (this Kodi has no AirPlay password).
            let totals = try XCTUnwrap(output.firstMatch(of: /Executed (\d+) tests?, with (\d+) tests? skipped and (\d+) failures?/), output)
            XCTAssertEqual(Int(totals.1), 7, output)
            XCTAssertEqual(Int(totals.2), 1, "only testPasswordOnKodi skips: \(output)")
            XCTAssertEqual(Int(totals.3), 0, output)
        }
    }

    /// The port the test HTTP server prints first ("PORT n").
    static func port(of server: RunningProcess) throws -> Int {
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline {
            if let match = server.output.firstMatch(of: /PORT (\d+)\n/), let port = Int(match.1) { return port }
            if let code = server.exitCode { throw CommandError.notFound("the test HTTP server exited \(code): \(server.output)") }
            Thread.sleep(forTimeInterval: 0.05)
        }
        throw CommandError.didNotStart("the test HTTP server did not start within 15 s: \(server.output)")
    }

    /// The xctest bundle this test runs in (`swift test` starts it by its path).
    static func testBundle() -> String? {
        let candidates = [ProcessInfo.processInfo.arguments.first, Bundle.main.executablePath].compactMap { $0 }
        return candidates.first { $0.hasSuffix(".xctest") && FileManager.default.isExecutableFile(atPath: $0) }
    }
}
