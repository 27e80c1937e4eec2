import Foundation
import LabCore
import LabRun
import LabServer
import Processes
import SeamcheckTestSupport
import XCTest

/// The receivers' sound heard live (`lab run --capture-audio`): Kodi and UxPlay each play into a
/// PulseAudio null sink in their namespace, whose monitor is read through the server's unix socket
/// while x11grab reads the picture. Two stitched cases each (the control, and HEVC: Kodi's failing
/// one), one receiver start per receiver: what each did at each switch, by picture and by sound.
final class SoundOfKodiAndUxPlayTests: XCTestCase {
    static let cases = ["control-stitched", "video-codec-hevc-stitched"]
    var folder = ""
    var database = ""

    override func setUpWithError() throws {
        folder = try LabEnvironment.temporaryFolder("sound-receivers")
        database = folder + "/lab.sqlite"
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: folder)
    }

    override class func tearDown() {
        UxPlayReceiver.endSuite()
        super.tearDown()
    }

    func arguments(endpoint: String, display: String, pulse: String) throws -> [String] {
        [SeamcheckBinary.path, "lab", "run", "--db", database, "--streams", try LabSuiteFixture.small(), "--receiver", endpoint,
         "--format", "json", "--capture", display, "--capture-option", "framerate=30",
         "--capture-audio", "pulse:seamcheck_null.monitor?server=\(pulse)"] + Self.cases.flatMap { ["--case", $0] }
    }

    func testKodiHeardAndSeenAtEachStitchedSwitch() async throws {
        try await KodiReceiver.with { kodi in
            let display = try XCTUnwrap(kodi.display, "kodi-start names Kodi's display")
            let result = try kodi.run(try arguments(endpoint: kodi.airplayEndpoint, display: display, pulse: kodi.pulseServer), timeout: 150)
            XCTAssertEqual(result.status, 0, result.stderr)
            // Kodi plays the ad's sound at both switches, even in the HEVC case whose ad never reaches the screen.
            let cells = try check("kodi", pulse: kodi.pulseServer)
            for cell in cells {
                let sound = try XCTUnwrap(cell.measurement.sound)
                // Heard, or refused with its reason (a capture that fell behind): never a wrong number.
                XCTAssertTrue(sound.transitions.contains { $0.at == "the ad's start" && ($0.gapMs != nil || $0.notMeasured != nil) },
                              "\(cell.caseId): the switch into the ad heard: \(sound.transitions.map { "\($0.from) -> \($0.to)" })")
            }
        }
    }

    func testUxPlayHeardAndSeenAtEachStitchedSwitch() throws {
        let uxplay = try UxPlayReceiver.suite()
        XCTAssertFalse(uxplay.pulseServer.isEmpty, "uxplay-start names its PulseAudio server")
        let result = try uxplay.run(try arguments(endpoint: uxplay.airplayEndpoint, display: uxplay.display, pulse: uxplay.pulseServer),
                                    timeout: 150)
        XCTAssertEqual(result.status, 0, result.stderr + "\n" + uxplay.logTail())
        // UxPlay (GStreamer's playbin) shows the stitched ad's first frame and goes on with the
        // primary: its sound never has the ad's tone. HEVC it does not play at all: silent.
        let cells = try check("uxplay", pulse: uxplay.pulseServer)
        let control = try XCTUnwrap(cells.first?.measurement.sound)
        XCTAssertEqual(control.result, "measured", "UxPlay plays the control's primary with its sound: \(control.notes)")
        XCTAssertEqual(control.transitions.map(\.to), [], "the ad's tone never heard")
    }

    /// Every cell heard the receiver's sound through its monitor: measured where it played, silent where it never did.
    @discardableResult
    func check(_ receiver: String, pulse: String) throws -> [LabRunCell] {
        let store = try LabStore(path: database, create: false)
        let run = try XCTUnwrap(try store.runs().first)
        let cells = try store.cells(runId: run.id)
        XCTAssertEqual(cells.map(\.caseId), Self.cases)
        for cell in cells {
            let sound = try XCTUnwrap(cell.measurement.sound, "\(cell.caseId): the sound is in the cell")
            XCTAssertEqual(sound.input, "pulse:seamcheck_null.monitor")
            // Measured where it played through, silent where it never played; a cell that failed on the
            // way (UxPlay stops at the HEVC ad after a moment, or at once) may be either.
            let expected: Set<String> = cell.measurement.failure == nil ? ["measured"]
                : cell.measurement.failure == .neverPlayed ? ["silent"] : ["measured", "silent"]
            XCTAssertTrue(expected.contains(sound.result), "\(cell.caseId): \(sound.result), expected \(expected): \(sound.notes)")
            XCTAssertGreaterThan(sound.levels.count, 20, "\(cell.caseId): the level lane")
            XCTAssertNotNil(sound.zeroSincePlayMs, "\(cell.caseId): placed on the timeline")
            let picture = cell.measurement.picture
            let verdict = cell.measurement.verdict()
            print("\(receiver) sound: \(cell.caseId): verdict \(verdict.verdict.rawValue)\(verdict.stallMs.map { " \(Int($0)) ms" } ?? ""): "
                  + "\(verdict.reason)")
            for t in picture?.transitions ?? [] {
                print("\(receiver) picture: \(cell.caseId): \(t.from.label) #\(t.from.frame) -> \(t.to.label) #\(t.to.frame) at "
                      + "\(String(format: "%.3f", t.to.at)) s: stall \(Int(t.stallMs)) ms")
            }
            for freeze in picture?.switchFreezes ?? [] { print("\(receiver) picture: \(cell.caseId): \(freeze.words)") }
            for t in sound.transitions {
                print("\(receiver) sound: \(cell.caseId): \(t.at): \(t.from) -> \(t.to) at \(String(format: "%.3f", t.incomingStart)) s: "
                      + "gap \(t.gapMs.map { "\(Int($0))" } ?? "-") ms (silence \(t.silenceMs.map { "\(Int($0))" } ?? "-")), "
                      + "A/V \(t.avOffsetMs.map { "\(Int($0))" } ?? "-") ms, clicks \(t.clicks), level \(t.levelBeforeDb ?? 0) -> "
                      + "\(t.levelAfterDb ?? 0) dB (expected jump \(t.expectedLevelJumpDb ?? 0)), channels \(t.channelsBefore ?? 0) -> "
                      + "\(t.channelsAfter ?? 0) \(t.notes)")
            }
            print("\(receiver) sound: \(cell.caseId): \(sound.seconds) s at \(sound.sampleRate ?? 0) Hz, dropouts \(sound.dropouts), "
                  + "clicks \(sound.clicks.count), drift \(sound.clockDriftMs ?? 0) ms, A/V drift \(sound.avDriftMs ?? 0); \(sound.notes)")
        }
        let report = try SeamcheckBinary.run(["lab", "report", "--db", database, "--streams", try LabSuiteFixture.small(),
                                              "--format", "html", "--output", folder + "/report.html"])
        XCTAssertEqual(report.status, 0, report.stderr)
        let html = try String(contentsOfFile: folder + "/report.html", encoding: .utf8)
        XCTAssertTrue(html.contains("class=\"sound-lane\""), "the audio lane in the report")
        XCTAssertTrue(html.contains("<th>sound per transition</th>"), "the sound column")
        if let keep = ProcessInfo.processInfo.environment["SEAMCHECK_KEEP_REPORT"] {
            try? FileManager.default.removeItem(atPath: keep + "-" + receiver + ".html")
            try FileManager.default.copyItem(atPath: folder + "/report.html", toPath: keep + "-" + receiver + ".html")
        }
        return cells
    }
}
