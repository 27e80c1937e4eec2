import Foundation
import HLS
@testable import MediaProbe
import SeamcheckTestSupport
import XCTest

/// Probing over HTTP from a real server on 127.0.0.1.
final class HTTPProbeTests: XCTestCase {
    var root: URL!
    var server: TestHTTPServer!

    override func setUpWithError() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("seamcheck-http-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: try Fixtures.primary.path(), toPath: root.appendingPathComponent("moov-end.mp4").path)
        try FileManager.default.copyItem(atPath: try Fixtures.largeMoovAtEnd.path(), toPath: root.appendingPathComponent("large.mp4").path)
        let front = try Data(contentsOf: URL(fileURLWithPath: try Fixtures.faststart.path()))
        try front.write(to: root.appendingPathComponent("front.mp4"))
        try front.prefix(front.count / 2).write(to: root.appendingPathComponent("front-cut.mp4"))
        try Data((0..<50_000).map { _ in UInt8.random(in: 0...255) }).write(to: root.appendingPathComponent("noise.mp4"))
        server = try TestHTTPServer(root: root.path)
    }

    override func tearDownWithError() throws {
        server.stop()
        try? FileManager.default.removeItem(at: root)
    }

    func probe(_ path: String, timeout: Double = 15) throws(ProbeError) -> MediaDescription {
        try MediaProber(options: ProbeOptions(timeout: timeout)).probe(server.url(path))
    }

    func error(_ path: String, timeout: Double = 15) -> ProbeError? {
        do { _ = try probe(path, timeout: timeout); return nil } catch { return error }
    }

    func testRangeServerGivesTheSameDescriptionAsTheLocalFile() throws {
        var remote = try probe("/files/moov-end.mp4")
        let local = try MediaProber().probe(try Fixtures.primary.path())
        XCTAssertEqual(remote.input, server.url("/files/moov-end.mp4"))
        remote.input = local.input
        XCTAssertEqual(remote, local)
        XCTAssertTrue(try server.log().contains { $0.status == 206 }, "the moov at the end is reached with a Range request")
    }

    func testMoovAtEndWithoutRangeSupportIsIncompleteNotAResult() {
        let outcome = error("/norange/large.mp4")
        guard case .incomplete(let input, let missing) = outcome else {
            return XCTFail("a server that ignores Range must not yield a half-filled description: \(String(describing: outcome))")
        }
        XCTAssertEqual(input, server.url("/norange/large.mp4"))
        XCTAssertTrue(missing.contains("video #0 pixel format"), "\(missing)")
    }

    func testMoovAtFrontWorksWithoutRangeSupport() throws {
        XCTAssertEqual(try probe("/norange/front.mp4").primaryVideo?.codec, "h264")
    }

    func testNotFoundNamesTheURLAndTheStatus() {
        guard case .openFailed(let input, let reason) = error("/status/404") else { return XCTFail() }
        XCTAssertEqual(input, server.url("/status/404"))
        XCTAssertTrue(reason.contains("404"), reason)
    }

    func testConnectionRefused() throws {
        let closed = try TestHTTPServer(root: root.path)
        let url = closed.url("/files/front.mp4")
        closed.stop()
        guard case .openFailed(_, let reason) = probeError(url) else {
            return XCTFail("a closed port must fail to open")
        }
        XCTAssertTrue(reason.contains("refused"), reason)
    }

    func testSlowServerTimesOutAtTheConfiguredLimit() {
        let started = Date()
        XCTAssertEqual(error("/slow/30/front.mp4", timeout: 1), .timedOut(server.url("/slow/30/front.mp4"), seconds: 1))
        XCTAssertLessThan(Date().timeIntervalSince(started), 10, "the interrupt callback must stop the blocked read")
    }

    func testCancellingTheTaskStopsAProbeInFlight() async throws {
        let session = ProbeSession()
        let location = try InputLocation(parsing: server.url("/drip/0.5/front.mp4"))
        let task = Task { try await session.describe(location) }
        try await Task.sleep(nanoseconds: 300_000_000)
        let started = Date()
        task.cancel()
        do {
            _ = try await task.value
            XCTFail("a cancelled probe must not return a result")
        } catch {
            XCTAssertEqual(error as? ProbeError, .cancelled(location.description))
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 5)
    }

    func testACancelledCallerDoesNotCancelAProbeOthersWaitFor() async throws {
        let session = ProbeSession()
        let location = try InputLocation(parsing: server.url("/drip/0.0005/front.mp4"))
        let patient = Task { try await session.describe(location) }
        let impatient = Task { try await session.describe(location) }
        try await Task.sleep(nanoseconds: 200_000_000)
        let started = Date()
        impatient.cancel()
        do {
            _ = try await impatient.value
            XCTFail("the cancelled caller must not wait for the result")
        } catch {
            XCTAssertEqual(error as? ProbeError, .cancelled(location.description))
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 2)
        let media = try await patient.value
        XCTAssertEqual(media.primaryVideo?.codec, "h264", "the other caller still gets the probe")
        let performed = await session.probesPerformed
        XCTAssertEqual(performed, 1)
    }

    func testAProbeNobodyWaitsForIsStoppedAndProbedAgainLater() async throws {
        let session = ProbeSession()
        let location = try InputLocation(parsing: server.url("/drip/0.5/front.mp4"))
        let only = Task { try await session.describe(location) }
        try await Task.sleep(nanoseconds: 200_000_000)
        only.cancel()
        _ = try? await only.value
        let again = try InputLocation(parsing: server.url("/drip/0.5/front.mp4"))
        let retry = Task { try await session.describe(again) }
        try await Task.sleep(nanoseconds: 200_000_000)
        retry.cancel()
        _ = try? await retry.value
        let performed = await session.probesPerformed
        XCTAssertEqual(performed, 2, "the abandoned probe was forgotten, so the second request probed again")
    }

    func testTruncatedRemoteFileIsCaughtByContentLength() {
        guard case .truncated = error("/files/front-cut.mp4") else { return XCTFail("\(String(describing: error("/files/front-cut.mp4")))") }
    }

    func testRandomBytesOverHTTPAreNotMedia() {
        guard case .notMedia = error("/files/noise.mp4") else { return XCTFail() }
        guard case .notMedia = error("/html") else { return XCTFail("an HTML error page is not media") }
    }

    func testRedirectToALocalFileIsNeverFollowed() throws {
        let secret = root.appendingPathComponent("secret.mp4")
        try FileManager.default.copyItem(atPath: try Fixtures.primary.path(), toPath: secret.path)
        let path = "/goto?to=file://" + secret.path
        guard case .some(let failure) = error(path) else {
            return XCTFail("a remote input must not be probed through a redirect to file:")
        }
        if case .incomplete = failure { XCTFail("must fail to open, not half-open: \(failure)") }
        XCTAssertTrue(failure.description.contains(server.url("/goto")), failure.description)
    }

    private func probeError(_ url: String) -> ProbeError? {
        do { _ = try MediaProber().probe(url); return nil } catch { return error }
    }
}
