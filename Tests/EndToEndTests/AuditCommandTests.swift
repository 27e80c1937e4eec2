import Foundation
import SeamcheckTestSupport
import XCTest

final class AuditCommandTests: XCTestCase {
    func auditJSON(_ arguments: [String]) throws -> (status: Int32, json: [String: Any], stderr: String) {
        let result = try SeamcheckBinary.run(["audit"] + arguments + ["--format", "json"])
        let json = (try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]) ?? [:]
        return (result.status, json, result.stderr)
    }

    func testMatchingInterstitialExitsZeroWithNoFindings() throws {
        let (status, json, stderr) = try auditJSON(["--primary", try Fixtures.primary.path(), "--interstitial", try Fixtures.matching.path()])
        XCTAssertEqual(status, 0, stderr)
        XCTAssertEqual(json["schemaVersion"] as? Int, 1)
        XCTAssertEqual((json["findings"] as? [Any])?.count, 0)
        XCTAssertEqual(json["deviceClasses"] as? [String], ["apple-tv-4k", "apple-tv-hd", "mac", "screen-mirroring", "smart-tv-dolby-vision",
                                                            "smart-tv-low-end", "speaker-audio-only"])
        let summary = try XCTUnwrap(json["summary"] as? [String: Int])
        XCTAssertEqual(summary, ["error": 0, "warning": 0, "info": 0])
    }

    func testDifferingInterstitialsExitOneWithFindingsPerClass() throws {
        let (status, json, stderr) = try auditJSON([
            "--primary", try Fixtures.primary.path(),
            "--interstitial", try Fixtures.hevc.path(), "--interstitial", try Fixtures.surround.path(),
        ])
        XCTAssertEqual(status, 1, stderr)
        let findings = try XCTUnwrap(json["findings"] as? [[String: Any]])
        let lowEnd = findings.filter {
            $0["deviceClass"] as? String == "smart-tv-low-end" && ($0["rule"] as? String ?? "").hasSuffix("-mismatch")
        }
        XCTAssertTrue(findings.contains { $0["rule"] as? String == "unsupported-video-codec" }, "H.264-only TV cannot play HEVC")
        XCTAssertEqual(Set(lowEnd.compactMap { $0["rule"] as? String }), ["video-codec-mismatch", "channel-layout-mismatch"])
        XCTAssertTrue(lowEnd.allSatisfy { $0["severity"] as? String == "error" })
        let first = try XCTUnwrap(lowEnd.first)
        for key in ["rule", "severity", "deviceClass", "subject", "expected", "actual", "message", "remediation"] {
            XCTAssertNotNil(first[key], "finding has \(key)")
        }
        XCTAssertEqual(json["interstitials"] as? [String], [try Fixtures.hevc.path(), try Fixtures.surround.path()])
    }

    func testFailOnAndProfileSelectionSetTheExitCode() throws {
        let primary = try Fixtures.primary.path(), hevc = try Fixtures.hevc.path()
        let base = ["--primary", primary, "--interstitial", hevc]
        XCTAssertEqual(try auditJSON(base + ["--fail-on", "never"]).status, 0)
        let appleTV = try auditJSON(base + ["--profile", "apple-tv-4k"])
        XCTAssertEqual(appleTV.status, 0, "Apple TV 4K takes a codec switch as info")
        XCTAssertEqual(appleTV.json["deviceClasses"] as? [String], ["apple-tv-4k"])
        XCTAssertEqual(try auditJSON(base + ["--profile", "apple-tv-4k", "--fail-on", "info"]).status, 1)
    }

    func testEachInputIsProbedOnceEvenWhenRepeated() throws {
        let primary = try Fixtures.primary.path(), ad = try Fixtures.fps25.path()
        let (status, json, _) = try auditJSON(["--primary", primary, "--interstitial", ad, "--interstitial", ad,
                                               "--profile", "smart-tv-low-end"])
        XCTAssertEqual(status, 1)
        let findings = try XCTUnwrap(json["findings"] as? [[String: Any]])
        XCTAssertEqual(findings.map { $0["subject"] as? String }, ["interstitial 1 (\(ad))", "interstitial 2 (\(ad))"])

        // The same ad over HTTP, named twice: the server sees the requests of one probe.
        let server = try TestHTTPServer(root: MediaFixture.cacheDirectory)
        defer { server.stop() }
        let url = server.url("/files/" + (ad as NSString).lastPathComponent)
        XCTAssertEqual(try auditJSON(["--primary", primary, "--interstitial", url, "--profile", "smart-tv-low-end"]).status, 1)
        let once = try server.log().filter { $0.path.hasPrefix("/files/") }.count
        try server.resetLog()
        XCTAssertEqual(try auditJSON(["--primary", primary, "--interstitial", url, "--interstitial", url, "--profile", "smart-tv-low-end"]).status, 1)
        let twice = try server.log().filter { $0.path.hasPrefix("/files/") }.count
        XCTAssertGreaterThan(once, 0)
        XCTAssertEqual(twice, once, "the repeated input is probed once")
    }

    func testUnknownProfileIsUsageError() throws {
        let result = try SeamcheckBinary.run(["audit", "--primary", try Fixtures.primary.path(), "--interstitial",
                                              try Fixtures.hevc.path(), "--profile", "toaster"])
        XCTAssertEqual(result.status, 2)
        XCTAssertTrue(result.stderr.contains("unknown device profile 'toaster'"), result.stderr)
        XCTAssertEqual(result.stdout, "")
    }

    func testBrokenProfileStopsBeforeAnyInputIsOpened() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("profiles-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try "id: broken\nname: Broken\nplays: {video: yes}\nrulez: {}\n".write(
            to: dir.appendingPathComponent("broken.yaml"), atomically: true, encoding: .utf8)
        let result = try SeamcheckBinary.run(["audit", "--primary", "/nonexistent/primary.mp4", "--interstitial",
                                              "/nonexistent/ad.mp4", "--profiles-dir", dir.path])
        XCTAssertEqual(result.status, 2)
        XCTAssertTrue(result.stderr.contains("broken.yaml: rulez: unknown key (did you mean 'rules'?)"), result.stderr)
        XCTAssertFalse(result.stderr.contains("nonexistent"), "profiles are checked before inputs")
    }

    func testMissingInterstitialIsUsageErrorWithExitTwo() throws {
        let result = try SeamcheckBinary.run(["audit", "--primary", try Fixtures.primary.path()])
        XCTAssertEqual(result.status, 2)
        XCTAssertTrue(result.stderr.contains("--interstitial"), result.stderr)
    }

    func testUnreadableInterstitialIsNamed() throws {
        let result = try SeamcheckBinary.run(["audit", "--primary", try Fixtures.primary.path(), "--interstitial", "/nonexistent/ad.mp4"])
        XCTAssertEqual(result.status, 2)
        XCTAssertEqual(result.stdout, "")
        XCTAssertTrue(result.stderr.contains("/nonexistent/ad.mp4: no such file"), result.stderr)
    }

    func testReportsInEveryFormatAreWrittenToOutput() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("reports-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let base = ["audit", "--primary", try Fixtures.primary.path(), "--interstitial", try Fixtures.ac3.path(), "--fail-on", "never"]
        for (format, marker) in [("markdown", "| `audio-codec-mismatch` |"), ("html", "<td class=\"fail\">fail</td>"),
                                 ("junit", "<failure type=\"audio-codec-mismatch\""), ("json", "\"audio-codec-mismatch\""),
                                 ("table", "audio-codec-mismatch")] {
            let path = dir.appendingPathComponent("report.\(format)").path
            let result = try SeamcheckBinary.run(base + ["--format", format, "--output", path])
            XCTAssertEqual(result.status, 0, result.stderr)
            XCTAssertEqual(result.stdout, "", "a report written to --output is not also printed")
            let text = try String(contentsOfFile: path, encoding: .utf8)
            XCTAssertTrue(text.contains(marker), "\(format) report lacks \(marker):\n\(text)")
        }
    }

    func testRemediationCommandMakesTheInterstitialMatch() throws {
        let primary = try Fixtures.primary.path(), ad = try Fixtures.fps25.path()
        let (_, json, _) = try auditJSON(["--primary", primary, "--interstitial", ad])
        let assets = try XCTUnwrap(json["assets"] as? [[String: Any]])
        let remediation = try XCTUnwrap(assets.last?["remediation"] as? String)
        let fixed = FileManager.default.temporaryDirectory.appendingPathComponent("fixed-\(UUID().uuidString).mp4").path
        defer { try? FileManager.default.removeItem(atPath: fixed) }
        let args = remediation.split(separator: " ").map(String.init)
        let encode = try Command.run("ffmpeg", ["-nostdin", "-v", "error", "-y", "-i", ad] + args + [fixed])
        XCTAssertEqual(encode.status, 0, encode.stderr)
        let again = try auditJSON(["--primary", primary, "--interstitial", fixed])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertEqual((again.json["findings"] as? [Any])?.count, 0)
    }
}
