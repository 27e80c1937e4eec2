import Foundation
import LabCore
import Processes
import SeamcheckTestSupport
import XCTest

/// What the tests of `seamcheck lab run` against a real receiver share: a folder of their own per
/// test (deleted after it), the run's results database in it, the command line with the small
/// suite and the receiver's AirPlay address, and the store to read back.
class LabRunReceiverTestCase: XCTestCase {
    /// The temporary folder's name prefix (a subclass names its receiver).
    class var folderPrefix: String { "labrun" }
    var folder = ""
    var database = ""

    override func setUpWithError() throws {
        folder = try LabEnvironment.temporaryFolder(Self.folderPrefix)
        database = folder + "/lab.sqlite"
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// `seamcheck lab run` on the small suite against `endpoint`, JSON out, then `arguments`.
    func labRun(endpoint: String, _ arguments: [String]) throws -> [String] {
        [SeamcheckBinary.path, "lab", "run", "--db", database, "--streams", try LabSuiteFixture.small(), "--receiver", endpoint,
         "--format", "json"] + arguments
    }

    func store() throws -> LabStore { try LabStore(path: database, create: false) }

    /// Waits (60 s at most) until the run stored its first cell.
    func waitForFirstCell(_ process: RunningProcess) {
        XCTAssertTrue(DiscoverEnvironment.wait(60) { ((try? LabStore(path: self.database, create: false).latestCells().count) ?? 0) >= 1 },
                      process.output)
    }
}
