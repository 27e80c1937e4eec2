import Foundation
import HLS

/// Interstitial rules that need what the tags point at: asset lists and asset playlists
/// (fetched by lint; never their media segments).
enum AssetSpecRules {
    static let all = [assetListInvalid, assetUnreachable, notVOD, durationMismatch]
    static let source = InterstitialSpecRules.source
    typealias P = SpecPlaylist
    /// Players in the wild give an asset or asset list this long before skipping the interstitial.
    static let slowAnswer = 10.0
    static let durationTolerance = 0.5
    static let list = "https://ads.example/list.json"

    static func listed(_ assets: String, skipControl: String? = nil) -> String {
        "{\"ASSETS\": [\(assets)]" + (skipControl.map { ", \"SKIP-CONTROL\": \($0)" } ?? "") + "}"
    }

    static let assetListInvalid = SpecRule(
        SpecRule.describe("asset-list-invalid", "X-ASSET-LIST is not a valid asset list", severity: .error,
                          rationale: "An asset list must be a JSON object whose ASSETS array holds objects with URI (a string) and DURATION (a number of seconds, >= 0); an optional SKIP-CONTROL object has OFFSET and DURATION (whole seconds) and LABEL-ID (a string); keys are case-sensitive. A list that is not JSON, not an object or has no ASSETS array makes the client skip the interstitial. A wrong value in one entry is scheduled as players do it: a DURATION written as a string (\"30\", as some ad normalizers write it) is read as the number by hls.js and Shaka but drops the asset on Media3; an entry without a string URI or a usable DURATION (missing, negative, not a number, a key in the wrong case) is skipped and the others play; a wrong SKIP-CONTROL value is ignored. An empty ASSETS plays nothing, which may be intended (no ad sold): info.",
                          source: source + "; draft-pantos-hls-rfc8216bis-22 Appendix D; hls.js 1.7 (parseFloat of DURATION), Media3 1.11 AssetListParser",
                          inputs: "the asset lists (fetched)"),
        examples: [
            SpecExample("not JSON", triggers: true, playlist: P.media(P.interstitial("ad1", "X-ASSET-LIST=\"\(list)\"")), resources: [list: "ASSETS: ad1.m3u8"]),
            SpecExample("lowercase keys", triggers: true, playlist: P.media(P.interstitial("ad1", "X-ASSET-LIST=\"\(list)\"")),
                        resources: [list: "{\"assets\": [{\"uri\": \"\(P.ad1)\", \"duration\": 15}]}"]),
            SpecExample("ASSETS is an object", triggers: true, playlist: P.media(P.interstitial("ad1", "X-ASSET-LIST=\"\(list)\"")),
                        resources: [list: "{\"ASSETS\": {\"URI\": \"\(P.ad1)\", \"DURATION\": 15}}"]),
            SpecExample("entry without DURATION", triggers: true, playlist: P.media(P.interstitial("ad1", "X-ASSET-LIST=\"\(list)\"")),
                        resources: [list: listed("{\"URI\": \"\(P.ad1)\"}")]),
            SpecExample("\"DURATION\": \"30\", a string", triggers: true, playlist: P.media(P.interstitial("ad1", "X-ASSET-LIST=\"\(list)\"")),
                        resources: [list: listed("{\"URI\": \"\(P.ad1)\", \"DURATION\": \"30\"}"), P.ad1: P.asset(seconds: 30)]),
            SpecExample("negative DURATION", triggers: true, playlist: P.media(P.interstitial("ad1", "X-ASSET-LIST=\"\(list)\"")),
                        resources: [list: listed("{\"URI\": \"\(P.ad1)\", \"DURATION\": -15}")]),
            SpecExample("DURATION beyond any finite number", triggers: true, playlist: P.media(P.interstitial("ad1", "X-ASSET-LIST=\"\(list)\"")),
                        resources: [list: listed("{\"URI\": \"\(P.ad1)\", \"DURATION\": 1e400}")]),
            SpecExample("URI is a number", triggers: true, playlist: P.media(P.interstitial("ad1", "X-ASSET-LIST=\"\(list)\"")),
                        resources: [list: listed("{\"URI\": 1, \"DURATION\": 15}")]),
            SpecExample("\"Duration\" in the wrong case", triggers: true, playlist: P.media(P.interstitial("ad1", "X-ASSET-LIST=\"\(list)\"")),
                        resources: [list: listed("{\"URI\": \"\(P.ad1)\", \"Duration\": 15}")]),
            SpecExample("SKIP-CONTROL OFFSET as a string", triggers: true, playlist: P.media(P.interstitial("ad1", "X-ASSET-LIST=\"\(list)\"")),
                        resources: [list: listed("{\"URI\": \"\(P.ad1)\", \"DURATION\": 15}", skipControl: "{\"OFFSET\": \"five\"}"), P.ad1: P.asset()]),
            SpecExample("SKIP-CONTROL DURATION of 2.5 s", triggers: true, playlist: P.media(P.interstitial("ad1", "X-ASSET-LIST=\"\(list)\"")),
                        resources: [list: listed("{\"URI\": \"\(P.ad1)\", \"DURATION\": 15}", skipControl: "{\"OFFSET\": 5, \"DURATION\": 2.5}"), P.ad1: P.asset()]),
            SpecExample("empty ASSETS (info)", triggers: true, playlist: P.media(P.interstitial("ad1", "X-ASSET-LIST=\"\(list)\"")),
                        resources: [list: "{\"ASSETS\": []}"]),
            SpecExample("two assets and SKIP-CONTROL", triggers: false, playlist: P.media(P.interstitial("ad1", "X-ASSET-LIST=\"\(list)\"")),
                        resources: [list: "{\"ASSETS\": [{\"URI\": \"\(P.ad1)\", \"DURATION\": 15}, {\"URI\": \"https://ads.example/ad2.m3u8\", \"DURATION\": 10.5}], \"SKIP-CONTROL\": {\"OFFSET\": 5, \"DURATION\": 10, \"LABEL-ID\": \"SKIP\"}}",
                                    P.ad1: P.asset(), "https://ads.example/ad2.m3u8": P.asset(seconds: 10.5)]),
        ]) { context in
        // Only a fetched asset list is invalid or has problems: none fetched (--offline), nothing to read.
        context.presentation.assetLists.isEmpty ? [] : context.interstitials.flatMap { interstitial, range, media -> [SpecViolation] in
            switch context.presentation.assetList(for: interstitial, in: media) {
            case .invalid(let error, let location)?:
                return [SpecViolation(tag: range.label, line: range.line, playlist: media.reference, expected: "{\"ASSETS\": [{\"URI\": ..., \"DURATION\": ...}]}",
                                      actual: error.description, message: "the asset list \(location) \(error); the client skips the interstitial")]
            case .loaded(let list, let location, _)?:
                var found = list.problems.map { problem in
                    SpecViolation(tag: range.label, line: range.line, playlist: media.reference, expected: expected(problem),
                                  actual: problem.place,
                                  message: "the asset list \(location): \(problem); \(problem.consequence)")
                }
                if list.assets.isEmpty && list.problems.isEmpty {
                    found.append(SpecViolation(tag: range.label, line: range.line, playlist: media.reference, expected: "at least one asset", actual: "ASSETS is empty",
                                               message: "the asset list \(location) has no assets; nothing plays (fine if no ad was sold)", severity: .info))
                }
                return found
            default:
                return []
            }
        }
    }

    /// What the draft wants for the value a problem names.
    static func expected(_ problem: AssetListProblem) -> String {
        switch problem.key {
        case "URI": return "\"URI\": an absolute URL as a string"
        case "DURATION": return "\"DURATION\": a number of seconds >= 0"
        case "SKIP-CONTROL.OFFSET", "SKIP-CONTROL.DURATION": return "\(problem.key!): whole seconds >= 0, as a number"
        case "SKIP-CONTROL.LABEL-ID": return "SKIP-CONTROL.LABEL-ID: a string of \(Interstitial.labelCharacters)"
        case nil: return "an object with URI and DURATION"
        default: return "SKIP-CONTROL: {\"OFFSET\": ..., \"DURATION\": ..., \"LABEL-ID\": ...}"
        }
    }

    static let assetUnreachable = SpecRule(
        SpecRule.describe("asset-unreachable", "Asset or asset list cannot be fetched in time", severity: .warning,
                          rationale: "When an asset or asset-list request fails, or takes longer than players wait (about 10 s in the wild), the client skips the interstitial and resumes with offset 0: the ad never plays.",
                          source: source, inputs: "the asset lists and asset playlists (fetched)"),
        examples: [
            SpecExample("asset 404", triggers: true, playlist: P.media(P.interstitial())),
            SpecExample("asset list 404", triggers: true, playlist: P.media(P.interstitial("ad1", "X-ASSET-LIST=\"\(list)\""))),
            SpecExample("asset list points at a local file", triggers: true, playlist: P.media(P.interstitial("ad1", "X-ASSET-LIST=\"file:///etc/passwd\""))),
            SpecExample("one variant of a multivariant asset 404 (players fail over)", triggers: true, playlist: P.media(P.interstitial()),
                        resources: [P.ad1: "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=900000\nhi.m3u8\n#EXT-X-STREAM-INF:BANDWIDTH=500000\nlo.m3u8\n",
                                    "https://ads.example/lo.m3u8": P.asset()]),
            SpecExample("asset answers", triggers: false, playlist: P.media(P.interstitial()), resources: [P.ad1: P.asset()]),
        ]) { context in
        context.interstitials.flatMap { interstitial, range, media -> [SpecViolation] in
            var found: [SpecViolation] = []
            /// Variants of a loaded multivariant asset that failed: the others play.
            func checkVariants(_ summary: AssetPlaylistSummary) {
                for failure in summary.unloadedVariants {
                    let text = AssetSpecRules.described(failure)
                    found.append(SpecViolation(tag: range.label, line: range.line, playlist: media.reference, expected: "every variant of the asset loads",
                                               actual: text, message: "a variant of the asset \(summary.location) cannot be loaded: \(text); receivers that select it fail over to another variant"))
                }
            }
            func check(_ what: String, _ failure: LoadError?, elapsed: Double?, url: String) {
                if let failure {
                    let text = AssetSpecRules.described(failure)
                    found.append(SpecViolation(tag: range.label, line: range.line, playlist: media.reference, expected: "\(what) loads",
                                               actual: text, message: "\(what) cannot be loaded: \(text); the client skips the interstitial"))
                } else if let elapsed, elapsed > slowAnswer {
                    found.append(SpecViolation(tag: range.label, line: range.line, playlist: media.reference, expected: "\(what) answers within \(Int(slowAnswer)) s",
                                               actual: "\(HLSNumber.format(elapsed)) s",
                                               message: "\(what) \(url) took \(HLSNumber.format(elapsed)) s; players that wait \(Int(slowAnswer)) s skip the interstitial"))
                }
            }
            switch context.presentation.assetList(for: interstitial, in: media) {
            case .failed(let error)?: check("the asset list", error, elapsed: nil, url: error.subject)
            case .loaded(let list, let location, let elapsed)?:
                check("the asset list", nil, elapsed: elapsed, url: location.description)
                for asset in list.assets {
                    if case .failed(let error)? = context.presentation.asset(asset.uri, from: location) {
                        check("the asset \(asset.uri)", error, elapsed: nil, url: asset.uri)
                    } else if case .loaded(let summary)? = context.presentation.asset(asset.uri, from: location) {
                        check("the asset", nil, elapsed: summary.elapsed, url: summary.location.description)
                        checkVariants(summary)
                    }
                }
            default: break
            }
            if let uri = interstitial.assetURI, InputLocation.isAbsoluteURI(uri) {
                switch context.presentation.asset(uri, from: media.location) {
                case .failed(let error)?: check("the asset \(uri)", error, elapsed: nil, url: uri)
                case .loaded(let summary)?:
                    check("the asset", nil, elapsed: summary.elapsed, url: summary.location.description)
                    checkVariants(summary)
                case nil: break
                }
            }
            return found
        }
    }

    /// A failure's text; a time limit is the players' fixed one, which --timeout does not raise.
    static func described(_ failure: LoadError) -> String {
        switch failure {
        case .noResponse(let url, let seconds, let limit), .timedOut(let url, let seconds, let limit):
            return "\(url): no answer within \(limit.describe(seconds)): \(limit.advice)"
        default:
            return failure.description
        }
    }

    static let notVOD = SpecRule(
        SpecRule.describe("interstitial-not-vod", "Interstitial asset is not VOD", severity: .error,
                          rationale: "Interstitial assets must be VOD: every media playlist of the asset needs EXT-X-ENDLIST (or PLAYLIST-TYPE:VOD). A live asset has no end, so the primary never resumes.",
                          source: source, inputs: "the asset playlists (fetched)"),
        examples: [
            SpecExample("asset without ENDLIST", triggers: true, playlist: P.media(P.interstitial()), resources: [P.ad1: P.asset(vod: false)]),
            SpecExample("VOD asset", triggers: false, playlist: P.media(P.interstitial()), resources: [P.ad1: P.asset()]),
        ]) { context in
        // Only a fetched asset is live: none fetched (--offline), nothing to read.
        context.presentation.assets.isEmpty ? [] : context.interstitials.flatMap { interstitial, range, media -> [SpecViolation] in
            var uris: [(String, InputLocation)] = interstitial.assetURI.map { [($0, media.location)] } ?? []
            if case .loaded(let list, let location, _)? = context.presentation.assetList(for: interstitial, in: media) {
                uris += list.assets.map { ($0.uri, location) }
            }
            return uris.compactMap { uri, base in
                guard case .loaded(let summary)? = context.presentation.asset(uri, from: base), !summary.isVOD else { return nil }
                return SpecViolation(tag: range.label, line: range.line, playlist: media.reference, expected: "EXT-X-ENDLIST or EXT-X-PLAYLIST-TYPE:VOD",
                                     actual: "live: " + summary.liveMediaPlaylists.joined(separator: ", "),
                                     message: "the asset \(uri) is not VOD (\(summary.liveMediaPlaylists.joined(separator: ", ")) has no EXT-X-ENDLIST); interstitial assets must be VOD")
            }
        }
    }

    static let durationMismatch = SpecRule(
        SpecRule.describe("interstitial-duration-mismatch", "DURATION differs from what the assets last", severity: .warning,
                          rationale: "DURATION should be what the interstitial plays: the sum of the asset list's DURATIONs, or the asset playlist's length (limited by X-PLAYOUT-LIMIT). A mismatch puts the resume point and the timeline UI in the wrong place.",
                          source: source, inputs: "the asset lists and asset playlists (fetched)"),
        examples: [
            SpecExample("DURATION 30, asset 15 s", triggers: true, playlist: P.media(P.interstitial("ad1", "DURATION=30,X-ASSET-URI=\"\(P.ad1)\"")), resources: [P.ad1: P.asset()]),
            SpecExample("DURATION 15, asset list 10 + 10 s", triggers: true, playlist: P.media(P.interstitial("ad1", "DURATION=15,X-ASSET-LIST=\"\(list)\"")),
                        resources: [list: "{\"ASSETS\": [{\"URI\": \"\(P.ad1)\", \"DURATION\": 10}, {\"URI\": \"\(P.ad1)\", \"DURATION\": 10}]}", P.ad1: P.asset(seconds: 10)]),
            SpecExample("the spec's ad1: DURATION=15.0, asset 15 s", triggers: false, playlist: P.media(P.interstitial("ad1", "DURATION=15.0,X-ASSET-URI=\"\(P.ad1)\"")), resources: [P.ad1: P.asset()]),
            SpecExample("30 s asset cut by X-PLAYOUT-LIMIT=15", triggers: false, playlist: P.media(P.interstitial("ad1", "DURATION=15,X-PLAYOUT-LIMIT=15,X-ASSET-URI=\"\(P.ad1)\"")), resources: [P.ad1: P.asset(seconds: 30)]),
        ]) { context in
        // Only fetched asset lists and assets have a length: none fetched (--offline), nothing to compare.
        context.presentation.assetLists.isEmpty && context.presentation.assets.isEmpty ? [] : context.interstitials.compactMap { interstitial, range, media -> SpecViolation? in
            guard let declared = interstitial.duration else { return nil }
            var measured: Double?
            var source = ""
            if case .loaded(let list, let location, _)? = context.presentation.assetList(for: interstitial, in: media), !list.assets.isEmpty {
                measured = list.totalDuration
                source = "the asset list \(location) sums to"
            } else if let uri = interstitial.assetURI, case .loaded(let summary)? = context.presentation.asset(uri, from: media.location) {
                measured = summary.duration
                source = "the asset \(uri) lasts"
            }
            guard var played = measured else { return nil }
            if let limit = interstitial.playoutLimit { played = min(played, limit) }
            guard abs(played - declared) > durationTolerance else { return nil }
            let limited = interstitial.playoutLimit.map { " (X-PLAYOUT-LIMIT \(HLSNumber.format($0)) s)" } ?? ""
            return SpecViolation(tag: range.label, line: range.line, playlist: media.reference, expected: "DURATION=\(HLSNumber.format(played))",
                                 actual: "DURATION=\(HLSNumber.format(declared))",
                                 message: "DURATION is \(HLSNumber.format(declared)) s but \(source) \(HLSNumber.format(measured!)) s\(limited)")
        }
    }
}
