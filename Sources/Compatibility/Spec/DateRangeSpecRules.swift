import Foundation
import HLS

/// The rules every EXT-X-DATERANGE follows, whatever its CLASS (rfc8216bis 4.4.5.1).
enum DateRangeSpecRules {
    static let all = [missingID, missingStartDate, datesInvalid, idConflict, endOnNext, missingProgramDateTime, acrossRenditions,
                      hexadecimalInvalid]
    static let source = "draft-pantos-hls-rfc8216bis 4.4.5.1; reference/interstitials.md"
    typealias P = SpecPlaylist

    static let missingID = SpecRule(
        SpecRule.describe("daterange-missing-id", "EXT-X-DATERANGE without ID", severity: .error,
                          rationale: "ID is required; players drop a date range without one (hls.js: \"Ignoring invalid DATERANGE tag\"), so its interstitial never plays.",
                          source: source),
        examples: [
            SpecExample("no ID", triggers: true, playlist: P.media("#EXT-X-DATERANGE:CLASS=\"com.apple.hls.interstitial\",START-DATE=\"2020-01-02T21:55:44.000Z\",X-ASSET-URI=\"\(P.ad1)\"")),
            SpecExample("ID written unquoted", triggers: true, playlist: P.media("#EXT-X-DATERANGE:ID=ad1,START-DATE=\"2020-01-02T21:55:44.000Z\"")),
            SpecExample("the spec's ad1 example", triggers: false, playlist: P.media(P.interstitial())),
        ]) { context in
        context.mediaPlaylists.flatMap { media in
            media.playlist.dateRanges.filter { $0.id == nil || $0.id == "" }.map { range in
                let unquoted = range.attributes["ID"].map { " (ID=\($0.text) is a \($0.typeName), it must be a quoted-string)" } ?? ""
                return SpecViolation(tag: range.label, line: range.line, playlist: media.reference, expected: "ID=\"...\"", actual: range.attributes["ID"]?.text ?? "no ID",
                                     message: "EXT-X-DATERANGE has no usable ID\(unquoted); players drop the tag")
            }
        }
    }

    static let missingStartDate = SpecRule(
        SpecRule.describe("daterange-missing-start-date", "EXT-X-DATERANGE without START-DATE", severity: .error,
                          rationale: "START-DATE is required unless an earlier tag with the same ID had it; without it the date range has no place on the timeline and players drop it.",
                          source: source),
        examples: [
            SpecExample("no START-DATE", triggers: true, playlist: P.media("#EXT-X-DATERANGE:ID=\"ad1\",CLASS=\"com.apple.hls.interstitial\",X-ASSET-URI=\"\(P.ad1)\"")),
            SpecExample("a later tag of the same ID may omit it", triggers: false, playlist: P.media(
                P.interstitial(), "#EXT-X-DATERANGE:ID=\"ad1\",DURATION=15.0")),
        ]) { context in
        context.mediaPlaylists.flatMap { media in
            var dated: Set<String> = []
            var found: [SpecViolation] = []
            for range in media.playlist.dateRanges {
                if range.attributes["START-DATE"] != nil {
                    if let id = range.id { dated.insert(id) }
                } else if range.id.map({ !dated.contains($0) }) ?? true {
                    found.append(SpecViolation(tag: range.label, line: range.line, playlist: media.reference, expected: "START-DATE=\"<ISO 8601 date>\"",
                                               actual: "no START-DATE", message: "EXT-X-DATERANGE has no START-DATE and no earlier tag with its ID had one; players drop it"))
                }
            }
            return found
        }
    }

    static let timeAttributes: Set<String> = ["START-DATE", "END-DATE", "DURATION", "PLANNED-DURATION", "X-RESUME-OFFSET",
                                              "X-PLAYOUT-LIMIT", "X-SKIP-CONTROL-OFFSET", "X-SKIP-CONTROL-DURATION"]

    static let datesInvalid = SpecRule(
        SpecRule.describe("daterange-dates-invalid", "Dates or durations that cannot be right", severity: .error,
                          rationale: "END-DATE must not precede START-DATE, DURATION and PLANNED-DURATION must not be negative, DURATION and END-DATE must agree, dates must be ISO 8601 (one without a time zone is read as UTC: date-without-time-zone), and the time attributes (DURATION, X-RESUME-OFFSET, X-PLAYOUT-LIMIT >= 0, X-SKIP-CONTROL-*) must have their numeric types. Players reject such tags.",
                          source: source),
        examples: [
            SpecExample("END-DATE before START-DATE", triggers: true, playlist: P.media(P.interstitial("ad1", "END-DATE=\"2020-01-02T21:55:40.000Z\",X-ASSET-URI=\"\(P.ad1)\""))),
            SpecExample("negative DURATION", triggers: true, playlist: P.media(P.interstitial("ad1", "DURATION=-1,X-ASSET-URI=\"\(P.ad1)\""))),
            SpecExample("DURATION and END-DATE disagree", triggers: true, playlist: P.media(P.interstitial("ad1", "DURATION=15,END-DATE=\"2020-01-02T21:56:00.000Z\",X-ASSET-URI=\"\(P.ad1)\""))),
            SpecExample("START-DATE that is no date", triggers: true, playlist: P.media(P.interstitial("ad1", start: "2020-01-02 at 21:55"))),
            SpecExample("negative X-PLAYOUT-LIMIT", triggers: true, playlist: P.media(P.interstitial("ad1", "X-ASSET-URI=\"\(P.ad1)\",X-PLAYOUT-LIMIT=-5"))),
            SpecExample("X-RESUME-OFFSET quoted", triggers: true, playlist: P.media(P.interstitial("ad1", "X-ASSET-URI=\"\(P.ad1)\",X-RESUME-OFFSET=\"0\""))),
            SpecExample("DURATION in one tag, a contradicting END-DATE in a later one", triggers: true, playlist: P.media(
                P.interstitial("ad1", "DURATION=10,X-ASSET-URI=\"\(P.ad1)\""),
                "#EXT-X-DATERANGE:ID=\"ad1\",START-DATE=\"2020-01-02T21:55:44Z\",END-DATE=\"2020-01-02T21:56:44.000Z\"")),
            SpecExample("DURATION and END-DATE agree, negative X-RESUME-OFFSET is allowed", triggers: false, playlist: P.media(
                P.interstitial("ad1", "DURATION=16,END-DATE=\"2020-01-02T21:56:00.000Z\",X-RESUME-OFFSET=-2.5,X-ASSET-URI=\"\(P.ad1)\""))),
        ]) { context in
        context.mediaPlaylists.indices.flatMap { index in
            let media = context.mediaPlaylists[index]
            return context.dateRanges(ofPlaylistAt: index, merged: false).flatMap { range, interstitial -> [SpecViolation] in
                var found: [SpecViolation] = []
                func add(_ expected: String, _ actual: String, _ message: String) {
                    found.append(SpecViolation(tag: range.label, line: range.line, playlist: media.reference, expected: expected, actual: actual, message: message))
                }
                let problems = range.typeProblems + (interstitial?.problems ?? [])
                for problem in problems where timeAttributes.contains(problem.attribute) {
                    add(expectedText(problem), range.attributes[problem.attribute]?.text ?? "", problem.description)
                }
                if let start = range.startDate, let end = range.endDate, end < start {
                    add("END-DATE at or after START-DATE", "END-DATE \(HLSDate.format(end)) < START-DATE \(HLSDate.format(start))",
                        "END-DATE is before START-DATE")
                }
                for (name, value) in [("DURATION", range.duration), ("PLANNED-DURATION", range.plannedDuration)] {
                    if let value, value < 0 { add("\(name) >= 0", HLSNumber.format(value), "\(name) is negative") }
                }
                if let start = range.startDate, let end = range.endDate, let duration = range.duration, duration >= 0,
                   abs(end.timeIntervalSince(start) - duration) > 0.001 {
                    add("DURATION=\(HLSNumber.format(end.timeIntervalSince(start))) (END-DATE minus START-DATE)",
                        "DURATION=\(HLSNumber.format(duration))", "DURATION and END-DATE disagree; players cannot tell when the range ends")
                }
                return found
            } + mergedDateProblems(media)
        }
    }

    /// START-DATE, END-DATE and DURATION can come from different tags of one ID: check the
    /// range they describe together (each single tag is checked above).
    static func mergedDateProblems(_ media: LoadedMediaPlaylist) -> [SpecViolation] {
        var counts: [String: Int] = [:]
        // IDs with a tag that has DURATION and END-DATE both: that tag's own check already spoke.
        var checkedAlone: Set<String> = []
        for range in media.playlist.dateRanges {
            guard let id = range.id else { continue }
            counts[id, default: 0] += 1
            if range.duration != nil, range.endDate != nil { checkedAlone.insert(id) }
        }
        return media.mergedDateRanges.compactMap { range -> SpecViolation? in
            guard let id = range.id, counts[id, default: 0] > 1, let start = range.startDate, let end = range.endDate else { return nil }
            if end < start {
                return SpecViolation(tag: range.label, line: range.line, playlist: media.reference, expected: "END-DATE at or after START-DATE",
                                     actual: "END-DATE \(HLSDate.format(end)) < START-DATE \(HLSDate.format(start))",
                                     message: "across the tags of ID=\"\(id)\", END-DATE is before START-DATE")
            }
            guard let duration = range.duration, duration >= 0, abs(end.timeIntervalSince(start) - duration) > 0.001,
                  !checkedAlone.contains(id) else { return nil }
            return SpecViolation(tag: range.label, line: range.line, playlist: media.reference,
                                 expected: "DURATION=\(HLSNumber.format(end.timeIntervalSince(start))) (END-DATE minus START-DATE)",
                                 actual: "DURATION=\(HLSNumber.format(duration))",
                                 message: "across the tags of ID=\"\(id)\", DURATION and END-DATE disagree; players cannot tell when the range ends")
        }
    }

    static func expectedText(_ problem: AttributeProblem) -> String {
        switch problem.kind {
        case .wrongType(let expected, _): return "a \(expected)"
        case .invalidDate: return "an ISO 8601 date, e.g. 2020-01-02T21:55:44.000Z"
        case .negative: return ">= 0"
        default: return "a valid value"
        }
    }

    static let idConflict = SpecRule(
        SpecRule.describe("daterange-id-conflict", "A later tag with the same ID changes a value", severity: .error,
                          rationale: "Tags with the same ID describe one date range; a later tag may add attributes but must not change one. Media3 fails playback on such a change; others keep either value.",
                          source: source),
        examples: [
            SpecExample("DURATION changed", triggers: true, playlist: P.media(P.interstitial("ad1", "DURATION=15,X-ASSET-URI=\"\(P.ad1)\""),
                                                                                 P.interstitial("ad1", "DURATION=30,X-ASSET-URI=\"\(P.ad1)\""))),
            SpecExample("a value added by the second tag changed by the third", triggers: true, playlist: P.media(
                P.interstitial("ad1", "X-ASSET-URI=\"\(P.ad1)\""),
                "#EXT-X-DATERANGE:ID=\"ad1\",START-DATE=\"2020-01-02T21:55:44Z\",DURATION=10",
                "#EXT-X-DATERANGE:ID=\"ad1\",START-DATE=\"2020-01-02T21:55:44Z\",DURATION=20")),
            SpecExample("same values, END-DATE added", triggers: false, playlist: P.media(P.interstitial("ad1", "DURATION=15,X-ASSET-URI=\"\(P.ad1)\""),
                "#EXT-X-DATERANGE:ID=\"ad1\",START-DATE=\"2020-01-02T21:55:44Z\",END-DATE=\"2020-01-02T21:55:59.000Z\"")),
        ]) { context in
        context.mediaPlaylists.flatMap { media in
            // What every earlier tag of an ID set, and where: a later tag is checked against all
            // of them, not only the first (a value added by the second tag may not change in the third).
            var known: [String: [String: (value: AttributeValue, line: Int)]] = [:]
            var found: [SpecViolation] = []
            var counts: [String: Int] = [:]
            for range in media.playlist.dateRanges { if let id = range.id { counts[id, default: 0] += 1 } }
            for range in media.playlist.dateRanges {
                guard let id = range.id, counts[id, default: 0] > 1 else { continue }
                var set = known[id] ?? [:]
                for item in range.attributes.items {
                    if let old = set[item.name] {
                        guard !sameValue(item.name, old.value, item.value) else { continue }
                        found.append(SpecViolation(tag: range.label, line: range.line, playlist: media.reference, expected: "\(item.name)=\(old.value.text) (line \(old.line))",
                                                   actual: "\(item.name)=\(item.value.text)",
                                                   message: "EXT-X-DATERANGE ID=\"\(id)\" changes \(item.name) set at line \(old.line); a later tag may only add attributes"))
                    } else {
                        set[item.name] = (item.value, range.line)
                    }
                }
                known[id] = set
            }
            return found
        }
    }

    /// Equal values, comparing numbers by value and dates by instant.
    static func sameValue(_ name: String, _ a: AttributeValue, _ b: AttributeValue) -> Bool {
        if let x = a.number, let y = b.number { return x == y }
        if name.hasSuffix("-DATE"), let x = a.quotedString.flatMap(HLSDate.parse), let y = b.quotedString.flatMap(HLSDate.parse) {
            return x == y
        }
        return a == b
    }

    static let endOnNext = SpecRule(
        SpecRule.describe("end-on-next-invalid", "END-ON-NEXT without CLASS, or with DURATION or END-DATE", severity: .error,
                          rationale: "END-ON-NEXT=YES ends the range at the next range of its CLASS, so it requires CLASS and forbids DURATION and END-DATE; its only value is YES. hls.js drops such tags.",
                          source: source),
        examples: [
            SpecExample("END-ON-NEXT with DURATION", triggers: true, playlist: P.media("#EXT-X-DATERANGE:ID=\"s1\",CLASS=\"com.example.scene\",START-DATE=\"2020-01-02T21:55:44Z\",END-ON-NEXT=YES,DURATION=5")),
            SpecExample("END-ON-NEXT without CLASS", triggers: true, playlist: P.media("#EXT-X-DATERANGE:ID=\"s1\",START-DATE=\"2020-01-02T21:55:44Z\",END-ON-NEXT=YES")),
            SpecExample("END-ON-NEXT=NO", triggers: true, playlist: P.media("#EXT-X-DATERANGE:ID=\"s1\",CLASS=\"com.example.scene\",START-DATE=\"2020-01-02T21:55:44Z\",END-ON-NEXT=NO")),
            SpecExample("END-ON-NEXT with CLASS only", triggers: false, playlist: P.media("#EXT-X-DATERANGE:ID=\"s1\",CLASS=\"com.example.scene\",START-DATE=\"2020-01-02T21:55:44Z\",END-ON-NEXT=YES")),
        ]) { context in
        context.mediaPlaylists.flatMap { media in
            media.playlist.dateRanges.compactMap { range -> SpecViolation? in
                guard let value = range.attributes["END-ON-NEXT"] else { return nil }
                var wrong: [String] = []
                if value.enumeratedString != "YES" { wrong.append("its value is \(value.text), the only value is YES") }
                if range.classification == nil { wrong.append("it has no CLASS") }
                if range.attributes["DURATION"] != nil { wrong.append("it has DURATION") }
                if range.attributes["END-DATE"] != nil { wrong.append("it has END-DATE") }
                guard !wrong.isEmpty else { return nil }
                return SpecViolation(tag: range.label, line: range.line, playlist: media.reference, expected: "END-ON-NEXT=YES with CLASS, without DURATION and END-DATE",
                                     actual: wrong.joined(separator: "; "), message: "END-ON-NEXT is invalid: " + wrong.joined(separator: "; "))
            }
        }
    }

    static let missingProgramDateTime = SpecRule(
        SpecRule.describe("missing-program-date-time", "Date ranges without EXT-X-PROGRAM-DATE-TIME", severity: .error,
                          rationale: "A playlist with EXT-X-DATERANGE must have EXT-X-PROGRAM-DATE-TIME: without it START-DATE cannot be placed on the media timeline and no interstitial can be scheduled.",
                          source: source),
        examples: [
            SpecExample("date range, no PROGRAM-DATE-TIME", triggers: true, playlist: P.media(P.interstitial(), programDateTime: false)),
            SpecExample("the spec's ad1 example", triggers: false, playlist: P.media(P.interstitial())),
        ]) { context in
        context.mediaPlaylists.compactMap { media in
            guard let first = media.playlist.dateRanges.first, !media.playlist.hasProgramDateTime else { return nil }
            return SpecViolation(tag: first.label, line: first.line, playlist: media.reference, expected: "EXT-X-PROGRAM-DATE-TIME before the first segment",
                                 actual: "no EXT-X-PROGRAM-DATE-TIME",
                                 message: "the playlist has \(media.playlist.dateRanges.count) EXT-X-DATERANGE tag(s) but no EXT-X-PROGRAM-DATE-TIME; players cannot place them on the timeline")
        }
    }
}
