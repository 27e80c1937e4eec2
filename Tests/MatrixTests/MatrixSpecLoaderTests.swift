import Compatibility
import HLS
@testable import Matrix
import XCTest

final class MatrixSpecLoaderTests: XCTestCase {
    let profiles = ["apple-tv-4k", "apple-tv-hd", "mac", "smart-tv-dolby-vision", "smart-tv-low-end", "speaker-audio-only"]

    func parse(_ yaml: String) throws -> MatrixSpec {
        try MatrixSpecLoader.parse(yaml, file: "lab.yaml", baseDirectory: "/lab", knownProfiles: profiles)
    }

    /// The error message for `yaml`, which must fail.
    func failure(_ yaml: String, file: StaticString = #filePath, line: UInt = #line) -> String {
        do {
            _ = try parse(yaml)
            XCTFail("expected an error", file: file, line: line)
            return ""
        } catch {
            return (error as? MatrixSpecError)?.description ?? "\(error)"
        }
    }

    let valid = """
    name: release-42
    defaults: {failOn: warning, timeout: 30, jobs: 3}
    deviceClasses: [smart-tv-low-end, apple-tv-4k]
    cases:
      - id: title-1
        primary: media/main.mp4
        interstitials: [ads/a.mp4, "http://127.0.0.1:8080/b.mp4"]
        tags: [pod]
      - id: title-2
        primary: /abs/main.mp4
        interstitials: [ads/a.mp4]
    expectedIssues:
      - {case: title-1, rule: frame-rate-mismatch, class: "*", reason: vendor fixes in Q3}
    """

    func testValidMatrixResolvesRelativeInputsAgainstTheFileDirectory() throws {
        let spec = try parse(valid)
        XCTAssertEqual(spec.name, "release-42")
        XCTAssertEqual(spec.defaults, MatrixDefaults(failOn: .warning, timeout: 30, jobs: 3))
        XCTAssertEqual(spec.deviceClasses, [.profile("smart-tv-low-end"), .profile("apple-tv-4k")])
        XCTAssertEqual(spec.cases.map(\.id), ["title-1", "title-2"])
        XCTAssertEqual(spec.cases[0].source, .explicit(primary: .file(path: "/lab/media/main.mp4"), interstitials: [
            .file(path: "/lab/ads/a.mp4"), .remote(URL(string: "http://127.0.0.1:8080/b.mp4")!)]))
        XCTAssertEqual(spec.cases[0].tags, ["pod"])
        XCTAssertEqual(spec.distinctInputs.count, 4, "ads/a.mp4 is shared by both cases")
        XCTAssertEqual(spec.expectedIssues, [ExpectedIssue(caseId: "title-1", rule: "frame-rate-mismatch", deviceClass: "*", reason: "vendor fixes in Q3")])
    }

    func testKeyTyposAreErrorsWithSuggestions() {
        XCTAssertEqual(failure(valid.replacingOccurrences(of: "expectedIssues:", with: "expectedIssue:")),
                       "lab.yaml: expectedIssue: unknown key (did you mean 'expectedIssues'?); allowed: name, defaults, deviceClasses, discovery, cases, expectedIssues")
        XCTAssertTrue(failure(valid.replacingOccurrences(of: "interstitials: [ads/a.mp4]", with: "interstitial: [ads/a.mp4]"))
            .hasPrefix("lab.yaml: cases[1].interstitial: unknown key (did you mean 'interstitials'?)"))
        XCTAssertTrue(failure(valid.replacingOccurrences(of: "failOn:", with: "fail-on:"))
            .hasPrefix("lab.yaml: defaults.fail-on: unknown key (did you mean 'failOn'?)"))
        XCTAssertTrue(failure(valid.replacingOccurrences(of: "{case: title-1,", with: "{cse: title-1,"))
            .hasPrefix("lab.yaml: expectedIssues[0].cse: unknown key (did you mean 'case'?)"))
    }

    func testUnknownProfileIsNamedWithASuggestion() {
        XCTAssertEqual(failure(valid.replacingOccurrences(of: "apple-tv-4k]", with: "apple-tv-4K]")),
                       "lab.yaml: deviceClasses[1]: unknown device profile 'apple-tv-4K' (did you mean 'apple-tv-4k'?); available: "
                       + profiles.joined(separator: ", ") + ", discovered")
        XCTAssertTrue(failure(valid.replacingOccurrences(of: "apple-tv-4k]", with: "smart-tv-low-end]"))
            .contains("deviceClasses[1]: 'smart-tv-low-end' is listed twice"))
    }

    func testCaseShapeErrors() {
        XCTAssertTrue(failure(valid.replacingOccurrences(of: "id: title-2", with: "id: title-1"))
            .contains("cases[1].id: 'title-1' is already the id of cases[0]"))
        XCTAssertTrue(failure(valid.replacingOccurrences(of: "id: title-2", with: "id: title 2"))
            .contains("cases[1].id: 'title 2' may only hold letters"))
        XCTAssertTrue(failure(valid.replacingOccurrences(of: "    primary: /abs/main.mp4\n", with: "    primary: /abs/main.mp4\n    playlist: http://h/x.m3u8\n"))
            .contains("cases[1]: give either primary (with interstitials) or playlist, not both"))
        XCTAssertTrue(failure(valid.replacingOccurrences(of: "    interstitials: [ads/a.mp4]\n", with: ""))
            .contains("cases[1].interstitials: required key is missing"))
        XCTAssertTrue(failure(valid.replacingOccurrences(of: "interstitials: [ads/a.mp4]", with: "interstitials: []"))
            .contains("cases[1].interstitials: list at least one interstitial"))
        XCTAssertTrue(failure(valid.replacingOccurrences(of: "primary: /abs/main.mp4", with: "primary: htp://x/main.mp4"))
            .contains("cases[1].primary: htp://x/main.mp4: unsupported scheme 'htp:'"))
        XCTAssertTrue(failure(valid.replacingOccurrences(of: "cases:", with: "casez:")).contains("casez: unknown key (did you mean 'cases'?)"))
    }

    func testDefaultsAreChecked() {
        XCTAssertTrue(failure(valid.replacingOccurrences(of: "failOn: warning", with: "failOn: warnings"))
            .contains("defaults.failOn: 'warnings' is not one of error, warning, info, never (did you mean 'warning'?)"))
        XCTAssertTrue(failure(valid.replacingOccurrences(of: "jobs: 3", with: "jobs: 0")).contains("defaults.jobs: must be a whole number from 1 to 256"))
        XCTAssertTrue(failure(valid.replacingOccurrences(of: "timeout: 30", with: "timeout: soon")).contains("defaults.timeout: expected a number, found 'soon'"))
        XCTAssertTrue(failure(valid.replacingOccurrences(of: "name: release-42\n", with: "")).contains("lab.yaml: name: required key is missing"))
        XCTAssertTrue(failure("name: [unclosed").contains("lab.yaml: (document): not valid YAML"))
        XCTAssertTrue(failure("- a list").contains("(document): expected a mapping"))
    }

    func testExpectedIssuesMustMatchSomething() {
        XCTAssertTrue(failure(valid.replacingOccurrences(of: "rule: frame-rate-mismatch", with: "rule: frame-rate-missmatch"))
            .contains("expectedIssues[0].rule: 'frame-rate-missmatch' matches no rule id (did you mean 'frame-rate-mismatch'?)"))
        XCTAssertTrue(failure(valid.replacingOccurrences(of: "{case: title-1,", with: "{case: title-9,"))
            .contains("expectedIssues[0].case: 'title-9' matches no case id"))
        XCTAssertTrue(failure(valid.replacingOccurrences(of: "class: \"*\"", with: "class: mac"))
            .contains("expectedIssues[0].class: 'mac' matches no device class of this matrix"))
        XCTAssertTrue(failure(valid.replacingOccurrences(of: "reason: vendor fixes in Q3", with: "reason: \" \""))
            .contains("expectedIssues[0].reason"))
        XCTAssertNoThrow(try parse(valid.replacingOccurrences(of: "{case: title-1,", with: "{case: \"title-*\",")))
    }

    func testPlaylistCasesParseAndNeedThePlaylistAuditor() throws {
        let spec = try parse(valid.replacingOccurrences(of: "    primary: /abs/main.mp4\n    interstitials: [ads/a.mp4]\n",
                                                        with: "    playlist: https://cdn.example/title-2/master.m3u8\n"))
        XCTAssertEqual(spec.cases[1].source, .playlist(.remote(URL(string: "https://cdn.example/title-2/master.m3u8")!)))
        XCTAssertThrowsError(try MatrixPlan.check(spec, auditors: [ExplicitInputAuditor()])) { error in
            XCTAssertTrue("\(error)".contains("lab.yaml: cases[1]: no auditor takes playlist cases"), "\(error)")
        }
        XCTAssertNoThrow(try MatrixPlan.check(spec, auditors: [ExplicitInputAuditor(), PlaylistCaseAuditor()]))
    }

    func testDiscoveredAndDiscoverySection() throws {
        let spec = try parse(valid.replacingOccurrences(of: "[smart-tv-low-end, apple-tv-4k]", with: "[smart-tv-low-end, discovered]")
            + "\ndiscovery: {inventory: lab-inventory.yaml, timeout: 3}\n")
        XCTAssertEqual(spec.deviceClasses, [.profile("smart-tv-low-end"), .discovered])
        XCTAssertEqual(spec.discovery, DiscoverySettings(inventory: "/lab/lab-inventory.yaml", timeout: 3))
        XCTAssertTrue(failure(valid + "\ndiscovery: {inventroy: x.yaml}\n").contains("discovery.inventroy: unknown key (did you mean 'inventory'?)"))
    }

    func testGlobPatterns() {
        XCTAssertTrue(Glob.matches("*", "anything"))
        XCTAssertTrue(Glob.matches("title-*", "title-12"))
        XCTAssertTrue(Glob.matches("*-mismatch", "frame-rate-mismatch"))
        XCTAssertTrue(Glob.matches("a*c*e", "abcde"))
        XCTAssertFalse(Glob.matches("title-*", "promo-1"))
        XCTAssertFalse(Glob.matches("a*c", "abcd"))
        XCTAssertTrue(ExpectedIssue(caseId: "*", rule: "*", deviceClass: "*", reason: "r").matches(caseId: "x", rule: "y", deviceClass: nil))
        XCTAssertFalse(ExpectedIssue(caseId: "*", rule: "*", deviceClass: "mac", reason: "r").matches(caseId: "x", rule: "y", deviceClass: nil),
                       "a class-independent finding is covered by class * only")
    }
}
