import AirPlay
import LabCore
import LabRun
import LabServer
import MediaProbe
@testable import seamcheck
import XCTest

/// `lab run --capture [RECEIVER=]INPUT`: which capture shows which receiver.
final class CaptureAssignmentTests: XCTestCase {
    let kodi = RunTarget(name: "Kodi", deviceId: "02:53:43:4B:00:01", endpoint: AirPlayEndpoint(host: "10.77.0.1", port: 36667))
    let tv = RunTarget(name: "Living room", endpoint: AirPlayEndpoint(host: "192.168.1.20", port: 7000))

    func testABareInputIsTheOnlyReceiversAndANamedOneGoesToItsReceiverWithTheDeviceOptions() throws {
        let one = try CaptureAssignment.assign([":99"], options: ["framerate=30"], to: [kodi])
        XCTAssertEqual(one, ["Kodi": CaptureInput(target: ":99", format: "x11grab", options: ["framerate": "30"])])
        let two = try CaptureAssignment.assign(["02:53:43:4B:00:01=/dev/video0", "Living room=v4l2:/dev/video2"], options: [],
                                               to: [kodi, tv])
        XCTAssertEqual(two["Kodi"], CaptureInput(target: "/dev/video0", format: "v4l2"))
        XCTAssertEqual(two["Living room"], CaptureInput(target: "/dev/video2", format: "v4l2"))
        XCTAssertEqual(try CaptureAssignment.assign(["192.168.1.20=:1"], options: [], to: [kodi, tv])["Living room"]?.target, ":1")
    }

    func testABareInputWithSeveralReceiversOrAnUnknownReceiverSaysWhatToWrite() {
        XCTAssertThrowsError(try CaptureAssignment.assign([":99"], options: [], to: [kodi, tv])) { error in
            XCTAssertTrue("\(error)".contains("--capture RECEIVER=:99"), "\(error)")
        }
        XCTAssertThrowsError(try CaptureAssignment.assign(["Bedroom=/dev/video0"], options: [], to: [kodi, tv])) { error in
            XCTAssertTrue("\(error)".contains("no receiver 'Bedroom'"), "\(error)")
        }
    }
}
