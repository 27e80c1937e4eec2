import Foundation
import XCTest
@testable import LabCore
@testable import LabRun
@testable import LabServer
import Matrix

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

final class SharedDatabaseTests: XCTestCase {
    func testTheLabAndTheMatrixOpenOneResultsFileInEitherOrder() throws {
        let path = LabTestData.temporaryDatabase()
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        _ = try ResultStore(path: path)
        let lab = try LabStore(path: path, create: false)
        try lab.record(LabVerdictRecord(receiver: "TV", caseId: "control", verdict: .stall, source: "cli"))
        let matrix = try ResultStore(path: path, create: false)
        XCTAssertEqual(try matrix.runs().count, 0)
        XCTAssertEqual(try LabStore(path: path, create: false).verdicts().map(\.verdict), [.stall])
        XCTAssertThrowsError(try LabStore(path: path + ".missing", create: false)) {
            XCTAssertEqual($0 as? LabStoreError, .missing(path: path + ".missing"))
        }
    }
}
