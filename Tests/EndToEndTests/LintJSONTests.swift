import Compatibility
import Foundation
import HLS
@testable import seamcheck
import XCTest

/// The lint JSON written straight into bytes (`LintJSON`) is, byte for byte, what the Codable
/// path (`PlaylistInput.json`, Foundation's spelling) writes for the same document.
final class LintJSONTests: XCTestCase {
    private func load(_ files: [String: String], input: String) async throws -> Presentation {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("lint-json-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for (name, text) in files { try text.write(to: folder.appendingPathComponent(name), atomically: true, encoding: .utf8) }
        return try await PlaylistInput.load(folder.appendingPathComponent(input).path, timeout: 5, fetchAssets: true, offline: true)
    }

    func testDirectBytesAreTheCodableDocument() async throws {
        let media = LintSharedContextTests.media
        let broken = "#EXTM3U\n#EXT-X-TARGETDURATION:x\n#EXTINF:abc,\nsegment.ts\n#EXT-X-BYTERANGE:100\n#EXTINF:2,\nb.ts\n"
        let inputs: [([String: String], String)] = [
            (["media.m3u8": media], "media.m3u8"),
            (["main.m3u8": LintSharedContextTests.multivariant, "video.m3u8": media], "main.m3u8"),
            (["broken.m3u8": broken], "broken.m3u8"),
        ]
        for (files, input) in inputs {
            let presentation = try await load(files, input: input)
            let context = SpecContext(presentation)
            let findings = SpecLinter.lint(context) + BoundaryRule.findings(in: context) + LocalizationRules.findings(in: context)
            XCTAssertFalse(findings.isEmpty, input)
            var document = LintDocument(input: input, presentation: presentation, findings: findings)
            document.notChecked = PlaylistInput.notChecked(presentation, offline: true)
            XCTAssertEqual(LintJSON.render(document), try PlaylistInput.json(document), input)
        }
        // Every optional both ways, every container empty and not, text that needs escaping.
        let presentation = try await load(["broken.m3u8": broken], input: "broken.m3u8")
        let odd = "quote \" backslash \\ slash / tab \t nl \n cr \r bell \u{07} del \u{7F} é 🎬 \u{1F}"
        var document = LintDocument(input: odd, presentation: presentation, findings: [
            Finding(rule: "r", severity: .error, deviceClass: "apple-tv", subject: odd, expected: "e", actual: "a", message: odd,
                    remediation: "-c:v libx264", location: SourceLocation(uri: odd, line: nil), accepted: "because"),
            Finding(rule: "r", severity: .warning, deviceClass: nil, subject: "", expected: nil, actual: nil, message: "",
                    remediation: nil, location: nil),
            Finding(rule: "r", severity: .info, deviceClass: nil, subject: "s", expected: nil, actual: nil, message: "m",
                    remediation: nil, location: SourceLocation(uri: "u", line: 12)),
        ])
        document.deviceClasses = ["apple-tv", odd]
        document.notChecked = [odd]
        document.playlists = []
        document.unreachable = [
            UnreachablePlaylist(MediaPlaylistFailure(reference: "a.m3u8", error: .fileNotFound("/x/a.m3u8"), role: .variant)),
            UnreachablePlaylist(MediaPlaylistFailure(reference: odd, error: .fileNotFound(odd), role: .rendition, location: "http://h/a")),
        ]
        document.unreachable[1].status = 404
        document.diagnostics.append(PlaylistInput.Diagnostic(playlist: odd, line: 3, level: "warning", tag: nil, message: odd))
        XCTAssertFalse(document.diagnostics.isEmpty)
        XCTAssertEqual(LintJSON.render(document), try PlaylistInput.json(document))
        document.diagnostics = []
        document.unreachable = []
        document.findings = []
        XCTAssertEqual(LintJSON.render(document), try PlaylistInput.json(document))
    }
}
