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

    // MARK: kinds and versions

    func testLegacyEntriesKeepTheirKindBesideHAPOnes() throws {
        let path = folder + "/credentials.json"
        var store = try CredentialStore(path: path)
        try store.store(pairing("Den"))
        let legacy = LegacyCredentials(method: .pin, controllerId: "00112233AABBCCDD", controllerPrivateKey: Data(repeating: 3, count: 32),
                                       receiverPublicKey: Data(repeating: 4, count: 32))
        try store.store(StoredPairing(receiver: "UxPlay", deviceId: nil, address: "10.0.0.7:7001", pairedAt: Date(timeIntervalSince1970: 1_800_000_000),
                                      credentials: .legacy(legacy)))
        var keyOnly = legacy
        keyOnly.method = .key
        try store.store(StoredPairing(receiver: "Open", deviceId: nil, address: "10.0.0.8:7001", pairedAt: Date(timeIntervalSince1970: 1_800_000_000),
                                      credentials: .legacy(keyOnly)))
        let text = try String(contentsOfFile: path, encoding: .utf8)
        XCTAssertTrue(text.contains("\"schemaVersion\" : 2"), text)
        for kind in ["\"kind\" : \"hap\"", "\"kind\" : \"legacy-pin\"", "\"kind\" : \"legacy\""] { XCTAssertTrue(text.contains(kind), kind) }
        let again = try CredentialStore(path: path)
        XCTAssertEqual(again.pairings.map(\.kind), [.hap, .legacyPin, .legacy])
        XCTAssertEqual(try again.pairing(for: "UxPlay")?.credentials.legacy, legacy)
        XCTAssertEqual(try again.pairing(for: "Open")?.credentials.legacy?.method, .key)
        XCTAssertFalse("\(again.pairings)".contains(legacy.controllerPrivateKey.base64EncodedString()), "never printed")
    }

    func testAVersion1FileIsHAPAndAVersion2EntryWithoutKindIsUnusable() throws {
        let path = folder + "/credentials.json"
        let entry = """
            {"receiver": "Den", "address": "10.0.0.3:7000", "pairedAt": "2026-01-01T00:00:00Z",
             "credentials": {"controllerId": "C", "controllerPrivateKey": "\(Data(repeating: 7, count: 32).base64EncodedString())",
                             "accessoryId": "A", "accessoryPublicKey": "\(Data(repeating: 9, count: 32).base64EncodedString())"}}
            """
        for (version, usable) in [(1, true), (2, false)] {
            try "{\"schemaVersion\": \(version), \"pairings\": [\(entry)]}".write(toFile: path, atomically: false, encoding: .utf8)
            chmod(path, 0o600)
            let store = try CredentialStore(path: path)
            XCTAssertEqual(store.pairings.map(\.kind), usable ? [.hap] : [], "version \(version)")
            XCTAssertEqual(store.unusable.map(\.reason), usable ? [] : ["missing kind"], "version \(version)")
        }
    }

    /// Issue 31 item 7: a file from a newer Seamcheck is refused, and unpair never rewrites it.
    func testANewerSchemaVersionIsRefusedAndLeftAsItIs() throws {
        let path = folder + "/credentials.json"
        let text = "{\"schemaVersion\": 3, \"pairings\": [], \"groups\": [{\"name\": \"lab\"}]}"
        try text.write(toFile: path, atomically: false, encoding: .utf8)
        chmod(path, 0o600)
        XCTAssertThrowsError(try CredentialStore(path: path)) {
            XCTAssertEqual($0 as? CredentialStoreError, .newerVersion(path: path, version: 3, known: 2))
            XCTAssertTrue("\($0)".contains("newer Seamcheck"), "\($0)")
        }
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), text, "not rewritten")
    }

    /// Issue 31 item 7: an unusable entry is reported when the receiver is named by its address
    /// or device id too, not taken as "no pairing".
    func testAnUnusableEntryIsFoundByAddressAndDeviceId() throws {
        let path = folder + "/credentials.json"
        let broken = """
            {"schemaVersion": 2, "pairings": [{"kind": "hap", "receiver": "Broken", "deviceId": "AA:BB:CC:DD:EE:09",
              "address": "10.0.0.9:7000", "pairedAt": "2026-01-01T00:00:00Z",
              "credentials": {"controllerId": "C", "controllerPrivateKey": "AA==", "accessoryId": "A", "accessoryPublicKey": "AA=="}}]}
            """
        try broken.write(toFile: path, atomically: false, encoding: .utf8)
        chmod(path, 0o600)
        let store = try CredentialStore(path: path)
        for text in ["10.0.0.9:7000", "aa:bb:cc:dd:ee:09", "broken"] {
            XCTAssertThrowsError(try store.pairing(for: text), text) {
                guard case .corruptEntry(_, "Broken", _)? = $0 as? CredentialStoreError else { return XCTFail("\(text): \($0)") }
            }
        }
        XCTAssertThrowsError(try store.pairing(name: "Other name", deviceId: nil, address: "10.0.0.9:7000")) {
            guard case .corruptEntry(_, "Broken", _)? = $0 as? CredentialStoreError else { return XCTFail("\($0)") }
        }
    }

    /// Issue 31 item 7: a file owned by another user is a matter of `chown`, not `chmod 600`.
    func testAFileOwnedByAnotherUserGetsChownAdvice() throws {
        guard geteuid() == 0 else { throw XCTSkip("needs root to give the file to another user") }
        let path = folder + "/credentials.json"
        var store = try CredentialStore(path: path)
        try store.store(pairing("Den"))
        XCTAssertEqual(chown(path, 65534, 65534), 0)
        XCTAssertThrowsError(try CredentialStore(path: path)) {
            XCTAssertEqual($0 as? CredentialStoreError, .owner(path: path, owner: 65534, user: 0))
            XCTAssertTrue("\($0)".contains("chown 0 \(path)"), "\($0)")
            XCTAssertFalse("\($0)".contains("chmod"), "\($0)")
        }
    }
}
