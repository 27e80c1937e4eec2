@testable import AirPlay
import Foundation
import SeamcheckTestSupport
import XCTest

/// Legacy AirPlay pairing (UxPlay, Apple TV 3) against Tests/Server/legacy_airplay_peer.py: the
/// receiver's side written apart in Python (`cryptography`, Python integers for SRP), from UxPlay
/// 1.74's source. Real UxPlay is checked in the end-to-end tests.
final class LegacyPairingTests: XCTestCase {
    private func endpoint(_ peers: LoopbackPeers, _ mode: String) -> AirPlayEndpoint {
        AirPlayEndpoint(host: "127.0.0.1", port: peers.ports[mode]!)
    }

    private func waitFor(_ text: String, in peers: LoopbackPeers) {
        let deadline = Date().addingTimeInterval(5)
        while !peers.output.contains(text), Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
    }

    func testPINPairingThenPairVerifyOnANewConnection() async throws {
        let peers = try LoopbackPeers(script: "legacy_airplay_peer.py", modes: ["pin"])
        defer { peers.stop() }
        let credentials = try await LegacyPairing.pair(endpoint(peers, "pin"), pin: "4321")
        XCTAssertEqual(credentials.method, .pin)
        XCTAssertNil(credentials.problem)
        waitFor("PAIRED pin \(credentials.controllerId)", in: peers)
        XCTAssertTrue(peers.output.contains("PAIRED pin \(credentials.controllerId)"), "the peer opened our sealed key: \(peers.output)")
        let check = try await LegacyPairing.check(endpoint(peers, "pin"), credentials: credentials)
        XCTAssertEqual(check.infoStatus, 200, "the connection survived pair-verify")
        waitFor("VERIFIED pin", in: peers)
        XCTAssertTrue(peers.output.contains("VERIFIED pin"), "the peer accepted our signature: \(peers.output)")
        XCTAssertFalse(peers.output.contains("REQUEST pin POST /pair-setup\n"), "a PIN pairing never pair-sets-up again")
    }

    func testAWrongPINIsRefusedAtTheProofStep() async throws {
        let peers = try LoopbackPeers(script: "legacy_airplay_peer.py", modes: ["pin"])
        defer { peers.stop() }
        do {
            _ = try await LegacyPairing.pair(endpoint(peers, "pin"), pin: "1234")
            XCTFail("a wrong PIN paired")
        } catch {
            guard case .pairing(_, "pair-setup-pin 2 (SRP proof)", let reason) = error else { return XCTFail("\(error)") }
            XCTAssertTrue(reason.hasPrefix("answered 470 Client Authentication Failure"), reason)
            XCTAssertTrue(reason.contains("wrong PIN"), reason)
        }
        XCTAssertFalse(peers.output.contains("PAIRED"))
    }

    func testPairingWithoutACodeThenVerifyPinsTheReceiversKey() async throws {
        let peers = try LoopbackPeers(script: "legacy_airplay_peer.py", modes: ["nopin", "pin"])
        defer { peers.stop() }
        let credentials = try await LegacyPairing.pairWithoutCode(endpoint(peers, "nopin"))
        XCTAssertEqual(credentials.method, .key)
        let check = try await LegacyPairing.check(endpoint(peers, "nopin"), credentials: credentials)
        XCTAssertEqual(check.infoStatus, 200)
        // Another receiver (another key) at the stored address is refused at pair-setup.
        var other = credentials
        other.receiverPublicKey = Data(repeating: 1, count: 32)
        do {
            _ = try await LegacyPairing.check(endpoint(peers, "nopin"), credentials: other)
            XCTFail("another receiver's key was accepted")
        } catch {
            guard case .pairing(_, "pair-setup", let reason) = error else { return XCTFail("\(error)") }
            XCTAssertTrue(reason.contains("not the receiver these credentials were made with"), reason)
        }
    }

    func testAnUnknownControllerAndABadSignatureAreNamed() async throws {
        let peers = try LoopbackPeers(script: "legacy_airplay_peer.py", modes: ["pin", "badsig"])
        defer { peers.stop() }
        let stranger = LegacyCredentials(method: .pin, controllerId: "0011223344556677",
                                         controllerPrivateKey: Data(repeating: 5, count: 32), receiverPublicKey: Data(repeating: 9, count: 32))
        do {
            _ = try await LegacyPairing.check(endpoint(peers, "pin"), credentials: stranger)
            XCTFail("an unregistered key verified")
        } catch {
            guard case .pairing(_, "pair-verify 1", let reason) = error else { return XCTFail("\(error)") }
            XCTAssertTrue(reason.contains("does not know this controller's key"), reason)
        }
        do {
            _ = try await LegacyPairing.pairWithoutCode(endpoint(peers, "badsig"))
            XCTFail("a spoiled signature verified")
        } catch {
            guard case .pairing(_, "pair-verify 1", let reason) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(reason, "the receiver's Ed25519 signature does not verify")
        }
    }

    /// Issue 35's door: a refused /pair-pin-start (404, 500 and a close, a close) is told with
    /// --no-pin-start, and pairing goes on with the code given.
    func testARefusedPinStartGoesOnWithTheCodeAndSaysNoPinStart() async throws {
        let modes = ["pinstart404", "pinstart500", "pinstartdrop"]
        let peers = try LoopbackPeers(script: "legacy_airplay_peer.py", modes: modes)
        defer { peers.stop() }
        for mode in modes {
            let notices = NoticeLog()
            let credentials = try await LegacyPairing.pair(endpoint(peers, mode), pin: "4321", notice: { notices.add($0) })
            XCTAssertNil(credentials.problem, mode)
            XCTAssertEqual(notices.lines.count, 1, mode)
            XCTAssertTrue(notices.lines.first?.contains("wants --no-pin-start") ?? false, "\(mode): \(notices.lines)")
        }
        // With pinStart false nothing is asked or told.
        let notices = NoticeLog()
        _ = try await LegacyPairing.pair(endpoint(peers, "pinstart500"), pin: "4321", pinStart: false, notice: { notices.add($0) })
        XCTAssertEqual(notices.lines, [])
    }

    func testTXTRecordsFromInfoDecode() {
        let bytes = Data([7] + Array("pw=true".utf8) + [2] + Array("pk".utf8) + [0])
        XCTAssertEqual(AdvertisedRecords.txtRecord(bytes)?["pw"], "true")
        XCTAssertEqual(AdvertisedRecords.txtRecord(bytes)?["pk"], .some(nil))
        XCTAssertNil(AdvertisedRecords.txtRecord(Data([9, 0x61])), "a length past the end")
    }
}

final class NoticeLog: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [String] = []
    func add(_ line: String) { lock.lock(); stored.append(line); lock.unlock() }
    var lines: [String] { lock.lock(); defer { lock.unlock() }; return stored }
}
