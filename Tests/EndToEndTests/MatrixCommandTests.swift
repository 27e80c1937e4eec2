import Foundation
import SeamcheckTestSupport
import XCTest

final class MatrixCommandTests: XCTestCase {
    var dir: URL!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("matrix-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: dir)
    }

    var db: String { dir.appendingPathComponent("results.sqlite").path }

    func write(_ yaml: String, _ name: String = "matrix.yaml") throws -> String {
        let path = dir.appendingPathComponent(name).path
        try yaml.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func run(_ matrix: String, _ extra: [String] = [], output: String = "reports") throws -> CommandResult {
        try SeamcheckBinary.run(["matrix", "run", matrix, "--db", db, "--output", dir.appendingPathComponent(output).path] + extra)
    }

    func json(_ text: String) throws -> [String: Any] {
        try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], text)
    }

    func matrix(ads: [String], name: String = "e2e") throws -> String {
        let primary = try Fixtures.primary.path(), other = try Fixtures.matching.path()
        return """
        name: \(name)
        defaults: {jobs: 2, timeout: 60}
        deviceClasses: [apple-tv-4k, apple-tv-hd, mac, smart-tv-dolby-vision, smart-tv-low-end, speaker-audio-only]
        cases:
          - {id: pod-1, primary: "\(primary)", interstitials: ["\(ads[0])", "\(ads[1])"], tags: [pod]}
          - {id: pod-2, primary: "\(other)", interstitials: ["\(ads[1])"]}
          - {id: pod-3, primary: "\(primary)", interstitials: ["\(ads[2])", "\(ads[0])"]}
        expectedIssues:
          - {case: pod-3, rule: audio-codec-mismatch, class: "*", reason: AC-3 ads until the vendor fixes ADS-9}
          - {case: pod-3, rule: unsupported-audio-codec, class: "*", reason: same ADS-9}
        """
    }

    func testRunWritesEveryReportRecordsHistoryAndDiffsTheNextRun() throws {
        let fps25 = try Fixtures.fps25.path(), matching = try Fixtures.matching.path(), ac3 = try Fixtures.ac3.path()
        let first = try run(try write(matrix(ads: [fps25, matching, ac3])), ["--format", "json"])
        XCTAssertEqual(first.status, 1, "a 25 fps ad fails on the low-end TV: \(first.stderr)")
        let doc = try json(first.stdout)
        XCTAssertEqual(doc["schemaVersion"] as? Int, 1)
        let runInfo = try XCTUnwrap(doc["run"] as? [String: Any])
        XCTAssertEqual(runInfo["status"] as? String, "completed")
        XCTAssertEqual(runInfo["probesPerformed"] as? Int, 4, "4 distinct inputs (the matching clip is a primary and an ad) over 8 slots")
        XCTAssertEqual(runInfo["distinctInputs"] as? Int, 4)
        let summary = try XCTUnwrap(doc["summary"] as? [String: Int])
        XCTAssertEqual(summary.values.reduce(0, +), 18)
        XCTAssertGreaterThan(summary["known"] ?? 0, 0)
        XCTAssertTrue(first.stderr.contains("4 probe(s) for 4 distinct input(s)"), first.stderr)
        for file in ["report.json", "report.md", "junit.xml", "report.html"] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: dir.appendingPathComponent("reports/\(file)").path), file)
        }
        let html = try String(contentsOfFile: dir.appendingPathComponent("reports/report.html").path, encoding: .utf8)
        XCTAssertTrue(html.contains("<td class=\"fail\"") && html.contains("<td class=\"known\""))

        let second = try run(try write(matrix(ads: [matching, matching, ac3])), ["--format", "json"], output: "reports-2")
        XCTAssertEqual(second.status, 0, second.stderr)
        let changes = try XCTUnwrap(try json(second.stdout)["changes"] as? [String: Any])
        let fixed = try XCTUnwrap(changes["fixedFindings"] as? [[String: Any]])
        XCTAssertTrue(fixed.contains { $0["rule"] as? String == "frame-rate-mismatch" && $0["deviceClass"] as? String == "smart-tv-low-end" })

        let history = try json(try SeamcheckBinary.run(["matrix", "history", "--db", db, "--format", "json"]).stdout)
        let runs = try XCTUnwrap(history["runs"] as? [[String: Any]])
        XCTAssertEqual(runs.map { $0["id"] as? Int }, [2, 1])
        XCTAssertEqual(runs.map { $0["status"] as? String }, ["completed", "completed"])
        let table = try SeamcheckBinary.run(["matrix", "history", "--db", db, "--format", "table"])
        XCTAssertTrue(table.stdout.contains("e2e"), table.stdout)

        let diff = try SeamcheckBinary.run(["matrix", "diff", "--db", db, "--format", "json"])
        XCTAssertEqual(diff.status, 0, diff.stderr)
        let diffDoc = try json(diff.stdout)
        XCTAssertEqual((diffDoc["from"] as? [String: Any])?["id"] as? Int, 1)
        XCTAssertEqual((diffDoc["fixedFindings"] as? [Any])?.count, fixed.count)
        let text = try SeamcheckBinary.run(["matrix", "diff", "1", "2", "--db", db, "--format", "table"])
        XCTAssertTrue(text.stdout.contains("run 1 -> run 2"), text.stdout)
        XCTAssertTrue(text.stdout.contains("fixed findings:"), text.stdout)
    }

    func testBadMatrixFilesStopBeforeTheRunWithExitTwo() throws {
        let ad = try Fixtures.matching.path(), primary = try Fixtures.primary.path()
        let good = "name: bad\ndeviceClasses: [apple-tv-4k]\ncases:\n  - {id: a, primary: \"\(primary)\", interstitials: [\"\(ad)\"]}\n"
        let cases: [(String, String)] = [
            (good.replacingOccurrences(of: "[apple-tv-4k]", with: "[apple-tv-5k]"),
             "deviceClasses[0]: unknown device profile 'apple-tv-5k' (did you mean 'apple-tv-4k'?)"),
            (good.replacingOccurrences(of: "interstitials:", with: "interstitals:"),
             "cases[0].interstitals: unknown key (did you mean 'interstitials'?)"),
            (good.replacingOccurrences(of: "primary: \"\(primary)\", interstitials", with: "playlist: http://127.0.0.1:9/m.m3u8, interstitials"),
             "cases[0].interstitials: a playlist case takes its interstitials from the playlist; remove this key"),
        ]
        for (yaml, message) in cases {
            let path = try write(yaml, "bad.yaml")
            let result = try run(path)
            XCTAssertEqual(result.status, 2, result.stderr)
            XCTAssertTrue(result.stderr.contains("\(path): \(message)"), result.stderr)
            XCTAssertEqual(result.stdout, "")
            XCTAssertFalse(FileManager.default.fileExists(atPath: db), "nothing recorded for a matrix that never ran")
        }
        let missing = try run(dir.appendingPathComponent("nope.yaml").path)
        XCTAssertEqual(missing.status, 2)
        XCTAssertTrue(missing.stderr.contains("nope.yaml: cannot read the matrix file"), missing.stderr)
    }

    func testAnOutputThatIsAFileStopsBeforeTheRun() throws {
        let ad = try Fixtures.matching.path(), primary = try Fixtures.primary.path()
        let path = try write("name: out\ndeviceClasses: [apple-tv-4k]\ncases:\n  - {id: a, primary: \"\(primary)\", interstitials: [\"\(ad)\"]}\n", "out.yaml")
        try "not a folder".write(to: dir.appendingPathComponent("taken"), atomically: true, encoding: .utf8)
        let result = try run(path, output: "taken")
        XCTAssertEqual(result.status, 2, result.stderr)
        XCTAssertTrue(result.stderr.contains("not a folder"), result.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: db), "no run recorded for a run that could not report")
    }

    func testUnreachableInputsAreErrorCellsAndTheRunFinishes() throws {
        let server = try TestHTTPServer(root: MediaFixture.cacheDirectory)
        let primary = try Fixtures.primary.path(), ad = try Fixtures.matching.path()
        let yaml = """
        name: faults
        deviceClasses: [smart-tv-low-end, apple-tv-4k]
        cases:
          - {id: fine, primary: "\(primary)", interstitials: ["\(ad)"]}
          - {id: http-404, primary: "\(primary)", interstitials: ["\(server.url("/status/404"))"]}
          - {id: no-file, primary: "/nonexistent/main.mp4", interstitials: ["\(ad)"]}
        """
        let result = try run(try write(yaml), ["--format", "json"])
        XCTAssertEqual(result.status, 2, "error cells: inputs that could not be audited")
        let doc = try json(result.stdout)
        XCTAssertEqual((doc["run"] as? [String: Any])?["status"] as? String, "completed")
        let cases = try XCTUnwrap(doc["cases"] as? [[String: Any]])
        XCTAssertEqual(cases.count, 3)
        let byId = Dictionary(uniqueKeysWithValues: cases.map { ($0["id"] as? String ?? "", $0) })
        XCTAssertTrue(byId["fine"]?["error"] is NSNull)
        XCTAssertEqual((byId["http-404"]?["error"] as? [String: Any])?["input"] as? String, server.url("/status/404"))
        XCTAssertEqual((byId["no-file"]?["error"] as? [String: Any])?["input"] as? String, "/nonexistent/main.mp4")
        let cells = try XCTUnwrap(byId["no-file"]?["cells"] as? [[String: Any]])
        XCTAssertEqual(cells.map { $0["status"] as? String }, ["error", "error"])
        let junit = try String(contentsOfFile: dir.appendingPathComponent("reports/junit.xml").path, encoding: .utf8)
        XCTAssertTrue(junit.contains("<error type=\"input\""), junit)
    }

    func testEncoderSettingsMakeTheInterstitialSeamlessOnEveryClass() throws {
        let primary = try Fixtures.primary.path(), ad = try Fixtures.fps25.path()
        let yaml = { (interstitial: String) in
            "name: enc\ndeviceClasses: [smart-tv-low-end, apple-tv-hd, apple-tv-4k, speaker-audio-only]\n"
                + "cases:\n  - {id: c, primary: \"\(primary)\", interstitials: [\"\(interstitial)\"]}\n"
        }
        let text = try run(try write(yaml(ad)), ["--format", "encoder"])
        XCTAssertEqual(text.status, 1)
        XCTAssertTrue(text.stdout.contains("frame rate: 29.97"), text.stdout)
        XCTAssertTrue(text.stdout.contains("Output options: "), text.stdout)
        let doc = try json(try String(contentsOfFile: dir.appendingPathComponent("reports/report.json").path, encoding: .utf8))
        let group = try XCTUnwrap(((doc["encoder"] as? [String: Any])?["groups"] as? [[String: Any]])?.first)
        let remediation = try XCTUnwrap(group["remediation"] as? [String: [String]])
        var args = remediation["arguments"] ?? []
        if let vf = remediation["videoFilters"], !vf.isEmpty { args += ["-vf", vf.joined(separator: ",")] }
        if let af = remediation["audioFilters"], !af.isEmpty { args += ["-af", af.joined(separator: ",")] }
        let fixed = dir.appendingPathComponent("fixed.mp4").path
        let encode = try Command.run("ffmpeg", ["-nostdin", "-v", "error", "-y", "-i", ad] + args + [fixed])
        XCTAssertEqual(encode.status, 0, encode.stderr)
        let again = try run(try write(yaml(fixed)), ["--format", "json"], output: "again")
        XCTAssertEqual(again.status, 0, again.stdout)
        XCTAssertEqual((try json(again.stdout)["summary"] as? [String: Int])?["pass"], 4)
    }
}
