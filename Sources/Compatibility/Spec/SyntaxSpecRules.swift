import Foundation
import HLS

/// What the parser found wrong with the text itself (rfc8216bis 4.1-4.4): an attribute written
/// twice, an undefined variable, an EXTINF that is no number, a missing EXT-X-TARGETDURATION.
/// Reported as findings so that a playlist players reject or misread is never called clean.
enum SyntaxSpecRules {
    static let all = [syntax]
    typealias P = SpecPlaylist

    static let syntax = SpecRule(
        SpecRule.describe("playlist-syntax", "Playlist grammar", severity: .error,
                          rationale: "A tag or line the grammar does not allow is dropped or misread by players (an attribute written twice, an undefined {$variable}, a negative EXTINF, a missing EXT-X-TARGETDURATION); an interstitial in such a tag may never play. Problems the parser can work around are warnings.",
                          source: "draft-pantos-hls-rfc8216bis 4.1-4.4",
                          inputs: "the multivariant playlist and the media playlists, as text"),
        examples: [
            SpecExample("an attribute written twice", triggers: true, playlist: P.media(
                P.interstitial("ad1", "X-ASSET-URI=\"\(P.ad1)\",X-ASSET-URI=\"https://ads.example/ad2.m3u8\""))),
            SpecExample("an undefined variable", triggers: true, playlist: P.media(
                P.interstitial("ad1", "X-ASSET-URI=\"https://ads.example/{$campaign}.m3u8\""))),
            SpecExample("no EXT-X-TARGETDURATION", triggers: true, playlist:
                "#EXTM3U\n#EXT-X-PLAYLIST-TYPE:VOD\n#EXTINF:6,\nmain0.ts\n#EXT-X-ENDLIST\n"),
            SpecExample("saved with CR-only line endings: one line, the interstitial lost", triggers: true,
                        playlist: P.media(P.interstitial()).replacingOccurrences(of: "\n", with: "\r")),
            SpecExample("CRLF line endings are fine", triggers: false,
                        playlist: P.media(P.interstitial()).replacingOccurrences(of: "\n", with: "\r\n")),
            SpecExample("the spec's ad1 example", triggers: false, playlist: P.media(P.interstitial())),
        ]) { context in
        var found: [SpecViolation] = []
        let presentation = context.presentation
        if presentation.root.playlist.multivariant != nil {
            found += presentation.root.diagnostics.map { violation($0, playlist: presentation.location.description) }
        }
        for media in context.mediaPlaylists {
            found += media.diagnostics.map { violation($0, playlist: media.reference) }
        }
        return found
    }

    private static func violation(_ diagnostic: PlaylistDiagnostic, playlist: String) -> SpecViolation {
        SpecViolation(tag: "\(diagnostic.tag ?? "text") (line \(diagnostic.line))", playlist: playlist,
                      message: diagnostic.message, severity: diagnostic.level == .error ? .error : .warning)
    }
}
