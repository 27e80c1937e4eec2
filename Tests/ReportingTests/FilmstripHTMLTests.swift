import Foundation
import LabCore
import XCTest
@testable import Reporting
@testable import ResultsReporting

/// The HTML report's filmstrip: the pictures a capture kept around each transition, as images.
final class FilmstripHTMLTests: XCTestCase {
    func testACellWithAPictureShowsEachTransitionInWordsAndItsPicturesAsImages() {
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        let from = ShownFrame(stream: 0, label: "primary", frame: 179, at: 6.0)
        let to = ShownFrame(stream: 1, label: "ad of <control>", frame: 0, at: 6.7)
        let transition = CaptureTransition(from: from, to: to, expectedLastFrame: 179, expectedFirstFrame: 0, frozenMs: 500, blackFrames: 6,
                                           blackMs: 200, unreadableFrames: 0, skippedFrames: 0, stallMs: 700, audioGapMs: 710)
        let frames = [Filmstrip.Frame(at: 6.0, label: "primary #179", bmp: "Qk0="), Filmstrip.Frame(at: 6.7, label: "ad of <control> #0", bmp: "Qk1=\"x")]
        var measurement = CellMeasurement(outcome: .seamless, reason: "played")
        measurement.picture = PictureMeasurement(result: "measured", input: "x11grab::99", playToFirstFrameMs: 800, transitionStallMs: 700,
                                                 transitions: [transition])
        measurement.picture?.filmstrips = [Filmstrip(frames: frames)]
        let cell = LabRunCell(runId: "run-1", receiver: "Kodi", deviceId: nil, deviceClass: nil, address: "10.77.0.1", caseId: "control-stitched",
                              attempt: 1, startedAt: start, finishedAt: start.addingTimeInterval(20), url: "http://x/",
                              series: PlaybackSeries(playSentAt: start, pollIntervalMs: 250), requests: [], measurement: measurement)
        let html = LabReportText.filmstrips(LabTimeline(cell, labCase: nil, verdict: "seamless"))
        XCTAssertTrue(html.contains("From the picture: primary #179 -&gt; ad of &lt;control&gt; #0: stall 700 ms, frozen 500 ms, 6 black, 0 other, 0 skipped, audio gap 710 ms"), html)
        XCTAssertTrue(html.contains(#"<img alt="primary #179" src="data:image/bmp;base64,Qk0=">"#), html)
        XCTAssertTrue(html.contains(#"src="data:image/bmp;base64,Qk1=x">"#), "a quote in the data cannot end the attribute: \(html)")
        XCTAssertTrue(html.contains("<figcaption>ad of &lt;control&gt; #0 at 6.700 s</figcaption>"), html)

        measurement.picture = nil
        let without = LabRunCell(runId: "run-1", receiver: "Kodi", deviceId: nil, deviceClass: nil, address: "10.77.0.1", caseId: "control",
                                 attempt: 1, startedAt: start, finishedAt: start, url: "http://x/",
                                 series: PlaybackSeries(playSentAt: start, pollIntervalMs: 250), requests: [], measurement: measurement)
        XCTAssertEqual(LabReportText.filmstrips(LabTimeline(without, labCase: nil, verdict: "seamless")), "")
    }
}
