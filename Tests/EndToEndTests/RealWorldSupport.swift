import Foundation
import SeamcheckTestSupport
import XCTest

/// A folder served by the test HTTP server for one test, removed afterwards.
class ServedStreamTestCase: XCTestCase {
    var root: URL!
    var server: TestHTTPServer!

    override func setUpWithError() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("seamcheck-realworld-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        server = try TestHTTPServer(root: root.path)
    }

    override func tearDownWithError() throws {
        server?.stop()
        if let root { try? FileManager.default.removeItem(at: root) }
    }

    /// `seamcheck COMMAND ARGUMENTS --format json`, parsed.
    func run(_ command: String, _ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws -> JSONRun {
        let result = try SeamcheckBinary.run([command] + arguments + ["--format", "json"])
        let object = try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
        let document = try XCTUnwrap(object as? [String: Any], "\(command) \(arguments): no JSON (exit \(result.status)): \(result.stderr)",
                                     file: file, line: line)
        return JSONRun(status: result.status, document: document, stderr: result.stderr)
    }

    /// The server paths requested so far.
    func requested() throws -> [String] { try server.log().map(\.path) }

    func write(_ text: String, to path: String) throws {
        let url = root.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try text.write(to: url, atomically: true, encoding: .utf8)
    }

    func read(_ path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }
}

/// One JSON document of the binary and its exit status.
struct JSONRun {
    var status: Int32
    var document: [String: Any]
    var stderr: String

    var findings: [[String: Any]] { (document["findings"] as? [[String: Any]]) ?? [] }

    func findings(_ rule: String) -> [[String: Any]] { findings.filter { $0["rule"] as? String == rule } }

    /// "rule@class" for every finding ("rule@*" without a class), to compare as a set.
    var fired: Set<String> { Set(findings.map { "\($0["rule"] as? String ?? "")@\(($0["deviceClass"] as? String) ?? "*")" }) }

    /// The findings but those of the localization rules: the ladder's muxed, untagged AAC ad has no
    /// French and no subtitles, which tests of other faults do not look at (LocalizationAuditTests do).
    var nonLocalization: [[String: Any]] {
        findings.filter { !Self.localizationRules.contains($0["rule"] as? String ?? "") }
    }

    var firedApartFromLocalization: Set<String> { fired.filter { !Self.localizationRules.contains(String($0.split(separator: "@")[0])) } }

    static let localizationRules: Set<String> = ["audio-language-missing", "subtitles-missing", "subtitle-language-missing",
                                                 "sdh-subtitles-missing", "forced-subtitles-missing", "caption-language-missing",
                                                 "audio-description-missing"]

    var assets: [[String: Any]] { (document["assets"] as? [[String: Any]]) ?? [] }

    /// An audit's selections of one asset ("primary", "interstitial 1"...): class -> [rendition, audio rendition].
    func selections(_ role: String) -> [String: [String]] {
        var result: [String: [String]] = [:]
        let asset = assets.first { $0["role"] as? String == role }
        for selection in (asset?["selections"] as? [[String: Any]]) ?? [] {
            let renditions = [selection["rendition"] as? String, selection["audioRendition"] as? String].compactMap { $0 }
            for deviceClass in (selection["deviceClasses"] as? [String]) ?? [] { result[deviceClass] = renditions }
        }
        return result
    }

    func string(_ finding: [String: Any], _ key: String) -> String { finding[key] as? String ?? "" }
}

extension String {
    /// The text after the last "/" of a URL: enough to tell renditions apart in assertions.
    var lastPathComponents2: String { split(separator: "/").suffix(2).joined(separator: "/") }
}

/// The device classes in DeviceProfiles/, by what they play.
enum Classes {
    static let eac3 = ["apple-tv-4k", "apple-tv-hd", "mac", "screen-mirroring", "smart-tv-dolby-vision"]
    static let video = eac3 + ["smart-tv-low-end"]
    static let all = video + ["speaker-audio-only"]
}
