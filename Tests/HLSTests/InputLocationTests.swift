@testable import HLS
import XCTest

final class InputLocationTests: XCTestCase {
    func testRelativePathsResolveAgainstTheWorkingDirectory() throws {
        XCTAssertEqual(try InputLocation(parsing: "media/../ad.mp4", relativeTo: "/srv/lab"), .file(path: "/srv/lab/ad.mp4"))
        XCTAssertEqual(try InputLocation(parsing: "/abs/x.mp4"), .file(path: "/abs/x.mp4"))
    }

    func testFileURLsBecomePaths() throws {
        XCTAssertEqual(try InputLocation(parsing: "file:///tmp/a%20b.mp4"), .file(path: "/tmp/a b.mp4"))
        XCTAssertEqual(try InputLocation(parsing: "file://localhost/tmp/a.mp4"), .file(path: "/tmp/a.mp4"))
        XCTAssertThrowsError(try InputLocation(parsing: "file://otherhost/tmp/a.mp4")) { error in
            XCTAssertEqual(error as? InputLocationError, .remoteFileURL("file://otherhost/tmp/a.mp4"))
        }
    }

    func testHTTPURLsAreRemote() throws {
        let location = try InputLocation(parsing: "https://cdn.example/ads/a.m3u8?x=1")
        XCTAssertTrue(location.isRemote)
        XCTAssertEqual(location.description, "https://cdn.example/ads/a.m3u8?x=1")
        XCTAssertEqual(location.displayName, "a.m3u8")
        XCTAssertThrowsError(try InputLocation(parsing: "http:///nohost")) { error in
            XCTAssertEqual(error as? InputLocationError, .malformedURL("http:///nohost"))
        }
    }

    func testOtherSchemesAreRefusedNotTreatedAsFileNames() {
        for text in ["ftp://host/a.mp4", "htp://host/a.mp4", "data:video/mp4;base64,AAAA", "concat:a.mp4|b.mp4"] {
            XCTAssertThrowsError(try InputLocation(parsing: text), text) { error in
                guard case .unsupportedScheme = error as? InputLocationError else { return XCTFail("\(text): \(error)") }
            }
        }
    }

    func testColonInsideAFileNameIsNotAScheme() throws {
        XCTAssertEqual(try InputLocation(parsing: "ads/spot 10:30.mp4", relativeTo: "/m"), .file(path: "/m/ads/spot 10:30.mp4"))
        XCTAssertEqual(try InputLocation(parsing: "C:/x.mp4", relativeTo: "/m"), .file(path: "/m/C:/x.mp4"))
        XCTAssertThrowsError(try InputLocation(parsing: "  ")) { error in
            XCTAssertEqual(error as? InputLocationError, .empty)
        }
    }
}
