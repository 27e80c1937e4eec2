import Foundation
import HLS
import SeamcheckTestSupport
import XCTest
@testable import LabCore
@testable import LabRun
@testable import LabServer

/// The stitched cases of the small suite: each transition case's ad spliced into the shared
/// primary between two EXT-X-DISCONTINUITY tags, read back with Seamcheck's own HLS parser.
final class LabStitchedTests: XCTestCase {
    func generate(_ folder: String = LabStreamsTests.folder, cases: [String] = []) async throws -> LabStreamsResult {
        try await LabStreamsGenerator(scale: .small).generate(output: folder, caseIds: cases)
    }

    func testEveryTransitionCaseHasAStitchedVariantWithItsMediaAndItsBreak() async throws {
        let manifest = try await generate().manifest
        let scheduled = manifest.cases.filter { $0.kind == .transition && $0.delivery == .interstitial }
        let stitched = manifest.cases.filter { $0.delivery == .stitched }
        XCTAssertEqual(scheduled.count, 20)
        // An MPEG-TS ad cannot follow an fMP4 primary's EXT-X-MAP in one playlist: no stitched container case.
        XCTAssertEqual(stitched.map(\.id), scheduled.filter { !["container-mpegts", "localization-en-only"].contains($0.id) }.map { $0.id + "-stitched" },
                       "one per transition case one playlist can carry, the control too, in catalog order")
        XCTAssertNil(manifest.cases.first { $0.kind == .capability }?.delivery.flatMap { $0 == .stitched ? $0 : nil })
        for labCase in stitched {
            let source = try XCTUnwrap(manifest.case(try XCTUnwrap(labCase.stitchedFrom)), labCase.id)
            XCTAssertEqual(source.delivery, .interstitial)
            XCTAssertEqual(labCase.kind, .transition)
            XCTAssertEqual(labCase.varies, source.varies)
            XCTAssertEqual(labCase.rules, source.rules)
            XCTAssertEqual(labCase.primary, source.primary, "the same primary media")
            XCTAssertEqual(labCase.interstitial, source.interstitial, "the source case's ad, not a new encode")
            XCTAssertEqual(labCase.playlist, "cases/\(labCase.id)/master.m3u8")
            XCTAssertEqual(labCase.interstitialPrefix, "cases/\(labCase.id)/ad/")
            XCTAssertEqual(labCase.interstitialStart, 6.006, "the break of the source case, on the playback timeline")
            XCTAssertEqual(labCase.interstitialDuration, source.interstitialDuration)
            XCTAssertEqual(labCase.variants.map(\.path), ["cases/\(labCase.id)/stitched.m3u8"])
        }
        let control = try XCTUnwrap(manifest.case("control-stitched"))
        XCTAssertEqual(control.variants.first?.codecs, manifest.case("control")?.variants.first?.codecs, "the matching ad adds no codec")
        XCTAssertEqual(try XCTUnwrap(manifest.case("video-codec-hevc-stitched")).variants.first?.codecs?.split(separator: ",").count, 3)
    }

    func testStitchedPlaylistsParseWithTheirDiscontinuitiesAndEveryFileExists() async throws {
        let manifest = try await generate().manifest
        let root = LabStreamsTests.folder
        let primarySegments = manifest.primaryTimeline.count
        for labCase in manifest.cases where labCase.delivery == .stitched {
            let source = try XCTUnwrap(manifest.case(try XCTUnwrap(labCase.stitchedFrom)))
            let masterText = try String(contentsOfFile: root + "/" + labCase.playlist, encoding: .utf8)
            let master = try XCTUnwrap(try PlaylistParser.parse(masterText).playlist.multivariant, labCase.id)
            XCTAssertEqual(master.variants.map(\.uri), ["stitched.m3u8"])
            XCTAssertEqual(master.variants.first?.codecs.joined(separator: ","), labCase.variants.first?.codecs)

            let text = try String(contentsOfFile: root + "/cases/\(labCase.id)/stitched.m3u8", encoding: .utf8)
            XCTAssertFalse(text.contains("EXT-X-DATERANGE"), labCase.id)
            let parsed = try PlaylistParser.parse(text)
            XCTAssertEqual(parsed.diagnostics, [], labCase.id)
            let media = try XCTUnwrap(parsed.playlist.media, labCase.id)
            XCTAssertTrue(media.isVOD)

            // Primary up to the break, the ad, the primary again: discontinuity sequence 0, 1, 2.
            let adFiles = try String(contentsOfFile: root + "/cases/\(source.id)/ad/ad.m3u8", encoding: .utf8)
                .split(separator: "\n").filter { !$0.hasPrefix("#") && !$0.isEmpty }.map { "ad/" + $0 }
            let half = primarySegments / 2
            XCTAssertEqual(media.segments.count, primarySegments + adFiles.count, labCase.id)
            var sequence = media.discontinuitySequence
            let sequences = media.segments.map { segment -> Int in
                if segment.discontinuity { sequence += 1 }
                return sequence
            }
            XCTAssertEqual(sequences, Array(repeating: 0, count: half) + Array(repeating: 1, count: adFiles.count)
                + Array(repeating: 2, count: primarySegments - half), labCase.id)
            XCTAssertEqual(media.segments.map(\.uri), manifest.primaryTimeline[..<half].map { "primary/" + $0.file } + adFiles
                + manifest.primaryTimeline[half...].map { "primary/" + $0.file }, labCase.id)
            XCTAssertEqual(media.segments.map { $0.map?.uri }, Array(repeating: "primary/init.mp4", count: half)
                + Array(repeating: "ad/init.mp4", count: adFiles.count) + Array(repeating: "primary/init.mp4", count: primarySegments - half))
            // Only the encrypted ad's segments are keyed; every init section is clear, the
            // primary's after the ad too (a key applies to the EXT-X-MAP after it: FFmpeg, so
            // Kodi, decrypted that init section when METHOD=NONE came after it).
            let encrypted = source.interstitial?.encryption == "AES-128"
            XCTAssertEqual(media.segments.map { $0.key.map { $0.method } ?? "NONE" }, Array(repeating: "NONE", count: half)
                + Array(repeating: encrypted ? "AES-128" : "NONE", count: adFiles.count) + Array(repeating: "NONE", count: primarySegments - half),
                           labCase.id)
            XCTAssertTrue(media.segments.allSatisfy { $0.map?.key.map { $0.method == "NONE" } ?? true }, "\(labCase.id): a clear init section")

            // Every file it names exists (through the case's symlinks), and no file was copied.
            for uri in Set(media.segments.flatMap { [$0.uri, $0.map?.uri].compactMap { $0 } }) {
                XCTAssertTrue(FileManager.default.fileExists(atPath: root + "/cases/\(labCase.id)/" + uri), "\(labCase.id): \(uri)")
            }
            XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: root + "/cases/\(labCase.id)/ad"), "../\(source.id)/ad")
            XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: root + "/cases/\(labCase.id)/primary"), "../../primary")

            // Durations add up: the ad starts at interstitialStart and lasts interstitialDuration.
            let start = try XCTUnwrap(labCase.interstitialStart), duration = try XCTUnwrap(labCase.interstitialDuration)
            let boundaries = media.segmentBoundaries
            XCTAssertEqual(boundaries[half], start, accuracy: 0.001, labCase.id)
            XCTAssertEqual(boundaries[half + adFiles.count], start + duration, accuracy: 0.001, labCase.id)
            XCTAssertEqual(media.totalDuration, labCase.primary.duration + duration, accuracy: 0.001, labCase.id)
            XCTAssertEqual(media.segments[half].programDateTime, LabPlaylists.epoch.addingTimeInterval(start), labCase.id)

            // The manifest names the timeline's last segment, as the URL path a receiver requests it by
            // (the measurer tells a receiver's own end of stream by it).
            XCTAssertEqual(labCase.variants.first?.lastSegment, "cases/\(labCase.id)/" + (media.segments.last?.uri ?? ""), labCase.id)
        }
        let scheduled = try XCTUnwrap(manifest.case("frame-rate-25"))
        XCTAssertEqual(scheduled.variants.map(\.lastSegment), ["cases/frame-rate-25/primary/" + (manifest.primaryTimeline.last?.file ?? ""),
                                                               "cases/frame-rate-25/ad/seg_001.m4s"])
        for variant in manifest.cases.flatMap(\.variants) {
            let last = try XCTUnwrap(variant.lastSegment, variant.path)
            XCTAssertTrue(FileManager.default.fileExists(atPath: root + "/" + last), last)
        }
    }

    func testTheManifestRoundTripsItsDeliveryAndSource() async throws {
        let manifest = try await generate().manifest
        let data = try JSONEncoder().encode(manifest)
        XCTAssertEqual(try JSONDecoder().decode(LabManifest.self, from: data), manifest)
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: LabStreamsTests.folder + "/lab.json"))) as? [String: Any])
        let cases = try XCTUnwrap(json["cases"] as? [[String: Any]])
        let stitched = try XCTUnwrap(cases.first { $0["id"] as? String == "frame-rate-25-stitched" })
        XCTAssertEqual(stitched["delivery"] as? String, "stitched")
        XCTAssertEqual(stitched["stitchedFrom"] as? String, "frame-rate-25")
        XCTAssertEqual(cases.first { $0["id"] as? String == "frame-rate-25" }?["delivery"] as? String, "interstitial")
    }

    func testAStitchedCaseAloneEncodesOnlyThePrimaryAndItsSourceAd() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("lab-stitched-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try await generate(folder, cases: ["frame-rate-25-stitched"])
        XCTAssertEqual(result.encoded, 2)
        XCTAssertEqual(result.manifest.cases.map(\.id), ["frame-rate-25-stitched"])
        XCTAssertEqual(Set(try FileManager.default.contentsOfDirectory(atPath: folder + "/cases")), ["frame-rate-25", "frame-rate-25-stitched"])
        // Both of a pair: the ad is encoded once.
        let both = try await generate(folder, cases: ["frame-rate-25", "frame-rate-25-stitched"])
        XCTAssertEqual(both.encoded, 0)
        XCTAssertEqual(both.cached, 2)
        XCTAssertEqual(both.manifest.cases.map(\.id), ["frame-rate-25", "frame-rate-25-stitched"])
    }
}
