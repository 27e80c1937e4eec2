import Discovery
import Foundation
import XCTest

/// Browses the real avahi-daemon (scripts/services.sh) for receivers published with avahi-publish.
final class AirPlayBrowserTests: XCTestCase {
    /// A random locally administered MAC, so runs never collide with each other's leftovers.
    private func randomDeviceId() -> (colons: String, plain: String) {
        var bytes = (0..<6).map { _ in UInt8.random(in: 0...255) }
        bytes[0] = (bytes[0] | 0x02) & 0xFE
        let hex = bytes.map { String(format: "%02X", $0) }
        return (hex.joined(separator: ":"), hex.joined())
    }

    private func publishAppleTV(name: String, deviceId: (colons: String, plain: String)) throws -> [AvahiPublisher] {
        let airplay = try AvahiPublisher(name: name, type: "_airplay._tcp", port: 7000, txt: [
            "deviceid=\(deviceId.colons)", "features=0x4A7FFFF7,0x4155FDE", "flags=0x10644", "model=AppleTV6,2",
            "srcvers=380.20.1", "osvers=12.2.1", "pk",
        ])
        let raop = try AvahiPublisher(name: "\(deviceId.plain)@\(name)", type: "_raop._tcp", port: 7000, txt: [
            "am=AppleTV6,2", "ft=0x4A7FFFF7,0x4155FDE", "sf=0x10644", "vs=380.20.1", "cn=0,1,2,3", "tp=UDP", "tp=TCP",
        ])
        return [airplay, raop]
    }

    func testBrowseFindsPublishedAppleTVMergedWithItsRAOPService() async throws {
        _ = try AvahiTestEnvironment.requireDaemon()
        let deviceId = randomDeviceId()
        let name = "Seamcheck Test \(deviceId.plain.suffix(4))"
        let publishers = try publishAppleTV(name: name, deviceId: deviceId)
        defer { publishers.forEach { $0.stop() } }

        let started = Date()
        let receivers = try await AirPlayBrowser.browse(timeout: .seconds(10))
        let elapsed = Date().timeIntervalSince(started)

        let receiver = try XCTUnwrap(receivers.first { $0.deviceId == deviceId.colons }, "\(receivers)")
        XCTAssertEqual(receiver.name, name)
        XCTAssertEqual(receiver.services, ["_airplay._tcp", "_raop._tcp"])
        XCTAssertTrue(receiver.addresses.contains("127.0.0.1"), "\(receiver.addresses)")
        XCTAssertEqual(receiver.port, 7000)
        XCTAssertEqual(receiver.raopPort, 7000)
        XCTAssertEqual(receiver.model, "AppleTV6,2")
        XCTAssertEqual(receiver.product, "Apple TV 4K (1st gen)")
        XCTAssertEqual(receiver.manufacturer, "Apple")
        XCTAssertEqual(receiver.features?.hex, "0x04155FDE4A7FFFF7")
        XCTAssertEqual(receiver.flags?.hex, "0x10644")
        XCTAssertEqual(receiver.sourceVersion, "380.20.1")
        XCTAssertEqual(receiver.capabilities, ReceiverCapabilities(video: true, audio: true, airPlay2: true, screenMirroring: true))
        XCTAssertEqual(receiver.warnings, [])
        XCTAssertFalse(receiver.isAsleep)
        XCTAssertEqual(receiver.txt["_airplay._tcp"]?["pk"], .some(nil), "a bare key keeps a nil value")
        XCTAssertEqual(receiver.txt["_raop._tcp"]?["cn"], "0,1,2,3")
        if AvahiTestEnvironment.usesServicesScriptBus {
            XCTAssertEqual(receiver.interfaces, ["lo"])
            XCTAssertEqual(receiver.hostName, "seamcheck-ci.local")
        }
        XCTAssertLessThan(elapsed, 5, "browse should return at ALL_FOR_NOW, not at the timeout")
    }

    func testStoppedPublisherIsGoneFromALaterBrowseOnLoopback() async throws {
        _ = try AvahiTestEnvironment.requireDaemon()
        let deviceId = randomDeviceId()
        let publishers = try publishAppleTV(name: "Seamcheck Gone \(deviceId.plain.suffix(4))", deviceId: deviceId)
        let before = try await AirPlayBrowser.browse(timeout: .seconds(10), interface: "lo")
        XCTAssertTrue(before.contains { $0.deviceId == deviceId.colons }, "\(before)")

        publishers.forEach { $0.stop() }
        var after = before
        for _ in 0..<5 where after.contains(where: { $0.deviceId == deviceId.colons }) {
            try await Task.sleep(for: .milliseconds(500))
            after = try await AirPlayBrowser.browse(timeout: .seconds(10), interface: "lo")
        }
        XCTAssertFalse(after.contains { $0.deviceId == deviceId.colons }, "\(after)")
    }

    func testResolveServicesKeepsOneEntryPerServiceWithLocalFlag() async throws {
        _ = try AvahiTestEnvironment.requireDaemon()
        let deviceId = randomDeviceId()
        let publishers = try publishAppleTV(name: "Seamcheck Raw \(deviceId.plain.suffix(4))", deviceId: deviceId)
        defer { publishers.forEach { $0.stop() } }

        let services = try await AirPlayBrowser.resolveServices(types: ["_raop._tcp"], timeout: .seconds(10))
        let ours = services.filter { $0.name.hasPrefix(deviceId.plain + "@") }
        XCTAssertEqual(ours.count, 1, "\(services)")
        XCTAssertEqual(ours.first?.type, "_raop._tcp")
        XCTAssertEqual(ours.first?.addressFamily, "IPv4")
        XCTAssertEqual(ours.first?.isLocal, true)
        XCTAssertEqual(ours.first?.txt["am"], "AppleTV6,2")
        XCTAssertEqual(ours.first?.txt["tp"], "UDP", "the first of duplicate keys wins (RFC 6763 6.4)")
    }

    func testCancellingABrowseReturnsPromptly() async throws {
        _ = try AvahiTestEnvironment.requireDaemon()
        let started = Date()
        let task = Task { try await AirPlayBrowser.browse(timeout: .seconds(30)) }
        try await Task.sleep(for: .milliseconds(100))
        task.cancel()
        _ = try await task.value
        // Only "cancelled, not the 30 s timeout": room for a loaded CI machine.
        XCTAssertLessThan(Date().timeIntervalSince(started), 5)
    }

    func testUnknownInterfaceIsBadUsage() async {
        do {
            _ = try await AirPlayBrowser.browse(timeout: .seconds(1), interface: "seamcheck-none0")
            XCTFail("expected unknownInterface")
        } catch {
            XCTAssertEqual(error, .unknownInterface("seamcheck-none0"))
            XCTAssertEqual(error.exitCode, 2)
        }
    }
}
