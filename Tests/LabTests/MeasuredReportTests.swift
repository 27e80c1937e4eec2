import AirPlay
import Compatibility
import Foundation
import GRDB
import XCTest
@testable import LabCore
@testable import LabRun
@testable import LabServer

/// Measured cells in the report and in calibration, and verdict sources as values.
final class MeasuredReportTests: XCTestCase {
    var path = ""
    var store: LabStore!

    override func setUpWithError() throws {
        path = LabTestData.temporaryDatabase()
        store = try LabStore(path: path)
        try store.upsert(LabReceiverRecord(address: "127.0.0.22", name: "Den", deviceClass: "apple-tv-4k", reason: "test", source: .inventory))
    }

    override func tearDown() {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    /// A cell of `lab run`: the sketch played on `receiver`, measured against the case.
    static func runCell(_ receiver: String, deviceClass: String = "apple-tv-4k", caseId: String = "video-codec-hevc",
                        _ sketch: PlaybackSketch, thresholds: MeasurementThresholds = .defaults) -> LabRunCell {
        let labCase = LabTestData.manifest.case(caseId)!
        let start = LabTestData.start
        let series = sketch.series(playSentAt: start)
        let requests = sketch.requestRecords(playSentAt: start)
        let measurement = CellMeasurer(thresholds: thresholds).measure(series: series, requests: requests, labCase: labCase, failure: nil)
        return LabRunCell(runId: "run-1", receiver: receiver, deviceId: nil, deviceClass: deviceClass, address: "127.0.0.22",
                          caseId: caseId, attempt: 1, startedAt: start, finishedAt: start.addingTimeInterval(20),
                          url: "http://127.0.0.1:8080/" + labCase.playlist, series: series, requests: requests, measurement: measurement)
    }

    /// The test manifest's transition cases: ad at 4 s for 4 s, 12 s of primary.
    static var twelveSeconds: PlaybackSketch { PlaybackSketch(duration: 12) }
    static var freezeAtTheAd: PlaybackSketch { twelveSeconds.loads(740).plays(4).freezes(1200).plays(8).ended(600) }

    func testOldVerdictRowsReadAsOperatorAndKeepWhereTheyCameFrom() throws {
        let pool = try DatabasePool(path: path)
        try pool.write { db in
            try db.execute(sql: """
                INSERT INTO labVerdict (recordedAt, receiver, caseId, verdict, source) VALUES (1800000000, 'Den', 'control', 'glitch', 'page'),
                  (1800000001, 'Den', 'control', 'stall', 'cli')
                """)
        }
        let verdicts = try store.verdicts()
        XCTAssertEqual(verdicts.map(\.source), [.operator, .operator])
        XCTAssertEqual(verdicts.map(\.via), ["page", "cli"])
        XCTAssertEqual(verdicts.first?.recordedAt, Date(timeIntervalSince1970: 1_800_000_000))

        let json = String(decoding: try JSONEncoder().encode(verdicts[0]), as: UTF8.self)
        XCTAssertTrue(json.contains(#""source":"operator""#) && json.contains(#""via":"page""#), json)
        let oldJSON = #"{"recordedAt":0,"receiver":"Den","caseId":"control","verdict":"stall","source":"cli"}"#
        let decoded = try JSONDecoder().decode(LabVerdictRecord.self, from: Data(oldJSON.utf8))
        XCTAssertEqual(decoded.source, .operator)
        XCTAssertEqual(decoded.via, "cli")
    }

    func testTheRunLoopRecordsAMeasuredVerdictPerCell() throws {
        let cell = Self.runCell("Den", Self.freezeAtTheAd)
        let recorded = try store.recordMeasuredVerdict(for: cell)
        XCTAssertEqual(recorded.source, .measured)
        let stored = try XCTUnwrap(try store.verdicts().first)
        XCTAssertEqual(stored.id, recorded.id)
        XCTAssertEqual(stored.source, .measured)
        XCTAssertEqual(stored.via, "lab run")
        XCTAssertEqual(stored.runId, "run-1")
        XCTAssertEqual(stored.verdict, .stall)
        XCTAssertEqual(stored.seconds ?? 0, 1.2, accuracy: 0.002)
        XCTAssertTrue(stored.note?.contains("(ad start 4 s)") == true, stored.note ?? "")
    }

    func testTheOperatorsVerdictWinsAndBothAreShown() throws {
        let profiles = try ProfileLoader.loadDirectory(LabTests.profilesDirectory)
        var cell = Self.runCell("Den", Self.freezeAtTheAd)
        cell.station = store.station  // as the store reads it back: the verdicts are this station's too
        try store.recordMeasuredVerdict(for: cell)
        let builder = LabReportBuilder(manifest: LabTestData.manifest, profiles: profiles)

        let measuredOnly = try XCTUnwrap(builder.report(verdicts: try store.verdicts(), sessions: [], cells: [cell]).cells.first)
        XCTAssertEqual(measuredOnly.observed, "stall")
        XCTAssertEqual(measuredOnly.source, "measured")
        XCTAssertEqual(measuredOnly.measured?.level, "error", "1200 ms grades as an error")
        XCTAssertEqual(measuredOnly.agrees, false, "apple-tv-4k grades video-codec-mismatch info")
        XCTAssertEqual(measuredOnly.measured?.firstFrameMs ?? 0, 740, accuracy: 1)
        XCTAssertEqual(measuredOnly.measured?.transitionStalls.map(\.transition), ["ad start 4 s", "ad end 8 s"])
        XCTAssertEqual(measuredOnly.measured?.transitionStalls.first?.ms ?? 0, 1200, accuracy: 1)
        XCTAssertEqual(measuredOnly.measured?.transitionStalls.last?.ms, 0, "passed the ad's end without a stall")
        XCTAssertNotNil(measuredOnly.timeline)
        XCTAssertEqual(LabReportBuilder.verdictText(measuredOnly), "stall 1200 ms (measured)")

        try VerdictDesk(store: store, manifest: LabTestData.manifest)
            .record(receiver: "Den", caseId: "video-codec-hevc", verdict: "seamless", seconds: nil, note: "looked fine", source: "page")
        let report = builder.report(verdicts: try store.verdicts(), sessions: [], cells: [cell])
        let both = try XCTUnwrap(report.cells.first)
        XCTAssertEqual(both.observed, "seamless")
        XCTAssertEqual(both.source, "operator")
        XCTAssertEqual(both.operatorVerdict, "seamless")
        XCTAssertEqual(both.measuredVerdict, "stall")
        XCTAssertEqual(both.agrees, true, "the operator's seamless is compared, not the measured stall")
        XCTAssertEqual(Set(both.verdicts), ["stall", "seamless"], "both verdicts are kept, in the order they were recorded")
        XCTAssertTrue(both.evidence.contains("measured stall 1200 ms: position frozen 1200 ms at 4 s (ad start 4 s)"), both.evidence)
        XCTAssertTrue(both.evidence.contains("(the operator's verdict wins)"), both.evidence)
        XCTAssertEqual(LabReportBuilder.verdictText(both), "seamless (operator; measured stall 1200 ms)")
        XCTAssertEqual(report.summary.measured, 1)

        let json = String(decoding: try JSONEncoder().encode(report), as: UTF8.self)
        for field in [#""source":"operator""#, #""measuredVerdict":"stall""#, #""operatorVerdict":"seamless""#, #""firstFrameMs":740"#] {
            XCTAssertTrue(json.contains(field), "\(field) in \(json.prefix(600))")
        }
        XCTAssertFalse(json.contains("\"points\""), "the timeline stays out of the JSON")
    }

    func testAClassRollsUpTheWorstMeasuredStallAndTheMedianFirstFrame() throws {
        let profiles = try ProfileLoader.loadDirectory(LabTests.profilesDirectory)
        let cells = [Self.runCell("Den", Self.freezeAtTheAd),
                     Self.runCell("Attic", Self.twelveSeconds.loads(500).plays(4).freezes(300).plays(8).ended(600)),
                     Self.runCell("Hall", Self.twelveSeconds.loads(1500).plays(12).ended(600))]
        let report = LabReportBuilder(manifest: LabTestData.manifest, profiles: profiles).report(verdicts: [], sessions: [], cells: cells)
        let levels = Dictionary(uniqueKeysWithValues: report.cells.map { ($0.receiver ?? "", $0.measured?.level ?? "-") })
        XCTAssertEqual(levels, ["Den": "error", "Attic": "warning", "Hall": "pass"])
        let roll = try XCTUnwrap(report.classes.first { $0.case == "video-codec-hevc" && $0.deviceClass == "apple-tv-4k" }?.measured)
        XCTAssertEqual(roll.cells, 3)
        XCTAssertEqual(roll.verdict, "stall")
        XCTAssertEqual(roll.transitionStallMs ?? 0, 1200, accuracy: 1)
        XCTAssertEqual(roll.firstFrameMs ?? 0, 740, accuracy: 1)
        XCTAssertEqual(roll.level, "error")
    }

    func testCalibrationGradesMeasuredStallsThroughTheThresholds() throws {
        let profiles = try ProfileLoader.loadDirectory(LabTests.profilesDirectory)
        let cells = ["Den", "Attic", "Hall"].map { Self.runCell($0, Self.freezeAtTheAd) }
        func proposals(_ thresholds: MeasurementThresholds) -> [CalibrationProposal] {
            let report = LabReportBuilder(manifest: LabTestData.manifest, profiles: profiles, thresholds: thresholds)
                .report(verdicts: [], sessions: [], cells: cells)
            return ProfileCalibration(manifest: LabTestData.manifest, profiles: profiles, minObservations: 3).proposals(from: report.cells)
        }
        let byDefault = try XCTUnwrap(proposals(.defaults).first { $0.deviceClass == "apple-tv-4k" })
        XCTAssertEqual(byDefault.rule, "video-codec-mismatch")
        XCTAssertEqual(byDefault.proposed, "error", "1200 ms is an error by default")
        XCTAssertEqual(byDefault.measuredCells, 3)
        XCTAssertTrue(byDefault.evidence.contains("measured transition stalls 1200, 1200, 1200 ms"), byDefault.evidence)

        let lenient = try MeasurementThresholds.defaults.overriding(["grades.errorMs=1500"])
        XCTAssertEqual(proposals(lenient).first { $0.deviceClass == "apple-tv-4k" }?.proposed, "warning")
    }
}
