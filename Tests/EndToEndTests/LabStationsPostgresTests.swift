import Foundation
import LabCore
import LabRun
import LabServer
import SeamcheckTestSupport
import XCTest

/// Two lab stations, one lab: two `lab serve` processes of the binary with different `--station`
/// names log into one real PostgreSQL at once, both fetched by clients 127.0.0.5 and 127.0.0.6.
/// `lab sessions`, `lab report` and `profiles calibrate` read every station (or `--station`), and
/// no session holds two stations' requests.
final class LabStationsPostgresTests: HandMadeSuiteTestCase {
    /// Requests each client makes at each station; 127.0.0.6 makes more, so counts tell clients apart.
    static let fetches = ["127.0.0.5": 12, "127.0.0.6": 20]
    static let paths = ["/cases/mid/master.m3u8", "/cases/mid/media.m3u8", "/cases/mid/primary/seg_000.m4s", "/cases/mid/primary/seg_001.m4s"]

    struct Session: Decodable, Equatable {
        var station: String?
        var client: String
        var receiver: String?
        var requests: Int
    }

    struct Sessions: Decodable { var sessions: [Session] }

    struct Cell: Decodable { var `case`: String; var receiver: String?; var station: String?; var observed: String? }
    struct Report: Decodable { var cells: [Cell] }

    struct Proposal: Decodable { var deviceClass: String; var rule: String; var proposed: String; var observations: Int }
    struct Calibration: Decodable { var proposals: [Proposal] }

    /// The hand-made case varies one rule (so calibration reads it); each station pins 127.0.0.5 as its own receiver.
    func prepare() throws {
        let manifestPath = folder + "/lab.json"
        var manifest = try JSONDecoder().decode(LabManifest.self, from: Data(contentsOf: URL(fileURLWithPath: manifestPath)))
        manifest.cases[0].rules = ["frame-rate-mismatch"]
        try JSONEncoder().encode(manifest).write(to: URL(fileURLWithPath: manifestPath))
        for (station, name) in [("room-a", "Living Room"), ("room-b", "Board Room")] {
            try """
                receivers:
                  - name: \(name)
                    deviceClass: smart-tv-low-end
                    addresses: [127.0.0.5]

                """.write(toFile: base + "/\(station).yaml", atomically: true, encoding: .utf8)
        }
    }

    func serve(_ station: String, _ url: String, _ body: (LabServerProcess) throws -> Void) throws -> Int32 {
        try LabServerProcess.with(streams: folder, database: url,
                                  arguments: ["--no-browse", "--station", station, "--inventory", base + "/\(station).yaml",
                                              "--token-file", base + "/\(station).token"]) { server in
            XCTAssertTrue(server.process.output.contains("station \(station)"), server.process.output)
            try body(server)
            return server.stop()
        }
    }

    func testTwoStationsServeIntoOnePostgreSQLAndTheLabReadsBothWithoutMergingTheirClients() throws {
        let postgres = try TestPostgres.shared()
        let url = try postgres.makeDatabase("stations")
        try prepare()
        // The database exists before two servers migrate it at once (each would otherwise create it).
        XCTAssertEqual(try SeamcheckBinary.run(["db", "migrate", "--db", url]).status, 0)

        var statuses: [Int32] = []
        statuses.append(try serve("room-a", url) { roomA in
            statuses.append(try serve("room-b", url) { roomB in
                // Both clients fetch from both stations at once.
                let jobs = [roomA, roomB].flatMap { server in Self.fetches.map { (server, $0.key, $0.value) } }
                let failures = Failures()
                DispatchQueue.concurrentPerform(iterations: jobs.count) { n in
                    let (server, client, count) = jobs[n]
                    let urls = (0..<count).map { server.url(Self.paths[$0 % Self.paths.count]) }
                    do {
                        let result = try Command.run("curl", ["-s", "--max-time", "20", "--interface", client, "-w", "%{http_code}\\n"]
                                                         + urls.flatMap { ["-o", "/dev/null", $0] }, timeout: 60)
                        let codes = result.stdout.split(separator: "\n")
                        if codes.count != count || codes.contains(where: { $0 != "200" }) { failures.add("\(client) \(server.port): \(result.stdout)") }
                    } catch { failures.add("\(client): \(error)") }
                }
                XCTAssertEqual(failures.all, [])
            })
        })
        XCTAssertEqual(statuses, [0, 0], "both servers stopped cleanly, their logs committed")

        let environment = ["SEAMCHECK_DB": url]
        let all = try JSONDecoder().decode(Sessions.self, from: Data(try sessions([], environment).utf8)).sessions
        XCTAssertEqual(all.map { "\($0.station ?? "-") \($0.client) \($0.receiver ?? "-") \($0.requests)" }.sorted(), [
            "room-a 127.0.0.5 Living Room 12", "room-a 127.0.0.6 - 20",
            "room-b 127.0.0.5 Board Room 12", "room-b 127.0.0.6 - 20",
        ], "one session per station and client, each with its station's receiver; none merged")
        let roomB = try JSONDecoder().decode(Sessions.self, from: Data(try sessions(["--station", "room-b"], environment).utf8)).sessions
        XCTAssertEqual(Set(roomB.map(\.station)), ["room-b"])
        XCTAssertEqual(roomB.count, 2)
        let table = try sessions(["--format", "table"], environment)
        XCTAssertTrue(table.contains("STATION") && table.contains("room-a") && table.contains("room-b"), table)
        let unknown = try SeamcheckBinary.run(["lab", "sessions", "--station", "room-c"], environment: environment)
        XCTAssertEqual(unknown.status, 2)
        XCTAssertTrue(unknown.stderr.contains("no station 'room-c'") && unknown.stderr.contains("room-a, room-b"), unknown.stderr)

        // Each room's operator judges its own receiver at 127.0.0.5; calibration reads both.
        for station in ["room-a", "room-b"] {
            let recorded = try SeamcheckBinary.run(["lab", "record", "--station", station, "--receiver", "127.0.0.5", "--case", "mid",
                                                    "--verdict", "seamless"], environment: environment)
            XCTAssertEqual(recorded.status, 0, recorded.stderr)
            XCTAssertTrue(recorded.stdout.contains(station == "room-a" ? "Living Room" : "Board Room"), recorded.stdout)
        }
        let report = try SeamcheckBinary.run(["lab", "report", "--format", "json"], environment: environment)
        XCTAssertEqual(report.status, 0, report.stderr)
        let cells = try JSONDecoder().decode(Report.self, from: Data(report.stdout.utf8)).cells
        XCTAssertEqual(cells.map { "\($0.station ?? "-") \($0.receiver ?? "-") \($0.observed ?? "-")" }.sorted(), [
            "room-a 127.0.0.6 -", "room-a Living Room seamless", "room-b 127.0.0.6 -", "room-b Board Room seamless",
        ])
        let text = try SeamcheckBinary.run(["lab", "report", "--format", "table"], environment: environment)
        XCTAssertTrue(text.stdout.contains("Living Room @ room-a") && text.stdout.contains("127.0.0.6 @ room-b"), text.stdout)

        let both = try calibrate([], environment)
        XCTAssertEqual(both.map { "\($0.deviceClass) \($0.rule) \($0.proposed) \($0.observations)" },
                       ["smart-tv-low-end frame-rate-mismatch info 2"], "two seamless verdicts, one at each station")
        XCTAssertEqual(try calibrate(["--station", "room-a"], environment).count, 0, "one station's one verdict is below --min-observations 2")
    }

    func sessions(_ arguments: [String], _ environment: [String: String]) throws -> String {
        let result = try SeamcheckBinary.run(["lab", "sessions"] + (arguments.contains("--format") ? arguments : arguments + ["--format", "json"]),
                                             environment: environment)
        XCTAssertEqual(result.status, 0, result.stderr)
        return result.stdout
    }

    func calibrate(_ arguments: [String], _ environment: [String: String]) throws -> [Proposal] {
        let result = try SeamcheckBinary.run(["profiles", "calibrate", "--min-observations", "2", "--format", "json",
                                              "--profiles-dir", MediaFixture.packageRoot + "/DeviceProfiles"] + arguments,
                                             environment: environment)
        XCTAssertEqual(result.status, 0, result.stderr)
        return try JSONDecoder().decode(Calibration.self, from: Data(result.stdout.utf8)).proposals
    }
}

private final class Failures: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [String] = []
    func add(_ text: String) { lock.withLock { list.append(text) } }
    var all: [String] { lock.withLock { list } }
}
