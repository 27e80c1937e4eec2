import Foundation
import LabCore
import LabRun
import LabServer
import SeamcheckTestSupport
import XCTest

/// `POST /api/verdicts` belongs to the lab (issue 20, item 3): JSON only, from the lab's own
/// origin, with the server's token. Real `lab serve` on 127.0.0.1, curl as the browser and the
/// scripts would send; what is refused must write nothing.
final class LabWriteAccessTests: HandMadeSuiteTestCase {
    let token = String(repeating: "ab12", count: 16)

    /// `lab serve` with one pinned receiver, Bench TV, for the length of `body`.
    func withServer(_ arguments: [String] = [], environment: [String: String] = [:], _ body: (LabServerProcess) throws -> Void) throws {
        let inventory = base + "/inventory.yaml"
        try "receivers:\n  - name: Bench TV\n    deviceClass: smart-tv-low-end\n    addresses: [\"127.0.0.1\"]\n"
            .write(toFile: inventory, atomically: true, encoding: .utf8)
        try LabServerProcess.with(streams: folder, database: database, arguments: ["--no-browse", "--inventory", inventory] + arguments,
                                  environment: ProcessInfo.processInfo.environment.merging(environment) { _, new in new }, body)
    }

    /// POSTs `body` with `headers`; returns the status code.
    func post(_ server: LabServerProcess, _ headers: [String], body: String = #"{"receiver":"Bench TV","case":"mid","verdict":"stall"}"#) throws -> Int {
        let result = try Command.run("curl", ["-s", "--max-time", "10", "-o", "/dev/null", "-w", "%{http_code}", "-X", "POST",
                                              "--data-binary", body] + headers.flatMap { ["-H", $0] } + [server.url("/api/verdicts")],
                                     timeout: 20)
        return Int(result.stdout) ?? -1
    }

    func testOnlyJSONFromTheLabsOwnOriginWithItsTokenIsWritten() throws {
        try withServer(environment: [LabAccess.tokenVariable: token]) { server in
            let json = "Content-Type: application/json", pass = "X-Seamcheck-Lab-Token: \(token)"
            let own = "Origin: http://127.0.0.1:\(server.port)"
            let refused: [(String, [String], Int)] = [
                ("cross-origin page", [json, pass, "Origin: http://attacker.example"], 403),
                ("cross-site fetch with a forged-looking Origin", [json, pass, own, "Sec-Fetch-Site: cross-site"], 403),
                ("same-site but another origin", [json, pass, "Origin: http://127.0.0.1:1", "Sec-Fetch-Site: same-site"], 403),
                ("opaque origin (sandboxed frame, file:)", [json, pass, "Origin: null"], 403),
                ("text/plain (no preflight)", ["Content-Type: text/plain", pass, own], 415),
                ("form post", ["Content-Type: application/x-www-form-urlencoded", pass, own], 415),
                ("multipart form", ["Content-Type: multipart/form-data; boundary=x", pass, own], 415),
                ("no content type", ["Content-Type:", pass], 415),
                ("no token", [json, own], 403),
                ("wrong token", [json, own, "X-Seamcheck-Lab-Token: \(String(repeating: "0", count: 64))"], 403),
                ("token prefix", [json, own, "X-Seamcheck-Lab-Token: \(token.prefix(10))"], 403),
                ("DNS rebinding: a foreign name for this server", [json, pass, "Host: rebind.attacker.example:\(server.port)",
                                                                   "Origin: http://rebind.attacker.example:\(server.port)"], 403),
            ]
            for (what, headers, status) in refused {
                XCTAssertEqual(try post(server, headers), status, what)
            }
            XCTAssertEqual(try LabStore(path: database, create: false).verdicts().count, 0, "nothing refused was written")

            XCTAssertEqual(try post(server, [json, pass, own, "Sec-Fetch-Site: same-origin"]), 201, "the lab page's own request")
            XCTAssertEqual(try post(server, [json, "Authorization: Bearer \(token)"]), 201, "a script with the token")
            XCTAssertEqual(try LabStore(path: database, create: false).verdicts().count, 2)
        }
    }

    func testThePageCarriesTheTokenOnlyAtTheServersOwnNamesAndScriptsFindItInAPrivateFile() throws {
        try withServer { server in
            let tokenFile = database + ".lab-token"
            let written = try String(contentsOfFile: tokenFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
            XCTAssertEqual(written.count, 64, "a new random token when none is given")
            let mode = (try FileManager.default.attributesOfItem(atPath: tokenFile)[.posixPermissions] as? Int) ?? -1
            XCTAssertEqual(mode, 0o600, "the token file is readable by its owner only")
            XCTAssertTrue(server.process.output.contains("verdict token in \(tokenFile)"), server.process.output)

            let page = try Command.run("curl", ["-s", "--max-time", "10", server.url("/")], timeout: 20).stdout
            XCTAssertTrue(page.contains(#"<meta name="seamcheck-lab-token" content="\#(written)">"#), "the lab page carries the token")
            let rebound = try Command.run("curl", ["-s", "--max-time", "10", "-H", "Host: rebind.attacker.example:\(server.port)",
                                                   server.url("/")], timeout: 20).stdout
            XCTAssertTrue(rebound.contains(#"<meta name="seamcheck-lab-token" content="">"#), "no token under a foreign name")
            XCTAssertFalse(rebound.contains(written))

            XCTAssertEqual(try post(server, ["Content-Type: application/json", "X-Seamcheck-Lab-Token: \(written)"]), 201)
            XCTAssertEqual(try post(server, ["Content-Type: application/json", "X-Seamcheck-Lab-Token: \(token)"]), 403)
            XCTAssertEqual(try LabStore(path: database, create: false).verdicts().count, 1)
        }
    }

    func testABadTokenIsRefusedAtStartAndABindBeyondLoopbackIsNamed() throws {
        let result = try SeamcheckBinary.run(["lab", "serve", "--streams", folder, "--bind", "127.0.0.1", "--port", "0",
                                              "--db", database, "--no-browse", "--token", "short"])
        XCTAssertEqual(result.status, 2)
        XCTAssertTrue(result.stderr.contains("--token must be 16 to 256 hexadecimal digits"), result.stderr)
        XCTAssertTrue(LabAccess.isLoopback("127.0.0.1"))
        XCTAssertTrue(LabAccess.isLoopback("127.3.4.5"))
        XCTAssertTrue(LabAccess.isLoopback("::1"))
        XCTAssertFalse(LabAccess.isLoopback("0.0.0.0"))
        XCTAssertFalse(LabAccess.isLoopback("192.168.1.20"))
        XCTAssertFalse(LabAccess.isLoopback("::"))
    }
}
