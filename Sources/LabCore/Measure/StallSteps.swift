import Foundation

/// The stall detector's named steps (`StallWalk` for freeze, lead and rate drop; `CellMeasurer`
/// for the ad hold and the receiver's own end), each with examples that are its specification
/// (they run as tests: Tests/LabTests/StallStepExampleTests.swift).
public struct StallStep: Sendable {
    public let id: String
    public let summary: String
    public let examples: [StallExample]
}

public struct StallExample: Sendable {
    public let name: String
    public let sketch: PlaybackSketch
    public let labCase: LabCase
    /// The stalls found, as "kind ms" rounded to `accuracyMs` in the test.
    public let stalls: [(kind: String, ms: Double)]
    public let accuracyMs: Double
    /// When the (first) stall began, ms after /play, when the step decides it.
    public let startMs: Double?
    public let adHoldMs: Double?
    public let ownEnd: Bool

    public init(_ name: String, _ sketch: PlaybackSketch, labCase: LabCase = MeasurementExample.stitchedCase,
                stalls: [(kind: String, ms: Double)], accuracyMs: Double = 1, startMs: Double? = nil, adHoldMs: Double? = nil,
                ownEnd: Bool = false) {
        self.name = name
        self.sketch = sketch
        self.labCase = labCase
        self.stalls = stalls
        self.accuracyMs = accuracyMs
        self.startMs = startMs
        self.adHoldMs = adHoldMs
        self.ownEnd = ownEnd
    }

    public func measure() -> CellMeasurement {
        CellMeasurer().measure(series: sketch.series(), requests: sketch.requestRecords(), labCase: labCase, failure: nil)
    }
}

public enum StallSteps {
    static var kodi: PlaybackSketch { PlaybackSketch(duration: 14) }

    /// `MeasurementExample.stitchedCase` as a POINT interstitial resuming where it left (an ad under cases/frame-rate/ad/).
    static var interstitialCase: LabCase {
        var labCase = MeasurementExample.stitchedCase
        labCase.delivery = .interstitial
        labCase.resumeOffset = 0
        labCase.interstitialPrefix = "cases/frame-rate/ad/"
        return labCase
    }

    static let adSegment = "/cases/frame-rate/ad/seg_000.m4s"

    public static let all: [StallStep] = [
        StallStep(id: "freeze", summary: "rate > 0 while the media time of consecutive polls falls short of the wall time by "
                  + "more than positionEpsilonSeconds; its length is the lag it leaves (the lowest lag in the second after it "
                  + "less the lowest in the second before), so the poll interval and stepped positions do not change it", examples: [
            StallExample("1.2 s freeze at the ad", kodi.loads(700).plays(6).freezes(1200).plays(8).ended(600),
                         stalls: [("position-frozen", 1200)]),
            StallExample("the same polled every second", PlaybackSketch(duration: 14, pollMs: 1000).loads(700).plays(6).freezes(1200)
                            .plays(8).ended(600), stalls: [("position-frozen", 1200)]),
            StallExample("a 120 ms hiccup is under stallMinimumMs", kodi.loads(700).plays(6).freezes(120).plays(8).ended(600), stalls: []),
        ]),
        StallStep(id: "lead", summary: "a pair of polls short by less than the epsilon just before a freeze belongs to it: the "
                  + "freeze starts where the position stopped inside that pair, not at the next poll", examples: [
            // Polls at 6610 and 6860 ms; the position stops at 6830 ms: 30 ms short in that pair (under the 50 ms epsilon).
            StallExample("a freeze starting 30 ms before a poll", kodi.loads(700).plays(6.13).freezes(1200).plays(7.87).ended(600),
                         stalls: [("position-frozen", 1200)], startMs: 6830),
            StallExample("a freeze starting on a poll has no lead", kodi.loads(700).plays(6.16).freezes(1200).plays(7.84).ended(600),
                         stalls: [("position-frozen", 1200)], startMs: 6860),
        ]),
        StallStep(id: "rate-drop", summary: "the rate at 0 with no /rate 0 from the sender, from where the position stopped to "
                  + "where it says it moved again", examples: [
            StallExample("rate 0 for 1.5 s at 9 s", kodi.loads(700).plays(9).rateZero(1500).plays(5).ended(600),
                         stalls: [("rate-dropped", 1500)], accuracyMs: 250),
            StallExample("rate 0 after the sender's /rate 0", kodi.loads(700).plays(9).rateZero(1500).plays(5).ended(600)
                            .sent(SentCommand(kind: .rate, atMs: 9_700, value: 0)).sent(SentCommand(kind: .rate, atMs: 11_200, value: 1)),
                         stalls: []),
        ]),
        StallStep(id: "ad-hold", summary: "a POINT interstitial's receiver holds the primary's position at START while it plays "
                  + "the ad (its fetches say so): up to the ad's duration that is the ad, only the rest is a stall", examples: [
            StallExample("held 2.1 s for a 2 s ad", PlaybackSketch(duration: 12).loads(700).plays(6).freezes(2100).plays(6).ended(600)
                            .fetches(adSegment, at: 6_750), labCase: interstitialCase, stalls: [], adHoldMs: 2000),
            StallExample("held 3.5 s: 1.5 s beyond the ad", PlaybackSketch(duration: 12).loads(700).plays(6).freezes(3500).plays(6)
                            .ended(600).fetches(adSegment, at: 6_750), labCase: interstitialCase, stalls: [("position-frozen", 1500)],
                         adHoldMs: 2000),
            StallExample("held 2.1 s, no ad fetched: a freeze", PlaybackSketch(duration: 12).loads(700).plays(6).freezes(2100).plays(6)
                            .ended(600).fetches("/cases/frame-rate/primary/seg_000.m4s", at: 60), labCase: interstitialCase,
                         stalls: [("position-frozen", 2100)]),
        ]),
        StallStep(id: "own-end", summary: "the receiver dropped the item short of its duration after fetching the last segment "
                  + "and playing all it had loaded: its own end of stream (noted), and the freeze draining into it is no stall",
                  examples: [
            StallExample("Kodi's own end 2.2 s short", kodi.buffers(ahead: 8).fetches(MeasurementExample.lastSegmentPath, at: 4800)
                            .loads(700).plays(11.8).ended(1000), stalls: [], ownEnd: true),
            StallExample("2.2 s short with media still loaded", kodi.buffers(ahead: 8, upTo: 14)
                            .fetches(MeasurementExample.lastSegmentPath, at: 4800).loads(700).plays(11.8).ended(1000), stalls: []),
        ]),
    ]
}
