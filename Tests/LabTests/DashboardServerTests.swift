import Foundation
import Logging
import SeamcheckTestSupport
import XCTest
@testable import LabCore
@testable import LabRun
@testable import LabServer

/// The dashboard served by a real lab server on loopback over a real store: the grid, the run
/// history's filters, clear 404s and 400s, the live feed as cells are stored, and a viewer that
/// stops reading. `PostgresDashboardServerTests` runs the same on PostgreSQL.
class DashboardServerTests: XCTestCase {
    var path = ""
    var store: LabStore!
    var server: LabRunServer!

    func makeDatabase() throws -> String { LabTestData.temporaryDatabase() }

    override func setUp() async throws {
        path = try makeDatabase()
        store = try LabStore(path: path, station: "room-a")
        _ = try await LabStreamsGenerator(scale: .small).generate(output: LabStreamsTests.folder)
        var options = LabServerOptions(bind: "127.0.0.1", port: 0, suite: try LabSuite.load(LabStreamsTests.folder), profiles: [], browse: false)
        options.askInfo = false
        options.dashboardPollInterval = .milliseconds(50)
        options.dashboardCellRenderer = { cell, _ in "<p>timeline of " + cell.receiver.replacingOccurrences(of: "<", with: "&lt;") + "</p>" }
        server = try await LabRunServer.start(options, store: store, logger: Logger(label: "test"))
    }

    override func tearDown() async throws {
        await server?.stop()
        if !path.hasPrefix("postgres") { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
    }

    func get(_ path: String) throws -> LoopbackGet.Response { try LoopbackGet.fetch(port: server.port, path: path, from: "127.0.0.1") }

    func json(_ path: String, status: Int = 200, file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
        let response = try get(path)
        XCTAssertEqual(response.status, status, "\(path): \(response.body)", file: file, line: line)
        return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(response.body.utf8)) as? [String: Any], file: file, line: line)
    }

    func run(_ id: String, receivers: [String] = ["Den", "Kodi"], cases: [String] = ["control", "frame-rate-25"], started: Double = 0) throws {
        try store.beginRun(LabRunSummary(id: id, startedAt: LabTestData.start.addingTimeInterval(started), state: .running, server: "http://x",
                                         receivers: receivers, cases: cases, pollIntervalMs: 250, cellsTotal: receivers.count * cases.count),
                           leaseSeconds: 3600)
    }

    func cell(_ run: String, _ receiver: String, _ caseId: String, _ outcome: MeasuredOutcome, at offset: Double, stallMs: Double? = nil,
              software: LabReceiverSoftware? = nil) throws {
        let at = LabTestData.start.addingTimeInterval(offset)
        var cell = LabRunCell(runId: run, receiver: receiver, deviceId: nil, deviceClass: "smart-tv-low-end", address: "10.0.0.2", caseId: caseId,
                              attempt: 1, startedAt: at, finishedAt: at.addingTimeInterval(12), url: "http://x/\(caseId)",
                              series: PlaybackSeries(playSentAt: at, pollIntervalMs: 250), requests: [],
                              measurement: CellMeasurement(outcome: outcome, transitionStallMs: stallMs, reason: "\(outcome.rawValue) <b>why</b>"))
        if let stallMs { cell.measurement.stalls = [MeasuredStall(position: 6, startMs: 6000, durationMs: stallMs, kind: "position-frozen", transition: "ad start 6 s")] }
        cell.software = software
        try store.record(cell, done: outcome != .skipped)
    }

    func testTheGridShowsTheNewestVerdictPerCellWithTheOperatorsAndTheClassRollUp() throws {
        try run("r1")
        try cell("r1", "Den", "control", .stall, at: 0, stallMs: 1200, software: LabReceiverSoftware(sourceVersion: "1.0"))
        try run("r2", started: 100)
        try cell("r2", "Den", "control", .seamless, at: 100, software: LabReceiverSoftware(sourceVersion: "2.0"))
        try cell("r2", "Kodi", "control", .failed, at: 100)
        try store.record(LabVerdictRecord(receiver: "Kodi", caseId: "control", verdict: .glitch, note: "operator saw it", source: .operator))
        let grid = try JSONDecoder.dashboard.decode(DashboardGrid.self, from: Data(try get("/api/dashboard/grid").body.utf8))
        XCTAssertNil(grid.run)
        XCTAssertEqual(grid.cells.map { "\($0.measured.receiver) \($0.measured.verdict) \($0.operatorVerdict ?? "-")" }.sorted(),
                       ["Den seamless -", "Kodi failed glitch"])
        XCTAssertEqual(grid.classes.map(\.worst), ["failed"])
        XCTAssertEqual(grid.receivers.first { $0.receiver == "Den" }?.firmwareChanges, [], "latest shows one cell per case")
        let one = try JSONDecoder.dashboard.decode(DashboardGrid.self, from: Data(try get("/api/dashboard/grid?run=r2").body.utf8))
        XCTAssertEqual(one.run?.id, "r2")
        XCTAssertEqual(one.receivers.first { $0.receiver == "Den" }?.firmwareChanges, ["srcvers 1.0 -> 2.0"],
                       "against the receiver's previous run")
        XCTAssertEqual(one.progress.map { "\($0.receiver) \($0.done)/\($0.total)" }, ["Den 1/2", "Kodi 1/2"])
        XCTAssertNotNil(one.progress[0].etaSeconds, "a running run has an ETA at its pace so far")
    }

    func testRunHistoryFiltersAndRefusesWhatItDoesNotKnow() throws {
        try run("r1", receivers: ["Den"], cases: ["control"])
        try cell("r1", "Den", "control", .seamless, at: 0)
        try run("r2", receivers: ["Kodi"], cases: ["frame-rate-25"], started: 86_400 * 2)
        try cell("r2", "Kodi", "frame-rate-25", .seamless, at: 86_400 * 2)
        func ids(_ query: String) throws -> [String] {
            ((try json("/api/dashboard/runs" + query)["runs"] as? [[String: Any]]) ?? []).compactMap { $0["id"] as? String }
        }
        XCTAssertEqual(try ids(""), ["r2", "r1"])
        XCTAssertEqual(try ids("?receiver=Den"), ["r1"])
        XCTAssertEqual(try ids("?case=frame-rate*"), ["r2"])
        XCTAssertEqual(try ids("?class=smart-tv-low-end&station=room-a"), ["r2", "r1"])
        XCTAssertEqual(try ids("?to=2027-01-15"), ["r1"], "to includes its day (r1 started 2027-01-15, r2 two days later)")
        let day = ISO8601DateFormatter.string(from: LabTestData.start.addingTimeInterval(86_400), timeZone: TimeZone(identifier: "UTC")!,
                                              formatOptions: [.withFullDate])
        XCTAssertEqual(try ids("?from=\(day)"), ["r2"])
        XCTAssertTrue((try json("/api/dashboard/runs?station=room-z", status: 404)["error"] as? String ?? "").contains("room-a"))
        XCTAssertTrue((try json("/api/dashboard/runs?colour=red", status: 400)["error"] as? String ?? "").contains("unknown parameter 'colour'"))
        XCTAssertTrue((try json("/api/dashboard/runs?from=yesterday", status: 400)["error"] as? String ?? "").contains("from must be a date"))
        XCTAssertTrue((try json("/api/dashboard/grid?run=nope", status: 404)["error"] as? String ?? "").contains("no lab run 'nope'"))
        _ = try json("/api/dashboard/compare?a=r1&b=nope", status: 404)
        _ = try json("/api/dashboard/compare?a=r1", status: 400)
        _ = try json("/api/dashboard/cell?run=r1&receiver=Den&case=missing", status: 404)
    }

    func testTheCellViewAndThePageCarryWhatTheStoreHoldsEscaped() throws {
        try run("r1", receivers: ["<img src=x onerror=alert(1)>"])
        try cell("r1", "<img src=x onerror=alert(1)>", "control", .seamless, at: 0)
        let fragment = try get("/api/dashboard/cell?run=r1&receiver=%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E&case=control")
        XCTAssertEqual(fragment.status, 200, fragment.body)
        XCTAssertTrue(fragment.body.contains("&lt;img"))
        XCTAssertFalse(fragment.body.contains("<img"))
        let grid = try get("/api/dashboard/grid?run=r1").body
        XCTAssertTrue(grid.contains("\"receiver\":\"<img src=x onerror=alert(1)>\""), "JSON carries it as data; the page sets it with textContent")
        let page = try get("/dashboard")
        XCTAssertEqual(page.status, 200)
        XCTAssertEqual(page.headers["content-type"], "text/html; charset=utf-8")
        XCTAssertFalse(page.body.contains("http://") || page.body.contains("https://"), "no CDN: everything is in the page")
        XCTAssertEqual(page.body.components(separatedBy: "innerHTML").count - 1, 1, "only the server-escaped cell fragment is inserted as markup")
        XCTAssertEqual(try get("/api/dashboard/events?x=1").status, 400)
    }

    func testTheLiveFeedSendsEachStoredCellToEveryViewerWithItsRunsProgress() throws {
        try run("r1")
        let viewers = try (0..<20).map { _ in try EventReader(port: server.port) }
        defer { viewers.forEach { $0.close() } }
        for viewer in viewers { XCTAssertTrue(viewer.read(until: "seamcheck lab dashboard feed", seconds: 5), "each viewer is greeted") }
        try cell("r1", "Den", "control", .stall, at: 0, stallMs: 800)
        for (index, viewer) in viewers.enumerated() {
            XCTAssertTrue(viewer.read(until: "\"caseId\":\"control\"", seconds: 10), "viewer \(index) saw the cell: \(viewer.text.suffix(300))")
            XCTAssertTrue(viewer.text.contains("event: cell"))
            XCTAssertTrue(viewer.text.contains("\"done\":1") && viewer.text.contains("\"total\":2"), viewer.text.suffix(400).description)
        }
    }

    func testAViewerThatStopsReadingHoldsABoundedQueue() {
        let feed = DashboardFeed(store: store, logger: Logger(label: "test"))
        let stalled = feed.subscribe()
        let event = String(repeating: "x", count: 1024)
        for _ in 0..<10_000 { feed.broadcast(event) }
        XCTAssertEqual(feed.viewerCount, 1)
        XCTAssertEqual(feed.droppedEvents, 10_000 + 1 - DashboardFeed.perViewerEvents, "at most \(DashboardFeed.perViewerEvents) events held")
        withExtendedLifetime(stalled) {}
        feed.stop()
        XCTAssertEqual(feed.viewerCount, 0)
    }
}

final class PostgresDashboardServerTests: DashboardServerTests {
    override func makeDatabase() throws -> String { try TestPostgres.shared().makeDatabase("dashboard") }

    /// Two stations writing to one PostgreSQL: one dashboard shows both, and filters either.
    func testOneDashboardShowsEveryStationSharingTheDatabase() throws {
        try run("a1", receivers: ["Den"])
        try cell("a1", "Den", "control", .seamless, at: 0)
        let roomB = try LabStore(path: path, station: "room-b")
        try roomB.beginRun(LabRunSummary(id: "b1", startedAt: LabTestData.start.addingTimeInterval(50), state: .running, server: "http://y",
                                         receivers: ["Den"], cases: ["control"], pollIntervalMs: 250, cellsTotal: 1), leaseSeconds: 3600)
        let at = LabTestData.start.addingTimeInterval(50)
        try roomB.record(LabRunCell(runId: "b1", receiver: "Den", deviceId: nil, deviceClass: "apple-tv-4k", address: "10.0.0.2", caseId: "control",
                                    attempt: 1, startedAt: at, finishedAt: at.addingTimeInterval(12), url: "http://y/control",
                                    series: PlaybackSeries(playSentAt: at, pollIntervalMs: 250), requests: [],
                                    measurement: CellMeasurement(outcome: .failed, reason: "never played")), done: true)
        let grid = try JSONDecoder.dashboard.decode(DashboardGrid.self, from: Data(try get("/api/dashboard/grid").body.utf8))
        XCTAssertEqual(grid.receivers.map { "\($0.receiver) @ \($0.station ?? "-")" }, ["Den @ room-a", "Den @ room-b"], "a receiver is a name at a station")
        XCTAssertEqual(grid.cells.map(\.measured.verdict).sorted(), ["failed", "seamless"])
        let roomBOnly = try JSONDecoder.dashboard.decode(DashboardGrid.self, from: Data(try get("/api/dashboard/grid?station=room-b").body.utf8))
        XCTAssertEqual(roomBOnly.cells.map(\.measured.runId), ["b1"])
        XCTAssertEqual(((try json("/api/dashboard/runs?station=room-b")["runs"] as? [[String: Any]]) ?? []).compactMap { $0["id"] as? String }, ["b1"])
    }
}

extension JSONDecoder {
    static var dashboard: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let text = try decoder.singleValueContainer().decode(String.self)
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            guard let date = formatter.date(from: text) else { throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: text)) }
            return date
        }
        return decoder
    }
}

/// One server-sent-events viewer on a raw socket: reads what has arrived, on demand.
final class EventReader {
    let fd: Int32
    private(set) var text = ""

    init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var timeout = timeval(tv_sec: 0, tv_usec: 200_000)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var remote = sockaddr_in()
        remote.sin_family = sa_family_t(AF_INET)
        remote.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, "127.0.0.1", &remote.sin_addr)
        let connected = withUnsafePointer(to: &remote) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard connected == 0 else { throw LoopbackGet.Failed(description: "connect: errno \(errno)") }
        let request = Array("GET /api/dashboard/events HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nAccept: text/event-stream\r\n\r\n".utf8)
        _ = send(fd, request, request.count, 0)
    }

    /// Reads until `marker` has arrived or `seconds` passed.
    func read(until marker: String, seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        var chunk = [UInt8](repeating: 0, count: 65536)
        while !text.contains(marker), Date() < deadline {
            let count = recv(fd, &chunk, chunk.count, 0)
            if count > 0 { text += String(decoding: chunk[..<count], as: UTF8.self) } else if count == 0 { break }
        }
        return text.contains(marker)
    }

    func close() { Glibc.close(fd) }
}
