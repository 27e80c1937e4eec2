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
            SpecExample("an I-frame stream names a playlist without EXT-X-I-FRAMES-ONLY", triggers: true,
                        playlist: P.multivariant(["v1.m3u8"]) + "#EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=100000,URI=\"v1-iframes.m3u8\"\n",
                        resources: ["https://primary.example/v1.m3u8": P.media(), "https://primary.example/v1-iframes.m3u8": P.media()]),
            SpecExample("CRLF line endings are fine", triggers: false,
                        playlist: P.media(P.interstitial()).replacingOccurrences(of: "\n", with: "\r\n")),
            SpecExample("the spec's ad1 example", triggers: false, playlist: P.media(P.interstitial())),
            SpecExample("an init section encrypted with an AES-128 key that has no IV (RFC 8216 4.3.2.5)", triggers: true,
                        playlist: encrypted(key: "#EXT-X-KEY:METHOD=AES-128,URI=\"k.bin\"", mapFirst: false)),
            SpecExample("an encrypted init section with its IV", triggers: false,
                        playlist: encrypted(key: "#EXT-X-KEY:METHOD=AES-128,URI=\"k.bin\",IV=0x000102030405060708090a0b0c0d0e0f", mapFirst: false)),
            SpecExample("a clear init section, AES-128 segments with the media sequence as IV", triggers: false,
                        playlist: encrypted(key: "#EXT-X-KEY:METHOD=AES-128,URI=\"k.bin\"", mapFirst: true)),
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

    /// An fMP4 VOD playlist with `key` before or after its EXT-X-MAP.
    private static func encrypted(key: String, mapFirst: Bool) -> String {
        let map = "#EXT-X-MAP:URI=\"init.mp4\""
        return (["#EXTM3U", "#EXT-X-VERSION:6", "#EXT-X-TARGETDURATION:6"] + (mapFirst ? [map, key] : [key, map])
            + ["#EXTINF:6,", "seg0.m4s", "#EXT-X-ENDLIST"]).joined(separator: "\n") + "\n"
    }

    private static func violation(_ diagnostic: PlaylistDiagnostic, playlist: String) -> SpecViolation {
        SpecViolation(tag: "\(diagnostic.tag ?? "text") (line \(diagnostic.line))", line: diagnostic.line, playlist: playlist,
                      message: diagnostic.message, severity: diagnostic.level == .error ? .error : .warning)
    }
}

/// Where interstitials land on a VOD primary's timeline: a mid-roll dated before the first
/// segment or after the last is never reached, and a resume point before the start of the
/// primary cannot be played back to.
enum TimelineSpecRules {
    static let all = [outsideTimeline]
    typealias P = SpecPlaylist
    /// Below the millisecond that dates are written in.
    static let tolerance = 0.0001

    static let outsideTimeline = SpecRule(
        SpecRule.describe("interstitial-outside-timeline", "Interstitial off the VOD timeline", severity: .warning,
                          rationale: "In a VOD playlist the timeline runs from the first segment's date to the end of the last segment. A mid-roll whose START-DATE lies outside it is never reached (a typo in the date, a wrong year, a date range left over from the live event), and an X-RESUME-OFFSET that takes playback back before the start cannot be honoured. Live playlists are not checked: their date ranges may precede the window.",
                          source: "draft-pantos-hls-rfc8216bis Appendix D; reference/interstitials.md"),
        examples: [
            SpecExample("START-DATE an hour before the first segment", triggers: true, playlist: P.media(
                P.interstitial("ad1", "X-ASSET-URI=\"\(P.ad1)\"", start: "2020-01-02T20:55:44.000Z"))),
            SpecExample("START-DATE after the end of the 30 s playlist", triggers: true, playlist: P.media(
                P.interstitial("ad1", "X-ASSET-URI=\"\(P.ad1)\"", start: "2020-01-02T21:56:20.000Z"))),
            SpecExample("resumes 100 s before the start", triggers: true, playlist: P.media(
                P.interstitial("ad1", "X-ASSET-URI=\"\(P.ad1)\",X-RESUME-OFFSET=-104"))),
            SpecExample("START-DATE 1 ms after the end", triggers: true, playlist: P.media(
                P.interstitial("ad1", "X-ASSET-URI=\"\(P.ad1)\"", start: "2020-01-02T21:56:10.001Z"))),
            SpecExample("the spec's ad1 example, 4 s in", triggers: false, playlist: P.media(P.interstitial())),
            SpecExample("at the very end of the playlist", triggers: false, playlist: P.media(
                P.interstitial("ad1", "X-ASSET-URI=\"\(P.ad1)\"", start: "2020-01-02T21:56:10.000Z"))),
        ]) { context in
        context.mediaPlaylists.indices.filter { context.mediaPlaylists[$0].playlist.isVOD }.flatMap { index -> [SpecViolation] in
            let media = context.mediaPlaylists[index]
            let schedule = context.schedule(ofPlaylistAt: index).schedule
            let end = schedule.primaryDuration
            return schedule.entries.compactMap { entry -> SpecViolation? in
                guard entry.placement == .midRoll, let offset = entry.offset else { return nil }
                // Named only for a violation: most of 1,000 entries have none.
                var tag: String { "EXT-X-DATERANGE" + (entry.id.map { " ID=\"\($0)\"" } ?? "") + " (line \(entry.line))" }
                // Dates are written to the millisecond: 1 ms outside is outside (Media3 drops such an
                // interstitial). The tolerance only absorbs floating-point error.
                if offset < -tolerance || offset > end + tolerance {
                    let where_ = offset < 0 ? "\(HLSNumber.format(-offset)) s before the first segment"
                                            : "\(HLSNumber.format(offset - end)) s after the end"
                    return SpecViolation(tag: tag, line: entry.line, playlist: media.reference, expected: "0 to \(HLSNumber.format(end)) s",
                                         actual: "\(HLSNumber.format(offset)) s",
                                         message: "the interstitial's START-DATE lies \(where_) of this VOD playlist: players never reach it (Media3 drops it)")
                }
                if let resumesAt = entry.resumesAt, resumesAt < -tolerance {
                    return SpecViolation(tag: tag, line: entry.line, playlist: media.reference, expected: "a resume point at or after 0 s",
                                         actual: "\(HLSNumber.format(resumesAt)) s",
                                         message: "X-RESUME-OFFSET takes playback back to \(HLSNumber.format(resumesAt)) s, before the start of the primary")
                }
                return nil
            }
        }
    }
}
