import AirPlayModel
import Foundation

/// One thing the measurer reads from a series, with examples that are its specification (they run
/// as tests: Tests/LabTests/MeasurementRuleExampleTests.swift) and show a reader what counts.
public struct MeasurementRule: Sendable {
    public let id: String
    public let summary: String
    /// Whether a measurement shows the thing.
    public let fires: @Sendable (CellMeasurement) -> Bool
    public let examples: [MeasurementExample]
}

public struct MeasurementExample: Sendable {
    public let name: String
    public let sketch: PlaybackSketch
    /// The run loop's own failure for the cell, if any.
    public let failure: String?
    public let triggers: Bool
    /// The verdict the example must come to.
    public let outcome: MeasuredOutcome

    public init(_ name: String, _ sketch: PlaybackSketch, failure: String? = nil, triggers: Bool, outcome: MeasuredOutcome) {
        self.name = name
        self.sketch = sketch
        self.failure = failure
        self.triggers = triggers
        self.outcome = outcome
    }

    /// The case the examples play: a stitched ad at 6 s for 2 s in 12 s of primary (14 s of timeline).
    public static let stitchedCase = LabCase(
        id: "frame-rate-stitched", kind: .transition, varies: "frame rate", title: "example", rules: ["frame-rate-mismatch"],
        playlist: "cases/frame-rate-stitched/master.m3u8", interstitialStart: 6, interstitialDuration: 2, resumeOffset: 0,
        delivery: .stitched, stitchedFrom: "frame-rate", primary: LabMedia(duration: 12), interstitial: LabMedia(duration: 2),
        variants: [LabVariant(path: "cases/frame-rate-stitched/stitched.m3u8", role: .primary,
                              lastSegment: "cases/frame-rate-stitched/primary/seg_005.m4s")])

    /// The URL path of `stitchedCase`'s last segment.
    public static let lastSegmentPath = "/cases/frame-rate-stitched/primary/seg_005.m4s"

    public func measure(with thresholds: MeasurementThresholds = .defaults) -> CellMeasurement {
        CellMeasurer(thresholds: thresholds).measure(series: sketch.series(), requests: sketch.requestRecords(),
                                                      labCase: Self.stitchedCase, failure: failure)
    }
}

public enum MeasurementRules {
    /// Kodi-like: reports duration 14 (12 s primary + 2 s stitched ad), polled every 250 ms.
    static var kodi: PlaybackSketch { PlaybackSketch(duration: 14) }

    public static let all: [MeasurementRule] = [
        MeasurementRule(id: "first-frame", summary: "/play to the first poll whose position advanced with rate > 0, back-dated "
                        + "by the media time it shows; start-up is never a stall", fires: { $0.playToFirstFrameMs != nil }, examples: [
            MeasurementExample("loads 800 ms then plays through", kodi.loads(800).plays(14).ended(600), triggers: true, outcome: .seamless),
            MeasurementExample("a long start-up is not a stall", kodi.loads(4000).plays(14).ended(600), triggers: true, outcome: .seamless),
            MeasurementExample("never moves", kodi.loads(10_000), triggers: false, outcome: .failed),
        ]),
        MeasurementRule(id: "stall-position-frozen", summary: "rate > 0 while the position does not advance for at least "
                        + "stallMinimumMs, measured between the last poll that moved and the first that moved again as the lag "
                        + "it leaves (stepped positions that catch up are no freeze)",
                        fires: { $0.stalls.contains { $0.kind == "position-frozen" } }, examples: [
            MeasurementExample("1.2 s freeze at the ad", kodi.loads(700).plays(6).freezes(1200).plays(8).ended(600),
                               triggers: true, outcome: .stall),
            MeasurementExample("a 120 ms hiccup is poll jitter", kodi.loads(700).plays(6).freezes(120).plays(8).ended(600),
                               triggers: false, outcome: .seamless),
            MeasurementExample("frozen to the end of the series", kodi.loads(700).plays(3).freezes(5000),
                               triggers: true, outcome: .stall),
            MeasurementExample("stuck in the last second, then the item dropped", kodi.loads(700).plays(13.5).freezes(800).ended(1000),
                               triggers: false, outcome: .seamless),
            MeasurementExample("paused by the sender", kodi.loads(700).plays(3).rateZero(2000).plays(11).ended(600)
                                .sent(SentCommand(kind: .rate, atMs: 3_700, value: 0)).sent(SentCommand(kind: .rate, atMs: 5_700, value: 1)),
                               triggers: false, outcome: .seamless),
        ]),
        MeasurementRule(id: "stall-rate-dropped", summary: "the rate drops to 0 with no /rate 0 from the sender",
                        fires: { $0.stalls.contains { $0.kind == "rate-dropped" } }, examples: [
            MeasurementExample("rate 0 for 1.5 s at 9 s", kodi.loads(700).plays(9).rateZero(1500).plays(5).ended(600),
                               triggers: true, outcome: .stall),
            MeasurementExample("rate 0 after /rate 0", kodi.loads(700).plays(9).rateZero(1500).plays(5).ended(600)
                                .sent(SentCommand(kind: .rate, atMs: 9_700, value: 0)).sent(SentCommand(kind: .rate, atMs: 11_200, value: 1)),
                               triggers: false, outcome: .seamless),
        ]),
        MeasurementRule(id: "stall-at-transition", summary: "a stall within transitionWindowSeconds (media position) of the ad's "
                        + "start or end, or of the resume point", fires: { $0.stalls.contains(where: \.atTransition) }, examples: [
            MeasurementExample("freeze at the ad's start", kodi.loads(700).plays(6).freezes(1200).plays(8).ended(600),
                               triggers: true, outcome: .stall),
            MeasurementExample("freeze at the ad's end", kodi.loads(700).plays(8.1).freezes(900).plays(5.9).ended(600),
                               triggers: true, outcome: .stall),
            MeasurementExample("freeze at 2 s, far from the ad", kodi.loads(700).plays(2).freezes(1200).plays(12).ended(600),
                               triggers: false, outcome: .stall),
        ]),
        MeasurementRule(id: "position-jump", summary: "the position moves jumpToleranceSeconds more (or, backwards, less) than "
                        + "the wall time between two polls explains, with no /scrub", fires: { !$0.jumps.isEmpty }, examples: [
            MeasurementExample("jumps back to 0 at the ad", kodi.loads(700).plays(6).jumps(to: 0).plays(14).ended(600),
                               triggers: true, outcome: .seamless),
            MeasurementExample("skips the ad", kodi.loads(700).plays(6).jumps(to: 8).plays(6).ended(600),
                               triggers: true, outcome: .seamless),
            MeasurementExample("plays through", kodi.loads(700).plays(14).ended(600), triggers: false, outcome: .seamless),
        ]),
        MeasurementRule(id: "early-end", summary: "the receiver reports no item while the last position played is "
                        + "earlyEndMarginSeconds or more before the media's duration (the case's own when the receiver reports none, or 0, while its position moves); unless that is its own end of stream: "
                        + "it had fetched the last segment in full and its loaded time ranges ended at its position (noted "
                        + "in the reason and as shortEnd, a glitch, not a failure)",
                        fires: { $0.failure == .endedEarly }, examples: [
            MeasurementExample("ends at 6 s of 14", kodi.loads(700).plays(6).ended(2000), triggers: true, outcome: .failed),
            MeasurementExample("ends at the end", kodi.loads(700).plays(14).ended(1000), triggers: false, outcome: .seamless),
            // Kodi 20 on a stitched item: every segment fetched, buffer drained, 2.2 s short of its duration.
            MeasurementExample("its own end of stream 2.2 s short", kodi.buffers(ahead: 8).fetches(MeasurementExample.lastSegmentPath, at: 4800)
                                .loads(700).plays(11.8).ended(1000), triggers: false, outcome: .seamless),
            MeasurementExample("2.2 s short with media still loaded", kodi.buffers(ahead: 8, upTo: 14)
                                .fetches(MeasurementExample.lastSegmentPath, at: 4800).loads(700).plays(11.8).ended(1000),
                               triggers: true, outcome: .failed),
            MeasurementExample("2.2 s short before fetching the last segment", kodi.buffers(ahead: 8).loads(700).plays(11.8).ended(1000),
                               triggers: true, outcome: .failed),
            // A receiver reporting duration 0 while its position moves: the case's 14 s is held against it.
            MeasurementExample("duration 0 while playing: the run loop ended it after 1.2 s", PlaybackSketch(duration: 0).loads(700).plays(1.2),
                               triggers: true, outcome: .failed),
            MeasurementExample("duration 0 while playing, to the case's end", PlaybackSketch(duration: 0).loads(700).plays(14),
                               triggers: false, outcome: .seamless),
            MeasurementExample("2.2 s short, reporting no loaded ranges", kodi.fetches(MeasurementExample.lastSegmentPath, at: 4800)
                                .loads(700).plays(11.8).ended(1000), triggers: true, outcome: .failed),
        ]),
        MeasurementRule(id: "receiver-error", summary: "/playback-info carries the receiver's error dict",
                        fires: { $0.failure == .receiverError }, examples: [
            MeasurementExample("error at the ad", kodi.loads(700).plays(6).error(domain: "AVFoundationErrorDomain", code: -11800, for: 1000),
                               triggers: true, outcome: .failed),
            MeasurementExample("no error", kodi.loads(700).plays(14).ended(600), triggers: false, outcome: .seamless),
        ]),
        MeasurementRule(id: "receiver-went-away", summary: "the receiver stops answering polls (two or more failed at the end), "
                        + "answers again without the item after failed polls, or the run loop says it went away; a failed poll "
                        + "in between is a fault, not a stall",
                        fires: { $0.failure == .receiverWentAway }, examples: [
            MeasurementExample("vanishes mid-case", kodi.loads(700).plays(5).gone(3000), triggers: true, outcome: .failed),
            MeasurementExample("the run loop saw it go", kodi.loads(700).plays(5).gone(500), failure: "receiver went away: connection refused",
                               triggers: true, outcome: .failed),
            MeasurementExample("comes back without the item", kodi.loads(700).plays(5).gone(3000).ended(1000),
                               triggers: true, outcome: .failed),
            MeasurementExample("one failed poll mid-play", kodi.loads(700).plays(5).gone(250).plays(9).ended(600),
                               triggers: false, outcome: .seamless),
        ]),
        MeasurementRule(id: "never-played", summary: "no poll ever showed the position advancing",
                        fires: { $0.failure == .neverPlayed }, examples: [
            MeasurementExample("loads forever", kodi.loads(8000), triggers: true, outcome: .failed),
            MeasurementExample("fetches nothing", kodi.fetchesNothing().loads(3000), triggers: true, outcome: .failed),
            MeasurementExample("plays", kodi.loads(700).plays(14).ended(600), triggers: false, outcome: .seamless),
        ]),
    ]
}
