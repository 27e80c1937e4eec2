import Foundation
import SeamcheckTestSupport
import XCTest
@testable import LabCore
@testable import LabRun
@testable import LabServer

/// The behaviour suite end to end: the built binary's `lab run` (its own lab server on 127.0.0.1)
/// plays every behaviour case of the small suite on eight stand-in receivers
/// (Tests/Server/behaviour_receiver.py, each on its own loopback address, fetching as an
/// interstitial-aware HLS client in real time): the conforming one must be judged conforming on
/// every case and each deliberate deviation caught on its cases, named; then `lab report
/// --behaviour` renders the table. About 1.5 minutes: the receivers play in parallel at 5x real time,
/// 19 cases of 12-16 s of media each, one after another.
final class BehaviourRunTests: XCTestCase {
    static let behaviours = ["conforming", "ignore-interstitials", "ignore-resume-offset", "ignore-playout-limit", "drop-primary-id",
                             "seek-past-jump", "allow-skip-rate", "ignore-cue"]

    /// The stand-ins play at 5x real time (3x before; 87 s against 116 s): the run's scripted commands go at points of the media
    /// (`atPosition`) and the judge reads the order of requests, so neither depends on the pace.
    static let speed = 5.0

    var folder = ""
    var receivers: [Process] = []

    override func setUpWithError() throws {
        _ = try TestEnvironment.require("python3")
        _ = try TestEnvironment.require("ffmpeg")
        folder = NSTemporaryDirectory() + "behaviour-run-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString.prefix(6))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    override func tearDown() {
        for receiver in receivers where receiver.isRunning { receiver.terminate(); receiver.waitUntilExit() }
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// The small suite with `control` and every behaviour case (they encode nothing of their own: seconds).
    static func suite() throws -> String {
        let output = MediaFixture.cacheDirectory + "/lab-small-behaviour"
        let cases = ["control"] + BehaviourCatalog.entries.map { BehaviourCatalog.id($0.feature) }
        let result = try SeamcheckBinary.run(["lab", "streams", "--scale", "small", "--output", output] + cases.flatMap { ["--case", $0] })
        guard result.status == 0 else { throw CommandError.failed("seamcheck lab streams", result) }
        return output
    }

    /// Starts the stand-in on `host` and returns its `HOST:PORT`.
    func receiver(_ host: String, behaviour: String) throws -> String {
        let log = folder + "/\(behaviour).out"
        FileManager.default.createFile(atPath: log, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", MediaFixture.packageRoot + "/Tests/Server/behaviour_receiver.py", "--host", host,
                             "--behaviour", behaviour, "--speed", String(Self.speed), "--lifetime", "1500"]
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        process.standardError = process.standardOutput
        try process.run()
        receivers.append(process)
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            if text.contains("READY"), let match = text.firstMatch(of: /PORT (\d+)/) { return "\(host):\(match.1)" }
            if !process.isRunning { break }
            Thread.sleep(forTimeInterval: 0.1)
        }
        throw CommandError.didNotStart("behaviour_receiver.py --behaviour \(behaviour) on \(host) did not start: "
                                    + ((try? String(contentsOfFile: log, encoding: .utf8)) ?? ""))
    }

    func testTheConformingStandInConformsAndEachDeviationIsCaught() throws {
        let suite = try Self.suite()
        let database = folder + "/lab.sqlite"
        var address: [String: String] = [:]
        for (index, behaviour) in Self.behaviours.enumerated() {
            address[behaviour] = try receiver("127.0.0.\(70 + index)", behaviour: behaviour)
        }
        let started = Date()
        let run = try Command.run(SeamcheckBinary.path, ["lab", "run", "--db", database, "--streams", suite, "--bind", "127.0.0.1",
                                                         "--poll-interval", "100", "--case", "behaviour-*", "--format", "json"]
                                  + Self.behaviours.flatMap { ["--receiver", address[$0]!] }, environment: ["NO_COLOR": "1"], timeout: 900)
        let minutes = Date().timeIntervalSince(started) / 60
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertLessThan(minutes, 12, "19 cases on 8 receivers in parallel")

        let cells = try LabStore(path: database, create: false).latestCells()
        XCTAssertEqual(cells.count, 19 * Self.behaviours.count)
        func judgement(_ behaviour: String, _ feature: String) -> BehaviourJudgement? {
            cells.first { $0.receiver == address[behaviour] && $0.caseId == BehaviourCatalog.id(feature) }?.behaviour
        }
        func why(_ behaviour: String, _ feature: String) -> String {
            let j = judgement(behaviour, feature)
            return "\(behaviour) on \(feature): \(j?.outcome.rawValue ?? "no judgement"): \(j?.why ?? "") \(j?.checks.map(\.observed) ?? [])"
        }
        func expect(_ behaviour: String, _ feature: String, _ outcome: BehaviourOutcome, naming: String? = nil,
                    file: StaticString = #filePath, line: UInt = #line) {
            XCTAssertEqual(judgement(behaviour, feature)?.outcome, outcome, why(behaviour, feature), file: file, line: line)
            if let naming {
                XCTAssert(judgement(behaviour, feature)?.why?.contains(naming) == true, "\(naming) not in \(why(behaviour, feature))",
                          file: file, line: line)
            }
        }

        for entry in BehaviourCatalog.entries { expect("conforming", entry.feature, .conforms) }

        // Ignoring interstitials: nothing of any break requested; the seek over the JUMP ad lands without it.
        for entry in BehaviourCatalog.entries where entry.feature != "restrict-jump" {
            expect("ignore-interstitials", entry.feature, .ignores, naming: "the receiver ignored EXT-X-DATERANGE")
        }
        expect("ignore-interstitials", "restrict-jump", .deviates, naming: "the seek skipped the JUMP-restricted ad")

        expect("ignore-resume-offset", "resume-offset-absent", .deviates, naming: "expected 8.0 s (no X-RESUME-OFFSET")
        expect("ignore-resume-offset", "resume-offset-positive", .deviates, naming: "expected 6.0 s (X-RESUME-OFFSET=2.002)")
        expect("ignore-playout-limit", "playout-limit", .deviates, naming: "played past X-PLAYOUT-LIMIT=2.002")
        expect("drop-primary-id", "primary-id", .deviates, naming: "without _HLS_primary_id")
        expect("seek-past-jump", "restrict-jump", .deviates, naming: "the seek skipped the JUMP-restricted ad")
        expect("allow-skip-rate", "restrict-skip", .deviates, naming: "while break-1 played, expected 1 (X-RESTRICT=SKIP")
        expect("ignore-cue", "cue-pre", .deviates, naming: "the primary first")
        expect("ignore-cue", "cue-post", .deviates, naming: "before the last primary segment")
        expect("ignore-cue", "cue-once", .deviates, naming: "break-1 played 2 times")
        // Each deviation stays to its feature: the rest of what it plays conforms.
        for behaviour in ["ignore-playout-limit", "drop-primary-id", "seek-past-jump", "allow-skip-rate"] {
            let off = BehaviourCatalog.entries.filter { judgement(behaviour, $0.feature)?.outcome != .conforms }.map(\.feature)
            XCTAssertLessThanOrEqual(off.count, 2, "\(behaviour) deviates beyond its feature: \(off.map { why(behaviour, $0) })")
        }

        let html = try SeamcheckBinary.run(["lab", "report", "--behaviour", "--db", database, "--streams", suite, "--format", "html"])
        XCTAssertEqual(html.status, 0, html.stderr)
        XCTAssertEqual(html.stdout.components(separatedBy: "<td class=\"deviates\"").count - 1,
                       cells.filter { $0.behaviour?.outcome == .deviates }.count)
        try html.stdout.write(toFile: folder + "/behaviour.html", atomically: true, encoding: .utf8)
        let json = try SeamcheckBinary.run(["lab", "report", "--behaviour", "--db", database, "--streams", suite, "--format", "json"])
        let report = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any], json.stderr)
        XCTAssertEqual(report["schemaVersion"] as? Int, 1)
        XCTAssertEqual((report["receivers"] as? [Any])?.count, Self.behaviours.count)
        XCTAssertEqual((report["features"] as? [Any])?.count, BehaviourCatalog.entries.count)
        let conforming = (report["cells"] as? [[String: Any]] ?? []).filter { $0["receiver"] as? String == address["conforming"] }
        XCTAssertEqual(conforming.compactMap { $0["outcome"] as? String }, Array(repeating: "conforms", count: 19))
        if let keep = ProcessInfo.processInfo.environment["SEAMCHECK_BEHAVIOUR_REPORT"] {
            try? FileManager.default.removeItem(atPath: keep)
            try FileManager.default.copyItem(atPath: folder + "/behaviour.html", toPath: keep)
        }
        print("behaviour run: \(String(format: "%.1f", minutes)) min for 19 cases on \(Self.behaviours.count) stand-ins")
    }
}
