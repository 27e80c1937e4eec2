import Foundation
import SeamcheckTestSupport
import XCTest
@testable import LabCore
@testable import LabRun
@testable import LabServer

/// Kodi 20 (the real receiver, in its own network namespace: `KodiReceiver`) judged on behaviour
/// cases by `lab run`: whatever it does is the observed truth. Kodi plays HLS without interstitial
/// support, so its VOD mid-rolls are `ignores`, with the evidence; the table renders it.
final class BehaviourKodiTests: XCTestCase {
    /// A VOD mid-roll, a scripted scrub (JUMP) and a live window: three kinds of cell. Every
    /// feature (the table in docs/lab-behaviour.md): SEAMCHECK_BEHAVIOUR_KODI_FEATURES=all.
    static var features: [String] {
        ProcessInfo.processInfo.environment["SEAMCHECK_BEHAVIOUR_KODI_FEATURES"] == "all"
            ? BehaviourCatalog.entries.map(\.feature) : ["resume-offset-zero", "restrict-jump", "snap-live"]
    }

    func testKodiIsJudgedOnBehaviourCases() async throws {
        let suite = try BehaviourRunTests.suite()
        let folder = NSTemporaryDirectory() + "behaviour-kodi-\(ProcessInfo.processInfo.processIdentifier)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let database = folder + "/lab.sqlite"
        try await KodiReceiver.with { kodi in
            let result = try kodi.run([SeamcheckBinary.path, "lab", "run", "--db", database, "--streams", suite, "--receiver", kodi.airplayEndpoint,
                                       "--format", "json"] + Self.features.flatMap { ["--case", BehaviourCatalog.id($0)] }, timeout: 900)
            XCTAssertEqual(result.status, 0, result.stderr)
        }
        let cells = try LabStore(path: database, create: false).latestCells()
        XCTAssertEqual(cells.count, Self.features.count)
        var table: [String] = []
        for cell in cells {
            let judgement = try XCTUnwrap(cell.behaviour, "\(cell.caseId): no judgement; \(cell.measurement.reason)")
            table.append("\(judgement.feature): \(judgement.outcome.rawValue): \(judgement.why ?? "")")
            XCTAssertNotEqual(judgement.outcome, .notApplicable)
            XCTAssertGreaterThan(judgement.requests, 0, "\(cell.caseId): Kodi's requests are in its cell")
        }
        print("Kodi behaviour:\n" + table.joined(separator: "\n"))
        // Kodi fetches no interstitial: on the VOD mid-roll it plays the primary through and is judged so.
        let midRoll = cells.first { $0.caseId == BehaviourCatalog.id("resume-offset-zero") }?.behaviour
        XCTAssertEqual(midRoll?.outcome, .ignores, midRoll?.why ?? "")
        XCTAssert(midRoll?.why?.contains("the receiver ignored EXT-X-DATERANGE") == true)

        let html = try SeamcheckBinary.run(["lab", "report", "--behaviour", "--db", database, "--streams", suite, "--format", "html"])
        XCTAssertEqual(html.status, 0, html.stderr)
        XCTAssert(html.stdout.contains("<td class=\"ignores\""), html.stdout)
        if let keep = ProcessInfo.processInfo.environment["SEAMCHECK_BEHAVIOUR_KODI_DB"] {
            try? FileManager.default.removeItem(atPath: keep)
            try FileManager.default.copyItem(atPath: database, toPath: keep)
        }
    }
}
