import Foundation
import LabCore
import LabRun
import LabServer
import Processes
import SeamcheckTestSupport
import XCTest

/// `lab serve` follows receivers as Avahi reports them (issue 20, item 8), on the test
/// avahi-daemon (scripts/services.sh): a receiver that withdraws its AirPlay record while shutting
/// down keeps its class (its RAOP record alone would say speaker-audio-only); one Avahi removed is
/// marked gone; a session shows the class its receiver had while it played, not the one it has now.
final class LabReceiverPresenceTests: HandMadeSuiteTestCase {
    override func setUpWithError() throws {
        _ = try TestEnvironment.require("avahi-publish")
        guard ProcessInfo.processInfo.environment["DBUS_SYSTEM_BUS_ADDRESS"] != nil || FileManager.default.fileExists(atPath: "/run/avahi-daemon/socket") else {
            throw TestEnvironment.missing("no avahi-daemon: run scripts/services.sh start and source .build/services/env")
        }
        try super.setUpWithError()
    }

    /// One avahi-publish process, established.
    func publish(_ arguments: [String]) throws -> RunningProcess {
        let child = try RunningProcess(try TestEnvironment.require("avahi-publish"), arguments)
        DiscoverEnvironment.wait(15) { child.output.contains("Established under name") || child.exitCode != nil }
        guard child.output.contains("Established under name") else {
            child.terminate()
            throw CommandError.notFound("avahi-publish \(arguments) did not establish: \(child.output)")
        }
        return child
    }

    func receiver(_ server: LabServerProcess, _ address: String) -> [String: Any]? {
        ((try? server.json("/api/receivers"))?["receivers"] as? [[String: Any]] ?? []).first { $0["address"] as? String == address }
    }

    func testAReceiverLeavingKeepsItsClassIsMarkedGoneAndItsSessionsKeepTheClassTheyHad() throws {
        let address = "127.0.0.\(Int.random(in: 150...250))"
        let mac = (0..<5).map { _ in String(format: "%02X", Int.random(in: 0...255)) }
        let deviceId = (["02"] + mac).joined(separator: ":"), plain = deviceId.replacingOccurrences(of: ":", with: "")
        let host = "seamcheck-presence-\(plain.suffix(6)).local", name = "Presence TV \(plain.suffix(4))"
        let hostRecord = try publish(["-a", "-R", host, address])
        defer { hostRecord.terminate() }
        var airplay = try publish(["-s", "-H", host, name, "_airplay._tcp", "7000",
                                   "deviceid=\(deviceId)", "model=AppleTV5,3", "features=0x5A7FFEE6,0x0", "srcvers=220.68"])
        let raop = try publish(["-s", "-H", host, "\(plain)@\(name)", "_raop._tcp", "7000", "am=Xbmc,1", "ft=0x20F7", "cn=0,1"])
        defer { airplay.terminate(); raop.terminate() }

        try LabServerProcess.with(streams: folder, database: database) { server in
            DiscoverEnvironment.wait(20) { self.receiver(server, address)?["deviceClass"] as? String != nil }
            XCTAssertEqual(receiver(server, address)?["deviceClass"] as? String, "apple-tv-hd", "\(server.process.output)")

            // A session while it is an Apple TV HD.
            let fetched = try Command.run("curl", ["-s", "--interface", address, "--max-time", "10", "-o", "/dev/null", "-w", "%{http_code}",
                                                   server.url("/cases/mid/media.m3u8")], timeout: 20)
            XCTAssertEqual(fetched.stdout, "200")

            // Shutting down: the AirPlay record goes first. What is left (RAOP, am=Xbmc,1) alone reads as a speaker.
            airplay.terminate()
            Thread.sleep(forTimeInterval: 3)
            XCTAssertEqual(receiver(server, address)?["deviceClass"] as? String, "apple-tv-hd",
                           "a receiver withdrawing its records is not reclassified by what is left")
            XCTAssertNil(receiver(server, address)?["goneAt"] as? String)

            raop.terminate()
            DiscoverEnvironment.wait(15) { self.receiver(server, address)?["goneAt"] as? String != nil }
            XCTAssertNotNil(receiver(server, address)?["goneAt"] as? String, "removed by Avahi: marked gone, still listed")

            // It comes back as another device (an Apple TV 4K now): no longer gone, with its new class.
            airplay = try publish(["-s", "-H", host, name, "_airplay._tcp", "7000",
                                   "deviceid=\(deviceId)", "model=AppleTV11,1", "features=0x4A7FFFF7,0x4155FDE", "srcvers=670.6.2"])
            DiscoverEnvironment.wait(15) { self.receiver(server, address)?["deviceClass"] as? String == "apple-tv-4k" }
            XCTAssertEqual(receiver(server, address)?["deviceClass"] as? String, "apple-tv-4k")
            XCTAssertNil(receiver(server, address)?["goneAt"] as? String, "announced again: not gone")
            XCTAssertEqual(server.stop(), 0)
        }

        let sessions = try LabSessions.read(database: database).filter { $0["client"] as? String == address }
        XCTAssertEqual(sessions.count, 1)
        XCTAssertEqual(sessions.first?["deviceClass"] as? String, "apple-tv-hd", "the class it had while it played")
        XCTAssertEqual(sessions.first?["receiver"] as? String, name)
    }
}
