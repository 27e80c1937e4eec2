import AirPlay
import Discovery
import Foundation
import XCTest
@testable import LabCore
@testable import LabRun
@testable import LabServer

/// How a run reaches each receiver, and that a receiver wanting a code nobody entered is refused
/// with what to run, before any connection and without trying codes.
final class PairingAccessTests: XCTestCase {
    private func target(_ kind: PairingRequirement.Kind?, name: String = "Living Room") -> RunTarget {
        RunTarget(name: name, endpoint: AirPlayEndpoint(host: "10.0.0.5", port: 7000, name: name),
                  pairing: kind.map { PairingRequirement(kind: $0, reason: "test") })
    }

    private let stored = HAPCredentials(controllerId: "C", controllerPrivateKey: Data(repeating: 1, count: 32),
                                        accessoryId: "A", accessoryPublicKey: Data(repeating: 2, count: 32))

    func testEachRequirementWithoutStoredCredentials() {
        XCTAssertEqual(PairingAccess.decide(for: target(nil), stored: nil), .plain(pairingName: "Living Room"))
        XCTAssertEqual(PairingAccess.decide(for: target(PairingRequirement.Kind.none), stored: nil), .plain(pairingName: "Living Room"))
        XCTAssertEqual(PairingAccess.decide(for: target(.transient), stored: nil), .transient)
        let pin = PairingAccess.decide(for: target(.pin), stored: nil)
        XCTAssertEqual(pin, .refuse(.needsPairing(endpoint: "Living Room (10.0.0.5:7000)", receiver: "Living Room")))
        if case .refuse(let error) = pin {
            XCTAssertEqual(error.description, "Living Room (10.0.0.5:7000): needs pairing: run seamcheck airplay pair 'Living Room'")
        }
        XCTAssertEqual(PairingAccess.decide(for: target(.password), stored: nil), .refuse(.passwordRequired(endpoint: "Living Room (10.0.0.5:7000)")))
        guard case .refuse(.pairing(_, "access control", let reason)) = PairingAccess.decide(for: target(.disabled), stored: nil) else {
            return XCTFail("acl=1 must be refused")
        }
        XCTAssertTrue(reason.contains("allow"), reason)
        XCTAssertEqual(PairingAccess.describe(.transient), "transient pairing")
        XCTAssertEqual(PairingAccess.describe(pin), "needs pairing (no stored credentials)")
    }

    func testStoredCredentialsWinOverEveryAdvertisedRequirement() {
        for kind in [nil, PairingRequirement.Kind.none, .transient, .pin] {
            XCTAssertEqual(PairingAccess.decide(for: target(kind), stored: stored), .verify(stored), "\(String(describing: kind))")
        }
    }

    func testANeedsPairingRefusalSkipsTheCell() {
        var machine = CellMachine(limits: CellLimits(caseTimeout: .seconds(30)))
        let refusal = AirPlayError.needsPairing(endpoint: "tv", receiver: "tv")
        guard case .done(let end) = machine.openFailed(refusal) else { return XCTFail("the cell goes on") }
        XCTAssert(end.kind == .refused)
        XCTAssertEqual(end.failure, "tv: needs pairing: run seamcheck airplay pair tv")
    }

    /// AirPlay 2's flow only for receivers whose features say AirPlay 2 (bit 38 or 48, as pyatv
    /// tells them apart); Kodi's AirPlay 1 features and undiscovered addresses keep AirPlay 1.
    func testFlowFollowsTheFeatures() {
        let kodi = ReceiverDescription(name: "Kodi", airplay: ["deviceid": "02:00:00:00:00:01", "model": "Xbmc,1", "features": "0x20F7"])
        let samsung = ReceiverDescription(name: "TV", airplay: ["features": "0x7F8AD0,0x38BCB46"])
        func flow(_ pairing: PairingRequirement?) -> AirPlayFlow {
            PairingAccess.flow(for: RunTarget(name: "R", endpoint: AirPlayEndpoint(host: "10.0.0.5", port: 7000), pairing: pairing))
        }
        XCTAssertEqual(flow(kodi.pairing), .airPlay1)
        XCTAssertEqual(flow(samsung.pairing), .airPlay2)
        XCTAssertEqual(flow(nil), .airPlay1)
        XCTAssertEqual(flow(PairingRequirement(kind: .transient, reason: "old JSON")), .airPlay1, "unknown features: AirPlay 1")
    }
}
