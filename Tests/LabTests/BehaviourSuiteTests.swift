import Foundation
import HLS
import SeamcheckTestSupport
import XCTest
import Compatibility
@testable import LabCore
@testable import LabRun
@testable import LabServer

/// The behaviour cases of the small suite (real ffmpeg media, cached with LabStreamsTests'):
/// their folders, playlists and asset lists on disk, and their manifest entries.
final class BehaviourSuiteTests: XCTestCase {
    let root = LabStreamsTests.folder

    func generate() async throws -> LabManifest {
        try await LabStreamsGenerator(scale: .small).generate(output: root).manifest
    }

    func testEveryBehaviourCaseIsInTheManifestWithItsMeasuredPositions() async throws {
        let manifest = try await generate()
        let cases = manifest.cases.filter { $0.kind == .behaviour }
        XCTAssertEqual(cases.map(\.id), BehaviourCatalog.entries.map { "behaviour-" + $0.feature })
        let d = manifest.primaryTimeline[0].duration
        let control = try XCTUnwrap(manifest.case("control"))
        let A = try XCTUnwrap(control.interstitialDuration)
        XCTAssertEqual(d, 2.002)
        XCTAssertEqual(A, 4.004)
        let s = manifest.primaryTimeline.map(\.start)
        for labCase in cases {
            let behaviour = try XCTUnwrap(labCase.behaviour, labCase.id)
            XCTAssertEqual("behaviour-" + behaviour.feature, labCase.id)
            XCTAssertEqual(labCase.varies, behaviour.feature)
            XCTAssertEqual(labCase.playlist, "cases/\(labCase.id)/master.m3u8")
            XCTAssertEqual(labCase.delivery, .interstitial)
            XCTAssertEqual(labCase.rules, [])
            let first = try XCTUnwrap(behaviour.interstitials.first)
            XCTAssertEqual(labCase.interstitialStart, first.start)
            XCTAssertEqual(labCase.interstitialDuration, first.duration)
            XCTAssertEqual(labCase.resumeOffset, first.resumeOffset)
            XCTAssertEqual(labCase.interstitialPrefix, first.assets.first { !$0.fails }?.prefix)
            XCTAssertEqual(labCase.interstitial?.duration, A)
            XCTAssertEqual(labCase.primary, control.primary, "the shared primary")
            XCTAssertEqual(labCase.variants.first?.role, .primary)
            XCTAssertEqual(labCase.variants.first?.path, "cases/\(labCase.id)/primary.m3u8")
            XCTAssertTrue(labCase.variants.dropFirst().allSatisfy { $0.role == .interstitial && $0.path.hasSuffix("/ad.m3u8") })
            // The table's resume points, on the encodes' timeline.
            for expectation in behaviour.expectations where expectation.kind == .resumesAt {
                let interstitial = try XCTUnwrap(behaviour.interstitials.first { $0.id == expectation.interstitial })
                XCTAssertEqual(expectation.seconds, LabPlaylists.milliseconds(interstitial.expectedResume), labCase.id)
            }
        }
        let resume = { (id: String) in manifest.case("behaviour-" + id)?.behaviour?.expectations.first { $0.kind == .resumesAt }?.seconds }
        XCTAssertEqual(resume("resume-offset-absent"), s[2] + A)
        XCTAssertEqual(resume("resume-offset-zero"), s[2])
        XCTAssertEqual(resume("resume-offset-positive"), s[3])
        XCTAssertEqual(resume("resume-offset-live"), LabPlaylists.milliseconds(s[3] + A))
        XCTAssertEqual(resume("playout-limit"), s[3])
        XCTAssertEqual(resume("cue-pre"), 0)
        XCTAssertEqual(resume("live-join-start-offset"), s[4])
        XCTAssertEqual(resume("timeline-range"), s[4])
        XCTAssertEqual(manifest.case("behaviour-snap-live")?.interstitialStart, LabPlaylists.milliseconds(s[2] + 0.3 * d))
    }

    func testPlaylistsCarryTheCaseDaterangesAndAssetListsNameTheirAssets() async throws {
        let manifest = try await generate()
        let fm = FileManager.default
        for labCase in manifest.cases where labCase.kind == .behaviour {
            let behaviour = try XCTUnwrap(labCase.behaviour)
            let folder = root + "/cases/\(labCase.id)"
            XCTAssertEqual(try fm.destinationOfSymbolicLink(atPath: folder + "/primary"), "../../primary")
            let master = try XCTUnwrap(try PlaylistParser.parse(String(contentsOfFile: folder + "/master.m3u8", encoding: .utf8)).playlist.multivariant)
            XCTAssertEqual(master.variants.map(\.uri), ["primary.m3u8"])

            let text = try String(contentsOfFile: folder + "/primary.m3u8", encoding: .utf8)
            let parsed = try PlaylistParser.parse(text)
            XCTAssertEqual(parsed.diagnostics, [], labCase.id)
            let media = try XCTUnwrap(parsed.playlist.media, labCase.id)
            XCTAssertEqual(media.segments.map(\.uri), manifest.primaryTimeline.map { "primary/" + $0.file })
            XCTAssertEqual(text.contains("#EXT-X-PLAYLIST-TYPE:VOD"), behaviour.live == nil, labCase.id)
            XCTAssertEqual(text.contains("#EXT-X-START:TIME-OFFSET="), behaviour.live != nil, labCase.id)
            XCTAssertEqual(media.dateRanges.map(\.id), behaviour.interstitials.map(\.id))
            for (range, interstitial) in zip(media.dateRanges, behaviour.interstitials) {
                XCTAssertEqual(range.classification, DateRange.interstitialClass)
                XCTAssertEqual(try XCTUnwrap(range.startDate).timeIntervalSince(LabPlaylists.epoch), interstitial.start, accuracy: 0.0005, labCase.id)
                XCTAssertEqual(range.duration, interstitial.duration)
                let attributes = range.clientAttributes
                XCTAssertEqual(attributes["X-RESUME-OFFSET"].flatMap(Self.number), interstitial.resumeOffset, labCase.id)
                XCTAssertEqual(attributes["X-PLAYOUT-LIMIT"].flatMap(Self.number), interstitial.playoutLimit, labCase.id)
                XCTAssertEqual(range.attributes["CUE"].flatMap(Self.text), interstitial.cue.isEmpty ? nil : interstitial.cue.joined(separator: ","))
                XCTAssertEqual(attributes["X-RESTRICT"].flatMap(Self.text), interstitial.restrict.isEmpty ? nil : interstitial.restrict.joined(separator: ","))
                XCTAssertEqual(attributes["X-SNAP"].flatMap(Self.text), interstitial.snap.isEmpty ? nil : interstitial.snap.joined(separator: ","))
                XCTAssertEqual(attributes["X-TIMELINE-OCCUPIES"].flatMap(Self.text), interstitial.timelineOccupies)
                if let list = interstitial.assetList {
                    XCTAssertNil(attributes["X-ASSET-URI"])
                    XCTAssertEqual(attributes["X-ASSET-LIST"].flatMap(Self.text), "{LAB_ORIGIN}/" + list)
                    if interstitial.assetListFails {
                        XCTAssertFalse(fm.fileExists(atPath: root + "/" + list), "\(list) must answer 404")
                        continue
                    }
                    let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: root + "/" + list))) as? [String: Any])
                    let assets = try XCTUnwrap(json["ASSETS"] as? [[String: Any]], list)
                    XCTAssertEqual(assets.compactMap { $0["URI"] as? String },
                                   interstitial.assets.map { "{LAB_ORIGIN}/\($0.playlist)?_HLS_interstitial_id=\(interstitial.id)" })
                    XCTAssertEqual(assets.compactMap { $0["DURATION"] as? Double }, interstitial.assets.map(\.duration), "numbers, not strings")
                } else {
                    XCTAssertNil(attributes["X-ASSET-LIST"])
                    XCTAssertEqual(attributes["X-ASSET-URI"].flatMap(Self.text),
                                   "{LAB_ORIGIN}/\(interstitial.assets[0].playlist)?_HLS_interstitial_id=\(interstitial.id)")
                }
                for asset in interstitial.assets {
                    if asset.fails {
                        XCTAssertFalse(fm.fileExists(atPath: root + "/" + asset.prefix), "\(asset.prefix) must answer 404")
                    } else {
                        XCTAssertEqual(try fm.destinationOfSymbolicLink(atPath: root + "/" + String(asset.prefix.dropLast())), "../control/ad")
                        XCTAssertTrue(fm.fileExists(atPath: root + "/" + asset.playlist), asset.playlist)
                    }
                }
            }
        }
    }

    /// `lab streams --case behaviour-cue-pre` brings the control case (its ad's source), and only it.
    func testOneBehaviourCaseGeneratesTheControlItsAdComesFrom() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("lab-behaviour-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try await LabStreamsGenerator(scale: .small).generate(output: folder, caseIds: ["behaviour-cue-pre"])
        XCTAssertEqual(result.manifest.cases.map(\.id), ["control", "behaviour-cue-pre"])
        XCTAssertEqual(result.encoded, 2, "the primary and the control's ad, nothing for the behaviour case")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder + "/cases").sorted(), ["behaviour-cue-pre", "control"])
        XCTAssertTrue(FileManager.default.fileExists(atPath: folder + "/cases/behaviour-cue-pre/ad-1/seg_000.m4s"))
        // The manifest stays readable by a reader that knows no behaviour field.
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder + "/lab.json"))) as? [String: Any])
        XCTAssertEqual(json["schemaVersion"] as? Int, 1)
    }

    /// Sessions of a behaviour case: the asset folders and the failing URIs are interstitial requests.
    func testSessionsSeeAssetFoldersAndFailingURIsAsInterstitialRequests() async throws {
        let manifest = try await generate()
        let id = "behaviour-asset-list-failed-asset"
        let c = "/cases/\(id)/"
        let requests = [
            LabTestData.request("127.0.0.9", c + "master.m3u8", at: 0), LabTestData.request("127.0.0.9", c + "primary.m3u8", at: 0.1),
            LabTestData.request("127.0.0.9", c + "primary/seg_000.m4s", at: 0.2), LabTestData.request("127.0.0.9", c + "primary/seg_001.m4s", at: 0.3),
            LabTestData.request("127.0.0.9", c + "list-1.json", at: 1, query: "_HLS_primary_id=p1"),
            LabTestData.request("127.0.0.9", c + "ad-1/master.m3u8", at: 1.1, query: "_HLS_interstitial_id=break-1&_HLS_primary_id=p1"),
            LabTestData.request("127.0.0.9", c + "ad-1/ad.m3u8", at: 1.2), LabTestData.request("127.0.0.9", c + "ad-1/seg_000.m4s", at: 1.3),
            LabTestData.request("127.0.0.9", c + "missing-ad/master.m3u8", at: 2, status: 404),
            LabTestData.request("127.0.0.9", c + "ad-3/master.m3u8", at: 2.1), LabTestData.request("127.0.0.9", c + "ad-3/seg_000.m4s", at: 2.2),
            LabTestData.request("127.0.0.9", c + "primary/seg_002.m4s", at: 3),
        ]
        let session = try XCTUnwrap(SessionBuilder(manifest: manifest, receivers: []).sessions(from: requests).first)
        XCTAssertTrue(session.interstitialRequested)
        XCTAssertEqual(session.interstitialSegments, 2)
        XCTAssertEqual(session.interstitialVariant, "cases/\(id)/ad-1/ad.m3u8")
        XCTAssertEqual(session.resumedAt, manifest.primaryTimeline[2].start)
        XCTAssertTrue(session.sentPrimaryId)
        XCTAssertEqual(session.failedRequests, 1)

        // Only the failing list asked for: still an interstitial request.
        let failed = "/cases/behaviour-asset-list-failed/"
        let other = try XCTUnwrap(SessionBuilder(manifest: manifest, receivers: []).sessions(from: [
            LabTestData.request("127.0.0.9", failed + "primary/seg_001.m4s", at: 0),
            LabTestData.request("127.0.0.9", failed + "missing-list.json", at: 1, status: 404),
        ]).first)
        XCTAssertTrue(other.interstitialRequested)
        XCTAssertEqual(other.interstitialSegments, 0)
        let none = try XCTUnwrap(SessionBuilder(manifest: manifest, receivers: []).sessions(from: [
            LabTestData.request("127.0.0.9", failed + "master.m3u8", at: 0), LabTestData.request("127.0.0.9", failed + "primary/seg_001.m4s", at: 1),
        ]).first)
        XCTAssertFalse(none.interstitialRequested)
    }

    /// The transition tables of `lab report` grade transition cases only: a behaviour session is not a cell.
    func testTheTransitionReportLeavesBehaviourCasesOut() async throws {
        let manifest = try await generate()
        let sessions = SessionBuilder(manifest: manifest, receivers: []).sessions(from:
            LabTestData.midRoll("127.0.0.9", case: "control")
            + [LabTestData.request("127.0.0.9", "/cases/behaviour-cue-pre/ad-1/seg_000.m4s", at: 5),
               LabTestData.request("127.0.0.9", "/cases/behaviour-cue-pre/primary/seg_000.m4s", at: 6)])
        XCTAssertEqual(Set(sessions.map(\.case)), ["control", "behaviour-cue-pre"])
        let report = LabReportBuilder(manifest: manifest, profiles: try ProfileLoader.loadDirectory(LabTests.profilesDirectory)).report(verdicts: [], sessions: sessions)
        XCTAssertEqual(report.cells.map(\.case), ["control"])
        XCTAssertFalse(report.classes.contains { $0.case.hasPrefix("behaviour-") })
        XCTAssertTrue(report.classes.contains { $0.case == "control" })
    }

    static func number(_ value: AttributeValue) -> Double? {
        if case .decimal(let number, _) = value { return number }
        return nil
    }

    static func text(_ value: AttributeValue) -> String? {
        if case .quotedString(let text) = value { return text }
        return nil
    }
}
