import Foundation
import XCTest
@testable import LabCore
@testable import LabRun
@testable import LabServer

/// Every behaviour rule's examples, run: each is the rule's specification.
final class BehaviourRuleExampleTests: XCTestCase {
    func testEveryExpectationKindHasARuleWithExamples() {
        for kind in LabExpectation.Kind.allCases {
            let rule = BehaviourRules.all.first { $0.kind == kind }
            XCTAssertNotNil(rule, "no rule for \(kind)")
            XCTAssertFalse(rule?.examples.isEmpty ?? true, "\(kind) has no example")
            XCTAssert(rule?.examples.contains { $0.outcome == .deviates } ?? false, "\(kind) has no deviating example")
        }
    }

    func testExamples() throws {
        for rule in BehaviourRules.all {
            for example in rule.examples {
                let judgement = try XCTUnwrap(example.judge(), example.name)
                let check = judgement.checks.first { $0.kind == rule.kind }
                if example.overall == .ignores || judgement.outcome == .ignores {
                    XCTAssertEqual(judgement.outcome, example.overall ?? example.outcome, "\(rule.kind): \(example.name): \(judgement.why ?? "")")
                    continue
                }
                XCTAssertEqual(check?.outcome, example.outcome,
                               "\(rule.kind): \(example.name): \(check?.observed ?? judgement.why ?? "no check")")
                if let overall = example.overall { XCTAssertEqual(judgement.outcome, overall, "\(rule.kind): \(example.name)") }
                if example.outcome == .deviates {
                    XCTAssertEqual(judgement.outcome, .deviates, "\(rule.kind): \(example.name)")
                    XCTAssert(judgement.why?.contains(check?.observed ?? "-") == true, "\(rule.kind): \(example.name): \(judgement.why ?? "")")
                }
            }
        }
    }
}
