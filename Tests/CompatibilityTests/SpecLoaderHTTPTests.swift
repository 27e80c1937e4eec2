@testable import Compatibility
import Foundation
import HLS
import SeamcheckTestSupport
import XCTest

/// The loader and lint against a real HTTP server on 127.0.0.1 (Tests/Server/test_http_server.py).
final class SpecLoaderHTTPTests: XCTestCase {
    private var server: TestHTTPServer!
    private var root: String!

    override func setUpWithError() throws {
        root = NSTemporaryDirectory() + "seamcheck-hls-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        server = try TestHTTPServer(root: root, lifetime: 300)
        let files = url("/files")
        try write("master.m3u8", """
            #EXTM3U
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="a",NAME="en",LANGUAGE="en",DEFAULT=YES,AUTOSELECT=YES,URI="audio.m3u8"
            #EXT-X-STREAM-INF:BANDWIDTH=1000000,AUDIO="a"
            main.m3u8
            """)
        try write("main.m3u8", SpecPlaylist.media(
            SpecPlaylist.interstitial("ad1", "DURATION=15,X-ASSET-URI=\"\(files)/ad1.m3u8\",X-RESUME-OFFSET=0"),
            SpecPlaylist.interstitial("ad2", "DURATION=20,X-ASSET-LIST=\"list.json\"")))
        try write("audio.m3u8", SpecPlaylist.media(SpecPlaylist.interstitial("ad1", "DURATION=15,X-ASSET-URI=\"\(files)/ad1.m3u8\",X-RESUME-OFFSET=0")))
        try write("ad1.m3u8", SpecPlaylist.asset(seconds: 15))
        try write("live.m3u8", SpecPlaylist.asset(seconds: 10, vod: false))
        try write("list.json", "{\"ASSETS\": [{\"URI\": \"\(files)/ad1.m3u8\", \"DURATION\": 15}, {\"URI\": \"\(files)/live.m3u8\", \"DURATION\": 10}]}")
        try write("notjson.json", "ASSETS=ad1.m3u8\n")
        try write("evil.m3u8", "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\nfile:///etc/passwd\n")
        try write("evil-assets.m3u8", SpecPlaylist.media(SpecPlaylist.interstitial("x", "X-ASSET-LIST=\"file:///etc/hostname\"")))
        try write("badlist.m3u8", SpecPlaylist.media(SpecPlaylist.interstitial("ad9", "X-ASSET-LIST=\"notjson.json\"")))
        try write("slowasset.m3u8", SpecPlaylist.media(SpecPlaylist.interstitial("ad1", "X-ASSET-URI=\"\(url("/slow/3/ad1.m3u8"))\"")))
    }

    override func tearDownWithError() throws {
        server.stop()
        try? FileManager.default.removeItem(atPath: root)
    }

    private func url(_ path: String) -> String { server.url(path) }
    private func write(_ name: String, _ text: String) throws { try text.write(toFile: root + "/" + name, atomically: true, encoding: .utf8) }
    private func location(_ path: String) -> InputLocation { .remote(URL(string: url(path))!) }

    private func loader(connect: Double = 5, total: Double = 10, assets: Double = 10, redirects: Int = 5) -> PresentationLoader {
        var options = PresentationLoader.Options()
        options.playlistLimits = FetchLimits(maxBytes: FetchLimits.playlistBytes, connectTimeout: connect, totalTimeout: total, maxRedirects: redirects)
        options.assetLimits = FetchLimits(maxBytes: FetchLimits.assetListBytes, connectTimeout: assets, totalTimeout: assets, maxRedirects: redirects)
        options.assetLimits.timeLimit = .interstitial
        return PresentationLoader(options: options)
    }

    private func loadError(_ path: String, _ loader: PresentationLoader) async -> LoadError? {
        do { _ = try await loader.load(location(path)); return nil } catch { return error }
    }

    func testRedirectsAreFollowedAndReferencesResolveAgainstTheFinalURL() async throws {
        let presentation = try await loader().load(location("/redirect/3/master.m3u8"))
        XCTAssertEqual(presentation.location.description, url("/files/master.m3u8"))
        XCTAssertEqual(presentation.mediaPlaylists.map(\.location.description), [url("/files/main.m3u8"), url("/files/audio.m3u8")])
        XCTAssertEqual(presentation.mediaFailures.count, 0)
    }

    func testRedirectLoopAndTooManyRedirectsAreErrorsNamingTheURL() async {
        let loop = await loadError("/loop", loader())
        XCTAssertEqual(loop, .redirectLoop(url("/loop")))
        XCTAssertTrue(loop?.description.contains("redirect loop") ?? false)
        let many = await loadError("/redirect/4/main.m3u8", loader(redirects: 2))
        XCTAssertEqual(many, .tooManyRedirects(url("/redirect/4/main.m3u8"), limit: 2))
        let empty = await loadError("/goto?to=", loader())
        XCTAssertEqual(empty, .badRedirect(url("/goto?to="), location: ""))
    }

    func testTheHeaderTimeoutCountsPerRedirectHop() async throws {
        // Each server answers within 0.8 s of being asked; together they take 1.6 s. The 1.2 s
        // header timeout is per hop, the 10 s total timeout is for all of them.
        let target = url("/slow/0.8/main.m3u8").addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let presentation = try await loader(connect: 1.2, total: 10).load(location("/goto?wait=0.8&to=\(target)"))
        XCTAssertEqual(presentation.location.description, url("/slow/0.8/main.m3u8"))
        // A hop that does not answer is named, not the URL asked first.
        let silent = url("/slow/5/main.m3u8").addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let error = await loadError("/goto?to=\(silent)", loader(connect: 1, total: 10))
        XCTAssertEqual(error, .noResponse(url("/slow/5/main.m3u8"), seconds: 1))
    }

    func testHTTPStatusErrors() async {
        let missing = await loadError("/files/missing.m3u8", loader())
        XCTAssertEqual(missing, .httpStatus(url("/files/missing.m3u8"), code: 404))
        XCTAssertTrue(missing?.description.contains("HTTP 404") ?? false)
        let failing = await loadError("/status/503", loader())
        XCTAssertEqual(failing, .httpStatus(url("/status/503"), code: 503))
    }

    func testAServerThatNeverAnswersTimesOutInsteadOfHanging() async {
        let start = Date()
        let error = await loadError("/slow/20/main.m3u8", loader(connect: 1, total: 10))
        XCTAssertEqual(error, .noResponse(url("/slow/20/main.m3u8"), seconds: 1))
        XCTAssertLessThan(Date().timeIntervalSince(start), 5)
    }

    func testADrippingServerHitsTheTotalTimeout() async {
        let start = Date()
        let error = await loadError("/drip/0.2/main.m3u8", loader(connect: 5, total: 1.5))
        XCTAssertEqual(error, .timedOut(url("/drip/0.2/main.m3u8"), seconds: 1.5))
        XCTAssertLessThan(Date().timeIntervalSince(start), 5)
    }

    func testAFetchStartedByAnAlreadyCancelledTaskEndsAtOnce() async throws {
        let loader = loader(connect: 20, total: 20)
        let location = try InputLocation(parsing: url("/slow/20/main.m3u8"))
        let started = Date()
        let task = Task { () -> LoadError? in
            withUnsafeCurrentTask { $0?.cancel() }
            do { _ = try await loader.load(location); return nil } catch { return error as? LoadError }
        }
        let error = await task.value
        XCTAssertEqual(error, .cancelled(url("/slow/20/main.m3u8")), "a cancelled fetch is cancelled, not failed")
        XCTAssertLessThan(Date().timeIntervalSince(started), 3, "no waiting for the server's 20 s")
    }

    func testATwoGigabyteResponseIsStoppedAtTheHeadersNotBuffered() async throws {
        let start = Date()
        let error = await loadError("/huge/2147483648", loader())
        XCTAssertEqual(error, .tooLarge(url("/huge/2147483648"), limit: FetchLimits.playlistBytes))
        XCTAssertLessThan(Date().timeIntervalSince(start), 5)
        // The Content-Length alone stops it: what the server got out is what loopback socket
        // buffers took before the connection closed (about 4 MB at most), not the body.
        let sent = try await bytesSent(to: "/huge")
        XCTAssertLessThan(sent, 64 << 20, "the transfer must be stopped at the headers, not read on")
    }

    func testABodyWithoutALengthIsStoppedOnceItPassesTheLimit() async throws {
        let error = await loadError("/endless", loader())
        XCTAssertEqual(error, .tooLarge(url("/endless"), limit: FetchLimits.playlistBytes))
        let sent = try await bytesSent(to: "/endless")
        XCTAssertGreaterThanOrEqual(sent, FetchLimits.playlistBytes, "the limit is counted on the bytes received")
        XCTAssertLessThan(sent, FetchLimits.playlistBytes + (64 << 20), "and the transfer stops right there")
    }

    func testAGzipPlaylistIsDecodedAndItsReferencesResolve() async throws {
        let presentation = try await loader().load(location("/gzip/main.m3u8"))
        XCTAssertEqual(presentation.mediaPlaylists.count, 1)
        XCTAssertTrue(presentation.mediaFailures.isEmpty)
        // The relative X-ASSET-LIST resolves under /gzip/ and is decoded too.
        guard case .loaded(let list, _, _)? = presentation.assetLists[url("/gzip/list.json")] else {
            return XCTFail("asset list not loaded: \(presentation.assetLists)")
        }
        XCTAssertEqual(list.assets.count, 2)
    }

    /// Bytes the server wrote for requests under `prefix`, once its handler has seen the close.
    private func bytesSent(to prefix: String) async throws -> Int {
        for _ in 0..<50 {
            let entries = try server.log().filter { $0.path.hasPrefix(prefix) }
            if !entries.isEmpty { return entries.map(\.bytes).reduce(0, +) }
            try await Task.sleep(nanoseconds: 100_000_000)
        }
        XCTFail("the server never logged the end of \(prefix)")
        return 0
    }

    func testAnUnreachableAdHostIsAskedOnceNotOncePerAd() async throws {
        // Twelve ads on a host where nothing listens: at most `concurrency` (4) requests reach it,
        // every other ad fails at once with the first failure's reason.
        let dead = "http://127.0.0.1:\(try LoopbackPorts.closed())"
        try write("dead-ads.m3u8", SpecPlaylist.media((0..<12).map {
            SpecPlaylist.interstitial("ad\($0)", "DURATION=15,X-ASSET-URI=\"\(dead)/ad\($0).m3u8\"")
        }.joined(separator: "\n")))
        let presentation = try await loader().load(location("/files/dead-ads.m3u8"))
        let failures = (0..<12).compactMap { n -> LoadError? in
            guard case .failed(let error)? = presentation.assets["\(dead)/ad\(n).m3u8"] else { return nil }
            return error
        }
        XCTAssertEqual(failures.count, 12, "\(presentation.assets)")
        let unreachable = failures.filter { if case .hostUnreachable = $0 { return true } else { return false } }
        XCTAssertEqual(unreachable.count, 12, "\(failures)")
        let remembered = failures.filter { $0.description.contains("not asked again") }
        XCTAssertGreaterThanOrEqual(remembered.count, 8, "\(failures.map(\.description))")
        XCTAssertTrue(failures.allSatisfy { $0.description.contains("cannot connect") }, "\(failures.map(\.description))")
    }

    func testARedirectToADeadHostMarksThatHostNotTheOneThatRedirected() async throws {
        let dead = "http://127.0.0.1:\(try LoopbackPorts.closed())/ad.m3u8"
        let hop = "/goto?to=" + dead.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        try write("redirect-dead.m3u8", SpecPlaylist.media(
            SpecPlaylist.interstitial("ad1", "DURATION=15,X-ASSET-URI=\"\(url(hop))\""),
            SpecPlaylist.interstitial("ad2", "DURATION=15,X-ASSET-URI=\"\(url("/files/ad1.m3u8"))\"", start: "2020-01-02T21:55:50.000Z")))
        var options = PresentationLoader.Options()
        options.concurrency = 1  // ad1 fails before ad2 is asked
        let presentation = try await PresentationLoader(options: options).load(location("/files/redirect-dead.m3u8"))
        guard case .failed(.hostUnreachable(let subject, _))? = presentation.assets[url(hop)] else {
            return XCTFail("\(String(describing: presentation.assets[url(hop)]))")
        }
        XCTAssertEqual(subject, dead)
        guard case .loaded? = presentation.assets[url("/files/ad1.m3u8")] else {
            return XCTFail("the server that redirected still answers: \(String(describing: presentation.assets[url("/files/ad1.m3u8")]))")
        }
    }

    func testAHostThatNeverTakesTheConnectionIsUnreachableNotSilent() async throws {
        let blackhole = try LoopbackBlackhole()
        let target = "http://127.0.0.1:\(blackhole.port)/main.m3u8"
        let started = Date()
        var error: LoadError?
        do { _ = try await loader(connect: 1, total: 10).load(.remote(URL(string: target)!)) } catch let failure { error = failure }
        XCTAssertEqual(error, .hostUnreachable(target, reason: "no connection within 1 s (--timeout)"))
        XCTAssertLessThan(Date().timeIntervalSince(started), 5)
        // A server that takes the connection and stays silent is another thing.
        let silent = await loadError("/slow/5/main.m3u8", loader(connect: 1, total: 10))
        XCTAssertEqual(silent, .noResponse(url("/slow/5/main.m3u8"), seconds: 1))
    }

    func testAnHTMLPageIsNotAPlaylist() async {
        let error = await loadError("/html", loader())
        XCTAssertEqual(error, .notAPlaylist(url("/html"), .html))
        XCTAssertTrue(error?.description.contains("HTML page") ?? false)
    }

    func testARemotePlaylistNeverLeadsToReadingALocalFile() async throws {
        // A file: variant is refused and is a finding of that variant (media-playlist-unreachable), not the end of the load.
        let evil = try await loader().load(location("/files/evil.m3u8"))
        XCTAssertEqual(evil.mediaFailures.map(\.error), [.localReferenceFromRemote(reference: "file:///etc/passwd", playlist: url("/files/evil.m3u8"))])
        XCTAssertEqual(SpecLinter.lint(evil).filter { $0.rule == "media-playlist-unreachable" }.count, 1)
        let presentation = try await loader().load(location("/files/evil-assets.m3u8"))
        XCTAssertTrue(presentation.assetLists.isEmpty, "the file: asset list is never fetched")
        let findings = SpecLinter.lint(presentation).filter { $0.rule == "asset-unreachable" }
        XCTAssertEqual(findings.count, 1)
        XCTAssertTrue(findings[0].message.contains("refused"), findings[0].message)
    }

    func testLintOverHTTPFetchesPlaylistsAndAssetListsButNeverMedia() async throws {
        try server.resetLog()
        let presentation = try await loader().load(location("/files/master.m3u8"))
        let findings = SpecLinter.lint(presentation)
        let rules = Set(findings.map(\.rule))
        XCTAssertEqual(rules, ["interstitial-not-vod", "interstitial-duration-mismatch", "daterange-inconsistent-across-renditions"],
                       "\(findings.map { "\($0.rule): \($0.subject): \($0.message)" })")
        let notVOD = try XCTUnwrap(findings.first { $0.rule == "interstitial-not-vod" })
        XCTAssertEqual(notVOD.subject, "EXT-X-DATERANGE ID=\"ad2\" (line 16) in main.m3u8")
        XCTAssertTrue(notVOD.message.contains(url("/files/live.m3u8")), notVOD.message)
        let duration = try XCTUnwrap(findings.first { $0.rule == "interstitial-duration-mismatch" })
        XCTAssertEqual(duration.expected, "DURATION=25")
        let requested = try server.log().map(\.path)
        XCTAssertFalse(requested.contains { $0.hasSuffix(".ts") }, "\(requested)")
        XCTAssertTrue(requested.contains("/files/list.json"))
    }

    func testAnAssetListThatIsNotJSONIsAFindingNamingTheURL() async throws {
        let presentation = try await loader().load(location("/files/badlist.m3u8"))
        let findings = SpecLinter.lint(presentation)
        XCTAssertEqual(findings.map(\.rule), ["asset-list-invalid"])
        XCTAssertTrue(findings[0].message.contains(url("/files/notjson.json")), findings[0].message)
        XCTAssertTrue(findings[0].message.contains("is not JSON"), findings[0].message)
    }

    func testASlowAssetIsReportedAsUnreachable() async throws {
        let presentation = try await loader(assets: 1).load(location("/files/slowasset.m3u8"))
        let findings = SpecLinter.lint(presentation)
        XCTAssertEqual(findings.map(\.rule), ["asset-unreachable"])
        XCTAssertEqual(findings.first?.severity, .warning)
        // The hint names the interstitial limit as the one that fired, and --timeout as not changing it.
        let message = findings.first?.message ?? ""
        XCTAssertTrue(message.contains("no answer within 1 s (the time players wait for an interstitial before skipping it)"), message)
        XCTAssertTrue(message.contains("--timeout does not change that"), message)
    }
}
