import Foundation
import XCTest
@testable import LabCore

/// The comparison's rules as worked examples (each row a before, an after and the change it is),
/// and the gate built on them.
final class RunComparisonTests: XCTestCase {
    static func brief(_ verdict: MeasuredOutcome, stallMs: Double? = nil, behaviour: BehaviourOutcome? = nil, receiver: String = "Den",
                      caseId: String = "control", run: String = "r1", id: Int64 = 1, done: Bool = true,
                      software: LabReceiverSoftware? = nil, jump: Bool = false) -> LabCellBrief {
        var m = CellMeasurement(stalls: stallMs.map { [MeasuredStall(position: 6, startMs: 6000, durationMs: $0, kind: "position-frozen", transition: "ad start 6 s")] } ?? [],
                                outcome: verdict, transitionStallMs: stallMs, reason: "\(verdict.rawValue) because")
        if jump { m.jumps = [MeasuredJump(atMs: 1000, from: 1, to: 5, kind: "forward")] }
        if let behaviour {
            m.behaviour = BehaviourJudgement(caseId: caseId, feature: "cue", outcome: behaviour, checks: [], why: nil, evidence: [], requests: 0)
        }
        let start = Date(timeIntervalSince1970: 1_800_000_000 + Double(id) * 20)
        return LabCellBrief(id: id, runId: run, station: "room-a", receiver: receiver, deviceClass: "smart-tv-low-end", caseId: caseId,
                            attempt: 1, startedAt: start, finishedAt: start.addingTimeInterval(15), done: done, measurement: m, software: software)
    }

    /// (before, after, change): the rules `RunComparer.judge` applies, in order.
    static let examples: [(String, LabCellBrief?, LabCellBrief?, RunComparison.Change)] = [
        ("seamless -> stall is worse", brief(.seamless), brief(.stall, stallMs: 1200), .worse),
        ("stall -> seamless is better", brief(.stall, stallMs: 1200), brief(.seamless), .better),
        ("seamless -> glitch (a jump) is worse", brief(.seamless), brief(.seamless, jump: true), .worse),
        ("a stall 600 ms longer is worse", brief(.stall, stallMs: 300), brief(.stall, stallMs: 900), .worse),
        ("a stall 100 ms longer is within the threshold", brief(.stall, stallMs: 300), brief(.stall, stallMs: 400), .same),
        ("a stall 250 ms shorter is better", brief(.stall, stallMs: 900), brief(.stall, stallMs: 650), .better),
        ("conforms -> deviates is worse", brief(.seamless, behaviour: .conforms), brief(.seamless, behaviour: .deviates), .worse),
        ("conforms -> ignores is worse", brief(.seamless, behaviour: .conforms), brief(.seamless, behaviour: .ignores), .worse),
        ("deviates -> conforms is better", brief(.seamless, behaviour: .deviates), brief(.seamless, behaviour: .conforms), .better),
        ("not judged says nothing: the verdict decides", brief(.seamless, behaviour: .conforms), brief(.seamless, behaviour: .notJudged), .same),
        ("skipped says nothing of the switch", brief(.seamless), brief(.skipped), .new),
        ("a cell only in the later run is new", nil, brief(.seamless), .new),
        ("a cell only in the earlier run is gone", brief(.seamless), nil, .gone),
        ("seamless -> failed is worse", brief(.seamless), brief(.failed), .worse),
    ]

    func testEveryExampleIsJudgedAsItSays() {
        let comparer = RunComparer()
        for (name, before, after, expected) in Self.examples {
            XCTAssertEqual(comparer.judge(before, after).0, expected, name)
        }
    }

    func testTheStallThresholdIsData() {
        let strict = RunComparer(thresholds: ComparisonThresholds(stallChangeMs: 50))
        XCTAssertEqual(strict.judge(Self.brief(.stall, stallMs: 300), Self.brief(.stall, stallMs: 400)).0, .worse)
    }

    func testAComparisonListsWorseFirstWithTheFirmwareOnEachSide() {
        let old = LabReceiverSoftware(sourceVersion: "377.40.00", osVersion: "17.1", model: "AppleTV11,1")
        let new = LabReceiverSoftware(sourceVersion: "380.20.1", osVersion: "17.2", model: "AppleTV11,1")
        let before = [Self.brief(.seamless, caseId: "control", run: "a", id: 1, software: old),
                      Self.brief(.stall, stallMs: 1500, caseId: "hevc", run: "a", id: 2, software: old),
                      Self.brief(.seamless, behaviour: .conforms, caseId: "behaviour-cue-pre", run: "a", id: 3, software: old),
                      Self.brief(.seamless, caseId: "aspect", run: "a", id: 4, software: old)]
        let after = [Self.brief(.stall, stallMs: 1200, caseId: "control", run: "b", id: 11, software: new),
                     Self.brief(.seamless, caseId: "hevc", run: "b", id: 12, software: new),
                     Self.brief(.seamless, behaviour: .deviates, caseId: "behaviour-cue-pre", run: "b", id: 13, software: new),
                     Self.brief(.seamless, caseId: "aspect", run: "b", id: 14, software: new),
                     Self.brief(.seamless, caseId: "new-case", run: "b", id: 15, software: new),
                     Self.brief(.failed, caseId: "resume", run: "b", id: 16, done: false, software: new)]
        let c = RunComparer().compare(before: "a", before, after: "b", after)
        XCTAssertEqual(c.entries.map(\.change), [.worse, .worse, .better, .new])
        XCTAssertEqual(c.entries.map(\.caseId), ["behaviour-cue-pre", "control", "hevc", "new-case"])
        XCTAssertEqual(c.entries[0].what, "conforms -> deviates")
        XCTAssertEqual(c.entries[1].what, "seamless -> stall 1200 ms")
        XCTAssertTrue(c.entries[1].firmwareChanged)
        XCTAssertEqual(c.entries[1].before?.software?.sourceVersion, "377.40.00")
        XCTAssertEqual(c.entries[1].after?.software?.sourceVersion, "380.20.1")
        XCTAssertEqual(c.firmware.map(\.changes), [["srcvers 377.40.00 -> 380.20.1", "osvers 17.1 -> 17.2"]])
        XCTAssertEqual(c.counts, ["worse": 2, "better": 1, "new": 1, "gone": 0])
        XCTAssertEqual(c.regressions.count, 2, "a cell stored as not run is no observation")
    }

    func testSoftwareDiffersOnlyWhereBothSidesKnowAField() {
        let a = LabReceiverSoftware(sourceVersion: "1", osVersion: nil)
        XCTAssertFalse(a.differs(from: LabReceiverSoftware(sourceVersion: "1", osVersion: "9")))
        XCTAssertTrue(a.differs(from: LabReceiverSoftware(sourceVersion: "2")))
        XCTAssertFalse(a.differs(from: nil))
        XCTAssertFalse(LabReceiverSoftware(model: "A").differs(from: LabReceiverSoftware(model: "B")), "a model is the device, not its software")
    }

    func testTheGateFindsWhatWasAskedAndAcceptsKnownIssues() {
        let before = [Self.brief(.seamless, caseId: "control", run: "a", id: 1), Self.brief(.seamless, caseId: "hevc", run: "a", id: 2)]
        let after = [Self.brief(.stall, stallMs: 1200, caseId: "control", run: "b", id: 11),
                     Self.brief(.failed, caseId: "hevc", run: "b", id: 12), Self.brief(.failed, caseId: "x", run: "b", id: 13)]
        let comparison = RunComparer().compare(before: "a", before, after: "b", after)
        let onlyFailed = LabGate.evaluate(runId: "b", cells: after, conditions: [.failed], comparison: nil)
        XCTAssertEqual(onlyFailed.findings.map(\.caseId), ["hevc", "x"])
        XCTAssertTrue(onlyFailed.fails)
        let regressions = LabGate.evaluate(runId: "b", cells: after, conditions: [.regression], comparison: comparison) { finding in
            finding.caseId == "hevc" ? "vendor ticket 42: HEVC ads fail on this TV" : nil
        }
        XCTAssertEqual(regressions.findings.map(\.rule), ["lab-regression", "lab-regression"])
        XCTAssertEqual(regressions.findings.map(\.caseId), ["control", "hevc"])
        XCTAssertEqual(regressions.findings[0].baseline, "seamless in run a")
        XCTAssertTrue(regressions.findings[0].isOpen)
        XCTAssertEqual(regressions.findings[1].accepted, "vendor ticket 42: HEVC ads fail on this TV")
        XCTAssertTrue(regressions.fails)
        let allAccepted = LabGate.evaluate(runId: "b", cells: after, conditions: [.regression], comparison: comparison) { _ in "known" }
        XCTAssertFalse(allAccepted.fails, "accepted findings are reported and never fail the run")
        XCTAssertFalse(LabGate.evaluate(runId: "b", cells: after, conditions: [], comparison: comparison).fails, "nothing asked: exit as before")
        XCTAssertEqual(LabGateCondition.rules, ["lab-failed", "lab-stall", "lab-regression"])
    }
}
