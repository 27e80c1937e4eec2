import Foundation
import SeamcheckTestSupport
import XCTest

/// The lab's whole loop with the built binary, as a lab runs it: `lab streams` (the small suite)
/// -> `lab serve` -> three stand-in receivers of one class play a case -> `lab sessions` ->
/// `lab record` -> `lab report` -> `profiles calibrate --write` -> `lab report` agrees.
final class LabLoopTests: XCTestCase {
    func testVerdictsThatDisagreeWithAProfileCalibrateItUntilTheReportAgrees() throws {
        let suite = try LabSuiteFixture.small()
        let folder = try LabEnvironment.temporaryFolder("lab-loop")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let database = folder + "/lab.sqlite"
        let profiles = folder + "/profiles"
        try FileManager.default.copyItem(atPath: MediaFixture.packageRoot + "/DeviceProfiles", toPath: profiles)
        let tvs = ["127.0.0.31", "127.0.0.32", "127.0.0.33"]
        try ("receivers:\n" + tvs.enumerated().map { index, address in
            "  - name: Rack TV \(index + 1)\n    deviceClass: smart-tv-low-end\n    addresses: [\"\(address)\"]\n"
        }.joined()).write(toFile: folder + "/inventory.yaml", atomically: true, encoding: .utf8)

        try LabServerProcess.with(streams: suite, database: database,
                                  arguments: ["--no-browse", "--inventory", folder + "/inventory.yaml", "--profiles-dir", profiles]) { server in
            for address in tvs {
                let run = try EmulatorRun.run(url: server.url("/cases/frame-rate-25/master.m3u8"), source: address,
                                              options: ["--video-codecs", "h264", "--ranges", "SDR", "--audio-codecs", "aac"])
                XCTAssertEqual(run.errors, [], "\(address): \(run.summary)")
            }
            XCTAssertEqual(server.stop(), 0)

            let sessions = try LabSessions.read(database: database).filter { $0["case"] as? String == "frame-rate-25" }
            XCTAssertEqual(sessions.compactMap { $0["receiver"] as? String }.sorted(), ["Rack TV 1", "Rack TV 2", "Rack TV 3"])
            XCTAssertTrue(sessions.allSatisfy { $0["deviceClass"] as? String == "smart-tv-low-end" && $0["interstitialRequested"] as? Bool == true })

            // The operator saw no stall on any of them: the profile says error.
            for name in ["Rack TV 1", "Rack TV 2", "Rack TV 3"] {
                let recorded = try SeamcheckBinary.run(["lab", "record", "--db", database, "--receiver", name, "--case", "frame-rate-25",
                                                        "--verdict", "seamless", "--format", "json"])
                XCTAssertEqual(recorded.status, 0, recorded.stderr)
            }
            let unknown = try SeamcheckBinary.run(["lab", "record", "--db", database, "--receiver", "Rack TV 1", "--case", "frame-rate-52",
                                                   "--verdict", "seamless"])
            XCTAssertEqual(unknown.status, 2)
            XCTAssertTrue(unknown.stderr.contains("did you mean 'frame-rate-25'"), unknown.stderr)

            func report() throws -> [[String: Any]] {
                let result = try SeamcheckBinary.run(["lab", "report", "--db", database, "--format", "json", "--profiles-dir", profiles])
                XCTAssertEqual(result.status, 0, result.stderr)
                let document = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
                return (document?["cells"] as? [[String: Any]] ?? []).filter { $0["case"] as? String == "frame-rate-25" }
            }
            let before = try report()
            XCTAssertEqual(before.count, 3)
            XCTAssertTrue(before.allSatisfy { $0["predicted"] as? String == "error" && $0["observed"] as? String == "seamless" && $0["agrees"] as? Bool == false },
                          "\(before)")
            let junit = try SeamcheckBinary.run(["lab", "report", "--db", database, "--format", "junit", "--profiles-dir", profiles])
            XCTAssertTrue(junit.stdout.contains("<failure message=\"predicted error, observed seamless\""), junit.stdout)

            let proposal = try SeamcheckBinary.run(["profiles", "calibrate", "--db", database, "--min-observations", "3",
                                                    "--profiles-dir", profiles, "--format", "table"])
            XCTAssertEqual(proposal.status, 0, proposal.stderr)
            XCTAssertTrue(proposal.stdout.contains("smart-tv-low-end: frame-rate-mismatch error -> info (3 observations"), proposal.stdout)
            XCTAssertTrue(proposal.stdout.contains("-  frame-rate-mismatch: error\n+  frame-rate-mismatch: info"), proposal.stdout)
            let untouched = try String(contentsOfFile: profiles + "/smart-tv-low-end.yaml", encoding: .utf8)
            XCTAssertTrue(untouched.contains("frame-rate-mismatch: error"), "nothing is written without --write")

            let written = try SeamcheckBinary.run(["profiles", "calibrate", "--db", database, "--min-observations", "3",
                                                   "--profiles-dir", profiles, "--write", "--format", "json"])
            XCTAssertEqual(written.status, 0, written.stderr)
            XCTAssertTrue(try String(contentsOfFile: profiles + "/smart-tv-low-end.yaml", encoding: .utf8).contains("frame-rate-mismatch: info"))
            XCTAssertTrue(try report().allSatisfy { $0["predicted"] as? String == "info" && $0["agrees"] as? Bool == true })
            let again = try SeamcheckBinary.run(["profiles", "calibrate", "--db", database, "--min-observations", "3",
                                                 "--profiles-dir", profiles, "--format", "table"])
            XCTAssertTrue(again.stdout.hasPrefix("no change proposed"), again.stdout)
        }
    }
}
