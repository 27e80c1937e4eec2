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

    /// Without --token-file, a PostgreSQL server's token goes to the user's state folder, not to
    /// Reports/ under whatever folder it was started from; the serving line says where.
    func testServeWithPostgreSQLStartsFromAFolderWithoutReportsAndSaysWhereTheTokenIs() throws {
        let postgres = try TestPostgres.shared()
        let url = try postgres.makeDatabase("labservetoken")
        let elsewhere = base + "/elsewhere"
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
        var environment = ProcessInfo.processInfo.environment
        environment["SEAMCHECK_LAB_TOKEN"] = nil
        for (variable, folder) in [("XDG_STATE_HOME", base + "/state/seamcheck"), ("HOME", base + "/home/.local/state/seamcheck")] {
            environment["XDG_STATE_HOME"] = variable == "XDG_STATE_HOME" ? base + "/state" : nil
            environment["HOME"] = base + "/home"
            let tokenFile = folder + "/seamcheck.lab-token"
            let status = try LabServerProcess.with(streams: self.folder, database: url, arguments: ["--no-browse"],
                                                   environment: environment, directory: elsewhere) { server in
                XCTAssertTrue(server.process.output.contains("verdict token in \(tokenFile)"), server.process.output)
                let token = try String(contentsOfFile: tokenFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
                XCTAssertEqual(token.count, 64, "a fresh token, by \(variable)")
                let mode = (try FileManager.default.attributesOfItem(atPath: folder)[.posixPermissions] as? Int) ?? -1
                XCTAssertEqual(mode, 0o700, "the state folder is the user's alone")
                return server.stop()
            }
            XCTAssertEqual(status, 0)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: elsewhere + "/Reports"), "nothing written under the working folder")
    }
}
