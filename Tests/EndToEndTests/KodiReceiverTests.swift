import Foundation
import SeamcheckTestSupport
import XCTest

/// The real AirPlay video receiver of the lab tests: Kodi 20.1 (Debian) under Xvfb, in the network
/// namespace `scripts/services.sh kodi-start` makes, found through that namespace's avahi-daemon
/// like any receiver on a network.
final class KodiReceiverTests: XCTestCase {
    func testKodiIsDiscoveredAnswersAndComesBackAfterBeingKilled() async throws {
        try await KodiReceiver.with { kodi in
            print("kodi-start: \(String(format: "%.1f", kodi.startSeconds)) s; \(kodi.name) \(kodi.deviceId) at \(kodi.airplayEndpoint) in \(kodi.namespace)")
            XCTAssertLessThan(kodi.startSeconds, 45, "Kodi must be up well within a minute on 2 cores")
            XCTAssertEqual(kodi.port, 36667)
            XCTAssertEqual(kodi.deviceId, "02:53:43:4B:00:01", "the fixed MAC of the veth end Kodi uses")

            // Discovery, as an operator would run it on the namespace's network.
            let receiver = try discover(kodi)
            XCTAssertEqual(receiver["port"] as? Int, 36667)
            XCTAssertEqual(receiver["model"] as? String, "Xbmc,1")
            XCTAssertEqual(receiver["addresses"] as? [String], [kodi.address])
            let services = try XCTUnwrap(receiver["services"] as? [String])
            XCTAssertTrue(services.contains("_airplay._tcp"), "\(services)")
            let capabilities = try XCTUnwrap(receiver["capabilities"] as? [String: Bool], "\(receiver)")
            XCTAssertEqual(capabilities["video"], true, "features 0x20F7 has bit 0, SupportsAirPlayVideoV1")

            let info = try kodi.airplayGet("/server-info")
            XCTAssertEqual(info.status, 200, info.body)
            XCTAssertTrue(info.body.contains("<string>\(kodi.deviceId)</string>"), info.body)
            XCTAssertTrue(info.body.contains("<key>features</key>"), info.body)

            // The receiver goes away: its port closes and its record leaves avahi; then it comes back.
            try kodi.kill()
            let gone = try kodi.run(["curl", "-s", "-o", "/dev/null", "--max-time", "2", kodi.airplayURL + "/server-info"], timeout: 10)
            XCTAssertTrue([7, 52, 56].contains(gone.status), "curl: refused, or reset by the dying process, not \(gone.status)")
            try kodi.restart()
            print("restart: \(String(format: "%.1f", kodi.startSeconds)) s")
            XCTAssertLessThan(kodi.startSeconds, 30)
            XCTAssertEqual(try kodi.airplayGet("/server-info").status, 200)
            XCTAssertEqual(try discover(kodi)["port"] as? Int, 36667)
        }
    }

    /// `seamcheck discover --format json` inside Kodi's namespace: its entry, by device id.
    private func discover(_ kodi: KodiReceiver) throws -> [String: Any] {
        let result = try kodi.run([SeamcheckBinary.path, "discover", "--format", "json", "--timeout", "10"],
                                  environment: ["NO_COLOR": "1"], timeout: 30)
        XCTAssertEqual(result.status, 0, result.stderr)
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], result.stdout)
        let receivers = json["receivers"] as? [[String: Any]] ?? []
        return try XCTUnwrap(receivers.first { $0["deviceId"] as? String == kodi.deviceId },
                             "Kodi \(kodi.deviceId) not discovered: \(result.stdout)\n\(kodi.logTail())")
    }
}
