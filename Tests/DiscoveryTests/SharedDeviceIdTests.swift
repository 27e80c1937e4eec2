@testable import Discovery
import Foundation
import XCTest

/// Receivers that share a device id (issue 20, item 8): Kodi and UxPlay on one host both take the
/// interface's MAC, so a device id alone does not name a receiver; its service name does too.
final class SharedDeviceIdTests: XCTestCase {
    private func service(_ type: String, _ name: String, txt: TXTRecord, port: Int) -> ResolvedService {
        ResolvedService(type: type, name: name, interface: "lo", hostName: "lab-pc.local", address: "127.0.0.1", port: port, txt: txt)
    }

    /// Kodi's and UxPlay's records on one host, as they publish them, sharing MAC 02:42:AC:11:00:07.
    private var twoReceiversOneHost: [ResolvedService] {
        [service("_airplay._tcp", "Kodi (lab-pc)", txt: ["deviceid": "02:42:AC:11:00:07", "model": "Xbmc,1", "features": "0x20F7", "srcvers": "101.28"], port: 36667),
         service("_raop._tcp", "0242AC110007@Kodi (lab-pc)", txt: ["am": "Xbmc,1", "ft": "0x20F7"], port: 36666),
         service("_airplay._tcp", "UxPlay@lab-pc", txt: ["deviceid": "02:42:ac:11:00:07", "model": "AppleTV3,2", "features": "0x5A7FFEE6", "srcvers": "220.68"], port: 7100),
         service("_raop._tcp", "0242AC110007@UxPlay@lab-pc", txt: ["am": "AppleTV3,2", "ft": "0x5A7FFEE6"], port: 7000)]
    }

    func testTwoProgramsOnOneHostWithOneDeviceIdAreTwoReceiversEachWithItsOwnServices() throws {
        let receivers = Receiver.merge(twoReceiversOneHost)
        XCTAssertEqual(receivers.map(\.name), ["Kodi (lab-pc)", "UxPlay@lab-pc"])
        XCTAssertEqual(receivers.map(\.deviceId), ["02:42:AC:11:00:07", "02:42:AC:11:00:07"])
        XCTAssertEqual(receivers.map(\.model), ["Xbmc,1", "AppleTV3,2"])
        XCTAssertEqual(receivers.map(\.port), [36667, 7100])
        XCTAssertEqual(receivers.map(\.raopPort), [36666, 7000], "each RAOP record joins the receiver of its own name")
        XCTAssertEqual(receivers.map(\.services), [["_airplay._tcp", "_raop._tcp"], ["_airplay._tcp", "_raop._tcp"]])
        XCTAssertEqual(Set(receivers.map(\.id)).count, 2, "distinct ids, so a watch lists (and removes) them apart")
    }

    func testAWatchThatLosesOneOfThemRemovesThatOneOnly() {
        let both = ReceiverDiffer.changes(from: [:], to: Receiver.merge(twoReceiversOneHost)).listed
        let (events, listed) = ReceiverDiffer.changes(from: both, to: Receiver.merge(Array(twoReceiversOneHost.prefix(2))))
        XCTAssertEqual(events.map(\.kind), ["removed UxPlay@lab-pc"])
        XCTAssertEqual(listed.values.map(\.name), ["Kodi (lab-pc)"])
    }

    func testTwoReceiversPublishedOnTheRealAvahiDaemonWithOneDeviceIdAreBrowsedApart() async throws {
        _ = try AvahiTestEnvironment.requireDaemon()
        var bytes = (0..<6).map { _ in UInt8.random(in: 0...255) }
        bytes[0] = (bytes[0] | 0x02) & 0xFE
        let colons = bytes.map { String(format: "%02X", $0) }.joined(separator: ":")
        let plain = colons.replacingOccurrences(of: ":", with: "")
        let kodi = "Kodi (shared \(plain.suffix(4)))", uxplay = "UxPlay@shared-\(plain.suffix(4))"
        let publishers = [
            try AvahiPublisher(name: kodi, type: "_airplay._tcp", port: 36667, txt: ["deviceid=\(colons)", "model=Xbmc,1", "features=0x20F7"]),
            try AvahiPublisher(name: "\(plain)@\(kodi)", type: "_raop._tcp", port: 36666, txt: ["am=Xbmc,1", "ft=0x20F7"]),
            try AvahiPublisher(name: uxplay, type: "_airplay._tcp", port: 7100, txt: ["deviceid=\(colons.lowercased())", "model=AppleTV3,2", "features=0x5A7FFEE6"]),
            try AvahiPublisher(name: "\(plain)@\(uxplay)", type: "_raop._tcp", port: 7000, txt: ["am=AppleTV3,2", "ft=0x5A7FFEE6"]),
        ]
        defer { publishers.forEach { $0.stop() } }

        let found = try await AirPlayBrowser.browse(timeout: .seconds(10)).filter { $0.deviceId == colons }
        XCTAssertEqual(found.map(\.name), [kodi, uxplay], "\(found.map(\.name))")
        XCTAssertEqual(found.map(\.services), [["_airplay._tcp", "_raop._tcp"], ["_airplay._tcp", "_raop._tcp"]])
        XCTAssertEqual(found.map(\.port), [36667, 7100])
        XCTAssertEqual(found.map(\.raopPort), [36666, 7000])
    }
}
