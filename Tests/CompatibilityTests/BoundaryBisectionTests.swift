import Foundation
import XCTest
@testable import Compatibility

/// `break-off-segment-boundary` finds the boundaries around a break by bisection when they only go
/// up: the finding is the one reading every boundary gives, ties and repeated boundaries included.
final class BoundaryBisectionTests: XCTestCase {
    func testBisectionGivesWhatReadingEveryBoundaryGives() {
        var generator = SystemRandomNumberGenerator()
        for round in 0..<300 {
            // Segments of 0-3 s on a millisecond grid (some of 0 s: repeated boundaries).
            var boundaries = [0.0]
            for _ in 0..<Int.random(in: 1...40, using: &generator) {
                boundaries.append(boundaries.last! + Double(Int.random(in: 0...3000, using: &generator)) / 1000)
            }
            let end = boundaries.last!
            var offsets = (0..<20).map { _ in Double.random(in: -1...(end + 1), using: &generator) }
            // Exactly between two boundaries (a tie), on one, and 1 ms either side of one.
            for index in boundaries.indices.dropFirst() {
                offsets += [(boundaries[index - 1] + boundaries[index]) / 2, boundaries[index], boundaries[index] + 0.001, boundaries[index] - 0.0011]
            }
            for offset in offsets {
                for snap in [[], ["IN"]] {
                    let start = round % 2 == 0 ? Date(timeIntervalSince1970: 1_700_000_000) : nil
                    XCTAssertEqual(BoundaryRule.evaluate(offset: offset, boundaries: boundaries, snap: snap, live: round % 3 == 0, startDate: start, ascending: true),
                                   BoundaryRule.evaluate(offset: offset, boundaries: boundaries, snap: snap, live: round % 3 == 0, startDate: start, ascending: false),
                                   "offset \(offset) in \(boundaries)")
                }
            }
        }
    }

    func testBoundariesThatGoDownAreReadOneByOne() {
        XCTAssertFalse(BoundaryRule.isAscending([0, 2, 1, 4]))
        XCTAssertFalse(BoundaryRule.isAscending([0, .nan, 4]))
        XCTAssertTrue(BoundaryRule.isAscending([0, 2, 2, 4]))
        // Unsorted boundaries (a hostile playlist's negative EXTINF): the answer of the scan.
        let unsorted = [0.0, 6, 3, 12]
        XCTAssertEqual(BoundaryRule.evaluate(offset: 4, boundaries: unsorted, snap: []),
                       BoundaryRule.evaluate(offset: 4, boundaries: unsorted, snap: [], ascending: false))
    }
}
