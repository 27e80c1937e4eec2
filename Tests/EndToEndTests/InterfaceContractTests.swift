import Compatibility
import Foundation
import LabCore
import SeamcheckTestSupport
import XCTest
@testable import seamcheck

/// docs/interface.md, the contract users script against, held to the code: every command and
/// option (`seamcheck --experimental-dump-help`), every rule and device class id, the verdict and
/// outcome spellings, the exit codes, every key of the JSON the commands print for fixtures, and
/// every SEAMCHECK_ variable the sources read. Needs no service (unit tier). A failure says what to
/// add where: add it to docs/interface.md (never rename what is there).
final class InterfaceContractTests: XCTestCase {
    static let docPath = MediaFixture.packageRoot + "/docs/interface.md"
    var doc = ""

    override func setUpWithError() throws {
        doc = try String(contentsOfFile: Self.docPath, encoding: .utf8)
    }

    /// `name` written in docs/interface.md as code (`` `name` `` or `"name"`), anywhere.
    func listed(_ name: String, in text: String? = nil) -> Bool {
        let text = text ?? doc
        return text.contains("`\(name)`") || text.contains("\"\(name)\"")
    }

    func testEveryCommandAndOptionIsInTheInterface() throws {
        let result = try SeamcheckBinary.run(["--experimental-dump-help"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let dump = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        var missing: [String] = []
        func walk(_ command: [String: Any], _ path: [String]) {
            guard command["shouldDisplay"] as? Bool ?? true, path.last != "help" else { return }
            let heading = "### " + path.joined(separator: " ")
            guard let start = doc.range(of: heading + "\n") else {
                missing.append("add a section `\(heading)` (\(command["abstract"] as? String ?? "")) listing its options")
                return
            }
            let rest = doc[start.upperBound...]
            let section = String(rest[..<(rest.range(of: "\n### ")?.lowerBound ?? rest.endIndex)])
            for argument in command["arguments"] as? [[String: Any]] ?? [] where argument["shouldDisplay"] as? Bool ?? true {
                let names = argument["names"] as? [[String: Any]] ?? []
                let value = argument["valueName"] as? String ?? ""
                if ["help", "version"].contains(value) { continue }
                let spelled: String
                if let long = names.first(where: { $0["kind"] as? String == "long" })?["name"] as? String {
                    spelled = "--" + long
                } else if let short = names.first(where: { $0["kind"] as? String == "short" })?["name"] as? String {
                    spelled = "-" + short
                } else {
                    spelled = "<\(value)>"
                }
                if !section.contains("`\(spelled)`") && !section.contains("`\(spelled) ") {
                    missing.append("under `\(heading)` add a line `- `\(spelled)\(argument["kind"] as? String == "option" ? " " + value.uppercased() : "")`: "
                                   + "\(argument["abstract"] as? String ?? "")`")
                }
            }
            for sub in command["subcommands"] as? [[String: Any]] ?? [] {
                walk(sub, path + [sub["commandName"] as? String ?? "?"])
            }
        }
        walk(try XCTUnwrap(dump["command"] as? [String: Any]), ["seamcheck"])
        XCTAssertEqual(missing, [], "docs/interface.md, section Commands: " + missing.joined(separator: "\n"))
    }

    func testEveryRuleClassVerdictAndOutcomeIsInTheInterface() throws {
        let rules = RuleIdentifiers.all.union(
                        RuleCatalog.allDescriptions.map(\.id))
        let missingRules = rules.sorted().filter { !listed($0) }
        XCTAssertEqual(missingRules, [], "docs/interface.md, section Rule identifiers: add " + missingRules.map { "`\($0)`" }.joined(separator: ", "))
        let classes = try FileManager.default.contentsOfDirectory(atPath: MediaFixture.packageRoot + "/DeviceProfiles")
            .filter { $0.hasSuffix(".yaml") }.map { String($0.dropLast(5)) }.sorted()
        XCTAssertFalse(classes.isEmpty)
        let missingClasses = classes.filter { !listed($0) }
        XCTAssertEqual(missingClasses, [], "docs/interface.md, section Device classes: add a row for " + missingClasses.map { "`\($0)`" }.joined(separator: ", "))
        let spellings = LabVerdict.allCases.map(\.rawValue) + LabVerdictSource.allCases.map(\.rawValue)
            + BehaviourOutcome.allCases.map(\.rawValue) + MeasuredFailure.allCases.map(\.rawValue)
            + [MeasuredOutcome.seamless, .stall, .failed, .skipped].map(\.rawValue)
        let missingSpellings = spellings.filter { !listed($0) }
        XCTAssertEqual(missingSpellings, [], "docs/interface.md, section Verdicts and outcomes: add " + missingSpellings.map { "`\($0)`" }.joined(separator: ", "))
        for code in [CLIFailure.findings, CLIFailure.usage, CLIFailure.serviceMissing, 130, 143] {
            XCTAssertTrue(doc.contains("| \(code) |"), "docs/interface.md, section Exit codes: add a row `| \(code) | ... |`")
        }
    }

    func testEverySeamcheckVariableTheSourcesReadIsInTheInterface() throws {
        let sources = URL(fileURLWithPath: MediaFixture.packageRoot + "/Sources")
        let pattern = try NSRegularExpression(pattern: "SEAMCHECK_[A-Z0-9_]+")
        var found = Set<String>()
        let files = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)
        while let file = files?.nextObject() as? URL {
            guard file.pathExtension == "swift", let text = try? String(contentsOf: file, encoding: .utf8) else { continue }
            for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                found.insert(String(text[Range(match.range, in: text)!]))
            }
        }
        XCTAssertTrue(found.contains("SEAMCHECK_DB"), "the scan found the variables")
        let missing = found.sorted().filter { !listed($0) }
        XCTAssertEqual(missing, [], "docs/interface.md, section Environment variables: add a row for " + missing.map { "`\($0)`" }.joined(separator: ", "))
    }

    func testEveryKeyOfTheJSONTheCommandsPrintForFixturesIsInTheInterface() throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("interface-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let primary = try Fixtures.primary.path(), ad = try Fixtures.ac3.path()
        let playlist = scratch.appendingPathComponent("main.m3u8").path
        try """
            #EXTM3U
            #EXT-X-VERSION:7
            #EXT-X-TARGETDURATION:2
            #EXT-X-PLAYLIST-TYPE:VOD
            #EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:00.000Z
            #EXT-X-DATERANGE:ID="ad1",CLASS="com.apple.hls.interstitial",START-DATE="2026-01-01T00:00:01.000Z",X-ASSET-URI="ad.m3u8",X-RESUME-OFFSET=0
            #EXTINF:2.0,
            \(primary)
            #EXT-X-ENDLIST

            """.write(toFile: playlist, atomically: true, encoding: .utf8)
        let db = scratch.appendingPathComponent("r.sqlite").path
        let commands: [[String]] = [
            ["audit", "--primary", primary, "--interstitial", ad, "--format", "json", "--fail-on", "never"],
            ["probe", primary, "--format", "json"],
            ["inspect", playlist, "--format", "json", "--offline"],
            ["lint", playlist, "--format", "json", "--fail-on", "never", "--offline"],
            ["rules", "list", "--format", "json"],
            ["profiles", "list", "--format", "json"],
            ["db", "check", "--db", db, "--format", "json"],
        ]
        _ = try SeamcheckBinary.run(["db", "migrate", "--db", db])
        var missing: [String: Set<String>] = [:]
        for arguments in commands {
            let result = try SeamcheckBinary.run(arguments)
            let name = "seamcheck " + arguments.prefix(arguments[0] == "rules" || arguments[0] == "profiles" || arguments[0] == "db" ? 2 : 1)
                .joined(separator: " ")
            guard let json = try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) else {
                XCTFail("\(name): no JSON on stdout (exit \(result.status)): \(result.stderr.prefix(400))")
                continue
            }
            var keys = Set<String>()
            Self.collectKeys(json, into: &keys)
            let absent = keys.filter { !listed($0) }
            if !absent.isEmpty { missing[name, default: []].formUnion(absent) }
        }
        let advice = missing.keys.sorted().map { name in
            "under `## JSON`, in the fields of `\(name) --format json`, add " + missing[name]!.sorted().map { "`\($0)`" }.joined(separator: ", ")
        }
        XCTAssertEqual(advice, [], "docs/interface.md: " + advice.joined(separator: "\n"))
    }

    static func collectKeys(_ value: Any, into keys: inout Set<String>) {
        if let object = value as? [String: Any] {
            for (key, child) in object {
                // A playlist's own attribute names (`X-ASSET-URI` in `clientAttributes`) are data, not fields.
                if !key.allSatisfy({ $0.isUppercase || $0.isNumber || $0 == "-" }) { keys.insert(key) }
                collectKeys(child, into: &keys)
            }
        } else if let array = value as? [Any] {
            for child in array { collectKeys(child, into: &keys) }
        }
    }
}
