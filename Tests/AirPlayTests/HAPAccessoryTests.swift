@testable import AirPlay
import Foundation
import SeamcheckTestSupport
import XCTest

/// Pairing with a real HAP accessory: HAP-python (PyPI) on 127.0.0.1, mDNS advertising off.
/// Pair-setup with its code, pair-verify with the credentials, requests over the encrypted channel.
final class HAPAccessoryTests: XCTestCase {
    func testPairSetupThenVerifyCarriesRequestsOverTheEncryptedChannel() async throws {
        try await HAPAccessory.with { accessory in
            let credentials = try await AirPlayPairing.pair(accessory.endpoint, pin: accessory.pin, pinStart: false)
            XCTAssertEqual(accessory.paired, [credentials.controllerId], "the accessory stored this controller")
            XCTAssertNil(credentials.problem)
            XCTAssertFalse("\(credentials)".contains(credentials.accessoryPublicKey.base64EncodedString()), "no key in the description")

            var costs: [Double] = []
            for _ in 0..<5 {
                let channel = try await AirPlayPairing.verify(accessory.endpoint, credentials: credentials)
                costs.append(Double(channel.setupTime.components.attoseconds) / 1e15 + Double(channel.setupTime.components.seconds) * 1000)
                // HAP-python answers /accessories only on an encrypted, verified connection.
                let answer = try await channel.send("GET", "/accessories")
                XCTAssertEqual(answer.status, 200)
                let text = String(decoding: answer.body, as: UTF8.self)
                XCTAssertTrue(text.contains("Seamcheck Test TV"), text)
                let second = try await channel.send("GET", "/characteristics?id=1.2")
                XCTAssertEqual(second.status, 200, "a second request on the same channel (the counters move on)")
                XCTAssertTrue(String(decoding: second.body, as: UTF8.self).contains("\"characteristics\""))
                await channel.close()
            }
            print("PAIR-VERIFY ms: \(costs.map { String(format: "%.1f", $0) }.joined(separator: " "))")
            XCTAssertLessThan(costs.min()!, 1000)
        }
    }

    func testWrongCodeIsTheReceiversRefusalAndNothingPairs() async throws {
        try await HAPAccessory.with { accessory in
            do throws(AirPlayError) {
                _ = try await AirPlayPairing.pair(accessory.endpoint, pin: "111-22-333", pinStart: false)
                XCTFail("paired with a wrong code")
            } catch {
                XCTAssertEqual(error, .pairingRefused(endpoint: accessory.endpoint.description, step: "pair-setup M4", code: .authentication))
                XCTAssertTrue(error.description.contains("check the code"), error.description)
            }
            XCTAssertEqual(accessory.paired, [])
        }
    }

    func testVerifyWithCredentialsItDoesNotKnowIsRefused() async throws {
        try await HAPAccessory.with { accessory in
            let real = try await AirPlayPairing.pair(accessory.endpoint, pin: accessory.pin, pinStart: false)
            var stranger = real
            stranger.controllerId = UUID().uuidString  // a controller the accessory never paired
            do throws(AirPlayError) {
                _ = try await AirPlayPairing.verify(accessory.endpoint, credentials: stranger)
                XCTFail("verified an unknown controller")
            } catch {
                XCTAssertEqual(error, .pairingRefused(endpoint: accessory.endpoint.description, step: "pair-verify M4", code: .authentication))
            }
            var wrongKey = real
            wrongKey.accessoryPublicKey = Data(repeating: 0x11, count: 32)  // the accessory's signature will not verify
            do throws(AirPlayError) {
                _ = try await AirPlayPairing.verify(accessory.endpoint, credentials: wrongKey)
                XCTFail("accepted a signature under another key")
            } catch {
                XCTAssertEqual(error, .pairing(endpoint: accessory.endpoint.description, step: "pair-verify M2",
                                               reason: PairingFailure.badSignature(step: "").reason))
            }
        }
    }
}

/// Transient pair-setup's M1-M4 (PIN 3939, the transient flag): HAP-python has no transient mode,
/// so it runs them as an ordinary pair-setup's first half with its code set to 3939. That checks
/// both SRP proofs with the transient PIN; the channel keys that follow cannot be checked here.
final class HAPTransientTests: XCTestCase {
    func testTransientSetupProvesPIN3939BothWays() async throws {
        try await HAPAccessory.with(pin: "3939") { accessory in
            let channel = try await AirPlayPairing.transient(accessory.endpoint, pinStart: false)
            XCTAssertLessThan(channel.setupTime, .seconds(30))
            await channel.close()
            XCTAssertEqual(accessory.paired, [], "transient keeps no pairing")
        }
        try await HAPAccessory.with(pin: "1234") { accessory in
            do throws(AirPlayError) {
                _ = try await AirPlayPairing.transient(accessory.endpoint, pinStart: false)
                XCTFail("a receiver that does not take 3939 accepted transient pairing")
            } catch {
                XCTAssertEqual(error, .pairingRefused(endpoint: accessory.endpoint.description, step: "pair-setup M4", code: .authentication))
            }
        }
    }
}
