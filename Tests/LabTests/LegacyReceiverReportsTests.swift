import AirPlay
import Foundation
import XCTest
@testable import LabCore

/// UxPlay 1.74's `/playback-info` read as it is (docs/lab-run.md, "UxPlay"): the answers below
/// are a real `lab run` cell's (behaviour-live-preroll, 250 ms polls), a live stream whose
/// duration UxPlay reports as -0.0 and which it dropped 4 s in (an empty 200 from then on).
final class LegacyReceiverReportsTests: XCTestCase {
    /// (ms after /play, position); nil: the empty 200 UxPlay answers once it has no item.
    static let livePreroll: [(Double, Double?)] = [
        (251, 0.06), (501, 0.31), (751, 0.56), (1001, 0.81), (1255, 1.06), (1501, 1.31), (1751, 1.44), (2001, 1.44),
        (2251, 1.47), (2501, 1.47), (2751, 1.47), (3001, 1.81), (3251, 1.81), (3501, 1.81), (3751, 1.81), (4002, 1.91),
        (4252, nil), (4501, nil), (4754, nil), (5009, nil),
    ]

    func series(_ answers: [(Double, Double?)]) -> PlaybackSeries {
        var series = PlaybackSeries(playSentAt: Date(timeIntervalSince1970: 1_800_000_000), pollIntervalMs: 250)
        series.samples = answers.map { atMs, position in
            PlaybackSample(atMs: atMs, info: position.map { PlaybackInfo(duration: -0.0, position: $0, rate: 1) } ?? PlaybackInfo())
        }
        return series
    }

    /// No item (no position, no rate, no duration) is the item dropped, not the rate dropped to 0:
    /// the cell ends early where UxPlay stopped, and the freezes before it are still freezes.
    func testAnEmptyAnswerAfterALiveStreamIsTheItemDroppedNotARateDrop() throws {
        let m = CellMeasurer().measure(series: series(Self.livePreroll), requests: [], labCase: MeasurementExample.stitchedCase,
                                       failure: nil)
        XCTAssertFalse(m.stalls.contains { $0.kind == "rate-dropped" }, "\(m.stalls)")
        XCTAssertFalse(m.reason.contains("rate dropped"), m.reason)
        XCTAssertEqual(m.failure, .endedEarly, m.reason)
        XCTAssertTrue(m.reason.hasPrefix("ended early: playback stopped at 1.91 s"), m.reason)
        XCTAssertEqual(m.stalls.map(\.kind), ["position-frozen", "position-frozen"], "the start-up freezes at 1.44 s and 1.81 s: \(m.stalls)")
    }
}
