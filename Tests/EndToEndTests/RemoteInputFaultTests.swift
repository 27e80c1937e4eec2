import Foundation
import SeamcheckTestSupport
import XCTest

/// Faults a remote playlist can carry beyond the status codes: references to local files (direct,
/// through a redirect, as segments and init sections), playlists that change between two
/// fetches, and AES-128 keys that are missing or the wrong length. Each is a finding on that
/// part; no local file is ever read; the rest is audited.
final class RemoteInputFaultTests: ServedStreamTestCase {
    static let stream = InterstitialStream(primary: Fixtures.primaryWithSegments, primaryCodecs: "avc1.64000d,mp4a.40.2",
                                           ads: [.init(id: "ad-match", source: Fixtures.matching, boundary: 1)])

    /// A 4:3, 25 fps rendition on the local disk, outside what the server serves: if any of it
    /// were read, its 240x180 picture would show up in the output.
    func writeCanary() throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("seamcheck-realworld-canary-\(UUID().uuidString)")
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        try InterstitialStream.copyRendition(HLSFixture(name: "canary", source: Fixtures.fourByThree, segmentType: .fmp4), to: folder)
        try "{\"ASSETS\": [{\"URI\": \"file://\(folder.path)/index.m3u8\", \"DURATION\": 1.001}]}"
            .write(to: folder.appendingPathComponent("list.json"), atomically: true, encoding: .utf8)
        return folder.path
    }

    func testARemotePlaylistNeverLeadsToALocalFile() throws {
        let canary = try writeCanary()
        let path = try Self.stream.write(into: root, port: server.port)
        // Variants that point at the disk, directly, through a redirect, and through their segments
        // and init section; the preferred ones first, so that every class would try them.
        let local = try read("primary/index.m3u8").replacingOccurrences(of: "URI=\"init.mp4\"", with: "URI=\"file://\(canary)/init.mp4\"")
            .replacingOccurrences(of: "\nseg", with: "\nfile://\(canary)/seg")
        try write(local, to: "primary/local-segments.m3u8")
        var main = try read("primary/main.m3u8")
        let codecs = "CODECS=\"avc1.64000d,mp4a.40.2\",RESOLUTION=320x180"
        main += "#EXT-X-STREAM-INF:BANDWIDTH=3000000,\(codecs)\nfile://\(canary)/index.m3u8\n"
            + "#EXT-X-STREAM-INF:BANDWIDTH=2000000,\(codecs)\n/goto?to=file://\(canary)/index.m3u8\n"
            + "#EXT-X-STREAM-INF:BANDWIDTH=1000000,\(codecs)\nlocal-segments.m3u8\n"
        try write(main, to: "primary/main.m3u8")
        // Interstitials that point at the disk: an asset, and an asset list behind a redirect.
        let media = try read("primary/index.m3u8")
        let pdt = "#EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:00.000Z\n"
        try write(media.replacingOccurrences(of: pdt, with: pdt
            + "#EXT-X-DATERANGE:ID=\"local-asset\",CLASS=\"com.apple.hls.interstitial\",START-DATE=\"2026-01-01T00:00:02.002Z\",DURATION=1.001,X-ASSET-URI=\"file://\(canary)/index.m3u8\"\n"
            + "#EXT-X-DATERANGE:ID=\"local-list\",CLASS=\"com.apple.hls.interstitial\",START-DATE=\"2026-01-01T00:00:03.003Z\",DURATION=1.001,X-ASSET-LIST=\"\(server.url("/goto?to=file://\(canary)/list.json"))\"\n"),
            to: "primary/index.m3u8")

        for command in ["inspect", "lint", "audit"] {
            let result = try SeamcheckBinary.run([command, server.url(path), "--format", "json"])
            XCTAssertNotEqual(result.status, 2, "\(command): the input itself is fine: \(result.stderr)")
            let compact = result.stdout.replacingOccurrences(of: " ", with: "")
            XCTAssertFalse(compact.contains("\"width\":240") || compact.contains("240x180"), "\(command) read the local rendition: \(result.stdout)")
        }
        let lint = try run("lint", [server.url(path)])
        let refused = lint.findings("media-playlist-unreachable").map { lint.string($0, "actual") }
        XCTAssertEqual(refused.count, 2, "\(lint.findings)")
        XCTAssertTrue(refused[0].contains("refused") && refused[0].contains("local file"), "\(refused)")
        XCTAssertTrue(refused[1].contains("redirected to file://"), "\(refused)")
        let assets = lint.findings("asset-unreachable").map { lint.string($0, "subject") + " " + lint.string($0, "actual") }
        XCTAssertEqual(assets.count, 2, "\(lint.findings)")
        XCTAssertTrue(assets.contains { $0.contains("local-asset") && $0.contains("local file") }, "\(assets)")
        XCTAssertTrue(assets.contains { $0.contains("local-list") && $0.contains("redirected to file://") }, "\(assets)")

        let audit = try run("audit", [server.url(path), "--profile", "smart-tv-low-end"])
        XCTAssertEqual(audit.status, 1, "media-playlist-unreachable is an error")
        XCTAssertEqual(audit.selections("primary")["smart-tv-low-end"], [server.url("/files/primary/index.m3u8")],
                       "the class fails over past the local variants and the one whose segments are local")
        let failover = audit.findings("media-not-probed").map { audit.string($0, "message") }
        XCTAssertEqual(failover.count, 1, "\(audit.findings)")
        XCTAssertTrue(failover[0].contains("local-segments.m3u8") && failover[0].contains("refused"), "\(failover)")
        XCTAssertEqual(audit.findings("aspect-ratio-mismatch").count + audit.findings("frame-rate-mismatch").count, 0, "\(audit.findings)")
    }

    func testAPlaylistThatChangesBetweenFetchesIsAuditedFromOneSnapshot() throws {
        let path = try Self.stream.write(into: root, port: server.port)
        // The second body of the primary's media playlist: a 25 fps re-encode (its own segments)
        // that schedules a 25 fps ad. Either body alone is consistent: no transition finding.
        let fps25 = MediaFixture.clip("h264-25-aac48-2s-gop25", duration: 2, video: {
            var v = MediaFixture.Video()
            v.rate = "25"
            v.extra = ["-g", "25", "-keyint_min", "25"]
            return v
        }())
        try InterstitialStream.copyRendition(HLSFixture(name: "primary-25", source: fps25, segmentType: .fmp4),
                                             to: root.appendingPathComponent("primary-25"))
        let adTags = try InterstitialStream.dateRanges(for: [.init(id: "ad-25fps", source: Fixtures.fps25, boundary: 1)],
                                                       boundaries: try InterstitialStream.segmentBoundaries(root.appendingPathComponent("primary-25/index.m3u8")),
                                                       root: root, port: server.port)
        try InterstitialStream.insert(["#EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:00.000Z"] + adTags,
                                      beforeFirstSegmentOf: root.appendingPathComponent("primary-25/index.m3u8"))
        try write(try read("primary-25/index.m3u8").replacingOccurrences(of: "\nseg", with: "\n../primary-25/seg")
            .replacingOccurrences(of: "URI=\"init.mp4\"", with: "URI=\"../primary-25/init.mp4\""), to: "primary/index.m3u8.next")
        // No FRAME-RATE: it would be right for one body only.
        try write(try read("primary/main.m3u8").replacingOccurrences(of: "\nindex.m3u8", with: "\n" + server.url("/flip/primary/index.m3u8"))
            .replacingOccurrences(of: ",FRAME-RATE=29.970", with: ""), to: "primary/main.m3u8")

        for (run, ad, rate) in [(1, "ad-match", 29.97), (2, "ad-25fps", 25.0)] {
            try server.resetLog()
            if run == 2 { _ = try server.get("/flip/primary/index.m3u8") }  // the audit's first fetch gets the second body
            let audit = try self.run("audit", [server.url(path), "--profile", "smart-tv-low-end"])
            let primary = audit.assets.first { $0["role"] as? String == "primary" }
            let probedRate = ((((primary?["media"] as? [String: Any])?["video"] as? [[String: Any]])?.first)?["frameRate"] as? Double) ?? 0
            // The audit fetches the flipping playlist once (run 2's first fetch is the test's own).
            XCTAssertEqual(try server.log().filter({ $0.path == "/flip/primary/index.m3u8" }).count, run, "run \(run)")
            XCTAssertEqual(probedRate, rate, accuracy: 0.01, "run \(run)")
            XCTAssertEqual(audit.assets.compactMap { ($0["placement"] as? [String: Any])?["id"] as? String }, [ad], "run \(run)")
            XCTAssertEqual(audit.findings.count, 0, "run \(run): schedule and probe come from one body: \(audit.findings)")
        }
    }

    func testAMultivariantPlaylistThatChangesBetweenFetchesIsReadOnce() throws {
        try Self.stream.write(into: root, port: server.port)
        // The second body offers another variant set: the byte-range cut of the same primary.
        try InterstitialStream.copyRendition(HLSFixture(name: "primary", source: Fixtures.primaryWithSegments, segmentType: .fmp4, singleFile: true),
                                             to: root.appendingPathComponent("primary-single"))
        try write(try read("primary/main.m3u8").replacingOccurrences(of: "\nindex.m3u8", with: "\n../primary-single/index.m3u8"),
                  to: "primary/main.m3u8.next")
        for (run, variant) in [(1, "/flip/primary/index.m3u8"), (2, "/flip/primary-single/index.m3u8")] {
            try server.resetLog()
            if run == 2 { _ = try server.get("/flip/primary/main.m3u8") }
            let audit = try self.run("audit", [server.url("/flip/primary/main.m3u8"), "--profile", "smart-tv-low-end"])
            XCTAssertEqual(audit.status, 0, "run \(run): \(audit.findings)")
            XCTAssertEqual(audit.selections("primary")["smart-tv-low-end"], [server.url(variant)], "run \(run)")
            XCTAssertEqual(try server.log().filter { $0.path == "/flip/primary/main.m3u8" }.count, run, "run \(run): one fetch of the multivariant playlist")
        }
    }

    func testAKeyThatIsMissingOrTheWrongLengthIsAFindingOnThatAd() throws {
        let stream = InterstitialStream(primary: Fixtures.primaryWithSegments, primaryCodecs: "avc1.64000d,mp4a.40.2",
                                        ads: [.init(id: "ad-match", source: Fixtures.matching, boundary: 1),
                                              .init(id: "aes-ok", source: nil, rawPath: "/files/aes/index.m3u8", boundary: 2),
                                              .init(id: "aes-gone", source: nil, rawPath: "/files/aes/gone.m3u8", boundary: 3),
                                              .init(id: "aes-short", source: nil, rawPath: "/files/aes/short.m3u8", boundary: 4)])
        let path = try stream.write(into: root, port: server.port)
        try EncryptedRendition.write(into: root.appendingPathComponent("aes").path)
        let text = try read("aes/index.m3u8")
        try write(text.replacingOccurrences(of: "key.bin", with: "gone.bin"), to: "aes/gone.m3u8")
        try Data(repeating: 0x42, count: 7).write(to: root.appendingPathComponent("aes/short.bin"))
        try write(text.replacingOccurrences(of: "key.bin", with: "short.bin"), to: "aes/short.m3u8")

        let audit = try run("audit", [server.url(path), "--profile", "smart-tv-low-end"])
        XCTAssertEqual(audit.status, 1, "\(audit.findings)")
        // The ad whose key loads is decrypted and probed: its mono tone is a channel-layout change (an error here).
        XCTAssertEqual(audit.findings("channel-layout-mismatch").compactMap { ($0["subject"] as? String)?.components(separatedBy: " (").first },
                       ["interstitial 2"], "\(audit.findings)")
        let notProbed = audit.findings("media-not-probed").filter { !($0["deviceClass"] is NSNull) }
        XCTAssertEqual(notProbed.compactMap { ($0["subject"] as? String)?.components(separatedBy: " (").first },
                       ["interstitial 3", "interstitial 4"], "\(audit.findings)")
        // Nothing of either ad can be read: each is also an error of its own (NothingReadTests).
        let unread = audit.findings("media-not-probed").filter { $0["deviceClass"] is NSNull }
        XCTAssertEqual(unread.compactMap { ($0["subject"] as? String)?.components(separatedBy: " (").first },
                       ["interstitial 3", "interstitial 4"], "\(audit.findings)")
        XCTAssertEqual(Set(unread.compactMap { $0["severity"] as? String }), ["error"])
        XCTAssertTrue(audit.string(notProbed[0], "actual").contains(server.url("/files/aes/gone.bin")), "\(notProbed)")
        XCTAssertTrue(audit.string(notProbed[0], "actual").contains("404"), "\(notProbed)")
        XCTAssertTrue(audit.string(notProbed[1], "actual").contains("the AES-128 key at \(server.url("/files/aes/short.bin")) is 7 bytes, not 16"),
                      "\(notProbed)")
        // Catalog v3: the AES-128 MPEG-TS ads against the clear fMP4 primary are encryption changes,
        // read from their playlists whether or not their key loads; the probed one is also a container
        // change, and its one 2 s segment runs past the primary's 1 s target duration.
        XCTAssertEqual(audit.findings("encryption-change").compactMap { ($0["subject"] as? String)?.components(separatedBy: " (").first },
                       ["interstitial 2", "interstitial 3", "interstitial 4"], "\(audit.findings)")
        XCTAssertEqual(audit.findings("container-change").count, 1, "\(audit.findings)")
        XCTAssertEqual(audit.findings("segment-duration-change").count, 1, "\(audit.findings)")
        XCTAssertEqual(audit.findings.count, 10, "media-not-probed per class and per asset, the v3 changes; nothing else: \(audit.findings)")
        let probed = audit.assets.first { ($0["placement"] as? [String: Any])?["id"] as? String == "aes-ok" }
        XCTAssertEqual(((probed?["media"] as? [String: Any])?["video"] as? [[String: Any]])?.first?["codec"] as? String, "h264",
                       "the ad with its key is decrypted and probed")
        let keyHex = EncryptedRendition.key.map { String(format: "%02x", $0) }.joined()
        XCTAssertFalse(audit.document.description.lowercased().contains(keyHex))
    }
}
