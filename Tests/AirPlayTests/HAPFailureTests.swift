@testable import AirPlay
import Crypto
import Foundation
import Processes
import SeamcheckTestSupport
import XCTest

/// A receiver that spoils one pairing message (Tests/Server/hap_bad_accessory.py: correct HAP up to
/// that message, built on HAP-python's SRP and framing): each is refused at its step, the
/// connection dropped, and nothing after it sent.
final class HAPFailureTests: XCTestCase {
    static let modes = ["malformed-m2", "bad-proof", "bad-signature-m6", "verify-bad-signature", "garbage-after-verify", "silent"]
    private var peers: LoopbackPeers!

    override func setUpWithError() throws {
        peers = try LoopbackPeers(script: "hap_bad_accessory.py", modes: Self.modes)
    }

    override func tearDown() { peers?.stop() }

    private func endpoint(_ mode: String) -> AirPlayEndpoint { AirPlayEndpoint(host: "127.0.0.1", port: peers.ports[mode]!, name: mode) }

    /// The paths `mode` answered, once `count` are logged (the peer logs after answering) and a
    /// moment more has passed for any later one to show.
    private func requests(_ mode: String, count: Int) -> [String] {
        let deadline = Date().addingTimeInterval(3)
        while loggedRequests(mode).count < count, Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        Thread.sleep(forTimeInterval: 0.3)
        return loggedRequests(mode)
    }

    private func loggedRequests(_ mode: String) -> [String] {
        peers.output.split(separator: "\n").filter { $0.hasPrefix("REQUEST \(mode) ") }.map { String($0.split(separator: " ")[3]) }
    }

    /// The credentials the bad peer's long-term key (seed 0x42 x 32) and a controller of ours give.
    private var credentials: HAPCredentials {
        let accessory = try! Curve25519.Signing.PrivateKey(rawRepresentation: [UInt8](repeating: 0x42, count: 32))
        return HAPCredentials(controllerId: UUID().uuidString, controllerPrivateKey: Curve25519.Signing.PrivateKey().rawRepresentation,
                              accessoryId: "BAD-ACCESSORY", accessoryPublicKey: accessory.publicKey.rawRepresentation)
    }

    private func pairError(_ mode: String) async -> AirPlayError? {
        do throws(AirPlayError) {
            _ = try await AirPlayPairing.pair(endpoint(mode), pin: "1234", pinStart: false)
            return nil
        } catch { return error }
    }

    func testMalformedTLVInM2IsRefusedNamingTheStep() async throws {
        let error = await pairError("malformed-m2")
        XCTAssertEqual(error, .pairing(endpoint: endpoint("malformed-m2").description, step: "pair-setup M2",
                                       reason: "malformed answer: TLV8 item at byte 3 claims 16 bytes, 1 remain"))
        XCTAssertTrue(error?.description.hasSuffix("connection dropped") ?? false)
        XCTAssertEqual(requests("malformed-m2", count: 1), ["/pair-setup"], "nothing sent after M2")
    }

    func testBadSRPProofInM4IsRefusedBeforeM5() async throws {
        let error = await pairError("bad-proof")
        XCTAssertEqual(error, .pairing(endpoint: endpoint("bad-proof").description, step: "pair-setup M4",
                                       reason: PairingFailure.badProof(step: "").reason))
        XCTAssertEqual(requests("bad-proof", count: 2), ["/pair-setup", "/pair-setup"], "no M5 after a bad proof: our keys never leave")
    }

    func testBadSignatureInM6IsRefusedAndNoCredentials() async throws {
        let error = await pairError("bad-signature-m6")
        XCTAssertEqual(error, .pairing(endpoint: endpoint("bad-signature-m6").description, step: "pair-setup M6",
                                       reason: PairingFailure.badSignature(step: "").reason))
    }

    func testBadSignatureInVerifyM2IsRefusedBeforeM3() async throws {
        do throws(AirPlayError) {
            _ = try await AirPlayPairing.verify(endpoint("verify-bad-signature"), credentials: credentials)
            XCTFail("verified a receiver whose signature is wrong")
        } catch {
            XCTAssertEqual(error, .pairing(endpoint: endpoint("verify-bad-signature").description, step: "pair-verify M2",
                                           reason: PairingFailure.badSignature(step: "").reason))
        }
        XCTAssertEqual(requests("verify-bad-signature", count: 1), ["/pair-verify"], "no M3 (our signature) to a receiver that failed its own")
    }

    func testASilentReceiverIsATimeoutNamingTheStepInBoundedTime() async throws {
        let started = Date()
        do throws(AirPlayError) {
            _ = try await AirPlayPairing.pair(endpoint("silent"), pin: "1234", pinStart: false,
                                              configuration: AirPlayConfiguration(requestTimeout: 1))
            XCTFail("paired with a receiver that never answered")
        } catch {
            XCTAssertEqual(error, .timeout(endpoint: endpoint("silent").description, path: "pair-setup M1", seconds: 1))
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 5)
    }

    func testKeyMaterialIsNotInDescriptions() throws {
        let client = SRPClient(privateKey: [UInt8](repeating: 9, count: 32))
        let session = try client.session(salt: [1, 2, 3], serverPublicKey: [UInt8](repeating: 0x35, count: 384), password: Array("1234".utf8))
        let hex = { (bytes: [UInt8]) in bytes.map { String(format: "%02x", $0) }.joined() }
        for text in ["\(client)", "\(session)", String(reflecting: session), "\(credentials)", String(reflecting: credentials)] {
            XCTAssertFalse(text.contains(hex(session.key)), text)
            XCTAssertFalse(text.contains("\(session.key)"), text)  // a default description would print the bytes this way
            XCTAssertFalse(text.contains("\(session.clientProof)"), text)
            XCTAssertFalse(text.contains(hex(Array(credentials.controllerPrivateKey))), text)
            XCTAssertFalse(text.contains(credentials.controllerPrivateKey.base64EncodedString()), text)
        }
    }

    func testPlainBytesAfterVerifyDropTheChannel() async throws {
        // The same peer verifies correctly (so the failure below is the garbage, not the fixture).
        let channel = try await AirPlayPairing.verify(endpoint("garbage-after-verify"), credentials: credentials)
        do throws(AirPlayError) {
            _ = try await channel.send("GET", "/server-info")
            XCTFail("plain HTTP accepted on the encrypted channel")
        } catch {
            guard case .pairing(_, let step, let reason) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(step, "encrypted channel (GET /server-info)")
            XCTAssertTrue(reason.contains("encrypted frame claims"), reason)
        }
        do throws(AirPlayError) {
            _ = try await channel.send("GET", "/server-info")
            XCTFail("the channel was not dropped")
        } catch {
            XCTAssertEqual(error, .connectionClosed(endpoint: endpoint("garbage-after-verify").description,
                                                    path: "encrypted channel (GET /server-info)"),
                           "never reopened in plain text")
        }
    }
}
