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
        XCTAssertEqual(SuiteFiles.origin(host: "[fe80::1]:8080", fallback: "x:1"), "http://[fe80::1]:8080")
        XCTAssertEqual(SuiteFiles.origin(host: "", fallback: "10.0.0.1:8080"), "http://10.0.0.1:8080")
        XCTAssertEqual(SuiteFiles.origin(host: String(repeating: "a", count: 256), fallback: "10.0.0.1:8080"), "http://10.0.0.1:8080")
        XCTAssertEqual(SuiteFiles.origin(host: "lab\u{e9}.local", fallback: "10.0.0.1:8080"), "http://10.0.0.1:8080", "not ASCII")
    }

    func testARequestPathIsDecodedOnlyWhenEncodedAndNeverWithDotDot() {
        XCTAssertEqual(SuiteFiles.requestPath("/cases/a/master.m3u8"), "/cases/a/master.m3u8")
        XCTAssertEqual(SuiteFiles.requestPath("/cases/a%20b/x.m3u8"), "/cases/a b/x.m3u8")
        XCTAssertNil(SuiteFiles.requestPath("/cases/../x.m3u8"))
        XCTAssertNil(SuiteFiles.requestPath("/cases/%2E%2E/x.m3u8"), "dots encoded are dots once decoded")
        XCTAssertNil(SuiteFiles.requestPath("/cases/%zz.m3u8"), "not percent-encoding")
        XCTAssertEqual(SuiteFiles.requestPath("/cases/a.b.c/x.m3u8"), "/cases/a.b.c/x.m3u8", "single dots are fine")
    }

    /// ConfinedPaths keeps each path's resolution while the path names the same file, and never
    /// serves what a link swapped after the first resolution points to outside the suite.
    func testAKeptResolutionFollowsALinkSwappedAfterItAndNeverLeavesTheSuite() throws {
        let fm = FileManager.default
        let root = fm.temporaryDirectory.appendingPathComponent("suite-\(UUID().uuidString)").resolvingSymlinksInPath().path
        let outside = root + "-outside"
        try fm.createDirectory(atPath: root + "/primary", withIntermediateDirectories: true)
        try fm.createDirectory(atPath: root + "/cases/a", withIntermediateDirectories: true)
        try fm.createDirectory(atPath: outside + "/primary", withIntermediateDirectories: true)
        defer { try? fm.removeItem(atPath: root); try? fm.removeItem(atPath: outside) }
        for name in ["seg_000.m4s", "seg_001.m4s"] {
            try Data(name.utf8).write(to: URL(fileURLWithPath: root + "/primary/" + name))
            try Data("secret".utf8).write(to: URL(fileURLWithPath: outside + "/primary/" + name))
        }
        try fm.createSymbolicLink(atPath: root + "/cases/a/primary", withDestinationPath: "../../primary")
        try fm.createSymbolicLink(atPath: root + "/cases/a/link.m4s", withDestinationPath: "../../primary/seg_000.m4s")
        func relink(_ path: String, to target: String) throws {
            try fm.removeItem(atPath: root + path)
            try fm.createSymbolicLink(atPath: root + path, withDestinationPath: target)
        }
        let paths = ConfinedPaths(root: root)

        XCTAssertEqual(paths.resolve("/cases/a/link.m4s")?.path, root + "/primary/seg_000.m4s")
        XCTAssertEqual(paths.resolve("/cases/a/primary/seg_001.m4s")?.path, root + "/primary/seg_001.m4s")
        XCTAssertEqual(paths.count, 2, "both kept")
        XCTAssertEqual(paths.resolve("/cases/a/link.m4s")?.path, root + "/primary/seg_000.m4s", "kept")
        // The link swapped to another file inside: that file.
        try relink("/cases/a/link.m4s", to: "../../primary/seg_001.m4s")
        XCTAssertEqual(paths.resolve("/cases/a/link.m4s")?.path, root + "/primary/seg_001.m4s")
        // Swapped out of the suite: refused, every time.
        try relink("/cases/a/link.m4s", to: outside + "/primary/seg_000.m4s")
        XCTAssertNil(paths.resolve("/cases/a/link.m4s"))
        XCTAssertNil(paths.resolve("/cases/a/link.m4s"))
        // A folder link on the way swapped out: refused too.
        try relink("/cases/a/primary", to: outside + "/primary")
        XCTAssertNil(paths.resolve("/cases/a/primary/seg_001.m4s"))
        try relink("/cases/a/primary", to: "../../primary")
        XCTAssertEqual(paths.resolve("/cases/a/primary/seg_001.m4s")?.path, root + "/primary/seg_001.m4s")
        // The file replaced (a new inode, new bytes): resolved again, its new size seen.
        try fm.removeItem(atPath: root + "/primary/seg_001.m4s")
        try Data("a longer segment".utf8).write(to: URL(fileURLWithPath: root + "/primary/seg_001.m4s"))
        XCTAssertEqual(paths.resolve("/cases/a/primary/seg_001.m4s").map { Int($0.info.st_size) }, "a longer segment".utf8.count)
        // Gone: nil.
        try fm.removeItem(atPath: root + "/primary/seg_001.m4s")
        XCTAssertNil(paths.resolve("/cases/a/primary/seg_001.m4s"))
        XCTAssertNil(paths.resolve("/"), "the folder itself is no file of it")
    }

    func testHLSFilesGetTheirMIMETypes() {
        XCTAssertEqual(SuiteFiles.mediaType(of: "/cases/a/master.m3u8"), "application/vnd.apple.mpegurl")
        XCTAssertEqual(SuiteFiles.mediaType(of: "/cases/a/primary/seg_001.m4s"), "video/iso.segment")
        XCTAssertEqual(SuiteFiles.mediaType(of: "/cases/a/ad/seg.ts"), "video/mp2t")
        XCTAssertNil(SuiteFiles.mediaType(of: "/cases/a.b/noextension"))
        XCTAssertEqual(SuiteFiles.mediaType(of: "/cases/a/MASTER.M3U8"), "application/vnd.apple.mpegurl", "any case")
        XCTAssertNil(SuiteFiles.mediaType(of: "/cases/a/noextension"))
    }

    func testARequestBelongsToTheCaseNamedAfterCases() {
        XCTAssertEqual(SuiteFiles.caseId(of: "/cases/mid/master.m3u8"), "mid")
        XCTAssertEqual(SuiteFiles.caseId(of: "/cases/mid"), "mid")
        XCTAssertEqual(SuiteFiles.caseId(of: "//cases//mid//primary/seg.m4s"), "mid", "empty components skipped")
        XCTAssertNil(SuiteFiles.caseId(of: "/cases/"))
        XCTAssertNil(SuiteFiles.caseId(of: "/casesx/mid/master.m3u8"))
        XCTAssertNil(SuiteFiles.caseId(of: "/lab.json"))
        XCTAssertNil(SuiteFiles.caseId(of: ""))
    }
}
