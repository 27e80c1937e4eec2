import Foundation
import MediaProbe
import XCTest
@testable import LabCore

/// A capture that could not keep up refuses its numbers instead of giving wrong ones.
final class SoundStarvedTests: XCTestCase {
    /// Reads every 50 ms keep up (a few ms of jitter is no lag); a reader held 300 ms at 3 s reads
    /// 300 ms late, then catches up in a burst: one episode there, the switches it touches refused.
    func testAReaderHeldBackIsOneEpisodeWhereItHappened() {
        var points: [(sample: Double, read: Double)] = []
        var held = 0.0
        for block in 0..<200 {
            let sample = Double(block) * 0.05
            if sample == 3 { held = 0.3 }
            let read = sample + 0.02 + (block % 4 == 1 ? 0.008 : 0) + held
            points.append((sample, read))
            held = max(0, held - 0.05)  // the burst: each next block read at once
        }
        let lag = SoundLag(points)
        XCTAssertEqual(lag.episodes.count, 1, "\(lag.episodes)")
        XCTAssertEqual(lag.worst, 0.3, accuracy: 0.001)
        let episode = try? XCTUnwrap(lag.episodes.first)
        XCTAssertEqual(episode?.from ?? -1, 2.7, accuracy: 0.001, "from the first late block's samples made")
        XCTAssertNotNil(lag.episode(from: 3.1, to: 3.2), "a switch inside it")
        XCTAssertNil(lag.episode(from: 5, to: 5.2), "a switch well after it")
        XCTAssertTrue(SoundLag(points.filter { $0.sample < 2.9 }).episodes.isEmpty, "jitter alone")
        XCTAssertEqual(episode?.words, "the sound capture fell 300 ms behind")
        // The same lateness while the reader sat waiting in its read: the source sent nothing.
        let stalled = SoundLag(points, waits: [(read: 3.32, seconds: 0.29)])
        XCTAssertEqual(stalled.episodes.first?.words, "the sound source sent nothing for 300 ms")
    }

    /// A device whose clock drifts 1000 ppm from the monotonic clock is not a reader falling behind.
    func testADriftingDeviceIsNoLag() {
        let points = (0..<2000).map { block -> (sample: Double, read: Double) in
            let sample = Double(block) * 0.05
            return (sample, sample * 1.001 + 0.02)
        }
        XCTAssertTrue(SoundLag(points).episodes.isEmpty)
    }

    /// Stream 1's tone for 2 s, stream 2's from there: the switch heard at 2 s, seen at 1.99 s.
    private func track() -> SoundTrack {
        let streams = CaptureStreams()
        var track = SoundTrack(tones: streams.tones)
        let rate = 48000
        for block in 0..<200 {
            let t = Double(block) * 0.02
            let frequency = Double(streams.code.tone(stream: t < 2 ? 1 : 2))
            let samples = (0..<960).map { Float(0.3 * sin(2 * .pi * frequency * (t + Double($0) / Double(rate)))) }
            track.add(time: t, samples: samples, sampleRate: rate, channels: 2, activeChannels: 2)
        }
        return track
    }

    private func seen(captureGapMs: Double?) -> CaptureTransition {
        var seen = CaptureTransition(from: ShownFrame(stream: 1, label: "stream 1", frame: 59, at: 1.95),
                                     to: ShownFrame(stream: 2, label: "stream 2", frame: 0, at: 1.99), expectedLastFrame: nil,
                                     expectedFirstFrame: nil, frozenMs: 0, blackFrames: 0, blackMs: 0, unreadableFrames: 0,
                                     skippedFrames: nil, stallMs: 0, audioGapMs: nil)
        seen.captureGapMs = captureGapMs
        return seen
    }

    /// The picture's capture missed 80 ms of frames at the switch: where the first frame really
    /// came is known to 80 ms, so no A/V offset; the sound's own figures stay.
    func testAPictureThatMissedFramesAtTheSwitchGivesNoAVOffset() throws {
        let clean = track().finish(input: "test", streams: CaptureStreams(), picture: [seen(captureGapMs: nil)])
        let offset = try XCTUnwrap(clean.transitions.first?.avOffsetMs, "\(clean.transitions)")
        XCTAssertEqual(offset, 10, accuracy: 5)
        XCTAssertEqual(clean.transitions.first?.channelsAfter, 2)
        let missed = track().finish(input: "test", streams: CaptureStreams(), picture: [seen(captureGapMs: 80)])
        let refused = try XCTUnwrap(missed.transitions.first)
        XCTAssertNil(refused.avOffsetMs)
        XCTAssertNotNil(refused.gapMs, "the sound's own gap does not depend on the picture")
        XCTAssertEqual(refused.notMeasured, "A/V offset not measured: the picture's capture missed 80 ms of frames at 1.99 s")
    }

    /// The sound reader fell behind across the switch: none of its figures, the reason instead.
    func testASoundCaptureThatFellBehindGivesNoFiguresAtTheSwitch() throws {
        let lag = SoundLag([(0, 0.02), (1, 1.02), (1.9, 2.22), (2.0, 2.02), (3, 3.02)])
        let measured = track().finish(input: "test", streams: CaptureStreams(), picture: [seen(captureGapMs: nil)], lag: lag)
        let refused = try XCTUnwrap(measured.transitions.first)
        XCTAssertNil(refused.gapMs)
        XCTAssertNil(refused.avOffsetMs)
        XCTAssertEqual(refused.notMeasured, "not measured: the sound capture fell 300 ms behind at 1.60 s")
        XCTAssertEqual(measured.fellBehindMs, 300)
        XCTAssertTrue(measured.notes.contains { $0.contains("came late 1 times, at most 300 ms (the capture fell behind") }, "\(measured.notes)")
    }
}

/// The stamps' filter settling on a sink that was idle moves the stamps alone; lost samples leave
/// the count behind the reads' clock too. Only the second is a drop.
final class SoundClockReadsTests: XCTestCase {
    private func points(stampStep: Double, readStep: Double) -> (stamps: [(sample: Double, stamp: Double)], reads: [(sample: Double, read: Double)]) {
        let tenths = (0..<80).map { Double($0) / 10 }
        return (tenths.map { ($0, $0 + ($0 >= 1 ? stampStep : 0)) }, tenths.map { ($0, $0 + 0.02 + ($0 >= 1 ? readStep : 0)) })
    }

    func testTheStampsSettlingIsNoDrop() {
        let settling = points(stampStep: 0.166, readStep: 0)
        XCTAssertEqual(SoundClock(settling.stamps).drops.count, 1, "without the reads it looks like one")
        let clock = SoundClock(settling.stamps, reads: settling.reads)
        XCTAssertTrue(clock.drops.isEmpty, "\(clock.drops)")
        XCTAssertEqual(clock.stamp(4), 4.166, accuracy: 0.001, "the settled stamps outvote the first second")
        XCTAssertEqual(clock.drift, 0, accuracy: 0.001, "settling is no drift")
    }

    func testSamplesLostStepBothClocks() {
        let lost = points(stampStep: 0.2, readStep: 0.2)
        let clock = SoundClock(lost.stamps, reads: lost.reads)
        XCTAssertEqual(clock.drops.map(\.at), [1])
        XCTAssertEqual(clock.drops.first?.seconds ?? 0, 0.2, accuracy: 0.001)
    }
}
