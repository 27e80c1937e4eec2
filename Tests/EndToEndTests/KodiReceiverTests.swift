import Foundation
import LabCore
import LabRun
import LabServer
import Processes
import SeamcheckTestSupport
import XCTest

/// The real AirPlay video receiver of the lab tests: Kodi 20.1 (Debian) under Xvfb, in the network
/// namespace `scripts/services.sh kodi-start` makes, found through that namespace's avahi-daemon
/// like any receiver on a network.
final class KodiReceiverTests: XCTestCase {
    func testKodiIsDiscoveredAnswersAndComesBackAfterBeingKilled() async throws {
        try await KodiReceiver.with { kodi in
            print("kodi-start: \(String(format: "%.1f", kodi.startSeconds)) s; \(kodi.name) \(kodi.deviceId) at \(kodi.airplayEndpoint) in \(kodi.namespace)")
            XCTAssertLessThan(kodi.startSeconds, 45, "Kodi must be up well within a minute on 2 cores")
            XCTAssertEqual(kodi.port, 36667)
            XCTAssertEqual(kodi.deviceId, "02:53:43:4B:00:01", "the fixed MAC of the veth end Kodi uses")

            // Discovery, as an operator would run it on the namespace's network.
            let receiver = try discover(kodi)
            XCTAssertEqual(receiver["port"] as? Int, 36667)
            XCTAssertEqual(receiver["model"] as? String, "Xbmc,1")
            XCTAssertEqual(receiver["addresses"] as? [String], [kodi.address])
            let services = try XCTUnwrap(receiver["services"] as? [String])
            XCTAssertTrue(services.contains("_airplay._tcp"), "\(services)")
            let capabilities = try XCTUnwrap(receiver["capabilities"] as? [String: Bool], "\(receiver)")
            XCTAssertEqual(capabilities["video"], true, "features 0x20F7 has bit 0, SupportsAirPlayVideoV1")

            let info = try kodi.airplayGet("/server-info")
            XCTAssertEqual(info.status, 200, info.body)
            XCTAssertTrue(info.body.contains("<string>\(kodi.deviceId)</string>"), info.body)
            XCTAssertTrue(info.body.contains("<key>features</key>"), info.body)

            // The receiver goes away: its port closes and its record leaves avahi; then it comes back.
            try kodi.kill()
            let gone = try kodi.run(["curl", "-s", "-o", "/dev/null", "--max-time", "2", kodi.airplayURL + "/server-info"], timeout: 10)
            XCTAssertTrue([7, 52, 56].contains(gone.status), "curl: refused, or reset by the dying process, not \(gone.status)")
            try kodi.restart()
            print("restart: \(String(format: "%.1f", kodi.startSeconds)) s")
            XCTAssertLessThan(kodi.startSeconds, 30)
            XCTAssertEqual(try kodi.airplayGet("/server-info").status, 200)
            XCTAssertEqual(try discover(kodi)["port"] as? Int, 36667)
        }
    }

    /// Two stitched cases AirPlayed to Kodi (`POST /play` with curl: the sender is another
    /// module's) from `lab serve` inside the namespace: Kodi fetches the ad's segments across the
    /// discontinuity, and its position runs through the ad and on into the primary.
    func testKodiPlaysStitchedCasesThroughTheAdAndBack() async throws {
        let suite = try LabSuiteFixture.small()
        let manifest = try LabSuite.load(suite).manifest
        try await KodiReceiver.with { kodi in
            let database = try LabEnvironment.temporaryFolder("kodi-lab") + "/lab.sqlite"
            let server = try kodi.spawn([SeamcheckBinary.path, "lab", "serve", "--streams", suite, "--bind", kodi.address, "--port", "0",
                                         "--db", database, "--profiles-dir", MediaFixture.packageRoot + "/DeviceProfiles"])
            defer { server.terminate() }
            let origin = try Self.serving(server)
            for id in Self.stitchedCases {
                let labCase = try XCTUnwrap(manifest.case(id))
                let adStart = try XCTUnwrap(labCase.interstitialStart), adEnd = adStart + (labCase.interstitialDuration ?? 0)
                let played = try Self.play(kodi, url: origin + "/" + labCase.playlist, until: adEnd + 1.5, timeout: 30)
                let requests = try LabStore(path: database, create: false).requests()
                    .filter { $0.path.hasPrefix("/" + labCase.folder) && $0.at >= played.sent.addingTimeInterval(-0.5) }
                let since = { (date: Date) in date.timeIntervalSince(played.sent) }
                let segments = requests.filter { $0.path.hasSuffix(".m4s") }
                let adSegments = segments.filter { $0.path.hasPrefix("/" + labCase.folder + "ad/") }
                XCTAssertEqual(Set(adSegments.map(\.path)).count, 2, "\(id): Kodi fetched both ad segments: \(requests.map(\.path))")
                XCTAssertTrue(segments.contains { $0.path.hasSuffix("primary/seg_003.m4s") }, "\(id): and the primary after the ad")
                XCTAssertTrue(requests.allSatisfy { $0.status < 400 }, "\(id): \(requests.map { "\($0.status) \($0.path)" })")
                XCTAssertLessThan(try XCTUnwrap(played.series.first, "\(id): Kodi never reported playing").position, adStart,
                                  "\(id): the first sample is of this item, from its start")
                let moving = try XCTUnwrap(played.series.first { $0.position > 0.05 }, "\(id): the position never moved")
                let last = try XCTUnwrap(played.series.last)
                XCTAssertGreaterThan(last.position, adEnd + 1, "\(id): the position ran through the ad and on")
                XCTAssertEqual(last.duration, labCase.primary.duration + (labCase.interstitialDuration ?? 0), accuracy: 0.05)
                // The ad's window as Kodi played it: wall time from the position's entering it to its leaving it.
                let entered = try XCTUnwrap(played.series.first { $0.position >= adStart }), left = try XCTUnwrap(played.series.first { $0.position >= adEnd })
                print(String(format: "%@: /play -> first request %.0f ms, first segment %.0f ms, first ad segment %.0f ms, position moving %.2f s; "
                             + "ad window %.3f-%.3f s: position %.3f at %.2f s, %.3f at %.2f s (wall time %.0f ms over the position's advance)",
                             id, since(requests.first?.at ?? .distantFuture) * 1000, since(segments.first?.at ?? .distantFuture) * 1000,
                             since(adSegments.first?.at ?? .distantFuture) * 1000, moving.t, adStart, adEnd,
                             entered.position, entered.t, left.position, left.t,
                             ((left.t - entered.t) - (left.position - entered.position)) * 1000))
            }
            server.terminate()
            let sessions = try LabSessions.read(database: database)
            for id in Self.stitchedCases {
                let session = try XCTUnwrap(sessions.first { $0["case"] as? String == id }, "\(sessions)")
                XCTAssertEqual(session["receiver"] as? String, kodi.name, "mapped through the namespace's avahi")
                XCTAssertEqual(session["interstitialRequested"] as? Bool, true)
                XCTAssertEqual(session["interstitialSegments"] as? Int, 2)
                XCTAssertEqual(session["resumedAt"] as? Double, 6.006, "the primary resumed at its break")
            }
        }
    }

    /// The control's splice (the discontinuity alone) and two media changes.
    static let stitchedCases = ["control-stitched", "video-codec-hevc-stitched", "frame-rate-25-stitched"]

    struct Sample { var t: TimeInterval; var position: Double; var rate: Double; var duration: Double }

    /// POST /play (text/parameters, Start-Position 0) and GET /playback-info every 250 ms until the
    /// position passes `position`, then POST /stop. `t` is seconds after the /play request was sent.
    static func play(_ kodi: KodiReceiver, url: String, until position: Double, timeout: TimeInterval) throws -> (sent: Date, series: [Sample]) {
        let session = UUID().uuidString
        let headers = ["-H", "X-Apple-Session-ID: \(session)", "-H", "User-Agent: MediaControl/1.0"]
        let sent = Date()
        let play = try kodi.run(["curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "5", "-X", "POST",
                                 "-H", "Content-Type: text/parameters"] + headers
                                + ["--data-binary", "Content-Location: \(url)\nStart-Position: 0\n", kodi.airplayURL + "/play"], timeout: 10)
        XCTAssertEqual(play.stdout, "200", play.stderr)
        var series: [Sample] = []
        while Date().timeIntervalSince(sent) < timeout {
            let polled = Date()
            let info = try kodi.run(["curl", "-s", "--max-time", "2"] + headers + [kodi.airplayURL + "/playback-info"], timeout: 5)
            if let plist = try? PropertyListSerialization.propertyList(from: Data(info.stdout.utf8), format: nil) as? [String: Any],
               let at = plist["position"] as? Double, let duration = plist["duration"] as? Double, duration > 0,
               !(series.isEmpty && at > 2) {  // not the previous item, which Kodi reports for a moment after /play
                series.append(Sample(t: polled.timeIntervalSince(sent), position: at, rate: plist["rate"] as? Double ?? 0, duration: duration))
                if at > position { break }
            }
            Thread.sleep(forTimeInterval: max(0, 0.25 - Date().timeIntervalSince(polled)))
        }
        _ = try kodi.run(["curl", "-s", "-o", "/dev/null", "--max-time", "5", "-X", "POST"] + headers + [kodi.airplayURL + "/stop"], timeout: 10)
        // Kodi stops asynchronously: until its player is down, /playback-info still reports the old
        // item, which the next case's first samples would read as its own.
        let stopped = Date().addingTimeInterval(10)
        while Date() < stopped {
            let info = try kodi.run(["curl", "-s", "--max-time", "2"] + headers + [kodi.airplayURL + "/playback-info"], timeout: 5)
            let plist = try? PropertyListSerialization.propertyList(from: Data(info.stdout.utf8), format: nil) as? [String: Any]
            if (plist?["duration"] as? Double ?? 0) == 0 { break }
            Thread.sleep(forTimeInterval: 0.1)
        }
        return (sent, series)
    }

    /// The origin `lab serve` printed (`lab: serving http://ADDRESS:PORT/`), within 30 s.
    static func serving(_ server: RunningProcess) throws -> String {
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            if let match = server.output.firstMatch(of: /lab: serving (http:\/\/[0-9.]+:\d+)\//) { return String(match.1) }
            if let code = server.exitCode { throw CommandError.notFound("lab serve exited \(code): \(server.output)") }
            Thread.sleep(forTimeInterval: 0.05)
        }
        throw CommandError.didNotStart("lab serve did not start within 30 s: \(server.output)")
    }

    /// `seamcheck discover --format json` inside Kodi's namespace: its entry, by device id.
    private func discover(_ kodi: KodiReceiver) throws -> [String: Any] {
        let result = try kodi.run([SeamcheckBinary.path, "discover", "--format", "json", "--timeout", "10"],
                                  environment: ["NO_COLOR": "1"], timeout: 30)
        XCTAssertEqual(result.status, 0, result.stderr)
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], result.stdout)
        let receivers = json["receivers"] as? [[String: Any]] ?? []
        return try XCTUnwrap(receivers.first { $0["deviceId"] as? String == kodi.deviceId },
                             "Kodi \(kodi.deviceId) not discovered: \(result.stdout)\n\(kodi.logTail())")
    }
}
