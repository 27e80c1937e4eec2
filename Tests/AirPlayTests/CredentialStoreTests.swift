@testable import AirPlay
import Foundation
import XCTest

/// The credentials file: 0600 on every write, refused when others could read it, when it is a
/// link or a folder, and an unusable entry refused alone.
final class CredentialStoreTests: XCTestCase {
    private var folder = ""

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("seamcheck-creds-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    override func tearDown() { try? FileManager.default.removeItem(atPath: folder) }

    private func pairing(_ name: String, deviceId: String? = nil) -> StoredPairing {
        StoredPairing(receiver: name, deviceId: deviceId, address: "10.0.0.\(name.count):7000", pairedAt: Date(timeIntervalSince1970: 1_800_000_000),
                      credentials: HAPCredentials(controllerId: UUID().uuidString, controllerPrivateKey: Data(repeating: 7, count: 32),
                                                  accessoryId: "ID-\(name)", accessoryPublicKey: Data(repeating: 9, count: 32)))
    }

    private func mode(_ path: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }

    func testStoresReadsBackReplacesAndRemoves() throws {
        let path = folder + "/sub/credentials.json"
        var store = try CredentialStore(path: path)
        XCTAssertEqual(store.pairings, [])
        try store.store(pairing("Den", deviceId: "AA:BB:CC:DD:EE:01"))
        try store.store(pairing("Kitchen"))
        XCTAssertEqual(try mode(path), 0o600)
        XCTAssertEqual(try mode(folder + "/sub"), 0o700)
        let again = try CredentialStore(path: path)
        XCTAssertEqual(again.pairings, store.pairings)
        XCTAssertEqual(try again.pairing(name: "x", deviceId: "aa:bb:cc:dd:ee:01", address: "-")?.receiver, "Den", "by device id first")
        XCTAssertEqual(try again.pairing(for: "id-kitchen")?.receiver, "Kitchen", "by the receiver's pairing id")
        var replaced = again
        try replaced.store(pairing("Den", deviceId: "AA:BB:CC:DD:EE:01"))
        XCTAssertEqual(replaced.pairings.filter { $0.receiver == "Den" }.count, 1, "a new pairing replaces the old one")
        XCTAssertEqual(try replaced.remove("Kitchen").map(\.receiver), ["Kitchen"])
        XCTAssertThrowsError(try replaced.remove("Kitchen")) { XCTAssertEqual($0 as? CredentialStoreError, .notFound(path: path, receiver: "Kitchen")) }
    }

    func testRefusesOpenPermissionsLinksAndFolders() throws {
        let path = folder + "/credentials.json"
        var store = try CredentialStore(path: path)
        try store.store(pairing("Den"))
        chmod(path, 0o640)
        XCTAssertThrowsError(try CredentialStore(path: path)) {
            XCTAssertEqual($0 as? CredentialStoreError, .permissions(path: path, mode: "mode 0640, owner uid \(geteuid())"))
        }
        chmod(path, 0o600)
        let link = folder + "/link.json"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: path)
        XCTAssertThrowsError(try CredentialStore(path: link)) { XCTAssertEqual($0 as? CredentialStoreError, .notRegularFile(path: link)) }
        XCTAssertThrowsError(try CredentialStore(path: folder)) { XCTAssertEqual($0 as? CredentialStoreError, .notRegularFile(path: folder)) }
    }

    func testAnUnusableEntryIsRefusedAloneAndKeptUntilUnpaired() throws {
        let path = folder + "/credentials.json"
        var store = try CredentialStore(path: path)
        try store.store(pairing("Den"))
        var text = try String(contentsOfFile: path, encoding: .utf8)
        text = text.replacingOccurrences(of: "\"pairings\" : [", with: """
            "pairings" : [{"receiver": "Broken", "address": "10.0.0.9:7000", "pairedAt": "2026-01-01T00:00:00Z",
              "credentials": {"controllerId": "C", "controllerPrivateKey": "!!", "accessoryId": "A", "accessoryPublicKey": "AA=="}},
            """)
        try text.write(toFile: path, atomically: false, encoding: .utf8)
        var broken = try CredentialStore(path: path)
        XCTAssertEqual(broken.pairings.map(\.receiver), ["Den"])
        XCTAssertEqual(broken.unusable.map(\.receiver), ["Broken"])
        XCTAssertThrowsError(try broken.pairing(for: "Broken")) {
            guard case .corruptEntry(_, "Broken", _)? = $0 as? CredentialStoreError else { return XCTFail("\($0)") }
        }
        XCTAssertEqual(try broken.pairing(for: "Den")?.receiver, "Den", "the others still work")
        try broken.store(pairing("Kitchen"))
        XCTAssertEqual(try CredentialStore(path: path).unusable.map(\.receiver), ["Broken"], "kept through a write")
        try broken.remove("Broken")
        XCTAssertEqual(try CredentialStore(path: path).unusable, [])
        XCTAssertEqual(try CredentialStore(path: path).pairings.map(\.receiver), ["Den", "Kitchen"])
    }
}
