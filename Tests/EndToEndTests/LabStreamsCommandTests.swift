import Foundation
import SeamcheckTestSupport
import XCTest

/// `seamcheck lab streams --scale small`, served on 127.0.0.1 with `{LAB_ORIGIN}` replaced, and
/// `seamcheck audit` on every case: each case raises the rules it names and nothing else.
final class LabStreamsCommandTests: XCTestCase {
    /// The small suite, generated the first time and found cached (no ffmpeg run) after that.
    static func suite() throws -> (folder: String, manifest: [String: Any]) {
        let folder = MediaFixture.cacheDirectory + "/lab-small-e2e"
        let result = try SeamcheckBinary.run(["lab", "streams", "--scale", "small", "--output", folder])
        guard result.status == 0 else { throw CommandError.failed("seamcheck lab streams", result) }
        let data = try Data(contentsOf: URL(fileURLWithPath: folder + "/lab.json"))
        let manifest = try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
        return (folder, manifest)
    }

    var cases: [[String: Any]] { get throws { try Self.suite().manifest["cases"] as? [[String: Any]] ?? [] } }

    /// Rule ids the catalog implements (`seamcheck rules list`).
    func implementedRules() throws -> Set<String> {
        let result = try SeamcheckBinary.run(["rules", "list", "--format", "json"])
        let json = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        return Set(((json?["rules"] as? [[String: Any]]) ?? []).compactMap { $0["id"] as? String })
    }

    func findings(_ url: String, profile: String) throws -> [[String: Any]] {
        let result = try SeamcheckBinary.run(["audit", url, "--profile", profile, "--format", "json", "--fail-on", "never"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], result.stderr)
        return json["findings"] as? [[String: Any]] ?? []
    }

    func testEveryCaseRaisesExactlyTheRulesItNamesOnAClassThatDecodesBothSides() throws {
        let (folder, _) = try Self.suite()
        let server = try TestHTTPServer(root: folder, substitute: "{LAB_ORIGIN}")
        defer { server.stop() }
        let implemented = try implementedRules()
        let cases = try cases
        XCTAssertEqual(cases.count, 58, "21 scheduled (19 transitions, the ladder, the localization case), 18 stitched: not the MPEG-TS ad nor the localization case, 19 behaviour")
        // The 58 audits are separate processes, three at a time (most of each is waiting on the server).
        let urls = cases.map { server.url("/files/" + ($0["playlist"] as? String ?? "")) }
        let raisedByCase = Self.concurrently(urls) { Self.findingsOrError($0, profile: "smart-tv-dolby-vision") }
        for (labCase, raised) in zip(cases, raisedByCase) {
            let id = try XCTUnwrap(labCase["id"] as? String)
            let rules = Set(labCase["rules"] as? [String] ?? [])
            XCTAssertTrue(rules.isSubset(of: implemented), "\(id) names rules the catalog lacks: \(rules)")
            // audit compares interstitials scheduled with date ranges; a splice between two
            // discontinuities (the stitched cases) is not audited, so it raises nothing.
            // A behaviour case raises what its deliberate feature does (an empty list, a failing URI).
            let behaviour = Set((LabBehaviourLintTests.expected[id] ?? []).map { String($0.split(separator: " ")[1]) })
            let expected = labCase["delivery"] as? String == "stitched" ? [] : labCase["kind"] as? String == "behaviour" ? behaviour : rules
            guard case .success(let raised) = raised else { XCTFail("\(id): \(raised)"); continue }
            // Not only transition rules: no spec, declared or capability finding either.
            XCTAssertEqual(Set(raised.compactMap { $0["rule"] as? String }), expected,
                           "\(id): \(raised.map { $0["message"] as? String ?? "" })")
        }
    }

    /// `seamcheck audit` as a value (for running several at once): its findings, or why not.
    static func findingsOrError(_ url: String, profile: String) -> Result<[[String: Any]], AuditFailure> {
        guard let result = try? SeamcheckBinary.run(["audit", url, "--profile", profile, "--format", "json", "--fail-on", "never"]) else {
            return .failure(AuditFailure(text: "could not run seamcheck audit \(url)"))
        }
        guard result.status == 0, let json = try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any] else {
            return .failure(AuditFailure(text: "audit \(url) exited \(result.status): \(result.stderr)"))
        }
        return .success(json["findings"] as? [[String: Any]] ?? [])
    }

    struct AuditFailure: Error { let text: String }

    /// `body` over `items`, `width` at a time, results in the items' order.
    static func concurrently<R>(_ items: [String], width: Int = 3, _ body: @escaping @Sendable (String) -> R) -> [R] {
        let lock = NSLock()
        nonisolated(unsafe) var results = [R?](repeating: nil, count: items.count)
        nonisolated(unsafe) var next = 0
        DispatchQueue.concurrentPerform(iterations: min(width, items.count)) { _ in
            while true {
                let index: Int? = lock.withLock { defer { next += 1 }; return next < items.count ? next : nil }
                guard let index else { return }
                let value = body(items[index])
                lock.withLock { results[index] = value }
            }
        }
        return results.map { $0! }
    }

    func testOnTheLowEndTVCodecChangesLeaveNothingToPlayAndTheRestAreTransitions() throws {
        let (folder, _) = try Self.suite()
        let server = try TestHTTPServer(root: folder, substitute: "{LAB_ORIGIN}")
        defer { server.stop() }
        let expected: [String: Set<String>] = [
            "control": [], "video-codec-hevc": ["no-playable-variant"], "audio-codec-ac3": ["no-playable-variant"],
            "sample-rate-44.1": ["sample-rate-mismatch"], "channel-layout-5.1": ["channel-layout-mismatch", "unsupported-channel-count"],
        ]
        for (id, rules) in expected {
            let raised = try findings(server.url("/files/cases/\(id)/master.m3u8"), profile: "smart-tv-low-end")
            XCTAssertEqual(Set(raised.compactMap { $0["rule"] as? String }), rules, id)
        }
    }

    func testTheCapabilityLadderIsChosenByWhatTheClassDecodes() throws {
        let (folder, _) = try Self.suite()
        let server = try TestHTTPServer(root: folder, substitute: "{LAB_ORIGIN}")
        defer { server.stop() }
        let url = server.url("/files/cases/capability-ladder/master.m3u8")
        for (profile, video, audio) in [("smart-tv-low-end", "video-h264-sdr", "audio-aac-stereo"),
                                        ("smart-tv-dolby-vision", "video-hevc-hdr10", "audio-eac3-5.1")] {
            let result = try SeamcheckBinary.run(["audit", url, "--profile", profile, "--format", "json"])
            XCTAssertEqual(result.status, 0, result.stderr)
            let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
            XCTAssertEqual((json["findings"] as? [Any])?.count, 0, profile)
            let primary = try XCTUnwrap((json["assets"] as? [[String: Any]])?.first)
            let selection = try XCTUnwrap((primary["selections"] as? [[String: Any]])?.first)
            XCTAssertEqual(selection["rendition"] as? String, server.url("/files/cases/capability-ladder/\(video)/media.m3u8"), profile)
            XCTAssertEqual(selection["audioRendition"] as? String, server.url("/files/cases/capability-ladder/\(audio)/media.m3u8"), profile)
        }
    }

    func testAnUnknownCaseExitsTwoWithANearMiss() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("lab-unknown-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let typo = try SeamcheckBinary.run(["lab", "streams", "--scale", "small", "--output", folder, "--case", "contrl"])
        XCTAssertEqual(typo.status, 2)
        XCTAssertTrue(typo.stderr.contains("no lab case 'contrl' (did you mean 'control'?)"), typo.stderr)
        let nope = try SeamcheckBinary.run(["lab", "streams", "--scale", "small", "--output", folder, "--case", "control", "--case", "nope"])
        XCTAssertEqual(nope.status, 2)
        XCTAssertTrue(nope.stderr.contains("no lab case 'nope'; cases: control, video-codec-hevc"), nope.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder + "/primary"), "nothing is encoded before the cases are checked")
    }
}
