import Foundation
import SeamcheckTestSupport
import XCTest

/// `seamcheck lab measure` as a user runs it: exit codes and what it says.
final class LabMeasureCommandTests: XCTestCase {
    func testADeviceThatCannotBeOpenedExitsTwoNamingItAndWhatToCheck() throws {
        let result = try SeamcheckBinary.run(["lab", "measure", "/dev/video97"])
        XCTAssertEqual(result.status, 2)
        XCTAssertTrue(result.stderr.contains("cannot open capture v4l2:/dev/video97"), result.stderr)
        XCTAssertTrue(result.stderr.contains("'video' group"), result.stderr)
    }

    func testARecordingWithoutCodesSaysNoFrameCodesSeenAndExitsTwo() throws {
        let blank = MediaFixture.clip("measure-cli-no-codes", duration: 4, audio: nil)
        let result = try SeamcheckBinary.run(["lab", "measure", try blank.path(), "--no-code-limit", "1", "--format", "table"])
        XCTAssertEqual(result.status, 2, "nothing measured is unusable input: \(result.stderr)")
        XCTAssertTrue(result.stdout.contains("no frame codes seen"), result.stdout)
        XCTAssertTrue(result.stderr.contains("no frame codes seen in the first 1 s"), result.stderr)
        XCTAssertTrue(result.stderr.contains("seamcheck lab streams"), "says what to check: \(result.stderr)")
        let json = try SeamcheckBinary.run(["lab", "measure", try blank.path(), "--no-code-limit", "1", "--format", "json"])
        XCTAssertEqual(json.status, 2)
        XCTAssertTrue(json.stdout.contains("\"noFrameCodes\""), "the result document is still printed: \(json.stdout)")
    }

    func testLabRunWithACaptureThatCannotBeOpenedExitsTwoBeforeAnyCase() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("capture-run-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try SeamcheckBinary.run(["lab", "run", "--receiver", "127.0.0.1:1", "--capture", "/dev/video97", "--streams",
                                              try LabSuiteFixture.small(), "--db", folder + "/lab.sqlite"])
        XCTAssertEqual(result.status, 2, result.stderr)
        XCTAssertTrue(result.stderr.contains("cannot open capture v4l2:/dev/video97"), result.stderr)
        XCTAssertFalse(result.stderr.contains("lab run: serving"), "nothing started: \(result.stderr)")
    }
}
