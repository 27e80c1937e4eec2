import Foundation
import Processes
import SeamcheckTestSupport
import XCTest

/// One lab session with real clients, run once for every test of `LabClientsTests`: the small
/// suite served by `lab serve` on 127.0.0.1; two stand-in receivers published through the test
/// avahi-daemon at 127.0.0.21 (an Apple TV 4K) and 127.0.0.22 (a third-party AirPlay 2 TV);
/// GStreamer and ffmpeg from 127.0.0.1, which the inventory pins; then SIGTERM at once. Each test
/// asserts one part of what the database says. (Drops and stalls: LabFaultTests.)
final class LabScenario {
    static let atv = "127.0.0.21", tv = "127.0.0.22", desktop = "127.0.0.1", unmapped = "127.0.0.27"
    static let atvName = "Lab Apple TV 4K", tvName = "Lab Samsung TV", desktopName = "Desktop players"

    let manifest: [String: Any]
    var runs: [String: EmulatorRun] = [:]  // "address case"
    var gstOutput = "", ffmpegOutput = ""
    var gstStatus: Int32 = -1, ffmpegStatus: Int32 = -1
    var receivers: [[String: Any]] = []
    var serverExit: Int32 = -1
    var sessions: [[String: Any]] = []
    var sessionsTable = ""

    private static let once = Once { try LabScenario() }

    static func shared() throws -> LabScenario { try once.get() }

    func run(_ address: String, _ caseId: String) throws -> EmulatorRun {
        try XCTUnwrap(runs[address + " " + caseId], "no run of \(caseId) from \(address)")
    }

    func session(_ client: String, _ caseId: String) throws -> [String: Any] {
        try XCTUnwrap(sessions.first { $0["client"] as? String == client && $0["case"] as? String == caseId },
                      "no session of \(client) on \(caseId) among \(sessions.map { "\($0["client"] ?? "") \($0["case"] ?? "")" })")
    }

    private init() throws {
        try DiscoverEnvironment.requireAvahi()
        let gst = try TestEnvironment.require("gst-launch-1.0")
        let ffmpeg = try TestEnvironment.require("ffmpeg")
        _ = try TestEnvironment.require("python3")
        let suite = try LabSuiteFixture.small()
        manifest = try LabSuiteFixture.manifest(suite)
        let folder = try LabEnvironment.temporaryFolder("lab-clients")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let inventory = folder + "/inventory.yaml"
        try """
        receivers:
          - name: \(Self.desktopName)
            deviceClass: mac
            note: gst-launch-1.0 and ffmpeg on the test host
            addresses: ["\(Self.desktop)"]
        """.write(toFile: inventory, atomically: true, encoding: .utf8)

        let id = { String(format: "02:5E:%02X:%02X:%02X:%02X", Int.random(in: 0...255), Int.random(in: 0...255),
                          Int.random(in: 0...255), Int.random(in: 0...255)) }
        let atv = try PublishedReceiver(name: Self.atvName, address: Self.atv,
                                        txt: ["deviceid=\(id())", "model=AppleTV11,1", "features=0x4A7FFFF7,0x4155FDE", "srcvers=670.6.2"])
        defer { atv.stop() }
        let tv = try PublishedReceiver(name: Self.tvName, address: Self.tv,
                                       txt: ["deviceid=\(id())", "manufacturer=Samsung", "model=UNU7090",
                                             "features=0x7F8AD0,0x38BCB46", "srcvers=377.17.24.6", "rsf=0x3"])
        defer { tv.stop() }
        try LabServerProcess.with(suite: suite, database: folder + "/lab.sqlite", inventory: inventory) { server in

            // Discovery maps both addresses before anyone fetches (bounded: the browse answers in ~1 s).
            DiscoverEnvironment.wait(20) {
                let listed = ((try? server.json("/api/receivers"))?["receivers"] as? [[String: Any]] ?? []).compactMap { $0["address"] as? String }
                return listed.contains(Self.atv) && listed.contains(Self.tv)
            }

            let url = { (caseId: String) in server.origin + "/cases/\(caseId)/master.m3u8" }
            let lowEnd = ["--video-codecs", "h264", "--ranges", "SDR", "--audio-codecs", "aac", "--max-channels", "2"]
            // The TV decodes more than its class says (HEVC): the ladder shows it.
            let tvLadder = ["--video-codecs", "h264,hevc", "--ranges", "SDR", "--audio-codecs", "aac", "--max-channels", "2",
                            "--user-agent", "AppleCoreMedia/1.0.0 (Samsung TV; U; AirPlay 2)"]
            runs[Self.atv + " control"] = try EmulatorRun.run(url: url("control"), source: Self.atv)
            runs[Self.atv + " capability-ladder"] = try EmulatorRun.run(url: url("capability-ladder"), source: Self.atv)
            runs[Self.tv + " control"] = try EmulatorRun.run(url: url("control"), source: Self.tv, options: lowEnd)
            runs[Self.tv + " capability-ladder"] = try EmulatorRun.run(url: url("capability-ladder"), source: Self.tv, options: tvLadder)

            runs[Self.unmapped + " capability-ladder"] = try EmulatorRun.run(url: url("capability-ladder"), source: Self.unmapped)

            let gstRun = try Command.run(gst, ["-q", "playbin3", "uri=" + url("control"),
                                               "video-sink=fakesink sync=false", "audio-sink=fakesink sync=false"], timeout: 60)
            gstOutput = "exit \(gstRun.status): \(gstRun.stdout) \(gstRun.stderr)"
            gstStatus = gstRun.status
            let ffmpegRun = try Command.run(ffmpeg, ["-nostdin", "-hide_banner", "-loglevel", "error", "-i", url("frame-rate-25"),
                                                     "-f", "null", "-"], timeout: 60)
            ffmpegOutput = "exit \(ffmpegRun.status): \(ffmpegRun.stderr)"
            ffmpegStatus = ffmpegRun.status

            receivers = (try server.json("/api/receivers"))["receivers"] as? [[String: Any]] ?? []
            serverExit = server.stop()  // at once: what the clients fetched must already be on its way to the database
            sessions = try LabSessions.read(database: server.database)
            sessionsTable = try SeamcheckBinary.run(["lab", "sessions", "--db", server.database, "--format", "table"]).stdout
        }
    }
}

final class LabClientsTests: XCTestCase {
    private func scenario() throws -> LabScenario { try LabScenario.shared() }

    func testTheEmulatedReceiverFetchesTheMidRollAndResumesAtItsOffset() throws {
        let lab = try scenario()
        let run = try lab.run(LabScenario.atv, "control")
        XCTAssertEqual(run.errors, [], "\(run.summary)")
        let control = try LabSuiteFixture.labCase("control", in: lab.manifest)
        let start = try XCTUnwrap(control["interstitialStart"] as? Double)
        let offset = control["resumeOffset"] as? Double ?? 0
        let session = try lab.session(LabScenario.atv, "control")
        XCTAssertEqual(session["variant"] as? String, "cases/control/primary.m3u8")
        XCTAssertEqual(session["interstitialRequested"] as? Bool, true)
        XCTAssertEqual(session["interstitialVariant"] as? String, "cases/control/ad/ad.m3u8")
        let adSegments = run.fetchedPaths.filter { $0.hasPrefix("/cases/control/ad/") && $0.contains(".m4s") }.count
        XCTAssertGreaterThan(adSegments, 0)
        XCTAssertEqual(session["interstitialSegments"] as? Int, adSegments)
        XCTAssertEqual(session["sentPrimaryId"] as? Bool, true)
        // An X-ASSET-URI request carries no _HLS_start_offset: the draft asks it of asset-list requests only.
        XCTAssertEqual(session["sentStartOffset"] as? Bool, false)
        XCTAssertEqual(try XCTUnwrap(session["resumedAt"] as? Double), start + offset, accuracy: 0.001)
        XCTAssertEqual(run.summary["resumedAt"] as? [Double], [((start + offset) * 1000).rounded() / 1000])
        XCTAssertEqual(session["failedRequests"] as? Int, 0)
        XCTAssertTrue((session["userAgent"] as? String ?? "").hasPrefix("AppleCoreMedia/"), "\(session)")
        // The low-end TV, declaring H.264 only, plays the same H.264 ad.
        let tv = try lab.session(LabScenario.tv, "control")
        XCTAssertEqual(tv["interstitialRequested"] as? Bool, true)
        XCTAssertEqual(try XCTUnwrap(tv["resumedAt"] as? Double), start + offset, accuracy: 0.001)
    }

    func testGStreamerAndFFmpegPlayThePrimaryButNeverFetchTheInterstitial() throws {
        let lab = try scenario()
        XCTAssertEqual(lab.gstStatus, 0, lab.gstOutput)
        XCTAssertEqual(lab.ffmpegStatus, 0, lab.ffmpegOutput)
        let gst = try lab.session(LabScenario.desktop, "control")
        XCTAssertTrue((gst["userAgent"] as? String ?? "").contains("GStreamer"), "\(gst) \(lab.gstOutput)")
        XCTAssertEqual(gst["variant"] as? String, "cases/control/primary.m3u8", lab.gstOutput)
        XCTAssertEqual(gst["interstitialRequested"] as? Bool, false, lab.gstOutput)
        XCTAssertEqual(gst["interstitialSegments"] as? Int, 0)
        let ffmpeg = try lab.session(LabScenario.desktop, "frame-rate-25")
        XCTAssertTrue((ffmpeg["userAgent"] as? String ?? "").hasPrefix("Lavf/"), "\(ffmpeg) \(lab.ffmpegOutput)")
        XCTAssertEqual(ffmpeg["variant"] as? String, "cases/frame-rate-25/primary.m3u8", lab.ffmpegOutput)
        XCTAssertEqual(ffmpeg["interstitialRequested"] as? Bool, false, lab.ffmpegOutput)
        // Both played the whole primary: every segment of the shared timeline, no ad.
        let segments = (lab.manifest["primaryTimeline"] as? [Any] ?? []).count
        for session in [gst, ffmpeg] {
            XCTAssertGreaterThanOrEqual(session["requests"] as? Int ?? 0, segments + 2, "\(session)")
            XCTAssertNil(session["resumedAt"] as? Double)
        }
    }

    func testStandInReceiversAreMappedByDiscoveryAndTheDesktopPlayersByTheInventory() throws {
        let lab = try scenario()
        let byAddress = Dictionary(lab.receivers.compactMap { r in (r["address"] as? String).map { ($0, r) } }) { a, _ in a }
        XCTAssertEqual(byAddress[LabScenario.atv]?["source"] as? String, "avahi", "\(lab.receivers)")
        XCTAssertEqual(byAddress[LabScenario.tv]?["source"] as? String, "avahi")
        XCTAssertEqual(byAddress[LabScenario.desktop]?["source"] as? String, "inventory")
        XCTAssertEqual(byAddress[LabScenario.atv]?["model"] as? String, "AppleTV11,1")
        let expected = [(LabScenario.atv, "control", LabScenario.atvName, "apple-tv-4k"),
                        (LabScenario.tv, "capability-ladder", LabScenario.tvName, "smart-tv-low-end"),
                        (LabScenario.desktop, "control", LabScenario.desktopName, "mac")]
        for (client, caseId, name, deviceClass) in expected {
            let session = try lab.session(client, caseId)
            XCTAssertEqual(session["receiver"] as? String, name, "\(client)")
            XCTAssertEqual(session["deviceClass"] as? String, deviceClass, "\(client)")
        }
    }

    func testTheCapabilityLadderShowsWhatEachReceiverDecodes() throws {
        let lab = try scenario()
        let atv = try XCTUnwrap(try lab.session(LabScenario.atv, "capability-ladder")["observedCapability"] as? [String: Any])
        XCTAssertEqual(atv["videoCodec"] as? String, "hevc", "\(atv)")
        XCTAssertEqual(atv["dynamicRange"] as? String, "HDR10")
        XCTAssertEqual(atv["audioCodec"] as? String, "eac3")
        XCTAssertEqual(atv["channels"] as? Int, 6)
        XCTAssertEqual(atv["againstProfile"] as? [String], [])
        let tvSession = try lab.session(LabScenario.tv, "capability-ladder")
        XCTAssertEqual(tvSession["audioRendition"] as? String, "cases/capability-ladder/audio-aac-stereo/media.m3u8")
        let tv = try XCTUnwrap(tvSession["observedCapability"] as? [String: Any])
        XCTAssertEqual(tv["videoCodec"] as? String, "hevc", "\(tv)")
        XCTAssertEqual(tv["dynamicRange"] as? String, "SDR")
        XCTAssertEqual(tv["audioCodec"] as? String, "aac")
        XCTAssertEqual(tv["channels"] as? Int, 2)
        let notes = tv["againstProfile"] as? [String] ?? []
        XCTAssertTrue(notes.contains { $0.contains("chose hevc") && $0.contains("smart-tv-low-end") }, "\(notes)")
        // The table names the tier (every tier's playlist is media.m3u8) and compares only what has a class.
        XCTAssertTrue(lab.sessionsTable.contains("video-hevc-hdr10/media.m3u8"), lab.sessionsTable)
        XCTAssertTrue(lab.sessionsTable.contains("\(LabScenario.atvName) on capability-ladder: chose hevc HDR10 eac3 6 ch; as its class expects"),
                      lab.sessionsTable)
        let unmapped = try XCTUnwrap(lab.sessionsTable.split(separator: "\n").first { $0.hasPrefix("\(LabScenario.unmapped) on capability-ladder") })
        XCTAssertFalse(unmapped.contains("as its class expects"), "a client with no class has nothing to expect: \(unmapped)")
    }

    func testEveryRequestTheClientsMadeIsInTheDatabaseAfterSIGTERM() throws {
        let lab = try scenario()
        XCTAssertEqual(lab.serverExit, 0, "lab serve should exit 0 on SIGTERM")
        var made: [String: Int] = [:]
        for (key, run) in lab.runs { made[String(key.split(separator: " ")[0]), default: 0] += run.requests }
        var logged: [String: Int] = [:]
        for session in lab.sessions { logged[session["client"] as? String ?? "", default: 0] += session["requests"] as? Int ?? 0 }
        XCTAssertEqual(Set(made.keys), [LabScenario.atv, LabScenario.tv, LabScenario.unmapped])
        for (client, count) in made {
            XCTAssertGreaterThan(count, 0, client)
            XCTAssertEqual(logged[client], count, "requests of \(client): made \(count), logged \(logged[client] ?? 0)")
        }
    }
}

final class LabRollsTests: XCTestCase {
    func testTheEmulatedReceiverPlaysAPreRollFromAnAssetListAMidRollAndAPostRollAndSIGINTKeepsEveryRequest() throws {
        _ = try TestEnvironment.require("python3")
        let folder = try LabEnvironment.temporaryFolder("lab-rolls")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let suite = try LabSuiteFixture.withRolls(from: try LabSuiteFixture.small(), into: folder)
        try LabServerProcess.with(suite: suite, database: folder + "/lab.sqlite", inventory: nil, browse: false) { server in
            let run = try EmulatorRun.run(url: server.origin + "/cases/rolls/master.m3u8", source: "127.0.0.31")
            XCTAssertEqual(run.errors, [], "\(run.summary)")
            XCTAssertEqual(run.interstitials.map { $0["id"] as? String }, ["pre", "ad-control", "post"])
            XCTAssertEqual(run.interstitials.map { $0["cue"] as? [String] }, [["PRE"], [], ["POST"]])
            let paths = run.fetchedPaths
            let list = try XCTUnwrap(paths.first { $0.hasPrefix("/cases/rolls/ad/assets.json?") }, "\(paths)")
            XCTAssertTrue(list.contains("_HLS_primary_id=") && list.contains("_HLS_start_offset=0"), list)
            // Pre-roll before the first primary segment, post-roll after the last.
            let firstPrimary = try XCTUnwrap(paths.firstIndex { $0.hasPrefix("/cases/rolls/primary/") && $0.hasSuffix(".m4s") })
            XCTAssertTrue(paths[..<firstPrimary].contains { $0.hasPrefix("/cases/rolls/ad/") && $0.contains(".m4s") })
            XCTAssertTrue(try XCTUnwrap(paths.last).hasPrefix("/cases/rolls/ad/"), "\(paths)")
            kill(server.process.pid, SIGINT)  // as an operator's Ctrl-C
            XCTAssertEqual(server.process.wait(timeout: 15), 0)

            let session = try XCTUnwrap(try LabSessions.read(database: folder + "/lab.sqlite").first { $0["case"] as? String == "rolls" })
            XCTAssertEqual(session["sentPrimaryId"] as? Bool, true)
            XCTAssertEqual(session["sentStartOffset"] as? Bool, true)
            XCTAssertEqual(session["resumedAt"] as? Double, 0, "the pre-roll's X-RESUME-OFFSET=0 starts the primary at 0")
            XCTAssertEqual(session["requests"] as? Int, run.requests)
            let adSegments = paths.filter { $0.hasPrefix("/cases/rolls/ad/") && $0.contains(".m4s") }.count
            XCTAssertEqual(session["interstitialSegments"] as? Int, adSegments)
        }
    }
}
