import AirPlay
import Compatibility
import Discovery
import Foundation
import XCTest
@testable import LabCore
@testable import LabRun
@testable import LabServer

/// Which receivers and cases a run plays, and why the others are left out.
final class LabRunSelectionTests: XCTestCase {
    let candidates = [
        ReceiverCandidate(name: "Living Room", deviceId: "AA:BB:CC:DD:EE:01", deviceClass: "smart-tv-low-end", addresses: ["10.0.0.5"], port: 7000),
        ReceiverCandidate(name: "Kodi", deviceId: "02:00:00:00:00:01", addresses: ["10.77.0.2"], port: 36667),
        ReceiverCandidate(name: "Kitchen", addresses: ["10.0.0.9"], port: 7000, notRunnable: "no AirPlay video in its features"),
    ]

    func testAddressesWithAndWithoutPorts() {
        XCTAssertTrue(ReceiverSelection.address("10.0.0.5")! == ("10.0.0.5", nil))
        XCTAssertTrue(ReceiverSelection.address("10.0.0.5:36667")! == ("10.0.0.5", 36667))
        XCTAssertTrue(ReceiverSelection.address("[::1]:7000")! == ("::1", 7000))
        XCTAssertTrue(ReceiverSelection.address("fe80::1")! == ("fe80::1", nil))
        XCTAssertNil(ReceiverSelection.address("Living Room"))
        XCTAssertNil(ReceiverSelection.address("10.0.0.5:99999"))
        XCTAssertFalse(ReceiverSelection.needsDiscovery(["127.0.0.1:7000", "[::1]:7000"]))
        XCTAssertTrue(ReceiverSelection.needsDiscovery(["127.0.0.1", "Kodi"]))
        XCTAssertTrue(ReceiverSelection.needsDiscovery([]))
    }

    func testByDefaultEveryRunnableReceiverAndTheOthersWithWhy() throws {
        let (targets, skipped) = try ReceiverSelection.select(candidates, wanted: [])
        XCTAssertEqual(targets.map(\.name), ["Living Room", "Kodi"])
        XCTAssertEqual(targets[1].endpoint, AirPlayEndpoint(host: "10.77.0.2", port: 36667, name: "Kodi", deviceId: "02:00:00:00:00:01"))
        XCTAssertEqual(skipped, [SkippedReceiver(name: "Kitchen", address: "10.0.0.9", reason: "no AirPlay video in its features")])
    }

    func testByNameDeviceIdOrAddressAndAnAddressOfItsOwn() throws {
        let (targets, skipped) = try ReceiverSelection.select(candidates, wanted: ["living room", "aa-bb-cc-dd-ee-01", "10.77.0.2:36667",
                                                                                  "127.0.0.1:9000", "Kitchen"])
        XCTAssertEqual(targets.map(\.name), ["Living Room", "Kodi", "127.0.0.1:9000"], "the same receiver twice is run once")
        XCTAssertEqual(targets[2].endpoint.port, 9000)
        XCTAssertEqual(targets[2].address, "127.0.0.1")
        XCTAssertEqual(skipped.map(\.name), ["Kitchen"], "named but without video: reported, not dropped")
    }

    func testAnUnknownReceiverIsAnErrorWithADidYouMean() {
        XCTAssertThrowsError(try ReceiverSelection.select(candidates, wanted: ["Livng Room"])) { error in
            XCTAssertEqual("\(error)", "no receiver 'Livng Room' in the lab (did you mean 'Living Room'?); known receivers and clients: Living Room, Kodi, Kitchen")
        }
    }

    func testASpeakerPinnedInTheInventoryIsNotRunnable() throws {
        let yaml = """
            receivers:
              - name: Den
                deviceClass: smart-tv-low-end
                addresses: [10.0.0.31]
              - name: HomePod
                deviceClass: speaker-audio-only
                addresses: [10.0.0.30]
            """
        let inventory = try LabInventory.parse(yaml, file: "lab.yaml", knownClasses: ["smart-tv-low-end", "speaker-audio-only"])
        XCTAssertNil(ReceiverCandidate(pinned: inventory.entries[0]).notRunnable)
        let candidate = ReceiverCandidate(pinned: inventory.entries[1])
        XCTAssertEqual(candidate.notRunnable, "pinned as speaker-audio-only in receivers[1]: no URL playback")
        XCTAssertEqual(candidate.port, 7000)
    }

    func testCasesByIdOrGlobAndAnUnknownCaseWithADidYouMean() throws {
        let manifest = LabManifest(generator: "t", primaryTimeline: [],
                                   cases: ["control", "frame-rate-25", "frame-rate-25-stitched", "video-codec-hevc"].map { LabTestData.transition($0, rules: []) })
        XCTAssertEqual(try CaseSelection.select(["*-stitched", "control"], from: manifest).map(\.id), ["frame-rate-25-stitched", "control"])
        XCTAssertEqual(try CaseSelection.select(["frame-rate*"], from: manifest).map(\.id), ["frame-rate-25", "frame-rate-25-stitched"])
        XCTAssertEqual(try CaseSelection.select([], from: manifest).count, 4)
        XCTAssertThrowsError(try CaseSelection.select(["contrl"], from: manifest)) { error in
            XCTAssertTrue("\(error)".hasPrefix("no lab case 'contrl' (did you mean 'control'?)"), "\(error)")
        }
    }

    func testTheLocalAddressTowardALoopbackReceiverIsLoopback() {
        XCTAssertEqual(LocalRoute.source(toward: "127.0.0.1"), "127.0.0.1")
        XCTAssertEqual(LocalRoute.source(toward: "127.0.0.7"), "127.0.0.1")
        XCTAssertNil(LocalRoute.source(toward: "not-an-address"))
    }
}
