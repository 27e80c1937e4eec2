import Foundation
import SeamcheckTestSupport
import XCTest
@testable import LabCore
@testable import LabRun
@testable import LabServer

/// The suite generator at small scale: layout, manifest, one shared primary, caching, labels.
final class LabStreamsTests: XCTestCase {
    /// Cached under .build/test-media like the media fixtures; a second generation is cheap.
    static let folder = MediaFixture.cacheDirectory + "/lab-small-labtests"

    func generate(_ folder: String = LabStreamsTests.folder, cases: [String] = []) async throws -> LabStreamsResult {
        try await LabStreamsGenerator(scale: .small).generate(output: folder, caseIds: cases)
    }

    func testTheManifestDescribesEveryCaseAndTheLayoutItNames() async throws {
        let result = try await generate()
        let suite = try LabSuite.load(Self.folder)
        XCTAssertEqual(suite.manifest, result.manifest, "lab.json is what the run returned")
        XCTAssertEqual(suite.manifest.scale, "small")
        XCTAssertEqual(suite.manifest.cases.map(\.id), LabStreamsGenerator.caseIds)
        XCTAssertTrue(suite.manifest.generator.contains("ffmpeg version"), suite.manifest.generator)
        // 12 s of 29.97 fps in segments of 60 frames.
        XCTAssertEqual(suite.manifest.primaryTimeline.map(\.file), (0..<6).map { String(format: "seg_%03d.m4s", $0) })
        XCTAssertEqual(suite.manifest.primaryTimeline.map(\.start), [0, 2.002, 4.004, 6.006, 8.008, 10.01])

        // The scheduled (EXT-X-DATERANGE) transition cases; LabStitchedTests reads the stitched ones.
        let transitions = suite.manifest.cases.filter { $0.kind == .transition && $0.delivery == .interstitial }
        XCTAssertEqual(transitions.count, 20)
        for labCase in transitions {
            XCTAssertEqual(labCase.playlist, "cases/\(labCase.id)/master.m3u8")
            XCTAssertEqual(labCase.interstitialPrefix, "cases/\(labCase.id)/ad/")
            XCTAssertEqual(labCase.interstitialStart, 6.006, "a mid-roll at the middle segment boundary")
            XCTAssertEqual(labCase.resumeOffset, 0)
            XCTAssertEqual(labCase.variants.map(\.role), [.primary, .interstitial])
            for variant in labCase.variants { XCTAssertTrue(FileManager.default.fileExists(atPath: Self.folder + "/" + variant.path), variant.path) }
            let playlist = try String(contentsOfFile: Self.folder + "/cases/\(labCase.id)/primary.m3u8", encoding: .utf8)
            XCTAssertTrue(playlist.contains("#EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:00.000Z"))
            XCTAssertTrue(playlist.contains("CLASS=\"com.apple.hls.interstitial\",START-DATE=\"2026-01-01T00:00:06.006Z\""), labCase.id)
            XCTAssertTrue(playlist.contains("X-ASSET-URI=\"{LAB_ORIGIN}/cases/\(labCase.id)/ad/master.m3u8\",X-RESUME-OFFSET=0.000"), labCase.id)
            XCTAssertTrue(playlist.hasSuffix("primary/seg_005.m4s\n#EXT-X-ENDLIST\n"), labCase.id)
        }
        // Exactly one parameter differs from the primary in each transition case's summary (the
        // HDR cases change the codec with the range: Apple receivers have no H.264 HDR).
        // The localization case changes no parameter of the media: its primary gains renditions.
        for labCase in transitions where !["control", "localization-en-only"].contains(labCase.id) {
            XCTAssertNotEqual(labCase.primary, labCase.interstitial.map { var m = $0; m.duration = labCase.primary.duration; return m }, labCase.id)
        }
        let control = try XCTUnwrap(suite.manifest.case("control"))
        var matching = try XCTUnwrap(control.interstitial)
        matching.duration = control.primary.duration
        XCTAssertEqual(matching, control.primary)

        let ladder = try XCTUnwrap(suite.manifest.case("capability-ladder"))
        XCTAssertEqual(ladder.kind, .capability)
        XCTAssertNil(ladder.interstitial)
        XCTAssertEqual(ladder.variants.compactMap(\.dynamicRange), ["SDR", "SDR", "HDR10", "HLG"])
        XCTAssertEqual(ladder.variants.compactMap(\.audioCodec), ["aac", "eac3"])
    }

    func testThePrimaryIsEncodedOnceAndEveryCaseReachesItThroughItsOwnPath() async throws {
        _ = try await generate()
        let fm = FileManager.default
        let recipes = try XCTUnwrap(fm.enumerator(atPath: Self.folder)).compactMap { $0 as? String }.filter { $0.hasSuffix("recipe.txt") }
        let primaryEncodes = try recipes.filter { try String(contentsOfFile: Self.folder + "/" + $0, encoding: .utf8).contains("PRIMARY") }
        XCTAssertEqual(primaryEncodes, ["primary/recipe.txt"])
        for id in LabStreamsGenerator.caseIds where id != "capability-ladder" {  // the stitched cases too
            XCTAssertEqual(try fm.destinationOfSymbolicLink(atPath: Self.folder + "/cases/\(id)/primary"), "../../primary", id)
        }
    }

    func testASecondRunIsCachedAndTouchesNoFile() async throws {
        _ = try await generate()
        let before = try modificationTimes(Self.folder)
        let again = try await generate()
        XCTAssertEqual(again.encoded, 0)
        XCTAssertEqual(again.cached, 1 + 20 + 6 + 1 + 1,
                       "the primary, each ad, the ladder's six renditions, the AES-128 ad's encryption, the localization case's French audio")
        XCTAssertEqual(try modificationTimes(Self.folder), before)
    }

    func testOnlyTheNamedCasesAndThePrimaryAreGenerated() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("lab-one-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try await generate(folder, cases: ["frame-rate-25"])
        XCTAssertEqual(result.encoded, 2)
        XCTAssertEqual(result.manifest.cases.map(\.id), ["frame-rate-25"])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder + "/cases"), ["frame-rate-25"])
        // A later run for another case keeps the first in the manifest and re-encodes nothing it has.
        let more = try await generate(folder, cases: ["control"])
        XCTAssertEqual(more.encoded, 1)
        XCTAssertEqual(more.manifest.cases.map(\.id), ["control", "frame-rate-25"])
    }

    func testAnUnknownCaseNamesItAndItsNearestId() async throws {
        do {
            _ = try await generate(cases: ["frame-rate-24"])
            XCTFail("expected unknownCase")
        } catch let error as LabSuiteError {
            XCTAssertEqual(error, .unknownCase("frame-rate-24", suggestion: "frame-rate-25", known: LabStreamsGenerator.caseIds))
        }
    }

    func testEveryPictureIsLabelledWithItsCaseAndRoleAndEveryAdHasItsOwnTone() {
        let generator = LabStreamsGenerator(scale: .small)
        XCTAssertTrue(generator.primaryJob.arguments.contains { $0.contains("text='seamcheck lab  PRIMARY  %{pts\\:hms}'") })
        XCTAssertTrue(generator.primaryJob.arguments.contains { $0.hasPrefix("sine=frequency=440:") })
        for definition in LabCatalog.cases {
            // Stitched cases reuse their source's encodes, behaviour cases the control's.
            if let source = (definition.stitchedFrom ?? (definition.kind == .behaviour ? "control" : nil)).flatMap(LabCatalog.definition) {
                XCTAssertEqual(generator.jobs(for: definition), generator.jobs(for: source), "\(definition.id) reuses its source's encodes")
                continue
            }
            for job in generator.jobs(for: definition) {
                let arguments = job.arguments.joined(separator: " ")
                if arguments.contains("testsrc2=") || arguments.contains("smptehdbars=") {
                    XCTAssertTrue(arguments.contains("text='\(definition.id)  "), job.step)
                    XCTAssertTrue(arguments.contains("%{pts\\:hms}"), job.step)
                }
                if definition.kind == .transition, arguments.contains("sine=") {
                    let tone = generator.plans.first { $0.job(scale: .small).folder == job.folder }?.stream.tone
                    XCTAssertNotEqual(tone, 440, job.step)
                    XCTAssertTrue(arguments.contains("sine=frequency=\(tone ?? 0):"), job.step)
                }
            }
        }
    }

    /// Each stream's tone is brought to the primary's loudness: K-weighting would make high tones louder.
    func testEveryToneHasThePrimarysLoudness() {
        XCTAssertEqual(LabRecipes.toneLevel(440), 0, accuracy: 0.001)
        XCTAssertEqual(LabRecipes.toneLevel(1520), -2.08, accuracy: 0.02, "1.52 kHz is 2.1 LU louder unweighted")
        XCTAssertEqual(LabRecipes.toneLevel(500), -0.03, accuracy: 0.02)
    }

    func testCaseIdsAreUniqueKebabCaseAndRulesAreKnownIds() {
        let ids = LabStreamsGenerator.caseIds
        XCTAssertEqual(Set(ids).count, ids.count)
        for id in ids { XCTAssertNotNil(id.range(of: "^[a-z0-9]+(-[a-z0-9.]+)*$", options: .regularExpression), id) }
        let interfaceRules: Set<String> = [
            "video-codec-mismatch", "frame-rate-mismatch", "aspect-ratio-mismatch", "dynamic-range-mismatch", "audio-codec-mismatch",
            "sample-rate-mismatch", "channel-layout-mismatch", "track-set-mismatch", "av-start-misaligned",
            "rendition-language-mismatch", "frame-rate-multiple",
            // Catalog v3: the held-out transitions lab run measures.
            "resolution-change", "container-change", "encryption-change",
            // The localization case.
            "audio-language-missing", "subtitles-missing",
        ]
        let exercised = Set(LabCatalog.cases.flatMap(\.rules))
        XCTAssertEqual(exercised, interfaceRules, "every transition rule of the issue has a case, and no case names an unknown rule")
    }

    private func modificationTimes(_ root: String) throws -> [String: Date] {
        var times: [String: Date] = [:]
        for case let path as String in try XCTUnwrap(FileManager.default.enumerator(atPath: root)) {
            let attributes = try FileManager.default.attributesOfItem(atPath: root + "/" + path)
            times[path] = attributes[.modificationDate] as? Date
        }
        return times
    }
}
