import Discovery
import XCTest

/// What each receiver wants before playing, from real receivers' TXT records and single keys.
final class PairingRequirementTests: XCTestCase {
    private func pairing(_ txt: TXTRecord) -> PairingRequirement { ReceiverDescription(name: "R", airplay: txt).pairing }

    func testRealReceiversRecords() {
        // Apple TV 4K (tvOS 12) and Roku: flags 0x200 OneTimePairingRequired: a code the first time.
        XCTAssertEqual(pairing(TXTFixtures.appleTV4K), PairingRequirement(kind: .pin, reason: "flags 0x200", airPlay2: true))
        XCTAssertEqual(pairing(TXTFixtures.roku).kind, .pin)
        // Samsung: AirPlay 2 with CoreUtils pairing (bit 48) and no pairing flag: transient.
        XCTAssertEqual(pairing(TXTFixtures.samsung), PairingRequirement(kind: .transient, reason: "features bit 48", airPlay2: true))
        // Kodi: AirPlay 1 features 0x20F7: nothing.
        XCTAssertEqual(pairing(["deviceid": "02:00:00:00:00:01", "model": "Xbmc,1", "features": "0x20F7"]),
                       PairingRequirement(kind: .none, reason: "AirPlay 1", airPlay2: false))
    }

    func testEachKeyAndTheirOrder() {
        let ap2 = "0x0,0x840"  // bits 38 and 43: AirPlay 2 with system pairing
        XCTAssertEqual(pairing(["features": ap2]), PairingRequirement(kind: .transient, reason: "features bit 43", airPlay2: true))
        XCTAssertEqual(pairing(["features": ap2, "flags": "0x8"]), PairingRequirement(kind: .pin, reason: "flags 0x8", airPlay2: true))
        XCTAssertEqual(pairing(["features": ap2, "flags": "0x80"]), PairingRequirement(kind: .password, reason: "flags 0x80", airPlay2: true))
        XCTAssertEqual(pairing(["features": ap2, "pw": "true", "flags": "0x200"]).kind, .password, "a password before a code")
        XCTAssertEqual(pairing(["features": ap2, "acl": "1", "flags": "0x200"]), PairingRequirement(kind: .disabled, reason: "acl=1 (access control)", airPlay2: true))
        XCTAssertEqual(pairing(["features": ap2, "act": "2", "acl": "1"]).kind, .unsupported, "act=2 first")
        XCTAssertEqual(pairing(["features": "0x0,0x40"]), PairingRequirement(kind: .none, reason: "AirPlay 2 without pairing features", airPlay2: true))
        XCTAssertEqual(pairing(["features": "0x0,0x40", "acl": "0", "act": "0"]).kind, .none)
    }

    func testRoundTripsThroughJSONAndReadsOldJSONWithoutIt() throws {
        let receiver = ReceiverDescription(name: "TV", airplay: TXTFixtures.samsung)
        let data = try JSONEncoder().encode(receiver)
        XCTAssertEqual(try JSONDecoder().decode(ReceiverDescription.self, from: data), receiver)
        var old = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
        old["pairing"] = nil
        let decoded = try JSONDecoder().decode(ReceiverDescription.self, from: JSONSerialization.data(withJSONObject: old))
        XCTAssertEqual(decoded.pairing.kind, .transient)
    }
}
