import Foundation
import SeamcheckTestSupport
import XCTest

/// `lab run` with a receiver paired by `seamcheck airplay pair`: the run pair-verifies with the
/// stored credentials and sends its requests over the encrypted channel. The receiver is a real
/// HAP-python accessory on 127.0.0.1 (advertising off), which has no `/play` (it answers 500):
/// what this shows is the verified, encrypted session under the run, not playback.
final class LabRunPairingTests: XCTestCase {
    func testARunUsesStoredCredentialsAndTheEncryptedChannel() async throws {
        let folder = try LabEnvironment.temporaryFolder("labrun-pairing")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let credentials = folder + "/credentials.json"
        try await HAPAccessory.with { accessory in
            let receiver = "127.0.0.1:\(accessory.port)"
            let pair = try SeamcheckBinary.run(["airplay", "pair", receiver, "--pin", accessory.pin, "--no-pin-start",
                                                "--credentials", credentials])
            XCTAssertEqual(pair.status, 0, pair.stderr)
            let result = try SeamcheckBinary.run(["lab", "run", "--db", folder + "/lab.sqlite", "--streams", try LabSuiteFixture.small(),
                                                  "--bind", "127.0.0.1", "--poll-interval", "100", "--receiver", receiver,
                                                  "--case", "control", "--credentials", credentials, "--format", "json"])
            XCTAssertTrue(result.stderr.contains("lab run: \(receiver): paired (pair-verify with stored credentials)"), result.stderr)
            let document = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any],
                                         "no JSON: \(result.stdout) \(result.stderr)")
            let cell = try XCTUnwrap((document["cells"] as? [[String: Any]])?.first)
            let reason = cell["reason"] as? String ?? ""
            // Verified and encrypted: HAP-python's own answer to /play (500: no such path), not a pairing refusal.
            XCTAssertTrue(reason.contains("/play answered 500"), "\(cell)")
            XCTAssertFalse(reason.contains("pair"), "\(cell)")
        }
    }
}
