import Foundation
import XCTest
@testable import LabCore
@testable import LabRun
@testable import LabServer

final class ServingRulesTests: XCTestCase {
    func testByteRangesAreReadAsRFC9110SaysNotAsTheFirstNBytes() {
        XCTAssertEqual(ByteRange.resolve("bytes=0-99", size: 1000), .range(first: 0, last: 99))
        XCTAssertEqual(ByteRange.resolve("bytes=-100", size: 1000), .range(first: 900, last: 999), "a suffix range is the last N bytes")
        XCTAssertEqual(ByteRange.resolve("bytes=-5000", size: 1000), .range(first: 0, last: 999))
        XCTAssertEqual(ByteRange.resolve("bytes=990-", size: 1000), .range(first: 990, last: 999))
        XCTAssertEqual(ByteRange.resolve("bytes=500-99999999999", size: 1000), .range(first: 500, last: 999))
    }

    func testARangePastTheEndIsUnsatisfiableAndNonsenseIsIgnored() {
        XCTAssertEqual(ByteRange.resolve("bytes=1000-", size: 1000), .unsatisfiable)
        XCTAssertEqual(ByteRange.resolve("bytes=99999999-999999999", size: 1000), .unsatisfiable)
        XCTAssertEqual(ByteRange.resolve("bytes=-0", size: 1000), .unsatisfiable)
        XCTAssertEqual(ByteRange.resolve("bytes=0-1,5-9", size: 1000), .whole, "several ranges: the whole file, not the first range")
        XCTAssertEqual(ByteRange.resolve("bytes=9-1", size: 1000), .whole)
        XCTAssertEqual(ByteRange.resolve("items=0-1", size: 1000), .whole)
        XCTAssertEqual(ByteRange.resolve("bytes=x-", size: 1000), .whole)
        XCTAssertEqual(ByteRange.resolve("bytes=99999999999999999999999-", size: 1000), .unsatisfiable, "a position past 64 bits is past any file: 416, no overflow")
    }

    func testPathsAreConfinedToTheSuiteAfterFollowingLinks() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("suite-\(UUID().uuidString)").resolvingSymlinksInPath().path
        let outside = root + "-outside"
        try FileManager.default.createDirectory(atPath: root + "/primary", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: root + "/cases/a", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root); try? FileManager.default.removeItem(atPath: outside) }
        try Data("seg".utf8).write(to: URL(fileURLWithPath: root + "/primary/seg_000.m4s"))
        try Data("secret".utf8).write(to: URL(fileURLWithPath: outside + "/secret.txt"))
        try FileManager.default.createSymbolicLink(atPath: root + "/cases/a/primary", withDestinationPath: "../../primary")
        try FileManager.default.createSymbolicLink(atPath: root + "/cases/a/leak.txt", withDestinationPath: outside + "/secret.txt")

        XCTAssertEqual(SuiteFiles.confined("/cases/a/primary/seg_000.m4s", root: root), root + "/primary/seg_000.m4s",
                       "the case's link to the shared primary stays inside")
        XCTAssertNil(SuiteFiles.confined("/cases/a/leak.txt", root: root), "a link out of the suite")
        XCTAssertNil(SuiteFiles.confined("/../" + URL(fileURLWithPath: outside).lastPathComponent + "/secret.txt", root: root))
        XCTAssertNil(SuiteFiles.confined("/cases/a/missing.m4s", root: root))
        XCTAssertNil(SuiteFiles.confined("/", root: root))
        XCTAssertNil(SuiteFiles.confined("/cases/a/x\0.m4s", root: root))
    }

    func testTheOriginComesFromTheHostTheClientUsedUnlessItIsNotAHost() {
        XCTAssertEqual(SuiteFiles.origin(host: "192.168.1.20:8080", fallback: "0.0.0.0:8080"), "http://192.168.1.20:8080")
        XCTAssertEqual(SuiteFiles.origin(host: "lab.local:8080\"/><script>", fallback: "10.0.0.1:8080"), "http://10.0.0.1:8080")
        XCTAssertEqual(SuiteFiles.origin(host: nil, fallback: "10.0.0.1:8080"), "http://10.0.0.1:8080")
    }

    func testHLSFilesGetTheirMIMETypes() {
        XCTAssertEqual(SuiteFiles.mediaType(of: "/cases/a/master.m3u8"), "application/vnd.apple.mpegurl")
        XCTAssertEqual(SuiteFiles.mediaType(of: "/cases/a/primary/seg_001.m4s"), "video/iso.segment")
        XCTAssertEqual(SuiteFiles.mediaType(of: "/cases/a/ad/seg.ts"), "video/mp2t")
        XCTAssertNil(SuiteFiles.mediaType(of: "/cases/a.b/noextension"))
    }
}
