import Foundation
import SeamcheckTestSupport
import XCTest

/// Tests/Server/behaviour_receiver_test.py: the stand-in receiver of the behaviour suite
/// (Tests/Server/behaviour_receiver.py) against hand-written playlists on a real origin on
/// 127.0.0.1, driven over AirPlay HTTP: each feature played as draft -22 Appendix D says, and
/// each deliberate deviation showing what it is named for. The Python unittest is the test; its
/// output is the failure message.
final class BehaviourReceiverSelfTests: XCTestCase {
    func testTheStandInReceiverConformsOnEveryFeatureAndEachDeviationShows() throws {
        _ = try TestEnvironment.require("python3")
        let script = MediaFixture.packageRoot + "/Tests/Server/behaviour_receiver_test.py"
        let result = try Command.run("python3", [script], timeout: 240)
        let output = result.stdout + result.stderr
        XCTAssertFalse(result.timedOut, "behaviour_receiver_test.py ran over 240 s:\n\(output)")
        XCTAssertEqual(result.status, 0, "behaviour_receiver_test.py failed:\n\(output)")
        let ran = output.firstMatch(of: /Ran (\d+) tests?/).flatMap { Int($0.1) } ?? 0
        XCTAssertGreaterThanOrEqual(ran, 20, "fewer unittest tests ran than written:\n\(output)")
    }
}
