import XCTest
@testable import LabCore
@testable import LabRun
@testable import LabServer

/// Range positions of any length (RFC 9110 14.1.1: 1*DIGIT): one past what 64 bits hold is past
/// every file's end, never a header to ignore (that was a 200 with the whole file).
final class ByteRangeTests: XCTestCase {
    func testPositionsPastSixtyFourBitsArePastTheEnd() {
        let size = 1_000
        XCTAssertEqual(ByteRange.resolve("bytes=18446744073709551615-", size: size), .unsatisfiable)
        XCTAssertEqual(ByteRange.resolve("bytes=9223372036854775807-", size: size), .unsatisfiable, "Int.max itself")
        XCTAssertEqual(ByteRange.resolve("bytes=\(String(repeating: "9", count: 400))-", size: size), .unsatisfiable)
        XCTAssertEqual(ByteRange.resolve("bytes=1000000000000000000-1000000000000000001", size: size), .unsatisfiable)
    }

    func testALastPositionOrSuffixPastSixtyFourBitsMeansToTheEnd() {
        XCTAssertEqual(ByteRange.resolve("bytes=10-18446744073709551615", size: 1_000), .range(first: 10, last: 999))
        XCTAssertEqual(ByteRange.resolve("bytes=-18446744073709551615", size: 1_000), .range(first: 0, last: 999))
    }

    func testLeadingZerosDoNotCountAsMagnitude() {
        XCTAssertEqual(ByteRange.resolve("bytes=0000000000000000000000005-0000000000000000000000009", size: 1_000), .range(first: 5, last: 9))
        XCTAssertEqual(ByteRange.resolve("bytes=000-", size: 1_000), .range(first: 0, last: 999))
    }

    func testWhatIsNotAByteRangeIsStillIgnored() {
        for header in ["bytes=9-5", "bytes=abc-", "bytes=-", "bytes=1-2,4-5", "items=0-1", "bytes=+5-", "bytes=٣-"] {
            XCTAssertEqual(ByteRange.resolve(header, size: 1_000), .whole, header)
        }
        XCTAssertEqual(ByteRange.resolve("bytes=-0", size: 1_000), .unsatisfiable)
    }
}
