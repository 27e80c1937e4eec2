import Foundation
import Processes
import SeamcheckTestSupport
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// `seamcheck discover --info` against the real open-source receivers Debian 12 ships, run on
/// the test avahi-daemon (scripts/services.sh: loopback only): shairport-sync 3.3.8, an AirPlay 1
/// speaker, and UxPlay 1.62, a screen-mirroring receiver. scripts/setup-deps.sh installs them;
/// with SEAMCHECK_REQUIRE_SERVICES=1 (scripts/test.sh) a receiver that cannot run is a failure.
///
/// Neither program can bind its ports to 127.0.0.1 only (no such option in these versions): they
/// listen on the wildcard address, are advertised on `lo` only, and are asked on 127.0.0.1 only.
final class DiscoverRealReceiverTests: XCTestCase {
    private var children: [RunningProcess] = []

    override func tearDown() {
        children.forEach { $0.terminate() }  // SIGTERM to these PIDs only
        children = []
    }

    func testShairportSyncAndUxPlayAreFoundClassedAndExplained() throws {
        try DiscoverEnvironment.requireAvahi()
        let suffix = String(DiscoverEnvironment.randomDeviceId().plain.suffix(4))
        let speakerName = "Seamcheck Speaker \(suffix)"
        let mirrorName = "Seamcheck Mirror \(suffix)"
        let speakerPort = try Self.freePorts(1)
        let mirrorBase = try Self.freePorts(3)

        let work = FileManager.default.temporaryDirectory.appendingPathComponent("seamcheck-real-\(suffix)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let config = work.appendingPathComponent("shairport-sync.conf")
        // The dummy backend needs no sound card; `interface` keeps the advertisement on lo.
        try """
        general = {
          name = "\(speakerName)";
          interface = "lo";
          port = \(speakerPort);
          udp_port_base = \(speakerPort + 1);
          udp_port_range = 10;
          output_backend = "dummy";
          mdns_backend = "avahi";
        };
        """.write(to: config, atomically: true, encoding: .utf8)
        let speaker = try start("shairport-sync", ["-c", config.path, "-u"])
        // -nh: no "@hostname" suffix; -vs 0 / -as 0: no video window, no audio sink; -m: a random
        // MAC, so that parallel runs do not share a device id.
        let mirror = try start("uxplay", ["-n", mirrorName, "-nh", "-vs", "0", "-as", "0", "-m", "-p", String(mirrorBase)])

        var json: [String: Any] = [:]
        var found: [String: [String: Any]] = [:]
        let deadline = Date().addingTimeInterval(20)
        repeat {
            for (name, child) in [(speakerName, speaker), (mirrorName, mirror)] where child.exitCode != nil {
                return XCTFail("\(name) exited (\(child.exitCode ?? -1)): \(child.output)")
            }
            let result = try DiscoverEnvironment.discoverJSON(["--info", "--interface", "lo"])
            XCTAssertEqual(result.status, 0, result.stderr)
            json = result.json
            for entry in json["receivers"] as? [[String: Any]] ?? [] {
                if let name = entry["name"] as? String, [speakerName, mirrorName].contains(name) { found[name] = entry }
            }
            // UxPlay registers its two records one after the other: a browse between them (a loaded
            // machine) sees the RAOP one only. Wait for both, as a user re-running discover would.
        } while (found.count < 2 || (found[mirrorName]?["services"] as? [String])?.count ?? 0 < 2) && Date() < deadline
        let shairport = try XCTUnwrap(found[speakerName], "shairport-sync not discovered: \(speaker.output)")
        let uxplay = try XCTUnwrap(found[mirrorName], "uxplay not discovered: \(mirror.output)")
        print("shairport-sync: \(Self.text(shairport))\nuxplay: \(Self.text(uxplay))")  // for the record

        // shairport-sync: a RAOP record only, no features: an AirPlay 1 speaker.
        XCTAssertEqual(shairport["services"] as? [String], ["_raop._tcp"])
        XCTAssertEqual(shairport["model"] as? String, "ShairportSync")
        XCTAssertEqual(shairport["raopPort"] as? Int, speakerPort)
        let raopTXT = try XCTUnwrap((shairport["txt"] as? [String: [String: Any]])?["_raop._tcp"])
        XCTAssertEqual(raopTXT["am"] as? String, "ShairportSync")
        XCTAssertNil(raopTXT["ft"], "3.3.8 advertises no features")
        XCTAssertEqual(shairport["deviceClass"] as? String, "speaker-audio-only")
        XCTAssertEqual(shairport["classificationReason"] as? String,
                       "speaker-audio-only: only a _raop._tcp record, no _airplay._tcp (RAOP carries audio only) (score 5)")
        // It answers GET /info RTSP/1.0 with 400: a fact in the output, not a warning.
        XCTAssertEqual(shairport["infoResult"] as? String, "refused")
        let refusal = try XCTUnwrap(shairport["infoAnsweredBy"] as? [String: Any])
        XCTAssertEqual(refusal["transport"] as? String, "RTSP/1.0")
        XCTAssertEqual(refusal["port"] as? Int, speakerPort)
        XCTAssertEqual(refusal["status"] as? Int, 400)
        XCTAssertEqual(shairport["warnings"] as? [String], [], "an AirPlay 1 speaker's missing features and refusal are facts")

        // UxPlay: both records, an Apple TV 3 model with the screen bit and no URL video.
        XCTAssertEqual(uxplay["services"] as? [String], ["_airplay._tcp", "_raop._tcp"])
        XCTAssertEqual(uxplay["model"] as? String, "AppleTV3,2")
        XCTAssertEqual(uxplay["features"] as? String, "0x000000005A7FFEE6")
        let capabilities = try XCTUnwrap(uxplay["capabilities"] as? [String: Bool])
        XCTAssertEqual(capabilities["video"], false)
        XCTAssertEqual(capabilities["screenMirroring"], true)
        XCTAssertEqual(uxplay["deviceClass"] as? String, "screen-mirroring")
        XCTAssertEqual(uxplay["classificationReason"] as? String,
                       "screen-mirroring: _airplay._tcp features=0x5A7FFEE6,0x0: bit 7 SupportsAirPlayScreen set; "
                       + "no URL video (bits 0 SupportsAirPlayVideoV1 and 49 SupportsAirPlayVideoV2 clear) (score 15)")
        // It advertises an AirPlay port nothing listens on and answers RTSP on its RAOP port.
        let airplayPort = try XCTUnwrap(uxplay["port"] as? Int)
        let raopPort = try XCTUnwrap(uxplay["raopPort"] as? Int)
        XCTAssertNotEqual(airplayPort, raopPort)
        let attempts = try XCTUnwrap(uxplay["infoAttempts"] as? [[String: Any]])
        XCTAssertEqual(attempts.first?["port"] as? Int, airplayPort)
        XCTAssertEqual(attempts.first?["result"] as? String, "connection refused (nothing listens on this port)")
        XCTAssertEqual(uxplay["infoResult"] as? String, "answered")
        let answer = try XCTUnwrap(uxplay["infoAnsweredBy"] as? [String: Any])
        XCTAssertEqual(answer["transport"] as? String, "RTSP/1.0")
        XCTAssertEqual(answer["service"] as? String, "_raop._tcp")
        XCTAssertEqual(answer["port"] as? Int, raopPort)
        XCTAssertEqual(answer["status"] as? Int, 200)
        let info = try XCTUnwrap(uxplay["info"] as? [String: Any])
        XCTAssertEqual(info["model"] as? String, "AppleTV3,2")
        XCTAssertEqual(info["name"] as? String, mirrorName)
        XCTAssertEqual(info["features"] as? String, "0x000000005A7FFEE6")
        let display = try XCTUnwrap((info["displays"] as? [[String: Any]])?.first)
        XCTAssertEqual(display["widthPixels"] as? Int, 1920)
        XCTAssertEqual(display["heightPixels"] as? Int, 1080)
        XCTAssertEqual(uxplay["classifiedBy"] as? String, "profile", "/info confirms what TXT said")
        XCTAssertEqual(uxplay["warnings"] as? [String], [])

        // The table says the same for people: capabilities, and which request answered /info.
        let table = try SeamcheckBinary.run(["discover", "--info", "--format", "table", "--interface", "lo"])
        XCTAssertEqual(table.status, 0, table.stderr)
        let lines = table.stdout.split(separator: "\n").map(String.init)
        let mirrorRow = try XCTUnwrap(lines.first { $0.hasPrefix(mirrorName + " ") }, table.stdout)
        XCTAssertTrue(mirrorRow.contains("screen-mirroring") && mirrorRow.contains("no URL video, mirroring"), mirrorRow)
        let speakerRow = try XCTUnwrap(lines.first { $0.hasPrefix(speakerName + " ") }, table.stdout)
        XCTAssertTrue(speakerRow.contains("audio only (RAOP)") && speakerRow.hasSuffix("refused (400)"), speakerRow)
        XCTAssertTrue(lines.contains("    /info: HTTP/1.1 127.0.0.1:\(airplayPort) (_airplay._tcp): connection refused (nothing listens on this port); "
            + "RTSP/1.0 127.0.0.1:\(raopPort) (_raop._tcp): 200 OK"), table.stdout)
    }

    /// Starts a receiver program; missing, it skips the test, or fails it under SEAMCHECK_REQUIRE_SERVICES=1.
    private func start(_ program: String, _ arguments: [String]) throws -> RunningProcess {
        let child = try RunningProcess(try TestEnvironment.require(program), arguments)
        children.append(child)
        return child
    }

    /// The first of `count` consecutive TCP and UDP ports that are free on every address.
    private static func freePorts(_ count: Int) throws -> Int {
        for _ in 0..<50 {
            // Below Linux's ephemeral range (32768-60999 by default): no other test process's
            // connections or port-0 listeners are handed these between the check and the receiver's bind.
            let base = Int.random(in: 10000...32000)
            if (base..<base + count + (count == 1 ? 11 : 0)).allSatisfy({ bindable($0, SOCK_STREAM) && bindable($0, SOCK_DGRAM) }) {
                return base
            }
        }
        throw CommandError.notFound("\(count) free consecutive ports")
    }

    private static func bindable(_ port: Int, _ type: __socket_type) -> Bool {
        let fd = socket(AF_INET, Int32(type.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }

    private static func text(_ object: [String: Any]) -> String {
        let keys = ["services", "port", "raopPort", "txt", "deviceClass", "classificationReason", "infoResult", "infoAttempts", "info", "warnings"]
        let subset = object.filter { keys.contains($0.key) }
        let data = (try? JSONSerialization.data(withJSONObject: subset, options: [.sortedKeys])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }
}
