import Foundation
@testable import LabCore
import XCTest
@testable import Reporting
@testable import ResultsReporting

/// The audio lane drawn from a made measurement, without a receiver: each part where it belongs.
final class SoundLaneSVGTests: XCTestCase {
    private func timeline(_ sound: SoundMeasurement?) -> LabTimeline {
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        var measurement = CellMeasurement(outcome: .seamless, reason: "played")
        measurement.sound = sound
        let cell = LabRunCell(runId: "run-1", receiver: "Kodi", deviceId: nil, deviceClass: nil, address: "10.77.0.1", caseId: "av-start-200ms",
                              attempt: 1, startedAt: start, finishedAt: start.addingTimeInterval(16), url: "http://x/",
                              series: PlaybackSeries(playSentAt: start, pollIntervalMs: 250), requests: [], measurement: measurement)
        var timeline = LabTimeline(cell, labCase: nil, verdict: "glitch")
        timeline.points = [.init(atMs: 16000, position: 15, rate: 1, failed: false)]  // the last poll: the lane's 16 s
        return timeline
    }

    private func transition(_ at: String, from: String, to: String, end: Double, start: Double, gapMs: Double?, avOffsetMs: Double?) -> SoundTransition {
        SoundTransition(at: at, from: from, to: to, fromStream: 0, toStream: 1, outgoingEnd: end, incomingStart: start, gapMs: gapMs,
                        silenceMs: gapMs, clicks: 0, levelBeforeDb: -24, levelAfterDb: -24, levelJumpDb: 0, expectedLevelJumpDb: 0,
                        channelsBefore: nil, channelsAfter: nil, avOffsetMs: avOffsetMs, expectedAvOffsetMs: avOffsetMs == nil ? nil : 200,
                        notes: [])
    }

    func testTheLaneDrawsTheLevelGapsDropoutsClicksAndEachSwitch() {
        var sound = SoundMeasurement(result: "measured", input: "pulse:<kodi>.monitor", seconds: 14, sampleRate: 48000, channels: 2,
                                     levelStart: 0, levelStep: 0.05, levels: (0..<280).map { $0 % 40 == 0 ? -90 : -24 })
        sound.zeroSincePlayMs = 500
        var refused = transition("the return from the ad", from: "ad of <av>", to: "primary", end: 10, start: 10, gapMs: nil, avOffsetMs: nil)
        refused.refuse("not measured: the sound capture fell 310 ms behind at 9.80 s")
        sound.transitions = [transition("the ad's start", from: "primary", to: "ad of <av>", end: 6.0, start: 6.2, gapMs: 200, avOffsetMs: 190),
                             refused]
        sound.dropouts = [SoundDropout(stream: "ad of <av>", at: 8, ms: 120)]
        sound.clicks = [6.21]
        let svg = LabSoundLaneSVG.render(timeline(sound))
        XCTAssertTrue(svg.hasPrefix("<svg") && svg.hasSuffix("</svg>"), svg)
        XCTAssertTrue(svg.contains("aria-label=\"Sound of av-start-200ms on Kodi (pulse:&lt;kodi&gt;.monitor): measured\""), svg)
        XCTAssertEqual(svg.components(separatedBy: "class=\"audio-level\"").count - 1, 1, "one level line")
        XCTAssertEqual(svg.components(separatedBy: "class=\"audio-level\" points=\"").last?.prefix { $0 != "\"" }.split(separator: " ").count, 280,
                       "a point per level")
        XCTAssertTrue(svg.contains("<title>audio gap 200 ms at the ad&#39;s start</title>"), svg)
        XCTAssertTrue(svg.contains("<title>dropout 120 ms in the ad of &lt;av&gt;</title>"), svg)
        XCTAssertTrue(svg.contains("class=\"audio-click\"") && svg.contains("click at 6.210 s"), svg)
        XCTAssertTrue(svg.contains(">gap 200 ms, A/V +190 ms</text>"), svg)
        XCTAssertTrue(svg.contains("(stream&#39;s own +200)"), svg)
        XCTAssertTrue(svg.contains(">not measured</text>"), "a refused switch shows no number: \(svg)")
        XCTAssertTrue(svg.contains("fell 310 ms behind at 9.80 s"), "and why, in its title: \(svg)")
        // The ad's start (6.2 s of sound, 6.7 s since /play) is drawn left of the return (10 s, 10.5 s).
        let lines = svg.components(separatedBy: "class=\"audio-switch\" x1=\"").dropFirst().compactMap { Double($0.prefix { $0 != "\"" }) }
        XCTAssertEqual(lines.count, 2)
        XCTAssertLessThan(lines.first ?? 1e9, lines.last ?? 0)
        let gapX = svg.components(separatedBy: "class=\"audio-gap\" x=\"").dropFirst().first.flatMap { Double($0.prefix { $0 != "\"" }) }
        XCTAssertLessThan(gapX ?? 1e9, lines.first ?? 0, "the gap ends where the incoming tone begins")
    }

    func testNoSoundDrawsNothingAndAnUnreadableSoundSaysWhy() {
        XCTAssertEqual(LabSoundLaneSVG.render(timeline(nil)), "")
        let silent = LabSoundLaneSVG.render(timeline(SoundMeasurement(result: "silent", input: "pulse:tv.monitor",
                                                                      notes: ["the sound was silent for all 14.0 s"])))
        XCTAssertTrue(silent.contains("no sound to draw: silent, the sound was silent for all 14.0 s"), silent)
        XCTAssertFalse(silent.contains("audio-level"), silent)
    }
}
