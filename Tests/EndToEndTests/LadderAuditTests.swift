import Foundation
import SeamcheckTestSupport
import XCTest

/// ladder-mismatch on a served playlist: a primary with 6 Mb/s and 650 kb/s tiers, an ad whose
/// one variant is 700 kb/s (the 6 Mb/s tier is not covered) or whose ladder matches.
final class LadderAuditTests: XCTestCase {
    func audit(adTiers: [Int]) throws -> [[String: Any]] {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("seamcheck-ladder-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let server = try TestHTTPServer(root: root.path, lifetime: 300)
        defer { server.stop() }
        let stream = InterstitialStream(primary: Fixtures.primaryWithSegments, primaryCodecs: "avc1.64000d,mp4a.40.2",
                                        ads: [.init(id: "ad", source: Fixtures.matching, multivariantCodecs: "avc1.64000d,mp4a.40.2", boundary: 2)])
        let url = server.url(try stream.write(into: root, port: server.port))
        func ladder(_ file: String, _ bandwidths: [Int]) throws {
            let path = root.appendingPathComponent(file)
            let text = try String(contentsOf: path, encoding: .utf8)
            let lines = text.components(separatedBy: "\n")
            let index = try XCTUnwrap(lines.firstIndex { $0.hasPrefix("#EXT-X-STREAM-INF:") })
            var out = Array(lines[..<index])
            for bandwidth in bandwidths {
                out += [lines[index].replacingOccurrences(of: "BANDWIDTH=500000", with: "BANDWIDTH=\(bandwidth)"), lines[index + 1]]
            }
            try out.joined(separator: "\n").appending("\n").write(to: path, atomically: true, encoding: .utf8)
        }
        try ladder("primary/main.m3u8", [6_000_000, 650_000])
        try ladder("ad/main.m3u8", adTiers)
        let result = try SeamcheckBinary.run(["audit", url, "--format", "json", "--fail-on", "never"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        return (json["findings"] as? [[String: Any]] ?? []).filter { $0["rule"] as? String == "ladder-mismatch" }
    }

    func testAnAdWithoutAVariantNearTheTopTierIsGradedPerVideoClass() throws {
        let findings = try audit(adTiers: [700_000])
        XCTAssertEqual(Set(findings.compactMap { $0["deviceClass"] as? String }),
                       ["apple-tv-4k", "apple-tv-hd", "smart-tv-dolby-vision", "smart-tv-low-end", "mac", "screen-mirroring"])
        let message = try XCTUnwrap(findings.first?["message"] as? String)
        XCTAssertTrue(message.contains("6000 kb/s"), message)
        XCTAssertFalse(message.contains("primary's 650") || message.contains(", 650 kb/s"), "the 650 kb/s tier is covered by the 700 kb/s ad: \(message)")
    }

    func testAMatchingLadderRaisesNothing() throws {
        XCTAssertEqual(try audit(adTiers: [5_800_000, 620_000]).count, 0)
    }

    /// Another tier structure that harms no viewer: its lowest variant, 1.2 Mb/s, is within one
    /// ladder step (2x) of the 650 kb/s tier. (Before catalog v3 every class had a warning: no ad
    /// variant lay between a quarter of 650 kb/s and 110 % of it.)
    func testAnAdWhoseEndsAreWithinALadderStepRaisesNothing() throws {
        XCTAssertEqual(try audit(adTiers: [5_800_000, 1_200_000]).count, 0)
    }

    func testAnAdWhoseLowestVariantIsMoreThanAStepAboveTheLowestTierStrandsTheBottomViewer() throws {
        let findings = try audit(adTiers: [5_800_000, 1_500_000])
        XCTAssertEqual(findings.count, 6, "each video class")
        let message = try XCTUnwrap(findings.first?["message"] as? String)
        XCTAssertTrue(message.contains("lowest variant, 1500 kb/s (320x180), is 2.3 times the primary's lowest tier 650 kb/s (320x180)"), message)
        XCTAssertEqual(findings.first?["expected"] as? String, "a variant at or under 1300 kb/s")
    }
}
