import AirPlay
import Compatibility
import Foundation
import XCTest
@testable import LabCore
@testable import LabRun
@testable import LabServer

/// The conformance table's model: lab run cells and lab-page sessions judged, the newest per
/// receiver x feature with how many agreed, and the per-class roll-up.
final class BehaviourReportTests: XCTestCase {
    typealias X = BehaviourExample
    let resume = X.labCase(X.Preset.midRoll.behaviour(in: "behaviour-resume-offset-zero"), id: "behaviour-resume-offset-zero")
    let limit = X.labCase(X.Preset.playoutLimit.behaviour(in: "behaviour-playout-limit"), id: "behaviour-playout-limit")
    var manifest: LabManifest {
        LabManifest(generator: "test", primaryTimeline: X.timeline, cases: [resume, limit, LabTestData.transition("control", rules: [])])
    }
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    func session(_ client: String, _ labCase: LabCase, _ preset: X.Preset, _ sketch: String, at offset: Double) -> [LabRequestRecord] {
        X("s", preset, sketch, .conforms).requests(client: client, caseId: labCase.id, start: t0.addingTimeInterval(offset))
    }

    func cell(_ receiver: String, address: String, deviceClass: String, _ labCase: LabCase, requests: [LabRequestRecord], finished: Double) -> LabRunCell {
        let start = requests.first?.at ?? t0
        let measurement = CellMeasurement(outcome: .seamless, reason: "played")
        let behaviour = BehaviourJudge.judge(case: labCase, primaryTimeline: X.timeline, requests: requests)
        return LabRunCell(runId: "run-1", receiver: receiver, deviceId: nil, deviceClass: deviceClass, address: address, caseId: labCase.id,
                          attempt: 1, startedAt: start.addingTimeInterval(-1), finishedAt: t0.addingTimeInterval(finished), url: "http://x",
                          series: PlaybackSeries(playSentAt: start, pollIntervalMs: 250), requests: requests, measurement: measurement,
                          behaviour: behaviour)
    }

    func testRunCellsAndPersonSessionsMakeOneTable() throws {
        // "Den" played by lab run: resume conforms, the playout limit deviates.
        let denResume = session("127.0.0.5", resume, .midRoll, "m p0 p1 ad-1:0 ad-1:1 p2 p3", at: 0)
        let denLimit = session("127.0.0.5", limit, .playoutLimit, "m p0 p1 ad-1:0 ad-1:1 p4", at: 100)
        let cells = [cell("Den", address: "127.0.0.5", deviceClass: "apple-tv-4k", resume, requests: denResume, finished: 20),
                     cell("Den", address: "127.0.0.5", deviceClass: "apple-tv-4k", limit, requests: denLimit, finished: 120)]
        // A person at the lab page on 127.0.0.6 (no receiver record: named by its address): resumes late twice, then
        // a session too short to judge, which does not hide the earlier ones.
        let person = session("127.0.0.6", resume, .midRoll, "m p0 p1 ad-1:0 ad-1:1 p4 p5", at: 0)
            + session("127.0.0.6", resume, .midRoll, "m p0 p1 ad-1:0 ad-1:1 p4 p5", at: 300)
            + session("127.0.0.6", resume, .midRoll, "m p0", at: 600)
        let requests = denResume + denLimit + person
        let sessions = SessionBuilder(manifest: manifest, receivers: []).sessions(from: requests)
        let report = BehaviourReportBuilder(manifest: manifest, profiles: []).report(sessions: sessions, requests: requests, cells: cells)

        XCTAssertEqual(report.features.map(\.feature), ["resume-offset-zero", "playout-limit"])
        XCTAssertEqual(report.receivers.map(\.receiver), ["Den", "127.0.0.6"])
        let den = try XCTUnwrap(report.cell("Den", "resume-offset-zero"))
        XCTAssertEqual(den.outcome, .conforms)
        XCTAssertEqual(den.source, "run")
        XCTAssertEqual(den.judgements, 1, "the run's own requests are not judged again as a session")
        XCTAssertEqual(report.cell("Den", "playout-limit")?.outcome, .deviates)
        XCTAssert(report.cell("Den", "playout-limit")?.why?.contains("played past X-PLAYOUT-LIMIT=2") == true)
        let lab = try XCTUnwrap(report.cell("127.0.0.6", "resume-offset-zero"))
        XCTAssertEqual(lab.outcome, .deviates)
        XCTAssertEqual(lab.source, "session")
        XCTAssertEqual(lab.judgements, 3)
        XCTAssertEqual(lab.agreeing, 2)
        XCTAssertEqual(lab.why, "resumed at 8.0 s, expected 4.0 s (X-RESUME-OFFSET=0)")
        XCTAssertNil(report.cell("127.0.0.6", "playout-limit"))
        XCTAssertEqual(report.classes.map(\.summary), ["1 conforms", "1 deviates"])
        XCTAssertEqual(report.summary, ["conforms": 1, "deviates": 2])
    }

    func testEveryRunsCellCountsAndNoneComesBackAsASession() throws {
        let first = session("127.0.0.5", resume, .midRoll, "m p0 p1 ad-1:0 ad-1:1 p4 p5", at: 0)
        let second = session("127.0.0.5", resume, .midRoll, "m p0 p1 ad-1:0 ad-1:1 p2 p3", at: 400)
        var older = cell("Den", address: "127.0.0.5", deviceClass: "apple-tv-4k", resume, requests: first, finished: 20)
        older.runId = "run-0"
        let cells = [older, cell("Den", address: "127.0.0.5", deviceClass: "apple-tv-4k", resume, requests: second, finished: 420)]
        let requests = first + second
        let sessions = SessionBuilder(manifest: manifest, receivers: []).sessions(from: requests)
        XCTAssertEqual(sessions.count, 2)
        let report = BehaviourReportBuilder(manifest: manifest, profiles: []).report(sessions: sessions, requests: requests, cells: cells)
        let den = try XCTUnwrap(report.cell("Den", "resume-offset-zero"))
        XCTAssertEqual(den.outcome, .conforms, "the newer run wins")
        XCTAssertEqual(den.runId, "run-1")
        XCTAssertEqual(den.judgements, 2)
        XCTAssertEqual(den.agreeing, 1)
        XCTAssertEqual(report.receivers.count, 1)
    }

    func testAnAudioOnlyClassIsNotApplicableInTheTable() throws {
        let speaker = DeviceProfile(id: "speaker-audio-only", name: "Speaker",
                                    plays: Capabilities(video: false, videoCodecs: [], maxWidth: nil, maxHeight: nil, maxFrameRate: nil,
                                                        dynamicRanges: [], audioCodecs: ["aac"], maxChannels: 2, sampleRates: [48000]))
        let requests = session("127.0.0.7", resume, .midRoll, "m p0 p1 p2", at: 0)
        let receiver = LabReceiverRecord(address: "127.0.0.7", name: "Kitchen", deviceClass: "speaker-audio-only", reason: "pinned", source: .inventory, seenAt: t0)
        let sessions = SessionBuilder(manifest: manifest, receivers: [receiver]).sessions(from: requests)
        let report = BehaviourReportBuilder(manifest: manifest, profiles: [speaker]).report(sessions: sessions, requests: requests, cells: [])
        XCTAssertEqual(report.cell("Kitchen", "resume-offset-zero")?.outcome, .notApplicable)
        XCTAssertEqual(report.classes.first?.summary, "1 not applicable")
    }
}
