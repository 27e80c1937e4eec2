import Foundation
import XCTest

/// A test case with `LabServeTests.makeSuite`'s small hand-made suite in a temporary folder of its
/// own for each test: `folder` (the suite), `database` beside it, and `base` for other files.
/// The folder is removed after each test.
class HandMadeSuiteTestCase: XCTestCase {
    private(set) var base = ""
    var folder: String { base + "/suite" }
    var database: String { base + "/lab.sqlite" }

    override func setUpWithError() throws {
        try super.setUpWithError()
        base = FileManager.default.temporaryDirectory.appendingPathComponent("seamcheck-labserve-\(UUID().uuidString)")
            .resolvingSymlinksInPath().path
        try LabServeTests.makeSuite(at: folder, outside: base + "/outside")
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: base)
        super.tearDown()
    }
}
