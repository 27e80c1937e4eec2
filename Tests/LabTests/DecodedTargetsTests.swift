import XCTest
@testable import LabServer

/// The fast path's cache of decoded request paths gives what decoding each time gives, for every
/// encoded variant of a path, and stays bounded.
final class DecodedTargetsTests: XCTestCase {
    let cases: Set<String> = ["control", "mid-roll"]

    func uncached(_ path: String) -> DecodedTargets.Decoded {
        DecodedTargets.Decoded(decoded: SuiteFiles.requestPath(path),
                               caseId: SuiteFiles.caseId(of: path).flatMap { cases.contains($0) ? $0 : nil })
    }

    func testEachEncodedVariantDecodesAsWithoutTheCacheTheFirstTimeAndAfter() {
        let targets = DecodedTargets(knownCases: cases)
        let paths = ["/cases/mid-roll/primary.m3u8", "/cases/mid%2Droll/primary.m3u8", "/cases/mid%2droll/primary%2Em3u8",
                     "/cases/mid-roll%2F..%2Fcontrol/primary.m3u8", "/cases/%2E%2E/lab.json", "/cases/unknown/primary.m3u8",
                     "/cases/control/ads/a%20b.m3u8", "/cases/control/%ZZ.m3u8", "/lab.json", "//cases//control//x.m3u8",
                     "/cases/caf%C3%A9/primary.m3u8", "/cases/control"]
        for round in 0..<2 {
            for path in paths { XCTAssertEqual(targets.decode(path), uncached(path), "round \(round): \(path)") }
        }
        XCTAssertEqual(targets.count, paths.count, "one entry a distinct path as it came")
        XCTAssertEqual(targets.decode("/cases/mid%2Droll/primary.m3u8").decoded, "/cases/mid-roll/primary.m3u8")
        XCTAssertNil(targets.decode("/cases/%2E%2E/lab.json").decoded, "a path that climbs out stays refused when kept")
        // The case is read from the path as it came, as the request log always did.
        XCTAssertEqual(targets.decode("/cases/mid-roll/primary.m3u8").caseId, "mid-roll")
        XCTAssertNil(targets.decode("/cases/unknown/primary.m3u8").caseId)
    }

    func testTheCacheStaysBoundedAndStillAnswersRightPastIt() {
        let targets = DecodedTargets(knownCases: cases)
        for i in 0..<(DecodedTargets.capacity * 2 + 7) {
            let path = "/cases/control/v\(i)%2Em3u8"
            XCTAssertEqual(targets.decode(path).decoded, "/cases/control/v\(i).m3u8")
            XCTAssertLessThanOrEqual(targets.count, DecodedTargets.capacity)
        }
        XCTAssertEqual(targets.decode("/cases/control/v1%2Em3u8"), uncached("/cases/control/v1%2Em3u8"))
    }
}
