import Foundation
import Logging
import Hummingbird
import XCTest
@testable import LabCore
@testable import LabRun
@testable import LabServer

/// `lab serve` keeps the playlists it rewrites (origin filled in, a live case's window) ready per
/// file, origin and window step: what it serves from there is what it would make afresh, it moves
/// with the window and with the file, and a burst of playlist requests is logged request by request.
final class PlaylistCacheTests: XCTestCase {
    static let liveCase = LabLiveWindowTests.caseId

    func startServer(clock: TestClock, database: String) async throws -> (LabRunServer, LabStore) {
        _ = try await LabStreamsGenerator(scale: .small).generate(output: LabStreamsTests.folder)
        let suite = try LabSuite.load(LabStreamsTests.folder)
        let store = try LabStore(path: database)
        var options = LabServerOptions(bind: "127.0.0.1", port: 0, suite: suite, profiles: [], browse: false)
        options.askInfo = false
        options.clock = { clock.now }
        return (try await LabRunServer.start(options, store: store, logger: Logger(label: "test")), store)
    }

    func testACachedLiveWindowChangesWhenTheWindowStepsAndOnlyThen() async throws {
        let database = LabTestData.temporaryDatabase()
        defer { try? FileManager.default.removeItem(atPath: database) }
        let clock = TestClock(Date(timeIntervalSince1970: 1_900_000_000))
        let (server, _) = try await startServer(clock: clock, database: database)
        let base = "/cases/\(Self.liveCase)/"
        func get(_ path: String) throws -> LoopbackGet.Response { try LoopbackGet.fetch(port: server.port, path: path, from: "127.0.0.1") }
        do {
            XCTAssertEqual(try get(base + "master.m3u8").status, 200)
            let first = try get(base + "primary.m3u8")
            XCTAssertEqual(first.sequence, 1)
            // Within the segment (2.002 s): the same step, the same bytes.
            clock.advance(1.0)
            XCTAssertEqual(try get(base + "primary.m3u8").body, first.body)
            clock.advance(1.0)
            XCTAssertEqual(try get(base + "primary.m3u8").body, first.body)
            // The edge passes the segment's end: the next step, made from the template.
            clock.advance(0.002)
            let second = try get(base + "primary.m3u8")
            XCTAssertEqual(second.sequence, 2)
            XCTAssertNotEqual(second.body, first.body)
            XCTAssertEqual(second.segments, ["primary/seg_002.m4s", "primary/seg_003.m4s", "primary/seg_004.m4s"])
            // A new join goes back to the first step: the cached one, byte for byte.
            XCTAssertEqual(try get(base + "master.m3u8").status, 200)
            XCTAssertEqual(try get(base + "primary.m3u8").body, first.body)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    func testABurstOfPlaylistRequestsIsAllInTheLog() async throws {
        let database = LabTestData.temporaryDatabase()
        defer { try? FileManager.default.removeItem(atPath: database) }
        let clock = TestClock(Date(timeIntervalSince1970: 1_900_000_000))
        let (server, store) = try await startServer(clock: clock, database: database)
        let suite = try LabSuite.load(LabStreamsTests.folder)
        // Every case's multivariant playlist, and the live case's window: templates and live windows.
        let paths = suite.manifest.cases.map { "/cases/\($0.id)/master.m3u8" } + ["/cases/\(Self.liveCase)/primary.m3u8"]
        let workers = 8, each = 60
        let port = server.port
        let statuses: [[Int]] = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                let results = ResultSlots(workers)
                DispatchQueue.concurrentPerform(iterations: workers) { worker in
                    results.set(worker, (0..<each).map { n in
                        (try? LoopbackGet.fetch(port: port, path: paths[(worker * each + n) % paths.count], from: "127.0.0.1").status) ?? 0
                    })
                }
                continuation.resume(returning: results.values)
            }
        }
        await server.stop()
        XCTAssertEqual(statuses.flatMap { $0 }.filter { $0 != 200 }, [], "every request answered")
        let logged = try store.requests().filter { $0.path.hasSuffix(".m3u8") }
        XCTAssertEqual(logged.count, workers * each, "each request logged once")
        var sent: [String: Int] = [:], found: [String: Int] = [:]
        for worker in 0..<workers { for n in 0..<each { sent[paths[(worker * each + n) % paths.count], default: 0] += 1 } }
        for record in logged { found[record.path, default: 0] += 1 }
        XCTAssertEqual(found, sent)
        XCTAssertTrue(logged.allSatisfy { $0.status == 200 && $0.completed == true && $0.bytes > 0 })
    }

    /// A template rewritten on disk is read again: the cache never serves the old file.
    func testAChangedTemplateIsReadAgain() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("seamcheck-template-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("master.m3u8").path
        try "#EXTM3U\nhttp://{O}/a.m3u8\n".write(toFile: file, atomically: true, encoding: .utf8)
        let cache = TemplateCache()
        func body(_ origin: String) -> String? {
            cache.body(of: file, placeholder: "http://{O}", limit: 1 << 20, origin: origin).map { String(buffer: $0) }
        }
        XCTAssertEqual(body("http://127.0.0.1:1"), "#EXTM3U\nhttp://127.0.0.1:1/a.m3u8\n")
        XCTAssertEqual(body("http://127.0.0.1:2"), "#EXTM3U\nhttp://127.0.0.1:2/a.m3u8\n", "per origin")
        XCTAssertEqual(body("http://127.0.0.1:1"), "#EXTM3U\nhttp://127.0.0.1:1/a.m3u8\n")
        try "#EXTM3U\nhttp://{O}/b.m3u8\n#EXT-X-ENDLIST\n".write(toFile: file, atomically: true, encoding: .utf8)
        XCTAssertEqual(body("http://127.0.0.1:1"), "#EXTM3U\nhttp://127.0.0.1:1/b.m3u8\n#EXT-X-ENDLIST\n")
        XCTAssertNil(cache.body(of: folder.path, placeholder: "x", limit: 1 << 20, origin: "o"), "a folder is not a template")
        XCTAssertNil(cache.body(of: file, placeholder: "x", limit: 8, origin: "o"), "over the limit")
    }
}

/// One slot per worker, written by that worker only.
private final class ResultSlots: @unchecked Sendable {
    private let lock = NSLock()
    private var slots: [[Int]]
    init(_ count: Int) { slots = Array(repeating: [], count: count) }
    func set(_ index: Int, _ value: [Int]) { lock.withLock { slots[index] = value } }
    var values: [[Int]] { lock.withLock { slots } }
}
