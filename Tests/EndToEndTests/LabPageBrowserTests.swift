import Foundation
import Processes
import SeamcheckTestSupport
import XCTest

/// The lab page in a real browser: Debian's Chromium, driven by Selenium through Debian's
/// chromedriver (Tests/Server/lab_page_check.py), against `lab serve` on 127.0.0.1. What the
/// browser records must come out of `lab report`.
final class LabPageBrowserTests: XCTestCase {
    func testAVerdictClickedOnTheLabPageAppearsInTheLabReport() throws {
        let python = try LabEnvironment.seleniumPython()
        let chromium = try TestEnvironment.require("chromium")
        let chromedriver = try TestEnvironment.require("chromedriver")
        let suite = try LabSuiteFixture.small()
        let folder = try LabEnvironment.temporaryFolder("lab-page")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let inventory = folder + "/inventory.yaml"
        try """
        receivers:
          - name: Bench TV
            deviceClass: smart-tv-low-end
            addresses: ["127.0.0.1"]
        """.write(toFile: inventory, atomically: true, encoding: .utf8)
        let database = folder + "/lab.sqlite"
        try LabServerProcess.with(suite: suite, database: database, inventory: inventory, browse: false) { server in

            let screenshot = MediaFixture.packageRoot + "/.build/lab-page.png"
            try? FileManager.default.removeItem(atPath: screenshot)
            let page = try Command.run(python, [LabEnvironment.script("lab_page_check.py"), server.origin + "/",
                                                "--case", "frame-rate-25", "--receiver", "Bench TV", "--verdict", "stall",
                                                "--note", "clicked by Selenium", "--expect-cases", LabSuiteFixture.cases.joined(separator: ","),
                                                "--chromium", chromium, "--chromedriver", chromedriver, "--screenshot", screenshot],
                                       timeout: 90)
            let result = (try? JSONSerialization.jsonObject(with: Data(page.stdout.utf8)) as? [String: Any]) ?? [:]
            XCTAssertEqual(page.status, 0, "\(page.stdout) \(page.stderr)")
            XCTAssertNil(result["failed"], "\(result)")
            XCTAssertEqual(result["status"] as? String, "Recorded stall for frame-rate-25 on Bench TV.")
            XCTAssertTrue(Set(result["cases"] as? [String] ?? []).isSuperset(of: LabSuiteFixture.cases), "\(result)")
            XCTAssertTrue(FileManager.default.fileExists(atPath: screenshot))
            XCTAssertEqual(server.stop(), 0)

            let report = try SeamcheckBinary.run(["lab", "report", "--db", database, "--format", "json"])
            XCTAssertEqual(report.status, 0, report.stderr)
            let document = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(report.stdout.utf8)) as? [String: Any])
            let cells = document["cells"] as? [[String: Any]] ?? []
            let cell = try XCTUnwrap(cells.first { $0["case"] as? String == "frame-rate-25" && $0["receiver"] as? String == "Bench TV" },
                                     "no report cell for the verdict: \(report.stdout)")
            XCTAssertEqual(cell["observed"] as? String, "stall")
            XCTAssertEqual(cell["deviceClass"] as? String, "smart-tv-low-end")
            // A low-end TV's class makes a frame-rate switch an error, and a stall is one: they agree.
            XCTAssertEqual(cell["predicted"] as? String, "error")
            XCTAssertEqual(cell["agrees"] as? Bool, true)
        }
    }
}
