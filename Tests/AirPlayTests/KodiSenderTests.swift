@testable import AirPlay
import Foundation
import XCTest

/// The sender against a real Kodi 20 receiver, when one is given: SEAMCHECK_AIRPLAY_RECEIVER
/// (`host:port` of its AirPlay service) and SEAMCHECK_AIRPLAY_MEDIA (an HLS URL it can fetch).
/// docs/airplay.md says how to start Kodi headless for it; the suite's Kodi harness runs it too.
/// Prints one `KODI` line per measurement.
final class KodiSenderTests: XCTestCase {
    struct Sample {
        var time: Double
        var info: PlaybackInfo?
        var error: AirPlayError?
    }

    private func receiver() throws -> (AirPlayEndpoint, URL) {
        let environment = ProcessInfo.processInfo.environment
        guard let address = environment["SEAMCHECK_AIRPLAY_RECEIVER"], let media = environment["SEAMCHECK_AIRPLAY_MEDIA"],
              let colon = address.lastIndex(of: ":"), let port = Int(address[address.index(after: colon)...]),
              let url = URL(string: media) else {
            throw XCTSkip("no receiver given (SEAMCHECK_AIRPLAY_RECEIVER=host:port, SEAMCHECK_AIRPLAY_MEDIA=url)")
        }
        return (AirPlayEndpoint(host: String(address[..<colon]), port: port, name: "kodi"), url)
    }

    /// Polls `/playback-info` every `interval` s for `seconds` s (or until `until` holds).
    private func poll(_ session: AirPlaySession, from start: Date, seconds: Double, interval: Double = 0.1,
                      until: ((PlaybackInfo) -> Bool)? = nil) async -> [Sample] {
        var samples: [Sample] = []
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            do {
                let info = try await session.playbackInfo()
                samples.append(Sample(time: Date().timeIntervalSince(start), info: info))
                if let until, until(info) { break }
            } catch {
                samples.append(Sample(time: Date().timeIntervalSince(start), error: error))
            }
            try? await Task.sleep(nanoseconds: UInt64(interval * 1e9))
        }
        return samples
    }

    private func describe(_ samples: [Sample]) -> String {
        samples.map { sample in
            let info = sample.info.map { "d=\($0.duration.map { String(format: "%.2f", $0) } ?? "-") p=\($0.position.map { String(format: "%.2f", $0) } ?? "-") r=\($0.rate.map { String($0) } ?? "-") ready=\($0.readyToPlay.map(String.init) ?? "-")\($0.error.map { " error=\($0)" } ?? "")" }
            return String(format: "%.2f ", sample.time) + (info ?? "error: \(sample.error.map(String.init(describing:)) ?? "")")
        }.joined(separator: "\n  ")
    }

    /// The first sample whose position advanced past the one before it (and past 0).
    private func firstMoving(_ samples: [Sample]) -> Sample? {
        var previous: Double?
        for sample in samples {
            guard let position = sample.info?.position else { continue }
            if let previous, position > previous, position > 0 { return sample }
            previous = position
        }
        return nil
    }

    func testPlayPauseResumeStopOnKodi() async throws {
        let (endpoint, media) = try receiver()
        for form in AirPlayConfiguration.PlayBody.allCases {
            let session = try await AirPlaySender.session(endpoint, configuration: .init(playBody: form))
            let server = try await session.serverInfo()
            print("KODI server-info \(server)")
            XCTAssertNotNil(server.deviceId)
            let before = try await session.playbackInfo()
            print("KODI idle playback-info \(before)")

            let start = Date()
            try await session.play(url: media, startPosition: 0)
            let playAnswered = Date().timeIntervalSince(start)
            let starting = await poll(session, from: start, seconds: 20, until: { ($0.position ?? 0) > 2 })
            print("KODI \(form.rawValue): /play answered in \(String(format: "%.3f", playAnswered)) s; samples:\n  \(describe(starting))")
            let moving = try XCTUnwrap(firstMoving(starting), "\(form): the position never moved")
            print("KODI \(form.rawValue): position moving \(String(format: "%.2f", moving.time)) s after /play")

            try await session.setRate(0)
            let paused = await poll(session, from: start, seconds: 2, interval: 0.25)
            print("KODI \(form.rawValue): after rate 0:\n  \(describe(paused))")
            let pausedPositions = paused.dropFirst(2).compactMap { $0.info?.position }
            XCTAssertLessThan((pausedPositions.max() ?? 0) - (pausedPositions.min() ?? 0), 0.3, "rate 0 pauses")
            XCTAssertEqual(paused.last?.info?.rate, 0)

            let resumedAt = Date()
            try await session.setRate(1)
            let resumed = await poll(session, from: resumedAt, seconds: 3, interval: 0.1,
                                     until: { ($0.position ?? 0) > (pausedPositions.max() ?? 0) + 0.2 })
            print("KODI \(form.rawValue): after rate 1:\n  \(describe(resumed))")
            XCTAssertEqual(resumed.last?.info?.rate, 1)

            let stopAt = Date()
            try await session.stop()
            let stopAnswered = Date().timeIntervalSince(stopAt)
            let stopped = await poll(session, from: stopAt, seconds: 1.5, interval: 0.25)
            print("KODI \(form.rawValue): /stop answered in \(String(format: "%.3f", stopAnswered)) s; after:\n  \(describe(stopped))")
            XCTAssertNil(stopped.last?.info?.duration, "stopped: no duration")
            let opened = await session.connectionsOpened
            print("KODI \(form.rawValue): connections opened \(opened)")
            XCTAssertEqual(opened, 1)
            await session.close()
            try await Task.sleep(nanoseconds: 1_000_000_000)
        }
    }

    func testStartFractionOnKodi() async throws {
        let (endpoint, media) = try receiver()
        let session = try await AirPlaySender.session(endpoint)
        let start = Date()
        try await session.play(url: media, startPosition: 10, duration: 20)
        let samples = await poll(session, from: start, seconds: 20, until: { ($0.position ?? 0) > 10.3 })
        print("KODI start fraction 0.5:\n  \(describe(samples))")
        try await session.stop()
        await session.close()
        let positions = samples.compactMap { $0.info?.position }.filter { $0 != 0 }
        XCTAssertGreaterThan(positions.min() ?? 0, 9, "Start-Position 0.5 of 20 s starts near 10 s")
        XCTAssertGreaterThan(positions.max() ?? 0, 10.3, "and plays on from there")
    }

    func testPlayUntilTheEndOnKodi() async throws {
        let (endpoint, media) = try receiver()
        let session = try await AirPlaySender.session(endpoint)
        let start = Date()
        // From 12 s of the 20 s stream (Start-Position 0.6, a segment boundary): the end comes
        // 8 s in. Until the item is gone after it played, not a fixed 35 s.
        try await session.play(url: media, startPosition: 12, duration: 20)
        var played = false
        let samples = await poll(session, from: start, seconds: 35, interval: 0.5, until: { info in
            if info.duration != nil { played = true }
            return played && info.duration == nil
        })
        print("KODI play to the end:\n  \(describe(samples))")
        await session.close()
        XCTAssertNotNil(samples.first { $0.info?.duration != nil }, "it played")
        XCTAssertNil(samples.last?.info?.duration, "after the end: no duration")
    }

    /// What another session sees, what closing the sender's connection does, a scrub, a missing URL.
    func testSessionsScrubAndFailuresOnKodi() async throws {
        let (endpoint, media) = try receiver()
        let first = try await AirPlaySender.session(endpoint)
        let start = Date()
        try await first.play(url: media, startPosition: 0)
        _ = await poll(first, from: start, seconds: 10, until: { ($0.position ?? 0) > 1 })
        let other = try await AirPlaySender.session(endpoint)
        let seen = try await other.playbackInfo()
        print("KODI another session's playback-info while the first plays: \(seen)")
        await first.close()
        try await Task.sleep(nanoseconds: 1_500_000_000)
        let afterClose = try await other.playbackInfo()
        print("KODI 1.5 s after the playing session's connection closed: \(afterClose)")

        let scrubAt = Date()
        do {
            try await other.scrub(to: 12)
            let scrubbed = await poll(other, from: scrubAt, seconds: 4, interval: 0.25)
            print("KODI after scrub to 12 s (TS HLS):\n  \(describe(scrubbed))")
        } catch {
            print("KODI scrub: \(error)")
        }
        try await other.stop()

        let missing = media.deletingLastPathComponent().appendingPathComponent("missing.m3u8")
        let missingAt = Date()
        try await other.play(url: missing, startPosition: 0)
        let failing = await poll(other, from: missingAt, seconds: 6, interval: 0.5)
        print("KODI playing a URL that answers 404:\n  \(describe(failing))")
        try? await other.stop()
        await other.close()
        XCTAssertNil(failing.last?.info?.duration, "a missing URL never plays")
    }

    /// Kodi keeps a kept-alive connection left idle longer than the gap between two cases of a run
    /// (seconds): the next case reuses it. (Measured once for 65 s: still one connection.)
    func testIdleKeepAliveOnKodi() async throws {
        let (endpoint, _) = try receiver()
        let session = try await AirPlaySender.session(endpoint)
        _ = try await session.serverInfo()
        try await Task.sleep(nanoseconds: 15_000_000_000)
        let info = try await session.serverInfo()
        let opened = await session.connectionsOpened
        print("KODI after 15 s idle: server-info \(info.model ?? "-"), connections opened \(opened)")
        await session.close()
        XCTAssertNotNil(info.deviceId)
        XCTAssertEqual(opened, 1, "the idle connection was kept and reused")
    }

    /// Five plays one after another: /play to position moving, each /play's wall-clock time (to
    /// line up with the media server's log), and the CPU this process spends polling every 250 ms.
    func testRepeatedPlaysOnKodi() async throws {
        let (endpoint, media) = try receiver()
        let session = try await AirPlaySender.session(endpoint)
        var moving: [Double] = []
        for round in 1...5 {
            let start = Date()
            try await session.play(url: media, startPosition: 0)
            print(String(format: "KODI round %d /play sent at %.3f", round, start.timeIntervalSince1970))
            let samples = await poll(session, from: start, seconds: 15, until: { ($0.position ?? 0) > 0.1 })
            if let first = firstMoving(samples) { moving.append(first.time) }
            if round == 5 {
                var before = rusage()
                getrusage(RUSAGE_SELF.rawValue, &before)
                let polled = Date()
                let series = await poll(session, from: polled, seconds: 5, interval: 0.25)
                var after = rusage()
                getrusage(RUSAGE_SELF.rawValue, &after)
                func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
                let cpu = seconds(after.ru_utime) + seconds(after.ru_stime) - seconds(before.ru_utime) - seconds(before.ru_stime)
                print(String(format: "KODI polling every 250 ms: %d answers in %.1f s, CPU %.3f s (%.2f %% of a core)",
                             series.count, Date().timeIntervalSince(polled), cpu, 100 * cpu / Date().timeIntervalSince(polled)))
            }
            try await session.stop()
            try await Task.sleep(nanoseconds: 1_000_000_000)
        }
        print("KODI /play to position moving: \(moving.map { String(format: "%.2f", $0) }.joined(separator: ", ")) s")
        await session.close()
        XCTAssertEqual(moving.count, 5, "every play moved")
    }

    /// Kodi with `services.useairplaypassword` on (SEAMCHECK_AIRPLAY_PASSWORD_SET=1): a Digest 401.
    func testPasswordOnKodi() async throws {
        let (endpoint, media) = try receiver()
        guard ProcessInfo.processInfo.environment["SEAMCHECK_AIRPLAY_PASSWORD_SET"] == "1" else {
            throw XCTSkip("the receiver has no AirPlay password (SEAMCHECK_AIRPLAY_PASSWORD_SET=1 when it has)")
        }
        let session = try await AirPlaySender.session(endpoint)
        let info = try await session.serverInfo()
        XCTAssertNotNil(info.deviceId, "server-info needs no password")
        do {
            try await session.play(url: media, startPosition: 0)
            XCTFail("played without the password")
        } catch {
            print("KODI with a password, /play: \(error)")
            XCTAssertEqual(error, .passwordRequired(endpoint: endpoint.description))
        }
        await session.close()
    }
}
