import Foundation
import SeamcheckTestSupport
import XCTest

final class CatalogCommandTests: XCTestCase {
    func testRulesListAndShow() throws {
        let list = try SeamcheckBinary.run(["rules", "list", "--format", "table"])
        XCTAssertEqual(list.status, 0)
        XCTAssertTrue(list.stdout.contains("sample-rate-mismatch"), list.stdout)
        let show = try SeamcheckBinary.run(["rules", "show", "aspect-ratio-mismatch", "--format", "table"])
        XCTAssertEqual(show.status, 0)
        XCTAssertTrue(show.stdout.contains("does not   anamorphic 1440x1080 SAR 4:3 displays at 16:9"), show.stdout)
        let unknown = try SeamcheckBinary.run(["rules", "show", "no-such-rule"])
        XCTAssertEqual(unknown.status, 2)
    }

    func testProfilesListShowValidate() throws {
        let list = try SeamcheckBinary.run(["profiles", "list", "--format", "json"])
        XCTAssertEqual(list.status, 0)
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [String: Any])
        XCTAssertEqual((json["profiles"] as? [[String: Any]])?.count, 7)
        let show = try SeamcheckBinary.run(["profiles", "show", "smart-tv-low-end", "--format", "table"])
        XCTAssertTrue(show.stdout.contains("video-codec-mismatch: error"), show.stdout)
        let validate = try SeamcheckBinary.run(["profiles", "validate"])
        XCTAssertEqual(validate.status, 0, validate.stderr)
        XCTAssertTrue(validate.stdout.contains("7 profile(s) valid"))
    }

    func testProfilesAreFoundFromAnyWorkingDirectory() throws {
        let result = try SeamcheckBinary.run(["profiles", "list", "--format", "json"], currentDirectory: URL(fileURLWithPath: "/"))
        XCTAssertEqual(result.status, 0, result.stderr)
    }
}
