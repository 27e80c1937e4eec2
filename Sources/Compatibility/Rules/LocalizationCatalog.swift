/// The localization rules with their examples (which run as tests): audio languages, subtitles,
/// closed captions, forced subtitles, audio description and SDH.
enum LocalizationCatalog {
    typealias Offer = LocalizationOffer
    typealias Track = OfferedTrack
    static let all = [audioLanguage, subtitlesMissing, subtitleLanguage, sdh, forced, captions, audioDescription]

    static func describe(_ id: String, _ title: String, _ severity: Severity, _ track: TrackKind, _ rationale: String) -> RuleDescription {
        RuleDescription(id: id, title: title, rationale: rationale, source: LocalizationRules.source, defaultSeverity: severity,
                        track: track, inputs: "the EXT-X-MEDIA renditions of the primary's and the interstitial's multivariant playlists, in the groups of the variant each class selects")
    }

    static let audioLanguage = LocalizationRule(
        description: describe("audio-language-missing", "The interstitial lacks an audio language the primary offers", .warning, .audio,
                              "For each language the primary offers in audio (EXT-X-MEDIA TYPE=AUDIO LANGUAGE), the interstitial's audio group should offer it too: then automatic selection keeps the viewer's language through the ad. A viewer of a missing language hears the ad in what the player falls back to: the DEFAULT=YES rendition, else the first AUTOSELECT=YES one, else the first (named in the message). An ad whose audio is muxed in its variant is one track, of the language its media is tagged with (audit) or unknown (lint); untagged audio against a one-language primary is not flagged. Audio description tracks are the rule audio-description-missing."),
        examples: [
            LocalizationExample(name: "primary en, fr, de; an English-only ad", primary: offer(audio: ["en", "fr", "de"]),
                                interstitial: offer(audio: ["en"]), triggers: true),
            LocalizationExample(name: "primary en, fr; ad audio muxed and untagged", primary: offer(audio: ["en", "fr"]),
                                interstitial: Offer(), triggers: true),
            LocalizationExample(name: "primary en, fr; ad en, fr", primary: offer(audio: ["en", "fr"]), interstitial: offer(audio: ["fr", "en"]), triggers: false),
            LocalizationExample(name: "primary \"eng\", \"fra\"; ad \"en-US\", \"fr-CA\" (same languages)", primary: offer(audio: ["eng", "fra"]),
                                interstitial: offer(audio: ["en-US", "fr-CA"]), triggers: false),
            LocalizationExample(name: "one-language primary, untagged ad audio (nothing known)", primary: offer(audio: ["en"]), interstitial: Offer(), triggers: false),
        ]
    ) { primary, ad in
        let wanted = LocalizationOffer.languages(primary.audio.filter { !$0.isAudioDescription })
        let adMain = ad.audio.filter { !$0.isAudioDescription }
        let offered = LocalizationOffer.languages(adMain)
        let missing = wanted.filter { !offered.contains($0) }
        guard !missing.isEmpty, !ad.audio.isEmpty, !(offered.isEmpty && wanted.count < 2) else { return nil }
        let names = written(missing, in: primary.audio)
        let fallback = fallbackText(adMain.isEmpty ? ad.audio : adMain)
        return Mismatch(
            expected: "audio in \(written(wanted, in: primary.audio).joined(separator: ", ")) (as the primary)",
            actual: offered.isEmpty ? "audio without LANGUAGE" : "audio in \(written(offered, in: ad.audio).joined(separator: ", "))",
            message: "viewers listening in \(names.joined(separator: " or ")) hear the interstitial in \(fallback ?? "its audio") instead: "
                + "it offers no audio in \(names.joined(separator: ", ")). Fix: add AUDIO renditions with LANGUAGE=\(names.map { "\"\($0)\"" }.joined(separator: ", ")) and AUTOSELECT=YES to the interstitial's audio group (or schedule an ad per language)",
            remediation: nil)
    }

    static let subtitlesMissing = LocalizationRule(
        description: describe("subtitles-missing", "The interstitial has no subtitles where the primary offers some", .warning, .video,
                              "An interstitial with no SUBTITLES group at all, scheduled in a primary that offers subtitles: a viewer who has subtitles on sees none during the ad, and the player has no subtitle track to keep the choice on. Give every variant of the ad a SUBTITLES group with the primary's languages (WebVTT), even if the ad has little speech."),
        examples: [
            LocalizationExample(name: "primary subtitles en, fr; an ad without subtitles", primary: offer(audio: ["en"], subtitles: ["en", "fr"]),
                                interstitial: offer(audio: ["en"]), triggers: true),
            LocalizationExample(name: "primary with forced subtitles only; an ad without subtitles",
                                primary: Offer(audio: [audio("en")], subtitles: [subtitle("fr", forced: true)]), interstitial: offer(audio: ["en"]), triggers: false),
            LocalizationExample(name: "both with subtitles en", primary: offer(audio: ["en"], subtitles: ["en"]),
                                interstitial: offer(audio: ["en"], subtitles: ["en"]), triggers: false),
        ]
    ) { primary, ad in
        let wanted = primary.subtitles.filter { !$0.forced }
        guard !wanted.isEmpty, ad.subtitles.isEmpty else { return nil }
        let names = written(LocalizationOffer.languages(wanted), in: wanted)
        let sdh = wanted.filter(\.isSDH).map(\.label)
        return Mismatch(
            expected: "subtitles in \(names.joined(separator: ", "))", actual: "no SUBTITLES group",
            message: "the interstitial has no subtitles: viewers with subtitles on in \(names.joined(separator: " or "))"
                + (sdh.isEmpty ? "" : " (SDH: \(sdh.joined(separator: ", ")))") + " see none during the ad. Fix: add a SUBTITLES group with WebVTT renditions in \(names.joined(separator: ", ")) and name it in SUBTITLES= on every variant of the interstitial",
            remediation: nil)
    }

    static let subtitleLanguage = LocalizationRule(
        description: describe("subtitle-language-missing", "The interstitial lacks a subtitle language the primary offers", .warning, .video,
                              "For each language the primary offers in subtitles (not FORCED), the interstitial's subtitle group should offer it too. A viewer with subtitles on in a missing language sees the ad's DEFAULT=YES subtitles, or none when none is DEFAULT (named in the message). An ad without any subtitle group is the rule subtitles-missing."),
        examples: [
            LocalizationExample(name: "primary subtitles en, fr; ad en only, not DEFAULT", primary: offer(audio: ["en"], subtitles: ["en", "fr"]),
                                interstitial: offer(audio: ["en"], subtitles: ["en"]), triggers: true),
            LocalizationExample(name: "primary subtitles en, fr; ad en and fr", primary: offer(audio: ["en"], subtitles: ["en", "fr"]),
                                interstitial: offer(audio: ["en"], subtitles: ["fr", "en"]), triggers: false),
        ]
    ) { primary, ad in
        let wanted = LocalizationOffer.languages(primary.subtitles.filter { !$0.forced })
        let adSubtitles = ad.subtitles.filter { !$0.forced }
        guard !adSubtitles.isEmpty else { return nil }
        let offered = LocalizationOffer.languages(adSubtitles)
        let missing = wanted.filter { !offered.contains($0) }
        guard !missing.isEmpty else { return nil }
        let names = written(missing, in: primary.subtitles)
        let shown = adSubtitles.first(where: \.isDefault).map { "its DEFAULT subtitles \($0.label)" } ?? "no subtitles (none of its subtitles is DEFAULT=YES)"
        return Mismatch(
            expected: "subtitles in \(written(wanted, in: primary.subtitles).joined(separator: ", "))",
            actual: "subtitles in \(written(offered, in: adSubtitles).joined(separator: ", "))",
            message: "viewers with subtitles on in \(names.joined(separator: " or ")) see \(shown) during the interstitial: it has no subtitles in \(names.joined(separator: ", ")). Fix: add SUBTITLES renditions with LANGUAGE=\(names.map { "\"\($0)\"" }.joined(separator: ", ")) to the interstitial's subtitle group",
            remediation: nil)
    }

    static let sdh = LocalizationRule(
        description: describe("sdh-subtitles-missing", "The interstitial lacks SDH subtitles the primary offers", .warning, .video,
                              "Subtitles for the deaf and hard of hearing carry CHARACTERISTICS=\"public.accessibility.transcribes-spoken-dialog,public.accessibility.describes-music-and-sound\"; a viewer who chose them gets the ad's plain subtitles in that language (no sound descriptions), or none. An ad without any subtitle group is the rule subtitles-missing."),
        examples: [
            LocalizationExample(name: "primary SDH en; ad plain en subtitles", primary: Offer(audio: [audio("en")], subtitles: [subtitle("en"), subtitle("en", sdh: true)]),
                                interstitial: offer(audio: ["en"], subtitles: ["en"]), triggers: true),
            LocalizationExample(name: "both with SDH en", primary: Offer(audio: [audio("en")], subtitles: [subtitle("en", sdh: true)]),
                                interstitial: Offer(audio: [audio("en")], subtitles: [subtitle("en", sdh: true)]), triggers: false),
        ]
    ) { primary, ad in
        let wanted = LocalizationOffer.languages(primary.subtitles.filter(\.isSDH))
        guard !ad.subtitles.isEmpty else { return nil }
        let offered = LocalizationOffer.languages(ad.subtitles.filter(\.isSDH))
        let missing = wanted.filter { !offered.contains($0) }
        guard !missing.isEmpty else { return nil }
        let gets = missing.map { key -> String in
            let plain = ad.subtitles.first { $0.languageKey == key && !$0.forced }
            return "\(written([key], in: primary.subtitles)[0]): " + (plain.map { "plain subtitles \($0.label), without sound descriptions" } ?? "no subtitles")
        }
        return Mismatch(
            expected: "SDH subtitles in \(written(wanted, in: primary.subtitles).joined(separator: ", "))",
            actual: offered.isEmpty ? "no SDH subtitles" : "SDH subtitles in \(offered.joined(separator: ", "))",
            message: "viewers who chose subtitles for the deaf and hard of hearing get, during the interstitial, \(gets.joined(separator: "; ")). Fix: add SDH renditions (CHARACTERISTICS=\"\(Track.transcribesDialog),\(Track.describesSound)\") in \(written(missing, in: primary.subtitles).joined(separator: ", ")) to the interstitial's subtitle group",
            remediation: nil)
    }

    static let forced = LocalizationRule(
        description: describe("forced-subtitles-missing", "The interstitial lacks forced subtitles the primary offers", .info, .video,
                              "FORCED=YES subtitles are shown to viewers of their language who have subtitles off (foreign dialogue, on-screen text). When the interstitial has none in a language the primary has them for, those viewers get no translation of foreign speech or text in the ad: harmless when the ad has none, hence info by default."),
        examples: [
            LocalizationExample(name: "primary forced fr; ad without forced subtitles",
                                primary: Offer(audio: [audio("en"), audio("fr")], subtitles: [subtitle("fr", forced: true)]),
                                interstitial: offer(audio: ["en", "fr"], subtitles: ["fr"]), triggers: true),
            LocalizationExample(name: "both with forced fr", primary: Offer(audio: [audio("fr")], subtitles: [subtitle("fr", forced: true)]),
                                interstitial: Offer(audio: [audio("fr")], subtitles: [subtitle("fr", forced: true)]), triggers: false),
        ]
    ) { primary, ad in
        let wanted = LocalizationOffer.languages(primary.subtitles.filter(\.forced))
        let offered = LocalizationOffer.languages(ad.subtitles.filter(\.forced))
        let missing = wanted.filter { !offered.contains($0) }
        guard !missing.isEmpty else { return nil }
        let names = written(missing, in: primary.subtitles)
        return Mismatch(
            expected: "forced subtitles in \(written(wanted, in: primary.subtitles).joined(separator: ", "))",
            actual: offered.isEmpty ? "no forced subtitles" : "forced subtitles in \(offered.joined(separator: ", "))",
            message: "viewers in \(names.joined(separator: " or ")) with subtitles off get no forced subtitles during the interstitial: foreign speech or on-screen text in the ad goes untranslated. Fix: if the ad has any, add FORCED=YES SUBTITLES renditions with LANGUAGE=\(names.map { "\"\($0)\"" }.joined(separator: ", "))",
            remediation: nil)
    }

    static let captions = LocalizationRule(
        description: describe("caption-language-missing", "The interstitial lacks closed captions the primary offers", .warning, .video,
                              "For each closed-caption rendition the primary declares (EXT-X-MEDIA TYPE=CLOSED-CAPTIONS, by LANGUAGE, else INSTREAM-ID), the interstitial should declare one too, and carry the CEA-608/708 captions in its video. A viewer with captions on sees the ad's remaining captions or none (CLOSED-CAPTIONS=NONE, no group)."),
        examples: [
            LocalizationExample(name: "primary captions en CC1; ad CLOSED-CAPTIONS=NONE", primary: Offer(audio: [audio("en")], captions: [caption("en", "CC1")]),
                                interstitial: offer(audio: ["en"]), triggers: true),
            LocalizationExample(name: "primary captions en, es; ad en only", primary: Offer(audio: [audio("en")], captions: [caption("en", "CC1"), caption("es", "CC3")]),
                                interstitial: Offer(audio: [audio("en")], captions: [caption("en", "CC1")]), triggers: true),
            LocalizationExample(name: "both with captions en CC1", primary: Offer(audio: [audio("en")], captions: [caption("en", "CC1")]),
                                interstitial: Offer(audio: [audio("en")], captions: [caption("en", "CC1")]), triggers: false),
        ]
    ) { primary, ad in
        func key(_ track: Track) -> String? { track.languageKey ?? track.instreamID }
        let wanted = primary.captions.filter { key($0) != nil }
        let offered = Set(ad.captions.compactMap(key))
        let missing = wanted.filter { !offered.contains(key($0)!) }
        guard !missing.isEmpty else { return nil }
        let lost = missing.map(\.label).joined(separator: ", ")
        let left = ad.captions.isEmpty ? "none (the interstitial declares no closed captions)" : "only \(ad.captions.map(\.label).joined(separator: ", "))"
        return Mismatch(
            expected: "closed captions \(wanted.map(\.label).joined(separator: ", "))", actual: ad.captions.isEmpty ? "none" : ad.captions.map(\.label).joined(separator: ", "),
            message: "viewers with closed captions on lose \(lost) during the interstitial, which offers \(left). Fix: carry CEA-608/708 captions in the ad's video and declare them (EXT-X-MEDIA TYPE=CLOSED-CAPTIONS with LANGUAGE and INSTREAM-ID, CLOSED-CAPTIONS= on every variant)",
            remediation: nil)
    }

    static let audioDescription = LocalizationRule(
        description: describe("audio-description-missing", "The interstitial lacks audio description the primary offers", .warning, .audio,
                              "Audio renditions with CHARACTERISTICS=\"public.accessibility.describes-video\" serve viewers who cannot see the picture. When the interstitial has none in a language the primary describes, a viewer who chose description hears the ad's main audio in that language, or the player's fallback (named in the message)."),
        examples: [
            LocalizationExample(name: "primary en with described en; ad en only", primary: Offer(audio: [audio("en", isDefault: true), audio("en", described: true)]),
                                interstitial: offer(audio: ["en"]), triggers: true),
            LocalizationExample(name: "both with described en", primary: Offer(audio: [audio("en", isDefault: true), audio("en", described: true)]),
                                interstitial: Offer(audio: [audio("en", isDefault: true), audio("en", described: true)]), triggers: false),
        ]
    ) { primary, ad in
        let wanted = LocalizationOffer.languages(primary.audio.filter(\.isAudioDescription))
        let offered = LocalizationOffer.languages(ad.audio.filter(\.isAudioDescription))
        let missing = wanted.filter { !offered.contains($0) }
        guard !missing.isEmpty, !ad.audio.isEmpty else { return nil }
        let gets = missing.map { key -> String in
            let main = ad.audio.first { $0.languageKey == key }
            return "\(written([key], in: primary.audio)[0]): " + (main.map { "\($0.label) without description" } ?? fallbackText(ad.audio) ?? "its audio")
        }
        return Mismatch(
            expected: "audio description in \(written(wanted, in: primary.audio).joined(separator: ", "))",
            actual: offered.isEmpty ? "no audio description" : "audio description in \(offered.joined(separator: ", "))",
            message: "viewers who chose audio description hear, during the interstitial, \(gets.joined(separator: "; ")). Fix: add AUDIO renditions with CHARACTERISTICS=\"\(Track.describesVideo)\" in \(written(missing, in: primary.audio).joined(separator: ", ")) to the interstitial's audio group",
            remediation: nil)
    }

    // MARK: helpers

    /// The language keys as the first track of each writes them ("fr", "fra", "fr-CA").
    static func written(_ keys: [String], in tracks: [Track]) -> [String] {
        keys.map { key in tracks.first { $0.languageKey == key }?.language ?? key }
    }

    /// `en "English" (its DEFAULT=YES rendition)`: what the player falls back to, and why.
    static func fallbackText(_ tracks: [Track]) -> String? {
        guard let pick = LocalizationOffer.fallback(tracks) else { return nil }
        if pick.name == LocalizationRules.muxedName {
            return "its one audio track, muxed in the variant (" + (pick.language.map { "language \($0)" } ?? "no language tag") + ")"
        }
        let why = pick.isDefault ? "its DEFAULT=YES rendition"
            : pick.autoselect ? "its first AUTOSELECT=YES rendition" : "its first rendition"
        return "\(pick.label) (\(why))"
    }

    static func audio(_ language: String, isDefault: Bool = false, described: Bool = false) -> Track {
        Track(kind: .audio, language: language, name: language, isDefault: isDefault, autoselect: true,
              characteristics: described ? [Track.describesVideo] : [])
    }

    static func subtitle(_ language: String, forced: Bool = false, sdh: Bool = false) -> Track {
        Track(kind: .subtitles, language: language, name: language, autoselect: true, forced: forced,
              characteristics: sdh ? [Track.transcribesDialog, Track.describesSound] : [])
    }

    static func caption(_ language: String, _ channel: String) -> Track {
        Track(kind: .captions, language: language, name: language, autoselect: true, instreamID: channel)
    }

    /// Audio renditions (the first DEFAULT=YES) and plain subtitles.
    static func offer(audio languages: [String], subtitles: [String] = []) -> Offer {
        Offer(audio: languages.enumerated().map { audio($1, isDefault: $0 == 0) }, subtitles: subtitles.map { subtitle($0) })
    }
}
