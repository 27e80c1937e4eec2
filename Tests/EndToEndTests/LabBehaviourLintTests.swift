import Foundation
import SeamcheckTestSupport
import XCTest

/// `seamcheck lint` and `audit` on the behaviour cases served by `lab serve`: the deliberate
/// features raise no error; what they raise is the designed few (an empty ASSETS list, the failing URIs).
final class LabBehaviourLintTests: XCTestCase {
    /// What lint raises per case (severity rule), every other behaviour case raising nothing.
    static let expected: [String: [String]] = [
        "behaviour-asset-list-empty": ["info asset-list-invalid"],
        "behaviour-asset-list-failed": ["warning asset-unreachable"],
        "behaviour-asset-list-failed-asset": ["warning asset-unreachable"],
    ]

    func testBehaviourCasesLintWithoutErrors() throws {
        let suite = try LabSuiteFixture.small()
        let manifest = try LabSuiteFixture.manifest(suite)
        let ids = (manifest["cases"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }.filter { $0.hasPrefix("behaviour-") }
        XCTAssertEqual(ids.count, 19)
        let database = FileManager.default.temporaryDirectory.appendingPathComponent("lab-lint-\(UUID().uuidString).sqlite").path
        defer { try? FileManager.default.removeItem(atPath: database) }
        try LabServerProcess.with(streams: suite, database: database, arguments: ["--no-browse"]) { server in
            for id in ids {
                let result = try SeamcheckBinary.run(["lint", "--format", "json", server.url("/cases/\(id)/master.m3u8")])
                XCTAssertEqual(result.status, 0, "\(id): \(result.stderr)")
                let document = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], id)
                let findings = (document["findings"] as? [[String: Any]] ?? []).map { "\($0["severity"] ?? "") \($0["rule"] ?? "")" }
                XCTAssertEqual(findings, Self.expected[id] ?? [], id)
            }
            // audit reads the same: the matching ad changes nothing, a live window is audited as fetched.
            for id in ["behaviour-restrict-jump", "behaviour-live-join-start-offset"] {
                let result = try SeamcheckBinary.run(["audit", "--no-loudness", "--format", "json", server.url("/cases/\(id)/master.m3u8")])
                XCTAssertEqual(result.status, 0, "\(id): \(result.stderr)")
                XCTAssertFalse(result.stdout.contains("\"severity\" : \"error\""), id)
            }
        }
    }
}
