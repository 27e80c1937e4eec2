import Foundation
import SeamcheckTestSupport
import XCTest

/// `seamcheck airplay pair|verify|pairings|unpair` against a real HAP-python accessory on
/// 127.0.0.1 (mDNS advertising off), with a credentials file of the test's own.
final class AirPlayPairCommandTests: XCTestCase {
    private func scratch() throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("seamcheck-pair-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: folder) }
        return folder + "/credentials.json"
    }

    private func mode(_ path: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }

    func testPairThenVerifyWithStoredCredentialsThenUnpair() async throws {
        let credentials = try scratch()
        try await HAPAccessory.with { accessory in
            let receiver = "127.0.0.1:\(accessory.port)"
            let pair = try SeamcheckBinary.run(["airplay", "pair", receiver, "--pin", accessory.pin, "--no-pin-start",
                                                "--credentials", credentials])
            XCTAssertEqual(pair.status, 0, pair.stderr)
            XCTAssertTrue(pair.stderr.contains("paired with"), pair.stderr)
            XCTAssertEqual(try mode(credentials), 0o600)
            XCTAssertEqual(accessory.paired.count, 1)

            // A later run: pair-verify with the stored credentials, a request over the encrypted channel.
            let verify = try SeamcheckBinary.run(["airplay", "verify", receiver, "--path", "/accessories", "--format", "json",
                                                  "--credentials", credentials])
            XCTAssertEqual(verify.status, 0, verify.stderr)
            let document = try JSONSerialization.jsonObject(with: Data(verify.stdout.utf8)) as? [String: Any]
            XCTAssertEqual(document?["status"] as? Int, 200, "HAP-python answers /accessories only when verified and encrypted")
            let ms = try XCTUnwrap(document?["verifyMilliseconds"] as? Double)
            print("PAIR-VERIFY (seamcheck airplay verify) ms: \(ms)")
            XCTAssertGreaterThan(ms, 0)

            // Listed without keys; the file has them, the output never.
            let stored = try String(contentsOfFile: credentials, encoding: .utf8)
            let file = try JSONSerialization.jsonObject(with: Data(stored.utf8)) as? [String: Any]
            let entry = try XCTUnwrap((file?["pairings"] as? [[String: Any]])?.first?["credentials"] as? [String: Any])
            let secret = try XCTUnwrap(entry["controllerPrivateKey"] as? String)
            let list = try SeamcheckBinary.run(["airplay", "pairings", "--format", "json", "--credentials", credentials])
            XCTAssertEqual(list.status, 0, list.stderr)
            XCTAssertTrue(list.stdout.contains(receiver))
            for output in [pair.stdout, pair.stderr, verify.stdout, verify.stderr, list.stdout, list.stderr] {
                XCTAssertFalse(output.contains(secret), "key material printed")
                XCTAssertFalse(output.contains(entry["accessoryPublicKey"] as? String ?? "-"), "key material printed")
            }

            let unpair = try SeamcheckBinary.run(["airplay", "unpair", receiver, "--credentials", credentials])
            XCTAssertEqual(unpair.status, 0, unpair.stderr)
            let after = try SeamcheckBinary.run(["airplay", "verify", receiver, "--credentials", credentials])
            XCTAssertEqual(after.status, 2)
            XCTAssertTrue(after.stderr.contains("needs pairing: run seamcheck airplay pair \(receiver)"), after.stderr)
            let again = try SeamcheckBinary.run(["airplay", "unpair", receiver, "--credentials", credentials])
            XCTAssertEqual(again.status, 2, "nothing left to remove")
        }
    }

    func testWrongCodeIsExitTwoAndStoresNothing() async throws {
        let credentials = try scratch()
        try await HAPAccessory.with { accessory in
            let receiver = "127.0.0.1:\(accessory.port)"
            let result = try SeamcheckBinary.run(["airplay", "pair", receiver, "--pin", "999-99-999", "--no-pin-start",
                                                  "--credentials", credentials])
            XCTAssertEqual(result.status, 2)
            XCTAssertTrue(result.stderr.contains("pair-setup M4: the receiver refused: authentication failed"), result.stderr)
            XCTAssertFalse(FileManager.default.fileExists(atPath: credentials), "nothing stored")
            XCTAssertEqual(accessory.paired, [])
            // No code on stdin (it is /dev/null here) and no --pin: exit 2 before any pairing.
            let noCode = try SeamcheckBinary.run(["airplay", "pair", receiver, "--no-pin-start", "--credentials", credentials])
            XCTAssertEqual(noCode.status, 2)
            XCTAssertTrue(noCode.stderr.contains("--pin"), noCode.stderr)
        }
    }

    func testCredentialsFileWithWrongPermissionsOrCorruptEntryIsRefused() throws {
        let credentials = try scratch()
        try Data("{\"schemaVersion\": 1, \"pairings\": []}".utf8).write(to: URL(fileURLWithPath: credentials))
        chmod(credentials, 0o644)
        let open = try SeamcheckBinary.run(["airplay", "pairings", "--credentials", credentials])
        XCTAssertEqual(open.status, 2)
        XCTAssertTrue(open.stderr.contains("chmod 600"), open.stderr)
        // The pair command refuses before contacting anyone (the port is closed: no connect error).
        let pair = try SeamcheckBinary.run(["airplay", "pair", "127.0.0.1:\(try LoopbackPorts.closed())", "--pin", "1",
                                            "--credentials", credentials])
        XCTAssertEqual(pair.status, 2)
        XCTAssertTrue(pair.stderr.contains("chmod 600"), pair.stderr)

        chmod(credentials, 0o600)
        let corrupt = """
            {"schemaVersion": 1, "pairings": [
              {"receiver": "Living Room", "address": "10.0.0.5:7000", "pairedAt": "2026-11-25T19:00:00Z",
               "credentials": {"controllerId": "C", "controllerPrivateKey": "AAAA", "accessoryId": "A", "accessoryPublicKey": "AAAA"}}]}
            """
        try Data(corrupt.utf8).write(to: URL(fileURLWithPath: credentials))
        let verify = try SeamcheckBinary.run(["airplay", "verify", "Living Room", "--credentials", credentials])
        XCTAssertEqual(verify.status, 2)
        XCTAssertTrue(verify.stderr.contains("stored pairing for Living Room is unusable"), verify.stderr)
        XCTAssertTrue(verify.stderr.contains("seamcheck airplay unpair Living Room"), verify.stderr)
        let list = try SeamcheckBinary.run(["airplay", "pairings", "--format", "table", "--credentials", credentials])
        XCTAssertEqual(list.status, 0)
        XCTAssertTrue(list.stdout.contains("UNUSABLE"), list.stdout)
        let unpair = try SeamcheckBinary.run(["airplay", "unpair", "Living Room", "--credentials", credentials])
        XCTAssertEqual(unpair.status, 0, unpair.stderr)

        try Data("not json".utf8).write(to: URL(fileURLWithPath: credentials))
        let garbage = try SeamcheckBinary.run(["airplay", "pairings", "--credentials", credentials])
        XCTAssertEqual(garbage.status, 2)
        XCTAssertTrue(garbage.stderr.contains("move it away and pair the receivers again"), garbage.stderr)
    }

    /// Issue 35's door: HAP-python has no /pair-pin-start (500, connection dropped). With the
    /// code given, pairing goes on and stderr names --no-pin-start for next time.
    func testARefusedPinStartGoesOnWithTheCodeAndNamesNoPinStart() async throws {
        let credentials = try scratch()
        try await HAPAccessory.with { accessory in
            let receiver = "127.0.0.1:\(accessory.port)"
            let pair = try SeamcheckBinary.run(["airplay", "pair", receiver, "--pin", accessory.pin, "--credentials", credentials])
            XCTAssertEqual(pair.status, 0, pair.stderr)
            XCTAssertTrue(pair.stderr.contains("pair-pin-start answered 500"), pair.stderr)
            XCTAssertTrue(pair.stderr.contains("wants --no-pin-start"), pair.stderr)
            XCTAssertTrue(pair.stderr.contains("paired with"), pair.stderr)
            XCTAssertEqual(accessory.paired.count, 1)
        }
    }

    /// Legacy pairing through the commands, against Tests/Server/legacy_airplay_peer.py (UxPlay's
    /// protocol written apart in Python): the kind comes from the TXT records its /info gives.
    func testLegacyPINPairVerifyListAndUnpair() async throws {
        let credentials = try scratch()
        let peers = try LoopbackPeers(script: "legacy_airplay_peer.py", modes: ["pin"])
        defer { peers.stop() }
        let receiver = "127.0.0.1:\(peers.ports["pin"]!)"
        let wrong = try SeamcheckBinary.run(["airplay", "pair", receiver, "--pin", "1234", "--credentials", credentials])
        XCTAssertEqual(wrong.status, 2, wrong.stderr)
        XCTAssertTrue(wrong.stderr.contains("pair-setup-pin 2 (SRP proof): answered 470"), wrong.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: credentials), "nothing stored")

        let pair = try SeamcheckBinary.run(["airplay", "pair", receiver, "--pin", "4321", "--credentials", credentials])
        XCTAssertEqual(pair.status, 0, pair.stderr)
        XCTAssertTrue(pair.stderr.contains("legacy pairing: legacy-pin (features bit 27, no HAP bits, raop sf 0x8"), pair.stderr)
        XCTAssertEqual(try mode(credentials), 0o600)
        let verify = try SeamcheckBinary.run(["airplay", "verify", receiver, "--format", "json", "--credentials", credentials])
        XCTAssertEqual(verify.status, 0, verify.stderr)
        let document = try JSONSerialization.jsonObject(with: Data(verify.stdout.utf8)) as? [String: Any]
        XCTAssertEqual(document?["kind"] as? String, "legacy-pin")
        XCTAssertEqual(document?["status"] as? Int, 200)
        let list = try SeamcheckBinary.run(["airplay", "pairings", "--format", "json", "--credentials", credentials])
        let entries = (try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [String: Any])?["pairings"] as? [[String: Any]]
        XCTAssertEqual(entries?.first?["kind"] as? String, "legacy-pin")
        let stored = try String(contentsOfFile: credentials, encoding: .utf8)
        let secret = try XCTUnwrap(stored.split(separator: "\"").drop { $0 != "controllerPrivateKey" }.dropFirst(2).first)
        for output in [pair.stdout, pair.stderr, verify.stdout, verify.stderr, list.stdout, list.stderr] {
            XCTAssertFalse(output.contains(secret), "key material printed")
        }
        let unpair = try SeamcheckBinary.run(["airplay", "unpair", receiver, "--credentials", credentials])
        XCTAssertEqual(unpair.status, 0, unpair.stderr)
    }
}
