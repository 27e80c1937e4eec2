import Foundation
import HLS

/// Preload date ranges (draft-pantos-hls-rfc8216bis-22, Appendix F): CLASS="com.apple.hls.preload"
/// tells a client to fetch a resource ahead of the interstitial that will need it.
enum PreloadSpecRules {
    static let all = [invalid]
    static let preloadClass = "com.apple.hls.preload"
    typealias P = SpecPlaylist

    /// SpecPlaylist.media without PLAYLIST-TYPE and ENDLIST: a live window, `tags` after the segments.
    static func live(_ tags: String...) -> String {
        P.media().replacingOccurrences(of: "#EXT-X-PLAYLIST-TYPE:VOD\n", with: "")
            .replacingOccurrences(of: "#EXT-X-ENDLIST\n", with: tags.joined(separator: "\n") + "\n")
    }

    static let valid = "#EXT-X-DATERANGE:ID=\"pre1\",CLASS=\"com.apple.hls.preload\",START-DATE=\"2020-01-02T21:55:41.000Z\",DURATION=3,"
        + "X-URI=\"https://ads.example/ad1.m3u8\",X-TARGET-ID=\"ad1\",X-TARGET-CLASS=\"com.apple.hls.interstitial\""

    static let invalid = SpecRule(
        SpecRule.describe("preload-daterange-invalid", "Preload date range that breaks Appendix F", severity: .error,
                          rationale: "A preload date range needs X-URI (what to fetch), X-TARGET-ID and X-TARGET-CLASS (the date range it prepares) and a DURATION or END-DATE (when to fetch), and may carry neither CUE nor END-ON-NEXT; a client drops one that breaks these. In a playlist with EXT-X-ENDLIST clients ignore preload ranges (info).",
                          source: "draft-pantos-hls-rfc8216bis-22 Appendix F; reference/interstitials.md"),
        examples: [
            SpecExample("preload without X-URI or X-TARGET-CLASS", triggers: true, playlist: live(
                "#EXT-X-DATERANGE:ID=\"pre1\",CLASS=\"com.apple.hls.preload\",START-DATE=\"2020-01-02T21:55:41.000Z\",DURATION=3,X-TARGET-ID=\"ad1\"",
                P.interstitial())),
            SpecExample("preload with CUE and no DURATION", triggers: true, playlist: live(
                "#EXT-X-DATERANGE:ID=\"pre1\",CLASS=\"com.apple.hls.preload\",START-DATE=\"2020-01-02T21:55:41.000Z\",CUE=\"PRE\","
                    + "X-URI=\"https://ads.example/ad1.m3u8\",X-TARGET-ID=\"ad1\",X-TARGET-CLASS=\"com.apple.hls.interstitial\"", P.interstitial())),
            SpecExample("a complete preload range in a VOD playlist (ignored there: info)", triggers: true, playlist: P.media(valid, P.interstitial())),
            SpecExample("a complete preload range in a live playlist", triggers: false, playlist: live(valid, P.interstitial())),
        ]) { context in
        context.mediaPlaylists.flatMap { media in
            media.playlist.dateRanges.filter { $0.classification == preloadClass }.compactMap { range -> SpecViolation? in
                var problems: [String] = []
                let missing = ["X-URI", "X-TARGET-ID", "X-TARGET-CLASS"].filter { range.attributes[$0] == nil }
                if !missing.isEmpty { problems.append("no \(missing.joined(separator: ", "))") }
                if range.duration == nil && range.attributes["END-DATE"] == nil && range.attributes["DURATION"] == nil {
                    problems.append("neither DURATION nor END-DATE")
                }
                if range.attributes["CUE"] != nil { problems.append("a CUE, which preload ranges may not have") }
                if range.endOnNext { problems.append("END-ON-NEXT, which preload ranges may not have") }
                if !problems.isEmpty {
                    return SpecViolation(tag: range.label, playlist: media.reference,
                                         expected: "X-URI, X-TARGET-ID, X-TARGET-CLASS and DURATION or END-DATE; no CUE or END-ON-NEXT",
                                         actual: problems.joined(separator: "; "),
                                         message: "preload date range has \(problems.joined(separator: "; ")): clients drop it and fetch nothing ahead (Appendix F)")
                }
                guard media.playlist.endList else { return nil }
                return SpecViolation(tag: range.label, playlist: media.reference, expected: "a live playlist", actual: "EXT-X-ENDLIST",
                                     message: "preload date range in a playlist with EXT-X-ENDLIST: clients ignore it (Appendix F); nothing is fetched ahead",
                                     severity: .info)
            }
        }
    }
}
