import Foundation
import XCTest
@testable import Lab

final class LabSuiteTests: XCTestCase {
    func testAFolderWithoutAManifestSaysHowToGenerateOne() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("lab-empty-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        XCTAssertThrowsError(try LabSuite.load(folder)) { error in
            XCTAssertEqual(error as? LabSuiteError, .missingManifest(folder: folder))
            XCTAssertTrue("\(error)".contains("seamcheck lab streams --output \(folder)"), "\(error)")
        }
    }

    func testAManifestFromANewerSeamcheckIsRefusedByVersion() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("lab-v9-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var manifest = LabManifest(generator: "test", primaryTimeline: [], cases: [])
        manifest.schemaVersion = 9
        try JSONEncoder().encode(manifest).write(to: URL(fileURLWithPath: folder + "/lab.json"))
        XCTAssertThrowsError(try LabSuite.load(folder)) { error in
            guard case .unsupportedSchema(_, 9) = error as? LabSuiteError else { return XCTFail("\(error)") }
        }
    }
}
