import Foundation
import HLS

/// The rules of the interstitial schema (rfc8216bis Appendix D, Apple's interstitials guide)
/// that the playlist alone decides.
enum InterstitialSpecRules {
    static let all = [assetSource, assetURIRelative, cuePreAndPost, unknownEnumeratedValue, skipControlLabel]
    static let source = "draft-pantos-hls-rfc8216bis Appendix D; seeds/003 (Getting Started with HLS Interstitials); reference/interstitials.md"
    typealias P = SpecPlaylist

    static let assetSource = SpecRule(
        SpecRule.describe("interstitial-asset-source", "Interstitial without exactly one of X-ASSET-URI and X-ASSET-LIST", severity: .error,
                          rationale: "An interstitial must name its content with X-ASSET-URI or X-ASSET-LIST, not both: with neither there is nothing to play; with both, players disagree on which wins (hls.js and Media3 drop the tag).",
                          source: source),
        examples: [
            SpecExample("neither", triggers: true, playlist: P.media(P.interstitial("ad1", "DURATION=15"))),
            SpecExample("both", triggers: true, playlist: P.media(P.interstitial("ad1", "X-ASSET-URI=\"\(P.ad1)\",X-ASSET-LIST=\"https://ads.example/list.json\"")),
                        resources: ["https://ads.example/list.json": "{\"ASSETS\": []}", P.ad1: P.asset()]),
            SpecExample("X-ASSET-URI written unquoted", triggers: true, playlist: P.media(P.interstitial("ad1", "X-ASSET-URI=ad1"))),
            SpecExample("X-ASSET-URI only (the spec's ad1 example)", triggers: false, playlist: P.media(P.interstitial()), resources: [P.ad1: P.asset()]),
        ]) { context in
        context.interstitials.compactMap { interstitial, range, media in
            switch (interstitial.assetURI != nil, interstitial.assetList != nil) {
            case (true, false), (false, true): return nil
            case (true, true):
                return SpecViolation(tag: range.label, line: range.line, playlist: media.reference, expected: "exactly one of X-ASSET-URI, X-ASSET-LIST",
                                     actual: "both", message: "the interstitial has both X-ASSET-URI and X-ASSET-LIST; players disagree on which wins, keep one")
            case (false, false):
                let unquoted = ["X-ASSET-URI", "X-ASSET-LIST"].compactMap { name in
                    range.attributes[name].map { "\(name)=\($0.text) is not a quoted-string" }
                }
                return SpecViolation(tag: range.label, line: range.line, playlist: media.reference, expected: "exactly one of X-ASSET-URI, X-ASSET-LIST",
                                     actual: unquoted.isEmpty ? "neither" : unquoted.joined(separator: "; "),
                                     message: "the interstitial names no asset (" + (unquoted.isEmpty ? "neither X-ASSET-URI nor X-ASSET-LIST" : unquoted.joined(separator: "; ")) + "); nothing will play")
            }
        }
    }

    static let assetURIRelative = SpecRule(
        SpecRule.describe("interstitial-asset-uri-relative", "Interstitial asset URI is not absolute", severity: .error,
                          rationale: "X-ASSET-URI, and the URI of every ASSETS entry of an asset list, must be an absolute URL; relative ones resolve differently per player, or not at all. (X-ASSET-LIST itself may be relative.)",
                          source: source, inputs: "the media playlists and their asset lists"),
        examples: [
            SpecExample("relative X-ASSET-URI", triggers: true, playlist: P.media(P.interstitial("ad1", "X-ASSET-URI=\"ads/ad1.m3u8\""))),
            SpecExample("relative URI in the asset list", triggers: true, playlist: P.media(P.interstitial("ad1", "X-ASSET-LIST=\"list.json\"")),
                        resources: ["https://primary.example/list.json": "{\"ASSETS\": [{\"URI\": \"ad1.m3u8\", \"DURATION\": 15}]}"]),
            SpecExample("absolute URIs, relative X-ASSET-LIST", triggers: false, playlist: P.media(P.interstitial("ad1", "X-ASSET-LIST=\"list.json\"")),
                        resources: ["https://primary.example/list.json": "{\"ASSETS\": [{\"URI\": \"\(P.ad1)\", \"DURATION\": 15}]}", P.ad1: P.asset()]),
        ]) { context in
        context.interstitials.flatMap { interstitial, range, media -> [SpecViolation] in
            var found: [SpecViolation] = []
            if let uri = interstitial.assetURI, !InputLocation.isAbsoluteURI(uri) {
                found.append(SpecViolation(tag: range.label, line: range.line, playlist: media.reference, expected: "an absolute URL (https://...)",
                                           actual: "X-ASSET-URI=\"\(uri)\"", message: "X-ASSET-URI \"\(uri)\" is relative; it must be an absolute URL"))
            }
            if case .loaded(let list, let location, _)? = context.presentation.assetList(for: interstitial, in: media) {
                for (position, asset) in list.assets.enumerated() where !InputLocation.isAbsoluteURI(asset.uri) {
                    let index = asset.index ?? position
                    found.append(SpecViolation(tag: range.label, line: range.line, playlist: media.reference, expected: "an absolute URL (https://...)",
                                               actual: "ASSETS[\(index)].URI=\"\(asset.uri)\"",
                                               message: "the asset list \(location) has a relative URI \"\(asset.uri)\" in ASSETS[\(index)]; it must be an absolute URL"))
                }
            }
            return found
        }
    }

    static let cuePreAndPost = SpecRule(
        SpecRule.describe("cue-pre-and-post", "CUE with both PRE and POST", severity: .error,
                          rationale: "CUE=PRE plays the interstitial before the primary content, POST after it; a date range cannot be both, and hls.js drops it.",
                          source: source),
        examples: [
            SpecExample("PRE and POST", triggers: true, playlist: P.media(P.interstitial("ad1", "X-ASSET-URI=\"\(P.ad1)\",CUE=\"PRE,POST\""))),
            SpecExample("a pre-roll played once", triggers: false, playlist: P.media(P.interstitial("ad1", "X-ASSET-URI=\"\(P.ad1)\",CUE=\"PRE,ONCE\""))),
        ]) { context in
        context.mediaPlaylists.flatMap { media in
            media.mergedDateRanges.compactMap { range -> SpecViolation? in
                guard let cue = range.cue, cue.contains(.pre), cue.contains(.post) else { return nil }
                return SpecViolation(tag: range.label, line: range.line, playlist: media.reference, expected: "PRE or POST, not both",
                                     actual: "CUE=\"\(range.attributes["CUE"]?.quotedString ?? "")\"",
                                     message: "CUE has both PRE and POST; players drop the date range")
            }
        }
    }

    static let enumeratedAttributes: Set<String> = ["CUE", "X-SNAP", "X-RESTRICT", "X-CONTENT-MAY-VARY", "X-TIMELINE-OCCUPIES", "X-TIMELINE-STYLE"]

    static let unknownEnumeratedValue = SpecRule(
        SpecRule.describe("unknown-enumerated-value", "Unknown token in an enumerated attribute", severity: .warning,
                          rationale: "Clients must ignore unknown tokens of CUE, X-SNAP and X-RESTRICT and unknown values of X-CONTENT-MAY-VARY, X-TIMELINE-OCCUPIES and X-TIMELINE-STYLE, so a typo (\"SKIPP\", \"range\") silently turns the behaviour off.",
                          source: source),
        examples: [
            SpecExample("X-RESTRICT=\"SKIPP\"", triggers: true, playlist: P.media(P.interstitial("ad1", "X-ASSET-URI=\"\(P.ad1)\",X-RESTRICT=\"SKIPP,JUMP\""))),
            SpecExample("X-TIMELINE-OCCUPIES=\"range\"", triggers: true, playlist: P.media(P.interstitial("ad1", "X-ASSET-URI=\"\(P.ad1)\",X-TIMELINE-OCCUPIES=\"range\""))),
            SpecExample("X-SNAP written unquoted", triggers: true, playlist: P.media(P.interstitial("ad1", "X-ASSET-URI=\"\(P.ad1)\",X-SNAP=OUT"))),
            SpecExample("the WWDC24 timeline attributes", triggers: false, playlist: P.media(P.interstitial("ad1",
                "X-ASSET-URI=\"\(P.ad1)\",X-RESTRICT=\"SKIP,JUMP\",X-SNAP=\"OUT,IN\",CUE=\"ONCE\",X-TIMELINE-OCCUPIES=\"RANGE\",X-TIMELINE-STYLE=\"PRIMARY\",X-CONTENT-MAY-VARY=\"NO\""))),
        ]) { context in
        context.mediaPlaylists.indices.flatMap { index in
            let media = context.mediaPlaylists[index]
            return context.dateRanges(ofPlaylistAt: index, merged: true).flatMap { range, interstitial -> [SpecViolation] in
                var problems = range.typeProblems.filter { $0.attribute == "CUE" }
                if let cue = range.cue, !cue.unknown.isEmpty {
                    problems.append(AttributeProblem(attribute: "CUE", kind: .unknownTokens(cue.unknown, allowed: EnumeratedList<CueToken>.allowed)))
                }
                if let cue = range.cue, !cue.repeated.isEmpty { problems.append(AttributeProblem(attribute: "CUE", kind: .repeatedTokens(cue.repeated))) }
                problems += (interstitial?.problems ?? []).filter { $0.attribute != "CUE" && enumeratedAttributes.contains($0.attribute) }
                return problems.map { problem in
                    SpecViolation(tag: range.label, line: range.line, playlist: media.reference, expected: DateRangeSpecRules.expectedText(problem) == "a valid value" ? allowedText(problem) : DateRangeSpecRules.expectedText(problem),
                                  actual: range.attributes[problem.attribute].map { "\(problem.attribute)=\($0.text)" },
                                  message: problem.description + "; " + whatPlayersDo(problem))
                }
            }
        }
    }

    /// What hls.js and Media3 do with the value (reference/interstitials.md, "How players really
    /// behave"): hls.js reads an unquoted value as if quoted; Media3 ignores X-RESTRICT and
    /// X-TIMELINE-* whatever their spelling. Unknown tokens and values every client must ignore.
    static func whatPlayersDo(_ problem: AttributeProblem) -> String {
        guard case .wrongType(let expected, _) = problem.kind, expected == "quoted-string" else {
            return "players ignore it"
        }
        let media3: String
        switch problem.attribute {
        case "X-RESTRICT", "X-TIMELINE-OCCUPIES", "X-TIMELINE-STYLE": media3 = "Media3 ignores \(problem.attribute) quoted or not"
        default: media3 = "a player that follows the spec's grammar may ignore it"
        }
        return "hls.js reads the unquoted value anyway, \(media3); quote it so that every player sees the same value"
    }

    static func allowedText(_ problem: AttributeProblem) -> String {
        switch problem.kind {
        case .unknownTokens(_, let allowed), .unknownValue(_, let allowed): return allowed.joined(separator: ", ")
        case .repeatedTokens: return "each token once"
        default: return "a valid value"
        }
    }

    static let skipControlLabel = SpecRule(
        SpecRule.describe("skip-control-label-invalid", "X-SKIP-CONTROL-LABEL-ID with characters outside [A-Za-z_-]", severity: .error,
                          rationale: "The skip button's label id names a localized string the app provides; it may only use letters, '_' and '-'. The same holds for LABEL-ID in an asset list's SKIP-CONTROL.",
                          source: source, inputs: "the media playlists and their asset lists"),
        examples: [
            SpecExample("a space and a digit", triggers: true, playlist: P.media(P.interstitial("ad1", "X-ASSET-URI=\"\(P.ad1)\",X-SKIP-CONTROL-OFFSET=5,X-SKIP-CONTROL-LABEL-ID=\"skip ad 2\""))),
            SpecExample("in the asset list", triggers: true, playlist: P.media(P.interstitial("ad1", "X-ASSET-LIST=\"https://ads.example/list.json\"")),
                        resources: ["https://ads.example/list.json": "{\"ASSETS\": [{\"URI\": \"\(P.ad1)\", \"DURATION\": 15}], \"SKIP-CONTROL\": {\"OFFSET\": 5, \"LABEL-ID\": \"skip.now\"}}"]),
            SpecExample("SKIP_AD-label", triggers: false, playlist: P.media(P.interstitial("ad1", "X-ASSET-URI=\"\(P.ad1)\",X-SKIP-CONTROL-OFFSET=5,X-SKIP-CONTROL-DURATION=10,X-SKIP-CONTROL-LABEL-ID=\"SKIP_AD-label\""))),
        ]) { context in
        context.interstitials.flatMap { interstitial, range, media -> [SpecViolation] in
            var found = interstitial.problems.filter { $0.attribute == "X-SKIP-CONTROL-LABEL-ID" }.map { problem in
                SpecViolation(tag: range.label, line: range.line, playlist: media.reference, expected: "characters from \(Interstitial.labelCharacters)",
                              actual: range.attributes["X-SKIP-CONTROL-LABEL-ID"]?.text, message: problem.description)
            }
            if case .loaded(let list, let location, _)? = context.presentation.assetList(for: interstitial, in: media),
               let label = list.skipControl?.labelID, !Interstitial.isValidLabel(label) {
                found.append(SpecViolation(tag: range.label, line: range.line, playlist: media.reference, expected: "characters from \(Interstitial.labelCharacters)",
                                           actual: "LABEL-ID \"\(label)\"", message: "the asset list \(location) has SKIP-CONTROL LABEL-ID \"\(label)\" with characters outside \(Interstitial.labelCharacters)"))
            }
            return found
        }
    }

}
