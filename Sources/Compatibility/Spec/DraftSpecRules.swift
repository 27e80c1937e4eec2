import Foundation
import HLS

/// Draft -22 details the first catalog missed: preload date ranges (Appendix F:
/// CLASS="com.apple.hls.preload" tells a client to fetch a resource ahead of the interstitial
/// that will need it), X-CUE, the pre-standard name of CUE, and dates without a time zone.
enum DraftSpecRules {
    static let all = [invalid, xCue, dateWithoutTimeZone]
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

    static let xCue = SpecRule(
        SpecRule.describe("x-cue-attribute", "X-CUE instead of CUE", severity: .warning,
                          rationale: "X-CUE is the pre-standard name of CUE: hls.js and Media3 still read it and schedule the interstitial as a pre- or post-roll, Apple's players and the draft do not. Seamcheck schedules it as hls.js does when the tag has no CUE, and says so; with CUE present, X-CUE is ignored.",
                          source: "draft-pantos-hls-rfc8216bis-22 4.4.5.1 (CUE); hls.js 1.7 and Media3 1.11 read X-CUE; reference/interstitials.md"),
        examples: [
            SpecExample("X-CUE=\"PRE\" without CUE", triggers: true, playlist: P.media(P.interstitial("ad1", "X-CUE=\"PRE\",X-ASSET-URI=\"\(P.ad1)\""))),
            SpecExample("X-CUE next to CUE", triggers: true, playlist: P.media(P.interstitial("ad1", "CUE=\"POST\",X-CUE=\"PRE\",X-ASSET-URI=\"\(P.ad1)\""))),
            SpecExample("CUE=\"PRE\"", triggers: false, playlist: P.media(P.interstitial("ad1", "CUE=\"PRE\",X-ASSET-URI=\"\(P.ad1)\""))),
        ]) { context in
        context.interstitials.compactMap { interstitial, range, media in
            guard let legacy = range.attributes["X-CUE"] else { return nil }
            if interstitial.cueFromXCue {
                let tokens = interstitial.cue?.tokens.map(\.rawValue).joined(separator: ",") ?? ""
                return SpecViolation(tag: range.label, playlist: media.reference, expected: "CUE=\"\(tokens)\"", actual: "X-CUE=\(legacy.text)",
                                     message: "X-CUE is the pre-standard name of CUE: hls.js and Media3 schedule this interstitial by it (and so does Seamcheck), Apple's players ignore it; write CUE=\"\(tokens)\"")
            }
            return SpecViolation(tag: range.label, playlist: media.reference, expected: "CUE only", actual: "CUE and X-CUE=\(legacy.text)",
                                 message: "X-CUE is ignored next to CUE (players that read X-CUE take CUE first); remove it")
        }
    }

    static let dateWithoutTimeZone = SpecRule(
        SpecRule.describe("date-without-time-zone", "Date without a time zone, read as UTC", severity: .warning,
                          rationale: "START-DATE, END-DATE and EXT-X-PROGRAM-DATE-TIME are ISO 8601 dates that SHOULD carry a time zone (Z, +hh:mm or +hhmm). Players read one without as UTC (Media3 does), and so does Seamcheck: the interstitial is scheduled at that UTC time. If the packager meant local time, every interstitial lands hours off, on some players and not others.",
                          source: "draft-pantos-hls-rfc8216bis-22 4.4.4.6 and 4.4.5.1; Media3 1.11 reads a date without a time zone as UTC; reference/interstitials.md"),
        examples: [
            SpecExample("START-DATE without a time zone", triggers: true, playlist: P.media(P.interstitial("ad1", start: "2020-01-02T21:55:44.000"))),
            SpecExample("END-DATE without a time zone", triggers: true, playlist: P.media(
                P.interstitial("ad1", "END-DATE=\"2020-01-02T21:55:59\",X-ASSET-URI=\"\(P.ad1)\""))),
            SpecExample("EXT-X-PROGRAM-DATE-TIME without a time zone", triggers: true, playlist: P.media(P.interstitial())
                .replacingOccurrences(of: "#EXT-X-PROGRAM-DATE-TIME:2020-01-02T21:55:40.000Z", with: "#EXT-X-PROGRAM-DATE-TIME:2020-01-02T21:55:40.000")),
            SpecExample("Z, lower-case z and t, +hh:mm, +hhmm and a nine-digit fraction", triggers: false, playlist: P.media(
                P.interstitial("ad1", start: "2020-01-02t21:55:44.000z"),
                P.interstitial("ad2", "X-ASSET-URI=\"\(P.ad1)\"", start: "2020-01-02T22:55:44.000+01:00"),
                P.interstitial("ad3", "X-ASSET-URI=\"\(P.ad1)\"", start: "2020-01-02T16:55:44-0500"),
                P.interstitial("ad4", "X-ASSET-URI=\"\(P.ad1)\"", start: "2020-01-02T21:55:44.123456789Z"))),
        ]) { context in
        context.mediaPlaylists.flatMap { media -> [SpecViolation] in
            let dates = media.playlist.programDateTimesWithoutTimeZone.map { date in
                SpecViolation(tag: "EXT-X-PROGRAM-DATE-TIME (line \(date.line))", line: date.line, playlist: media.reference,
                              expected: "a time zone (Z, +hh:mm or +hhmm)", actual: date.text,
                              message: "EXT-X-PROGRAM-DATE-TIME:\(date.text) has no time zone: read as UTC (\(HLSDate.format(HLSDate.parseAssumingUTC(date.text)?.date ?? Date(timeIntervalSince1970: 0)))), as players read it; every date range is placed against it. Write the offset the packager meant (Z for UTC)")
            }
            return dates + media.playlist.dateRanges.flatMap { range in
                range.datesWithoutTimeZone.map { name in
                    let text = range.attributes[name]?.quotedString ?? ""
                    let utc = (name == "START-DATE" ? range.startDate : range.endDate).map(HLSDate.format) ?? text
                    return SpecViolation(tag: range.label, line: range.line, playlist: media.reference, expected: "a time zone (Z, +hh:mm or +hhmm)",
                                         actual: "\(name)=\"\(text)\"",
                                         message: "\(name)=\"\(text)\" has no time zone: read as UTC (\(utc)), as players read it, and scheduled there; "
                                            + "if the packager meant local time the \(range.isInterstitial ? "interstitial" : "date range") is hours off. Write the offset (Z for UTC)")
                }
            }
        }
    }
}

