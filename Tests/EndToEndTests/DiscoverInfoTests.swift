import Foundation
import SeamcheckTestSupport
import XCTest

/// `seamcheck discover --info`: receivers published on loopback whose AirPlay port is a fake
/// `/info` endpoint (Tests/Server/airplay_info_server.py) answering with a binary plist, or not.
final class DiscoverInfoTests: XCTestCase {
    /// An LG TV's real TXT record: by TXT alone, a smart-tv-low-end.
    static let lgTXT = ["manufacturer=LG", "model=55UQ80006LD", "srcvers=377.40.00", "rsf=0x3",
                        "features=0x7F8AD0,0x38BCF46", "flags=0x244"]

    func testInfoAddsDisplaysAndRefinesTheClassAndFailuresAreOnlyWarnings() throws {
        try DiscoverEnvironment.requireAvahi()
        let server = try InfoServer(modes: ["dolby-vision", "rtsp-only", "forbidden", "silent"])
        let suffix = String(DiscoverEnvironment.randomDeviceId().plain.suffix(4))
        var receivers: [String: FakeReceiver] = [:]
        for (mode, port) in server.ports {
            receivers[mode] = try FakeReceiver(name: "Seamcheck Info \(mode) \(suffix)", airplay: Self.lgTXT, raop: nil, port: port)
        }
        receivers["closed"] = try FakeReceiver(name: "Seamcheck Info closed \(suffix)", airplay: Self.lgTXT, raop: nil, port: 1)
        defer { receivers.values.forEach { $0.stop() } }
        for receiver in receivers.values { try receiver.waitEstablished() }

        let started = Date()
        let (status, json, stderr) = try DiscoverEnvironment.discoverJSON(["--info", "--interface", "lo"])
        XCTAssertEqual(status, 0, "unreachable or refusing receivers are never fatal: \(stderr)")
        // A browse (about 1 s), then the requests in parallel (the silent one 2 s); in turn they would
        // take longer. Room for a debug binary on a loaded CI machine.
        XCTAssertLessThan(Date().timeIntervalSince(started), 10, "requests run in parallel, each with a 2 s timeout")
        let listed = json["receivers"] as? [[String: Any]] ?? []
        func entry(_ mode: String) throws -> [String: Any] {
            let id = try XCTUnwrap(receivers[mode]).deviceId.colons
            return try XCTUnwrap(listed.first { $0["deviceId"] as? String == id }, "\(mode) not listed")
        }

        let dolby = try entry("dolby-vision")
        XCTAssertEqual(dolby["deviceClass"] as? String, "smart-tv-dolby-vision")
        XCTAssertEqual(dolby["classifiedBy"] as? String, "info")
        XCTAssertTrue((dolby["classificationReason"] as? String ?? "").hasSuffix("from TXT alone: smart-tv-low-end"))
        let info = try XCTUnwrap(dolby["info"] as? [String: Any])
        XCTAssertEqual(info["hdrFormats"] as? [String], ["HDR10", "HLG", "DolbyVision"])
        XCTAssertEqual(info["codecs"] as? [String], ["hvc1.2.4.L153.B0", "dvh1.05.06", "dvh1.08.06"])
        XCTAssertEqual(info["supportsInterstitials"] as? Bool, true)
        XCTAssertEqual(info["receiverHDRCapability"] as? String, "4k60")
        let display = try XCTUnwrap((info["displays"] as? [[String: Any]])?.first)
        XCTAssertEqual(display["widthPixels"] as? Int, 3840)
        XCTAssertEqual(display["heightPixels"] as? Int, 2160)
        XCTAssertEqual((display["hdrModes"] as? [[String: Any]])?.compactMap { $0["mode"] as? String }, ["HDR10", "HLG", "DolbyVision"])
        XCTAssertEqual(dolby["warnings"] as? [String], [])

        let rtsp = try entry("rtsp-only")
        XCTAssertEqual((rtsp["info"] as? [String: Any])?["supportsInterstitials"] as? Bool, false)
        XCTAssertEqual(rtsp["deviceClass"] as? String, "smart-tv-low-end")
        XCTAssertEqual(rtsp["classifiedBy"] as? String, "profile", "an SDR display changes nothing")
        // The fake server logs after answering: its lines may trail the client's exit a little.
        for line in ["REQUEST rtsp-only GET /info RTSP/1.0 apv=1", "REQUEST dolby-vision GET /info HTTP/1.1 apv=1"] {
            let deadline = Date().addingTimeInterval(3)
            while !server.output.contains(line), Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
            XCTAssertTrue(server.output.contains(line), server.output)
        }

        // The watch asks too, once per receiver, and prints each event once its answer is in.
        // 6 s: ALL_FOR_NOW and the silent receiver's 2 s timeout both come before it on a loaded machine.
        let watch = try SeamcheckBinary.run(["discover", "--watch", "--info", "--timeout", "6", "--format", "json", "--interface", "lo"])
        XCTAssertEqual(watch.status, 0, watch.stderr)
        let events = DiscoverEnvironment.jsonLines(watch.stdout)
        let dolbyId = try XCTUnwrap(receivers["dolby-vision"]).deviceId.colons
        let added = try XCTUnwrap(events.first { $0["event"] as? String == "added"
            && ($0["receiver"] as? [String: Any])?["deviceId"] as? String == dolbyId }?["receiver"] as? [String: Any])
        XCTAssertEqual(added["deviceClass"] as? String, "smart-tv-dolby-vision")
        XCTAssertNotNil(added["info"])
        XCTAssertEqual(events.last?["event"] as? String, "browseComplete", "the initial list ends the same way")

        for (mode, warning) in [("silent", "gave no answer within 2 s"),
                                ("closed", "(Connection refused): nothing listens on the port the receiver advertises")] {
            let failed = try entry(mode)
            XCTAssertNil(failed["info"], mode)
            XCTAssertEqual(failed["infoResult"] as? String, "failed", mode)
            XCTAssertEqual(failed["deviceClass"] as? String, "smart-tv-low-end", mode)
            XCTAssertTrue((failed["warnings"] as? [String] ?? []).contains { $0.contains(warning) }, "\(mode): \(failed["warnings"] ?? "")")
        }
        // A refusal is what the receiver is: stated in infoResult and infoAnsweredBy, not warned about.
        let forbidden = try entry("forbidden")
        XCTAssertNil(forbidden["info"])
        XCTAssertEqual(forbidden["infoResult"] as? String, "refused")
        XCTAssertEqual((forbidden["infoAnsweredBy"] as? [String: Any])?["status"] as? Int, 403)
        XCTAssertEqual(forbidden["warnings"] as? [String], [])
        XCTAssertEqual((rtsp["infoAnsweredBy"] as? [String: Any])?["transport"] as? String, "RTSP/1.0")
        XCTAssertEqual((dolby["infoAnsweredBy"] as? [String: Any])?["transport"] as? String, "HTTP/1.1")
    }

    func testTableShowsTheInfoColumn() throws {
        try DiscoverEnvironment.requireAvahi()
        let server = try InfoServer(modes: ["dolby-vision"])
        let name = "Seamcheck Info table \(DiscoverEnvironment.randomDeviceId().plain.suffix(4))"
        let receiver = try FakeReceiver(name: name, airplay: Self.lgTXT, raop: nil, port: try XCTUnwrap(server.ports["dolby-vision"]))
        defer { receiver.stop() }
        try receiver.waitEstablished()
        let result = try SeamcheckBinary.run(["discover", "--info", "--format", "table", "--interface", "lo"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.split(separator: "\n")[0].hasSuffix("INFO"), result.stdout)
        let line = try XCTUnwrap(result.stdout.split(separator: "\n").first { $0.hasPrefix(name) })
        XCTAssertTrue(line.contains("smart-tv-dolby-vision  info"), String(line))
        XCTAssertTrue(line.hasSuffix("3840x2160@60 HDR10/HLG/DolbyVision interstitials"), String(line))
    }
}
