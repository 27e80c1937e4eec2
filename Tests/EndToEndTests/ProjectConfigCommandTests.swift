import Foundation
import SeamcheckTestSupport
import XCTest

/// `.seamcheck.yml` and `--format sarif` run as CI would: in a project folder, on a playlist
/// with two spec findings at line 7.
final class ProjectConfigCommandTests: XCTestCase {
    var scratch: URL!

    override func setUpWithError() throws {
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("seamcheck-config-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        try write("ad1.m3u8", "#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:10,\nad1.ts\n#EXT-X-ENDLIST\n")
        try write("pod.m3u8", """
            #EXTM3U
            #EXT-X-TARGETDURATION:10
            #EXT-X-PLAYLIST-TYPE:VOD
            #EXT-X-PROGRAM-DATE-TIME:2023-06-06T12:00:00.000Z
            #EXTINF:10.0,
            main.ts
            #EXT-X-DATERANGE:ID="ad1",CLASS="com.apple.hls.interstitial",START-DATE="2023-06-06T12:00:05.000Z",DURATION=10.0,X-ASSET-URI="file://\(scratch.path)/ad1.m3u8",X-RESTRICT="SKIPP",CUE="PRE,POST"
            #EXT-X-ENDLIST

            """)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: scratch) }

    @discardableResult
    private func write(_ name: String, _ text: String) throws -> String {
        let path = scratch.appendingPathComponent(name).path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    private func lint(_ arguments: [String] = []) throws -> CommandResult {
        try SeamcheckBinary.run(["lint", "pod.m3u8", "--format", "json"] + arguments,
                                environment: ["SEAMCHECK_PROFILES_DIR": MediaFixture.packageRoot + "/DeviceProfiles"],
                                currentDirectory: scratch)
    }

    private func findings(_ result: CommandResult) throws -> [String: [String: Any]] {
        let document = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], result.stderr)
        let list = try XCTUnwrap(document["findings"] as? [[String: Any]])
        return Dictionary(list.map { ($0["rule"] as? String ?? "", $0) }) { first, _ in first }
    }

    func testLintSARIFValidatesAndPointsAtTheTagLineInTheProject() throws {
        let result = try SeamcheckBinary.run(["lint", "pod.m3u8", "--format", "sarif", "--output", "lint.sarif"], currentDirectory: scratch)
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertEqual(result.stdout, "")
        let path = scratch.appendingPathComponent("lint.sarif").path
        let validation = try SARIFValidator.validate(path)
        XCTAssertEqual(validation.status, 0, validation.stdout)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let log = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let results = try XCTUnwrap((log["runs"] as? [[String: Any]])?.first?["results"] as? [[String: Any]])
        let cue = try XCTUnwrap(results.first { $0["ruleId"] as? String == "cue-pre-and-post" })
        let physical = try XCTUnwrap(((cue["locations"] as? [[String: Any]])?.first)?["physicalLocation"] as? [String: Any])
        XCTAssertEqual((physical["artifactLocation"] as? [String: Any])?["uri"] as? String, "pod.m3u8")
        XCTAssertEqual((physical["region"] as? [String: Any])?["startLine"] as? Int, 7)
    }

    func testTheJSONFindingCarriesItsLocation() throws {
        let cue = try XCTUnwrap(try findings(try lint())["cue-pre-and-post"])
        let location = try XCTUnwrap(cue["location"] as? [String: Any])
        XCTAssertEqual(location["uri"] as? String, scratch.appendingPathComponent("pod.m3u8").standardizedFileURL.path)
        XCTAssertEqual(location["line"] as? Int, 7)
        XCTAssertTrue(cue["accepted"] is NSNull)
    }

    func testAcceptedFindingsAreReportedAsAcceptedAndDoNotFail() throws {
        try write(".seamcheck.yml", """
            accepted:
              - rule: cue-pre-and-post
                subject: "EXT-X-DATERANGE ID=\\"ad1\\"*"
                reason: "ADS-1: the ad server fixes CUE next sprint"
              - rule: "unknown-*"
                url: "*/pod.m3u8"
                reason: "vendor extension"
              - rule: daterange-missing-id
                reason: "stale"
            """)
        let result = try lint()
        XCTAssertEqual(result.status, 0, result.stderr)
        let found = try findings(result)
        XCTAssertEqual(found["cue-pre-and-post"]?["accepted"] as? String, "ADS-1: the ad server fixes CUE next sprint")
        XCTAssertEqual(found["unknown-enumerated-value"]?["accepted"] as? String, "vendor extension")
        // The entry that matched nothing is said, with the file and key, without failing the run.
        XCTAssertTrue(result.stderr.contains(".seamcheck.yml: accepted[2] matched no finding"), result.stderr)
    }

    func testRuleSettingsApplyAndTheCommandLineWins() throws {
        try write(".seamcheck.yml", "failOn: never\nrules:\n  cue-pre-and-post: off\n  unknown-enumerated-value: error\n")
        let result = try lint()
        XCTAssertEqual(result.status, 0, result.stderr)
        let found = try findings(result)
        XCTAssertNil(found["cue-pre-and-post"])
        XCTAssertEqual(found["unknown-enumerated-value"]?["severity"] as? String, "error")
        XCTAssertEqual(try lint(["--fail-on", "error"]).status, 1)
    }

    func testProjectFileMistakesExitTwoNamingTheFileAndKey() throws {
        let cases: [(String, String)] = [
            ("failon: error\n", "bad.yml: failon: unknown key (did you mean 'failOn'?)"),
            ("rules:\n  cue-pre-and-pst: off\n", "bad.yml: rules.cue-pre-and-pst: unknown rule id (did you mean 'cue-pre-and-post'?)"),
            ("rules:\n  cue-pre-and-post: of\n", "bad.yml: rules.cue-pre-and-post: 'of' is not one of off, info, warning, error (did you mean 'off'?)"),
            ("rules:\n  frame-rate-mismatch:\n    smart-tv-low-nd: warning\n", "rules.frame-rate-mismatch.smart-tv-low-nd: unknown device class 'smart-tv-low-nd' (did you mean 'smart-tv-low-end'?)"),
            ("accepted:\n  - rule: no-such-rule\n    reason: x\n", "bad.yml: accepted[0].rule: 'no-such-rule' matches no rule id"),
            ("accepted:\n  - rule: cue-pre-and-post\n", "bad.yml: accepted[0].reason: required key is missing"),
            ("rules: [a\n", "bad.yml: (document): not valid YAML"),
            ("timeout: -1\n", "bad.yml: timeout: must be a positive number"),
        ]
        for (text, message) in cases {
            try write("bad.yml", text)
            let result = try lint(["--config", "bad.yml"])
            XCTAssertEqual(result.status, 2, text)
            XCTAssertEqual(result.stdout, "", text)
            XCTAssertTrue(result.stderr.contains(message), "\(text): \(result.stderr)")
        }
    }

    func testConfigInitThenWriteAcceptedGivesAPassingStart() throws {
        let made = try SeamcheckBinary.run(["config", "init"], currentDirectory: scratch)
        XCTAssertEqual(made.status, 0, made.stderr)
        XCTAssertEqual(try SeamcheckBinary.run(["config", "init"], currentDirectory: scratch).status, 2)
        XCTAssertEqual(try lint().status, 1)
        let written = try lint(["--write-accepted"])
        XCTAssertEqual(written.status, 0, written.stderr)
        XCTAssertTrue(written.stderr.contains("wrote 2 accepted entries to .seamcheck.yml"), written.stderr)
        let again = try lint()
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertEqual(try findings(again).values.filter { $0["accepted"] is NSNull }.count, 0)
        let text = try String(contentsOfFile: scratch.appendingPathComponent(".seamcheck.yml").path, encoding: .utf8)
        XCTAssertTrue(text.hasPrefix("# Seamcheck project file"), "comments are kept")
    }

    func testASARIFPathThatCannotBeWrittenIsExitTwo() throws {
        let result = try SeamcheckBinary.run(["lint", "pod.m3u8", "--format", "sarif", "--output", "/proc/seamcheck/lint.sarif"],
                                             currentDirectory: scratch)
        XCTAssertEqual(result.status, 2)
        XCTAssertTrue(result.stderr.contains("/proc/seamcheck/lint.sarif"), result.stderr)
    }
}
