@testable import Compatibility
import Foundation
import XCTest

/// The lab inventory file: what it accepts and how it names what is wrong.
final class ClassificationInventoryTests: XCTestCase {
    let classes = ["apple-tv-4k", "smart-tv-dolby-vision", "smart-tv-low-end"]

    private func parse(_ text: String) throws -> LabInventory {
        try LabInventory.parse(text, file: "lab.yaml", knownClasses: classes)
    }

    private func assertInvalid(_ text: String, field: String, problem: String, line: UInt = #line) {
        XCTAssertThrowsError(try parse(text), line: line) { error in
            XCTAssertEqual(error as? InventoryError, .invalid(file: "lab.yaml", field: field, problem: problem), line: line)
        }
    }

    func testEntriesByDeviceIdAndNameAreNormalised() throws {
        let inventory = try parse("""
        receivers:
          - deviceId: aa:bb:cc:dd:ee:01
            deviceClass: smart-tv-dolby-vision
            note: LG C2, rack 3
          - deviceId: 12:34:56:78:90:12
            name: Den
            deviceClass: smart-tv-low-end
          - name: Bedroom TV
            deviceClass: smart-tv-low-end
        """)
        XCTAssertEqual(inventory.entries.map(\.deviceId), ["AA:BB:CC:DD:EE:01", "12:34:56:78:90:12", nil],
                       "an unquoted all-digit MAC stays text, not a YAML 1.1 base-60 number")
        XCTAssertEqual(inventory.entries.map(\.field), ["receivers[0]", "receivers[1]", "receivers[2]"])
        XCTAssertEqual(inventory.entries[0].note, "LG C2, rack 3")
    }

    func testLookupPrefersDeviceIdAndRequiresBothWhenBothAreGiven() throws {
        let inventory = try parse("""
        receivers:
          - name: living room
            deviceClass: smart-tv-low-end
          - deviceId: "02:00:00:00:00:01"
            deviceClass: apple-tv-4k
          - deviceId: "02:00:00:00:00:02"
            name: Den
            deviceClass: smart-tv-dolby-vision
        """)
        let byId = RealReceivers.receiver("Living Room", txt: ["deviceid": "02:00:00:00:00:01"])
        XCTAssertEqual(inventory.entry(for: byId)?.deviceClass, "apple-tv-4k")
        let byName = RealReceivers.receiver("Living Room", txt: ["deviceid": "02:00:00:00:00:09"])
        XCTAssertEqual(inventory.entry(for: byName)?.deviceClass, "smart-tv-low-end")
        let wrongName = RealReceivers.receiver("Kitchen", txt: ["deviceid": "02:00:00:00:00:02"])
        XCTAssertNil(inventory.entry(for: wrongName))
    }

    func testEmptyListIsValid() throws {
        XCTAssertEqual(try parse("receivers: []").entries, [])
    }

    func testDocumentShapeErrors() {
        assertInvalid("- a\n- b", field: "(document)", problem: "expected a mapping with a receivers list")
        assertInvalid("receiver: []", field: "receiver", problem: "unknown key (did you mean 'receivers'?)")
        assertInvalid("{}", field: "receivers", problem: "required key is missing")
        assertInvalid("receivers: apple-tv", field: "receivers", problem: "expected a list of receivers")
        assertInvalid("receivers:\n  - smart-tv-low-end", field: "receivers[0]",
                      problem: "expected a mapping with deviceClass and deviceId or name")
        XCTAssertThrowsError(try parse("receivers: [")) { error in
            guard case .invalid(_, "(document)", let problem)? = error as? InventoryError else { return XCTFail("\(error)") }
            XCTAssertTrue(problem.hasPrefix("not valid YAML"), problem)
        }
    }

    func testEntryErrorsNameTheFieldAndSuggest() {
        assertInvalid("receivers:\n  - name: Den\n    deviceClas: apple-tv-4k", field: "receivers[0].deviceClas",
                      problem: "unknown key (did you mean 'deviceClass'?)")
        assertInvalid("receivers:\n  - name: Den", field: "receivers[0].deviceClass", problem: "required key is missing")
        assertInvalid("receivers:\n  - name: Den\n    deviceClass: smart-tv-dolbyvision", field: "receivers[0].deviceClass",
                      problem: "unknown device class 'smart-tv-dolbyvision' (did you mean 'smart-tv-dolby-vision'?); "
                          + "known: apple-tv-4k, smart-tv-dolby-vision, smart-tv-low-end")
        assertInvalid("receivers:\n  - deviceId: 90:DD:5D\n    deviceClass: apple-tv-4k", field: "receivers[0].deviceId",
                      problem: "'90:DD:5D' is not a device id such as AA:BB:CC:DD:EE:FF (seamcheck discover shows them)")
        assertInvalid("receivers:\n  - deviceClass: apple-tv-4k\n    note: x", field: "receivers[0]",
                      problem: "give deviceId or name (or both) to say which receiver is pinned")
        assertInvalid("receivers:\n  - name: ''\n    deviceClass: apple-tv-4k", field: "receivers[0].name",
                      problem: "expected a non-empty string")
        assertInvalid("receivers:\n  - name: [a]\n    deviceClass: apple-tv-4k", field: "receivers[0].name",
                      problem: "expected a non-empty string")
    }

    func testTheSameReceiverCannotBePinnedTwice() {
        assertInvalid("""
        receivers:
          - deviceId: "02:00:00:00:00:01"
            deviceClass: apple-tv-4k
          - deviceId: "02-00-00-00-00-01"
            name: Den
            deviceClass: smart-tv-low-end
        """, field: "receivers[1]", problem: "deviceId 02:00:00:00:00:01 is already pinned by receivers[0]")
        assertInvalid("""
        receivers:
          - name: Den
            deviceClass: apple-tv-4k
          - name: den
            deviceClass: smart-tv-low-end
        """, field: "receivers[1]", problem: "name 'den' is already pinned by receivers[0]")
    }

    func testUnreadableFileSaysSo() {
        XCTAssertThrowsError(try LabInventory.load("/nonexistent/lab.yaml", knownClasses: classes)) { error in
            guard case .unreadable(let file, _)? = error as? InventoryError else { return XCTFail("\(error)") }
            XCTAssertEqual(file, "/nonexistent/lab.yaml")
            XCTAssertTrue((error as? InventoryError)?.description.hasPrefix("/nonexistent/lab.yaml: cannot read the inventory") ?? false)
        }
    }
}
