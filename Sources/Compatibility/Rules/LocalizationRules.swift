import HLS

/// The primary's and an interstitial's offers, and whether a localization rule fires for them.
public struct LocalizationExample: Sendable {
    public var name: String
    public var primary: LocalizationOffer
    public var interstitial: LocalizationOffer
    public var triggers: Bool
}

/// A rule comparing what the primary offers a viewer in languages and accessibility tracks with
/// what an interstitial offers: read from multivariant playlists alone, so `lint` reports it too.
public struct LocalizationRule: Sendable {
    public var description: RuleDescription
    public var examples: [LocalizationExample]
    let check: @Sendable (LocalizationOffer, LocalizationOffer) -> Mismatch?

    public var id: String { description.id }

    /// An interstitial with no audio renditions is read as one muxed track of unknown language.
    public func evaluate(primary: LocalizationOffer, interstitial: LocalizationOffer) -> Mismatch? {
        check(primary, LocalizationRules.muxed(interstitial, language: nil))
    }
}

/// Interstitial localization (WWDC23, seeds/000): when the interstitial carries audio and
/// subtitle tracks like the primary's, automatic selection keeps a viewer's language and
/// accessibility choices through the ad; when it does not, the player falls back to the ad's
/// DEFAULT (or AUTOSELECT) rendition, or to none. Each rule names the languages lost and that
/// fallback. The seven rules and their examples are in LocalizationCatalog.swift.
public enum LocalizationRules {
    static let source = "WWDC23 Explore AirPlay with interstitials (seeds/000), Interstitials localization: with audio/subtitle tracks similar to the primary's, automatic track selection is applied while playing interstitials, locally and over AirPlay; Apple, Getting Started with HLS Interstitials 1.0b4 (seeds/003): matching alternative language renditions are not necessary, although recommended; RFC 8216bis 4.4.6.1 (EXT-X-MEDIA LANGUAGE, DEFAULT, AUTOSELECT, FORCED, INSTREAM-ID, CHARACTERISTICS)"

    public static var all: [LocalizationRule] { LocalizationCatalog.all }

    public static func rule(_ id: String) -> LocalizationRule? { all.first { $0.id == id } }

    /// Per class: the primary's and the interstitial's offers as the variants that class selects
    /// give them. `adAudioLanguage` is the language probed from the ad's muxed audio, if any.
    public static func findings(_ primary: ParsedPlaylist, _ interstitial: ParsedPlaylist, subject: String,
                                profiles: [DeviceProfile], adAudioLanguage: (DeviceProfile) -> String? = { _ in nil }) -> [Finding] {
        guard case .multivariant(let primaryLadder) = primary.playlist else { return [] }
        return profiles.flatMap { profile -> [Finding] in
            guard let primaryOffer = LocalizationOffer.selected(primaryLadder, for: profile.plays) else { return [] }
            let adOffer: LocalizationOffer
            switch interstitial.playlist {
            case .multivariant(let ladder):
                guard let offer = LocalizationOffer.selected(ladder, for: profile.plays) else { return [] }
                adOffer = offer
            case .media:
                adOffer = LocalizationOffer()
            }
            return evaluate(primaryOffer, muxed(adOffer, language: adAudioLanguage(profile))).compactMap { rule, mismatch in
                guard let severity = profile.severity(for: rule.description) else { return nil }
                return Finding(rule: rule.id, severity: severity, deviceClass: profile.id, subject: subject,
                               expected: mismatch.expected, actual: mismatch.actual, message: mismatch.message, remediation: nil)
            }
        }
    }

    /// `lint`: every rendition of the primary against every rendition of each interstitial
    /// asset's playlist (no device class; profiles grade it in `audit`).
    public static func findings(in presentation: Presentation) -> [Finding] {
        findings(in: SpecContext(presentation))
    }

    /// The same, on the interstitials `context` has read for the spec rules.
    public static func findings(in context: SpecContext) -> [Finding] {
        let presentation = context.presentation
        guard let primaryLadder = presentation.root.playlist.multivariant else { return [] }
        let primaryOffer = LocalizationOffer(primaryLadder)
        var findings: [Finding] = [], seen: Set<String> = []
        for (interstitial, range, media) in context.interstitials {
            var uris = interstitial.assetURI.map { [$0] } ?? []
            if case .loaded(let list, _, _)? = presentation.assetList(for: interstitial, in: media) { uris += list.assets.map(\.uri) }
            for uri in uris {
                guard case .loaded(let summary)? = presentation.asset(uri, from: media.location), let root = summary.root,
                      seen.insert(summary.location.description).inserted else { continue }
                let adOffer = root.playlist.multivariant.map { LocalizationOffer($0) } ?? LocalizationOffer()
                for (rule, mismatch) in evaluate(primaryOffer, muxed(adOffer, language: nil)) {
                    findings.append(Finding(rule: rule.id, severity: rule.description.defaultSeverity, deviceClass: nil,
                                            subject: "\(range.label) asset \(summary.location)", expected: mismatch.expected,
                                            actual: mismatch.actual, message: mismatch.message, remediation: nil,
                                            location: SourceLocation(uri: media.location.description, line: range.line)))
                }
            }
        }
        return findings
    }

    static func evaluate(_ primary: LocalizationOffer, _ interstitial: LocalizationOffer) -> [(LocalizationRule, Mismatch)] {
        all.compactMap { rule in rule.evaluate(primary: primary, interstitial: interstitial).map { (rule, $0) } }
    }

    /// An ad without audio renditions plays the audio muxed in its variant: one track, its
    /// language probed (audit) or unknown (lint).
    static let muxedName = "muxed in the variant"

    static func muxed(_ offer: LocalizationOffer, language: String?) -> LocalizationOffer {
        guard offer.audio.isEmpty else { return offer }
        var offer = offer
        offer.audio = [OfferedTrack(kind: .audio, language: language, name: muxedName, isDefault: true)]
        return offer
    }
}
