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

    /// UxPlay 1.74 (started with and without -pin, -pw): features 0x5A7FFEE6,0x0 (bit 27 legacy
    /// pairing, no HAP bits), `pw=true` on both records with -pin or -pw; only raop `sf` tells a
    /// PIN (0x8c) from a password (0x84).
    func testUxPlayRecordsGiveLegacyPairingKinds() {
        let airplay: TXTRecord = ["deviceid": "12:db:3f:89:d7:c8", "features": "0x5A7FFEE6,0x0", "flags": "0x4", "model": "AppleTV3,2",
                                  "pk": "b077", "pi": "2e388006-13ba-4041-9a67-25dd4a43d536", "srcvers": "220.68", "vv": "2", "pw": "false"]
        let raop: TXTRecord = ["am": "AppleTV3,2", "ft": "0x5A7FFEE6,0x0", "sf": "0x4", "pw": "false", "vs": "220.68"]
        let open = ReceiverDescription(name: "UxPlay", airplay: airplay, raop: raop).pairing
        XCTAssertEqual(open, PairingRequirement(kind: .legacy, reason: "features bit 27, no HAP bits (38, 46, 48)", airPlay2: false))
        XCTAssertEqual(open.scheme, "legacy")
        XCTAssertEqual(open.legacyPairingBit, true)
        XCTAssertEqual(open.pw, false)
        var pinAirPlay = airplay, pinRAOP = raop
        pinAirPlay["pw"] = "true"
        pinRAOP["pw"] = "true"
        pinRAOP["sf"] = "0x8c"
        let pin = ReceiverDescription(name: "UxPlay", airplay: pinAirPlay, raop: pinRAOP).pairing
        XCTAssertEqual(pin, PairingRequirement(kind: .legacyPin, reason: "features bit 27, no HAP bits, raop sf 0x8, pw=true", airPlay2: false))
        XCTAssertEqual(pin.scheme, "legacy-pin")
        XCTAssertEqual(pin.pw, true)
        pinRAOP["sf"] = "0x84"  // -pw: a password, not a code
        XCTAssertEqual(ReceiverDescription(name: "UxPlay", airplay: pinAirPlay, raop: pinRAOP).pairing.kind, .password)
        // Only the airplay record (pw=true, flags 0x4): a PIN cannot be told from a password.
        XCTAssertEqual(ReceiverDescription(name: "UxPlay", airplay: pinAirPlay).pairing.kind, .password)
        // HAP's bits win over bit 27 (Apple TVs set both).
        XCTAssertEqual(pairing(["features": "0x4A7FDFD5,0xBC157FDE", "flags": "0x244"]).scheme, "hap")
    }

    func testSchemesAndJSONFields() throws {
        XCTAssertEqual(pairing(TXTFixtures.samsung).scheme, "hap-transient")
        XCTAssertEqual(pairing(TXTFixtures.appleTV4K).scheme, "hap")
        XCTAssertEqual(pairing(["features": "0x20F7"]).scheme, "none")
        XCTAssertEqual(pairing(["features": "0x20F7", "pw": "1"]).scheme, "password")
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: JSONEncoder().encode(pairing(["features": "0x5A7FFEE6,0x0"]))) as? [String: Any])
        XCTAssertEqual(json["kind"] as? String, "legacy")
        XCTAssertEqual(json["scheme"] as? String, "legacy")
        XCTAssertEqual(json["legacyPairingBit"] as? Bool, true)
        XCTAssertEqual(json["pw"] as? Bool, false)
    }
}
