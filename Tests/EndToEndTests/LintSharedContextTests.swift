import ArgumentParser
import Compatibility
import Foundation
import HLS
@testable import seamcheck
import XCTest

/// lint's shortcuts give what the long way gives: one `SpecContext` (interstitials read once,
/// one schedule per media playlist) shared by every rule finds what each rule finds on a context
/// of its own with schedules made from the date ranges, and `lint`/`inspect` parsed on their own
/// are the commands the whole tree parses (anything else is left to the tree).
final class LintSharedContextTests: XCTestCase {
    /// A media playlist with the bench's three kinds of interstitial, IDs that repeat (a later tag
    /// adds END-DATE), breaks off the segment boundaries and outside the timeline.
    static let media = JSONDocumentWriterTests.generated(segments: 400, ranges: 30)
        .replacingOccurrences(of: "#EXT-X-ENDLIST\n", with: """
        #EXT-X-DATERANGE:ID="ad3",END-DATE="2024-01-01T00:00:40.000Z",X-RESTRICT="SKIPP"
        #EXT-X-DATERANGE:ID="late",CLASS="com.apple.hls.interstitial",START-DATE="2025-01-01T00:00:00.000Z",X-ASSET-URI="https://ads.example/late.m3u8",CUE="ONCE,ONCE"
        #EXT-X-DATERANGE:ID="early",CLASS="com.apple.hls.interstitial",START-DATE="2023-01-01T00:00:00.000Z",X-ASSET-LIST="list.json",X-RESUME-OFFSET=-4
        #EXT-X-ENDLIST

        """)

    static let multivariant = "#EXTM3U\n"
        + "#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"a\",NAME=\"en\",LANGUAGE=\"en\",URI=\"audio.m3u8\"\n"
        + "#EXT-X-STREAM-INF:BANDWIDTH=1280000,CODECS=\"avc1.640028,mp4a.40.2\",AUDIO=\"a\"\nvideo.m3u8\n"

    private func load(_ files: [String: String], input: String) async throws -> Presentation {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("lint-context-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for (name, text) in files { try text.write(to: folder.appendingPathComponent(name), atomically: true, encoding: .utf8) }
        return try await PlaylistInput.load(folder.appendingPathComponent(input).path, timeout: 5, fetchAssets: true, offline: true)
    }

    func testOneSharedContextFindsWhatEachRuleFindsOnItsOwn() async throws {
        let audio = Self.media.replacingOccurrences(of: "X-SNAP=\"OUT\"", with: "X-SNAP=\"IN\"")
        let inputs: [([String: String], String)] = [
            (["media.m3u8": Self.media], "media.m3u8"),
            (["main.m3u8": Self.multivariant, "video.m3u8": Self.media, "audio.m3u8": audio], "main.m3u8"),
        ]
        for (files, input) in inputs {
            let presentation = try await load(files, input: input)
            let context = SpecContext(presentation)
            let shared = SpecLinter.lint(context) + BoundaryRule.findings(in: context) + LocalizationRules.findings(in: context)
            // The long way: each rule on a fresh context, the boundary rule on a schedule made from the date ranges.
            var separate = SpecCatalog.rules.flatMap { SpecLinter.lint(SpecContext(presentation), rules: [$0]) }
            let primary = try XCTUnwrap(presentation.primary)
            separate += BoundaryRule.findings(InterstitialSchedule(primary: primary.playlist), primary: primary.playlist,
                                              uri: primary.location.description)
            separate += LocalizationRules.findings(in: SpecContext(presentation))
            XCTAssertEqual(shared, separate, input)
            let rules = Set(shared.map(\.rule))
            for rule in ["interstitial-outside-timeline", "break-off-segment-boundary", "unknown-enumerated-value"] {
                XCTAssertTrue(rules.contains(rule), "\(input): \(rule) should fire, so that its shared reading is checked")
            }
            for index in presentation.mediaPlaylists.indices {
                let media = presentation.mediaPlaylists[index]
                XCTAssertLessThan(media.mergedDateRanges.count, media.playlist.dateRanges.count, "ad3's second tag is merged into its first")
                XCTAssertEqual(context.schedule(ofPlaylistAt: index).schedule, InterstitialSchedule(primary: media.playlist), "\(input) \(media.reference)")
                for merged in [true, false] {
                    let read = context.dateRanges(ofPlaylistAt: index, merged: merged)
                    XCTAssertEqual(read.map(\.range), merged ? media.mergedDateRanges : media.playlist.dateRanges)
                    XCTAssertEqual(read.map(\.interstitial), read.map(\.range.interstitial), "\(input) \(media.reference) merged: \(merged)")
                }
            }
        }
    }

    func testLintAndInspectParsedAloneAreWhatTheWholeTreeParses() throws {
        let lintArguments = [["lint", "x.m3u8"], ["lint", "--offline", "x.m3u8", "--format", "json", "--fail-on", "never"],
                             ["lint", "x.m3u8", "--format=sarif", "--timeout", "3", "--output", "out.sarif", "--write-accepted"]]
        for arguments in lintArguments {
            let alone = try XCTUnwrap(ExitSoon.parse(arguments) as? LintCommand, "\(arguments)")
            let tree = try XCTUnwrap(Seamcheck.parseAsRoot(arguments) as? LintCommand)
            XCTAssertEqual([alone.playlist, "\(String(describing: alone.format))", "\(alone.offline)", "\(String(describing: alone.timeout.given))",
                            "\(String(describing: alone.findingsOutput.output))", "\(String(describing: alone.findingsOutput.failOn))",
                            "\(alone.findingsOutput.writeAccepted)", "\(String(describing: alone.config.path))"],
                           [tree.playlist, "\(String(describing: tree.format))", "\(tree.offline)", "\(String(describing: tree.timeout.given))",
                            "\(String(describing: tree.findingsOutput.output))", "\(String(describing: tree.findingsOutput.failOn))",
                            "\(tree.findingsOutput.writeAccepted)", "\(String(describing: tree.config.path))"], "\(arguments)")
        }
        let inspect = try XCTUnwrap(ExitSoon.parse(["inspect", "--offline", "x.m3u8", "--format", "json"]) as? InspectCommand)
        XCTAssertEqual([inspect.playlist, "\(String(describing: inspect.format))", "\(inspect.offline)"], ["x.m3u8", "Optional(seamcheck.ListFormat.json)", "true"])
        // Help, usage errors, other commands: the whole tree parses them, so its messages are printed.
        for arguments in [["lint", "--help"], ["lint", "-h"], ["lint"], ["lint", "a", "b"], ["lint", "x", "--format", "bogus"],
                          ["inspect", "--version"], ["lint", "--generate-completion-script", "bash"], ["help", "lint"], ["audit", "x"], []] {
            XCTAssertNil(ExitSoon.parse(arguments), "\(arguments)")
        }
    }
}
