import Foundation
import XCTest
@testable import LabCore
@testable import LabRun
@testable import LabServer

/// Each measurement rule's examples are its specification: they run here as tests.
final class MeasurementRuleExampleTests: XCTestCase {
    func testEveryMeasurementRuleExampleFiresExactlyWhenItSaysItDoes() {
        for rule in MeasurementRules.all {
            XCTAssertTrue(rule.examples.contains { $0.triggers }, "\(rule.id) needs an example that fires")
            XCTAssertTrue(rule.examples.contains { !$0.triggers }, "\(rule.id) needs an example that does not fire")
            for example in rule.examples {
                let measured = example.measure()
                XCTAssertEqual(rule.fires(measured), example.triggers, "\(rule.id): '\(example.name)': \(measured.reason)")
                XCTAssertEqual(measured.outcome, example.outcome, "\(rule.id): '\(example.name)': \(measured.reason)")
            }
        }
    }

    func testRuleIdsAreUniqueAndEveryRuleIsDocumented() throws {
        let ids = MeasurementRules.all.map(\.id)
        XCTAssertEqual(Set(ids).count, ids.count)
        let doc = try String(contentsOfFile: URL(fileURLWithPath: LabTests.profilesDirectory).deletingLastPathComponent().path + "/docs/lab.md", encoding: .utf8)
        for id in ids { XCTAssertTrue(doc.contains("`\(id)`"), "docs/lab.md names \(id)") }
    }
}
