import Foundation
import LabCore
import Processes
import SeamcheckTestSupport
import XCTest

/// Kodi and UxPlay side by side in one `lab run`: each receiver in its own network namespace, the
/// sender in a third that `scripts/services.sh link-start` links to both (a veth pair into each,
/// both ends inside namespaces). One short case on both, cut at 4 s (playing is what is checked), then `lab report`
/// with both receivers in it. Cheap on purpose: the figures of a full side-by-side run are in
/// docs/lab-run.md.
final class LabRunKodiAndUxPlayTests: XCTestCase {
    override class func tearDown() {
        UxPlayReceiver.endSuite()
        super.tearDown()
    }

    func testOneRunFromTheSendersNamespacePlaysOnKodiAndUxPlayAndTheReportShowsBoth() async throws {
        let folder = try LabEnvironment.temporaryFolder("labrun-side-by-side")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let uxplay = try UxPlayReceiver.suite()
        try await KodiReceiver.with { kodi in
            let script = MediaFixture.packageRoot + "/scripts/services.sh"
            let link = ProcessRunner.runAndWait(script, ["link-start"], timeout: 30)
            defer { _ = ProcessRunner.runAndWait(script, ["link-stop"], timeout: 30) }
            XCTAssertEqual(link.status, 0, link.stderr)
            guard link.status == 0 else { return }
            let addresses = try Self.linkAddresses()
            let kodiAddress = try XCTUnwrap(addresses["KODI"]), uxplayAddress = try XCTUnwrap(addresses["UXPLAY"])
            let inventory = folder + "/inventory.yaml"
            try """
                receivers:
                  - name: Kodi 20.1
                    deviceClass: smart-tv-low-end
                    addresses: [\(kodiAddress)]
                  - name: UxPlay 1.74
                    deviceClass: smart-tv-low-end
                    addresses: [\(uxplayAddress)]
                """.write(toFile: inventory, atomically: true, encoding: .utf8)
            let database = folder + "/lab.sqlite"
            let sender = try XCTUnwrap(addresses["NETNS"], "link.env names the sender's namespace")
            let run = try Command.run("ip", ["netns", "exec", sender, "env", "NO_COLOR=1", SeamcheckBinary.path, "lab", "run", "--db", database, "--streams", try LabSuiteFixture.small(), "--inventory", inventory,
                                               "--receiver", "\(kodiAddress):\(kodi.port)", "--receiver", "\(uxplayAddress):\(uxplay.port)",
                                               "--case", "control", "--case-timeout", "4", "--format", "json"],
                                      currentDirectory: URL(fileURLWithPath: MediaFixture.packageRoot), timeout: 120)
            XCTAssertEqual(run.status, 0, run.stderr + "\n" + uxplay.logTail() + "\n" + kodi.logTail())
            let store = try LabStore(path: database, create: false)
            let cells = try store.cells(runId: try XCTUnwrap(try store.runs().first).id)
            XCTAssertEqual(Set(cells.map(\.receiver)), ["Kodi 20.1", "UxPlay 1.74"], "\(cells.map(\.receiver))")
            for cell in cells {
                let positions = cell.series.samples.compactMap { $0.info?.position }
                XCTAssertGreaterThan(positions.max() ?? 0, 0.5, "\(cell.receiver) played from the sender's namespace: \(cell.measurement.reason)")
                XCTAssertTrue(!cell.requests.isEmpty && cell.requests.allSatisfy { $0.client == cell.address },
                              "\(cell.receiver): its requests, from its own address \(cell.address)")
            }
            let report = try SeamcheckBinary.run(["lab", "report", "--db", database, "--streams", try LabSuiteFixture.small(), "--format", "json"])
            XCTAssertEqual(report.status, 0, report.stderr)
            XCTAssertTrue(report.stdout.contains("Kodi 20.1") && report.stdout.contains("UxPlay 1.74"), String(report.stdout.prefix(2000)))
        }
    }

    /// SEAMCHECK_LINK_KODI, SEAMCHECK_LINK_UXPLAY and SEAMCHECK_LINK_NETNS from .build/services/link.env.
    static func linkAddresses() throws -> [String: String] {
        let text = try String(contentsOfFile: MediaFixture.packageRoot + "/.build/services/link.env", encoding: .utf8)
        var values: [String: String] = [:]
        for line in text.split(separator: "\n") where line.hasPrefix("export SEAMCHECK_LINK_") {
            let pair = line.dropFirst("export SEAMCHECK_LINK_".count).split(separator: "=", maxSplits: 1).map(String.init)
            if pair.count == 2 { values[pair[0]] = pair[1] }
        }
        return values
    }
}
