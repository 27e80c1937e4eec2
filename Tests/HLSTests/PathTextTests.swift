import HLS
import XCTest

/// Fuzzing found Foundation's NSString path API trapping on `/a///b//` (issue 14); PathText is
/// what takes network paths apart instead.
final class PathTextTests: XCTestCase {
    func testLastComponentSkipsRepeatedAndTrailingSlashes() {
        XCTAssertEqual(PathText.lastComponent("/a///b//"), "b")
        XCTAssertEqual(PathText.lastComponent("a//"), "a")
        XCTAssertEqual(PathText.lastComponent("///"), "/")
        XCTAssertEqual(PathText.lastComponent(""), "")
        XCTAssertEqual(PathText.lastComponent("/m/ad.mp4"), "ad.mp4")
    }

    func testDeletingLastComponentKeepsTheRoot() {
        XCTAssertEqual(PathText.deletingLastComponent("/a///b//"), "/a")
        XCTAssertEqual(PathText.deletingLastComponent("/a"), "/")
        XCTAssertEqual(PathText.deletingLastComponent("/"), "/")
        XCTAssertEqual(PathText.deletingLastComponent("a"), "")
        XCTAssertEqual(PathText.deletingLastComponent("x/y/z.md"), "x/y")
    }

    func testExtensionsOfFileNames() {
        XCTAssertEqual(PathText.fileExtension("ad.MP4"), "MP4")
        XCTAssertEqual(PathText.fileExtension(".profile"), "")
        XCTAssertEqual(PathText.fileExtension("a."), "")
        XCTAssertEqual(PathText.fileExtension("a"), "")
        XCTAssertEqual(PathText.deletingExtension("tv.low.yaml"), "tv.low")
        XCTAssertEqual(PathText.deletingExtension(".profile"), ".profile")
        XCTAssertEqual(PathText.appending("x.json", to: "Reports/"), "Reports/x.json")
        XCTAssertEqual(PathText.appending("x.json", to: "Reports"), "Reports/x.json")
        XCTAssertEqual(PathText.appending("x.json", to: ""), "x.json")
    }

    func testFileNamesOfInputs() {
        XCTAssertEqual(PathText.fileName(ofInput: "http://host/a///b//"), "b")
        XCTAssertEqual(PathText.fileName(ofInput: "https://host/x/ad%2025.m3u8?token=a/b#c"), "ad 25.m3u8")
        XCTAssertEqual(PathText.fileName(ofInput: "http://host/"), "")
        XCTAssertEqual(PathText.fileName(ofInput: "http://host"), "")
        XCTAssertEqual(PathText.fileName(ofInput: "file:///a///b//"), "b")
        XCTAssertEqual(PathText.fileName(ofInput: "/a///b//"), "b")
        XCTAssertEqual(PathText.fileName(ofInput: "ad.mp4"), "ad.mp4")
    }

    func testDisplayNamesOfLocationsWithRepeatedSlashes() throws {
        XCTAssertEqual(InputLocation.file(path: "/a///b//").displayName, "b")
        XCTAssertEqual(InputLocation.remote(try XCTUnwrap(URL(string: "http://host/a///b//"))).displayName, "b")
        XCTAssertEqual(InputLocation.remote(try XCTUnwrap(URL(string: "http://host/"))).displayName, "http://host/")
    }
}
