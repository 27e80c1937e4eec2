@testable import Discovery
import Foundation
import XCTest

final class ReceiverMergeTests: XCTestCase {
    private func airplay(_ name: String, txt: TXTRecord, address: String = "192.168.1.20", family: String = "IPv4",
                         interface: String = "eth0", port: Int = 7000) -> ResolvedService {
        ResolvedService(type: "_airplay._tcp", name: name, interface: interface, addressFamily: family,
                        hostName: "\(name.replacingOccurrences(of: " ", with: "-")).local", address: address, port: port, txt: txt)
    }

    private func raop(_ name: String, txt: TXTRecord = ["am": "AppleTV6,2"], address: String = "192.168.1.20",
                      port: Int = 7000) -> ResolvedService {
        ResolvedService(type: "_raop._tcp", name: name, interface: "eth0", hostName: "raop.local", address: address,
                        port: port, txt: txt)
    }

    func testAirPlayAndRAOPServicesMergeByDeviceId() throws {
        let receivers = Receiver.merge([
            raop("90DD5D98F00A@Living Room", port: 7001),
            airplay("Living Room", txt: TXTFixtures.appleTV4K),
            airplay("Living Room", txt: TXTFixtures.appleTV4K, address: "fe80::1", family: "IPv6"),
        ])
        XCTAssertEqual(receivers.count, 1)
        let receiver = try XCTUnwrap(receivers.first)
        XCTAssertEqual(receiver.name, "Living Room")
        XCTAssertEqual(receiver.deviceId, "90:DD:5D:98:F0:0A")
        XCTAssertEqual(receiver.services, ["_airplay._tcp", "_raop._tcp"])
        XCTAssertEqual(receiver.addresses, ["192.168.1.20", "fe80::1"])
        XCTAssertEqual(receiver.port, 7000)
        XCTAssertEqual(receiver.raopPort, 7001)
        XCTAssertEqual(receiver.interfaces, ["eth0"])
        XCTAssertEqual(receiver.hostName, "Living-Room.local")
        XCTAssertEqual(receiver.product, "Apple TV 4K (1st gen)")
        XCTAssertFalse(receiver.isAsleep)
        XCTAssertEqual(receiver.txt.keys.sorted(), ["_airplay._tcp", "_raop._tcp"])
    }

    func testAudioOnlyRAOPReceiverTakesNameAndIdFromInstanceName() throws {
        let receiver = try XCTUnwrap(Receiver.merge([
            raop("A1B2C3D4E5F6@Kitchen", txt: ["am": "AudioAccessory1,1", "ft": "0x4A7FCA00,0x3C356BD0"], port: 7000),
        ]).first)
        XCTAssertEqual(receiver.name, "Kitchen")
        XCTAssertEqual(receiver.deviceId, "A1:B2:C3:D4:E5:F6")
        XCTAssertEqual(receiver.services, ["_raop._tcp"])
        XCTAssertEqual(receiver.product, "HomePod")
        XCTAssertFalse(receiver.capabilities.video)
        XCTAssertTrue(receiver.capabilities.audio)
    }

    func testDifferentDevicesStaySeparateAndSortByName() {
        var other = TXTFixtures.roku
        other["deviceid"] = "11:22:33:44:55:66"
        let receivers = Receiver.merge([
            airplay("Living Room", txt: TXTFixtures.appleTV4K),
            airplay("Den", txt: other, address: "192.168.1.30"),
            airplay("Garage", txt: TXTFixtures.sonos, address: "192.168.1.40"),
        ])
        XCTAssertEqual(receivers.map(\.name), ["Den", "Garage", "Living Room"])
        XCTAssertNil(receivers[1].deviceId)
    }

    func testAllPortsZeroMeansAsleep() throws {
        let receiver = try XCTUnwrap(Receiver.merge([
            airplay("Living Room", txt: TXTFixtures.appleTV4K, port: 0),
            raop("90DD5D98F00A@Living Room", port: 0),
        ]).first)
        XCTAssertTrue(receiver.isAsleep)
    }

    func testReceiverEncodesFlatWithInterfaceFieldNames() throws {
        let receiver = try XCTUnwrap(Receiver.merge([airplay("Living Room", txt: TXTFixtures.appleTV4K)]).first)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data = try encoder.encode(receiver)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
        for key in ["name", "deviceId", "model", "manufacturer", "product", "addresses", "port", "services",
                    "features", "featureNames", "flags", "sourceVersion", "osVersion", "capabilities"] {
            XCTAssertNotNil(object[key], "missing \(key)")
        }
        XCTAssertEqual(object["features"] as? String, "0x04155FDE4A7FFFF7")
        XCTAssertEqual(object["flags"] as? String, "0x10644")
        XCTAssertEqual(object["services"] as? [String], ["_airplay._tcp"])
        let capabilities = try XCTUnwrap(object["capabilities"] as? [String: Bool])
        XCTAssertEqual(capabilities["video"], true)
        XCTAssertEqual(capabilities["screenMirroring"], true)
        XCTAssertEqual(try JSONDecoder().decode(Receiver.self, from: data), receiver)
    }

    func testUnknownValuesEncodeAsExplicitNulls() throws {
        let receiver = try XCTUnwrap(Receiver.merge([airplay("Bare", txt: [:])]).first)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: JSONEncoder().encode(receiver)) as? [String: Any])
        for key in ["deviceId", "model", "manufacturer", "product", "features", "flags", "sourceVersion", "osVersion"] {
            XCTAssertTrue(object[key] is NSNull, "\(key) should be null, not missing")
        }
        XCTAssertEqual(try JSONDecoder().decode(Receiver.self, from: JSONEncoder().encode(receiver)), receiver)
    }

    func testDiscoveryErrorsCarryExitCodesAndRemedies() {
        let error = DiscoveryError.daemonNotRunning(reason: "Daemon not running")
        XCTAssertEqual(error.exitCode, 3)
        XCTAssertEqual(error.description, "avahi-daemon is not running (Daemon not running). Start D-Bus and avahi-daemon "
            + "(scripts/services.sh start, or `service avahi-daemon start`) and retry.")
        XCTAssertEqual(DiscoveryError.unknownInterface("eth9").exitCode, 2)
        XCTAssertTrue(DiscoveryError.unknownInterface("eth9").description.contains("ip -br link"))
    }
}

final class TXTKeyCaseTests: XCTestCase {
    func testKeysDifferingOnlyInCaseKeepTheFirstInWireOrder() {
        let record = AvahiTXT.firstOccurrence([("features", "0x1"), ("Features", "0x4A7FFFF7,0x4155FDE"), ("model", "X")])
        XCTAssertEqual(record.count, 2)
        XCTAssertEqual(record["features"] ?? nil, "0x1")
        XCTAssertNil(record["Features"] ?? nil)
        let described = ReceiverDescription(name: "TV", airplay: record, raop: nil, fallbackDeviceId: nil)
        XCTAssertEqual(described.features?.rawValue, 1, "the first occurrence decides, every time")
    }
}
