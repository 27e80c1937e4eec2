@testable import Compatibility
import Foundation
import HLS
import MediaProbe
import SeamcheckTestSupport
import XCTest

/// A cancelled playlist audit (Ctrl-C, a matrix case timeout) ends promptly with a cancellation,
/// never with a result whose findings were made up from cancelled fetches.
final class PlaylistAuditCancellationTests: XCTestCase {
    func testCancelledAuditThrowsInsteadOfReportingUnreachableAssets() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("seamcheck-cancel-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let server = try TestHTTPServer(root: root.path)
        defer { server.stop() }
        // The ads' playlists answer at once (so loading the presentation is quick); their media
        // segments take 20 s, so the cancellation lands while the audit probes a rendition.
        let stream = InterstitialStream(primary: Fixtures.primaryWithSegments, primaryCodecs: "avc1.64000d,mp4a.40.2", ads: [
            .init(id: "slow-1", source: nil, rawPath: "/files/slow-ad.m3u8", boundary: 1),
            .init(id: "slow-2", source: nil, rawPath: "/files/slow-ad.m3u8", boundary: 2),
        ])
        let playlist = try InputLocation(parsing: server.url(try stream.write(into: root, port: server.port)))
        try """
        #EXTM3U
        #EXT-X-TARGETDURATION:1
        #EXT-X-PLAYLIST-TYPE:VOD
        #EXT-X-MAP:URI="\(server.url("/slow/20/primary/init.mp4"))"
        #EXTINF:1.001,
        \(server.url("/slow/20/primary/seg0.m4s"))
        #EXT-X-ENDLIST
        """.write(to: root.appendingPathComponent("slow-ad.m3u8"), atomically: true, encoding: .utf8)
        let profiles = try ProfileLoader.loadDirectory(MediaFixture.packageRoot + "/DeviceProfiles")
        var options = PresentationLoader.Options()
        options.assetLimits.connectTimeout = 30
        options.assetLimits.totalTimeout = 30
        let auditor = PlaylistAuditor(loader: PresentationLoader(options: options))
        let task = Task { try await auditor.audit(playlist, profiles: profiles, session: ProbeSession()) }
        try await Task.sleep(nanoseconds: 2_000_000_000)
        let cancelledAt = Date()
        task.cancel()
        do {
            let result = try await task.value
            XCTFail("a cancelled audit must not return a result: \(result.findings.map(\.message))")
        } catch {
            XCTAssertEqual((error as? PlaylistAuditError)?.isCancellation, true, "ended by the cancel, not by a failure: \(error)")
            XCTAssertLessThan(Date().timeIntervalSince(cancelledAt), 5, "cancellation ends the audit promptly")
        }
    }
}
