import Foundation
import XCTest
@testable import LabCore

/// Each step of the stall detector has examples that are its specification: they run here.
final class StallStepExampleTests: XCTestCase {
    func testEveryStallStepExampleFindsWhatItSays() {
        XCTAssertEqual(StallSteps.all.map(\.id), ["freeze", "lead", "rate-drop", "ad-hold", "own-end"])
        for step in StallSteps.all {
            XCTAssertGreaterThanOrEqual(step.examples.count, 2, step.id)
            for example in step.examples {
                let m = example.measure()
                let what = "\(step.id): '\(example.name)': \(m.reason)"
                XCTAssertEqual(m.stalls.map(\.kind), example.stalls.map(\.kind), what)
                for (found, wanted) in zip(m.stalls, example.stalls) {
                    XCTAssertEqual(found.durationMs, wanted.ms, accuracy: example.accuracyMs, what)
                }
                if let start = example.startMs { XCTAssertEqual(m.stalls.first?.startMs ?? -1, start, accuracy: 1, what) }
                if let hold = example.adHoldMs { XCTAssertEqual(m.adHoldMs ?? -1, hold, accuracy: 1, what) } else { XCTAssertNil(m.adHoldMs, what) }
                XCTAssertEqual(m.shortEnd != nil, example.ownEnd, what)
            }
        }
    }
}
