import Foundation
import LabCore
import XCTest
@testable import Reporting
@testable import ResultsReporting

/// `lab report --behaviour` in its four formats, from a table judged from sketched sessions.
final class BehaviourReportRendererTests: XCTestCase {
    typealias X = BehaviourExample

    static func report() -> BehaviourReport {
        let resume = X.labCase(X.Preset.midRoll.behaviour(in: "behaviour-resume-offset-zero"), id: "behaviour-resume-offset-zero")
        let jump = X.labCase(X.Preset.jump.behaviour(in: "behaviour-restrict-jump"), id: "behaviour-restrict-jump")
        let manifest = LabManifest(generator: "test", primaryTimeline: X.timeline, cases: [resume, jump])
        let t0 = Date(timeIntervalSince1970: 1_800_000_000)
        func session(_ client: String, _ labCase: LabCase, _ preset: X.Preset, _ sketch: String, at offset: Double) -> [LabRequestRecord] {
            X("s", preset, sketch, .conforms).requests(client: client, caseId: labCase.id, start: t0.addingTimeInterval(offset))
        }
        let requests = session("127.0.0.5", resume, .midRoll, "m p0 p1 ad-1:0 ad-1:1 p2 p3", at: 0)
            + session("127.0.0.5", jump, .jump, "m p0 p1 p2 p3 p4 p5", at: 100)
            + session("127.0.0.6", resume, .midRoll, "m p0 p1 ad-1:0 ad-1:1 p4 p5", at: 0)
            // A receiver name from the network, made to break markup.
        let receivers = [LabReceiverRecord(address: "127.0.0.6", name: "<b>Den</b> & \"TV\"", deviceClass: "apple-tv-4k", reason: "pinned",
                                           source: .inventory, seenAt: t0),
                         LabReceiverRecord(address: "127.0.0.5", name: "Kodi", deviceClass: "apple-tv-4k", reason: "pinned",
                                           source: .inventory, seenAt: t0)]
        let sessions = SessionBuilder(manifest: manifest, receivers: receivers).sessions(from: requests)
        return BehaviourReportBuilder(manifest: manifest, profiles: []).report(sessions: sessions, requests: requests, cells: [])
    }

    func testTableHasFeaturesDownAndReceiversAcross() {
        let text = BehaviourReportFormat.table.render(Self.report())
        XCTAssert(text.hasPrefix("behaviour: 2 receiver(s) x 2 feature(s), 3 judged: 1 deviates, 1 ignores, 1 conforms\n"), text)
        let lines = text.components(separatedBy: "\n")
        XCTAssert(lines.contains { $0.hasPrefix("resume-offset-zero") && $0.contains("deviates") && $0.contains("conforms") }, text)
        XCTAssert(text.contains("Kodi / restrict-jump: ignores"), text)
        XCTAssert(text.contains("per device class:"), text)
        XCTAssert(text.contains("1 deviates, 1 conforms"), text)
    }

    func testJSONCarriesSchemaVersionAndOutcomeSpellings() throws {
        let json = BehaviourReportFormat.json.render(Self.report())
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        XCTAssertEqual(object["schemaVersion"] as? Int, 1)
        let cells = try XCTUnwrap(object["cells"] as? [[String: Any]])
        XCTAssertEqual(Set(cells.compactMap { $0["outcome"] as? String }), ["conforms", "deviates", "ignores"])
        XCTAssert(cells.allSatisfy { $0["evidence"] is [String] && $0["checks"] is [Any] })
    }

    func testMarkdownAndHTMLEscapeNamesAndShowExpectedAgainstObserved() {
        let md = BehaviourReportFormat.markdown.render(Self.report())
        XCTAssert(md.contains("| receiver | class | `resume-offset-zero` | `restrict-jump` |"), md)
        XCTAssert(md.contains("**deviates**"), md)
        XCTAssert(md.contains("resumesAt deviates: expected resumes at 4.0 s (X-RESUME-OFFSET=0); observed resumed at 8.0 s, expected 4.0 s"), md)

        let html = BehaviourReportFormat.html.render(Self.report())
        XCTAssertFalse(html.contains("<b>Den</b>"))
        XCTAssert(html.contains("&lt;b&gt;Den&lt;/b&gt; &amp; &quot;TV&quot;"), html)
        XCTAssert(html.contains("<td class=\"deviates\" title=\"resumed at 8.0 s, expected 4.0 s (X-RESUME-OFFSET=0)\"><details><summary>deviates</summary>"), html)
        XCTAssert(html.contains("<td class=\"ignores\""))
        XCTAssertFalse(html.contains("<script"))
    }
}
