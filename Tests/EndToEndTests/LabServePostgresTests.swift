import Foundation
import LabCore
import LabRun
import LabServer
import SeamcheckTestSupport
import XCTest

/// `lab serve --db postgres://...`: the request log, the serve run and its suite go to the real
/// PostgreSQL of `scripts/services.sh postgres-start`, and the lab commands read them back there.
final class LabServePostgresTests: HandMadeSuiteTestCase {
    func testServeLogsEveryRequestIntoPostgreSQL() throws {
        let postgres = try TestPostgres.shared()
        let url = try postgres.makeDatabase("labserve")
        let fetched = 20
        let status = try LabServerProcess.with(streams: folder, database: url, arguments: ["--no-browse", "--token-file", base + "/token"]) { server in
            XCTAssertFalse(server.process.output.contains(postgres.password), "the password is never printed")
            for n in 0..<fetched {
                let result = try Command.run("curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", server.url("/lab.json?n=\(n)")], timeout: 30)
                XCTAssertEqual(result.stdout, "200")
            }
            return server.stop()
        }
        XCTAssertEqual(status, 0)
        let store = try LabStore(path: url, create: false)
        let requests = try store.requests().filter { $0.path == "/lab.json" }
        XCTAssertEqual(requests.count, fetched, "every request answered is logged")
        XCTAssertEqual(Set(requests.compactMap(\.query)).count, fetched)
        XCTAssertNotNil(try store.latestManifest(), "the serve run recorded its suite")
        let sessions = try SeamcheckBinary.run(["lab", "sessions", "--format", "json"], environment: ["SEAMCHECK_DB": url])
        XCTAssertEqual(sessions.status, 0, sessions.stderr)
    }
}
