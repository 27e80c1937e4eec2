import HLS

/// One variant of a ladder as a receiver of a class sees it.
public struct LadderTier: Sendable, Equatable {
    public var bandwidth: Int
    public var resolution: Resolution?

    public init(bandwidth: Int, resolution: Resolution? = nil) {
        self.bandwidth = bandwidth
        self.resolution = resolution
    }

    var text: String { "\(bandwidth / 1000) kb/s" + (resolution.map { " (\($0.width)x\($0.height))" } ?? "") }
}

/// Two ladders and whether the interstitial's covers the primary's tiers.
public struct LadderExample: Sendable {
    public var name: String
    public var primary: [LadderTier]
    public var interstitial: [LadderTier]
    public var triggers: Bool
}

/// `ladder-mismatch`: the interstitial's ladder leaves a viewer of the primary worse off at the
/// seam, at either end. Interstitials need not match the primary's tier structure (Apple's
/// preliminary interstitials spec), so only the two harms are flagged: the ad's lowest variant
/// well above the primary's lowest tier (a viewer at the bottom stalls) and the ad's top far
/// below the primary's top (a visible quality drop). Tiers in between are not compared.
public enum LadderRule {
    /// One step of a published ladder: adjacent tiers "a factor of 1.5 to 2 apart" (Apple TN2224;
    /// the HLS Authoring Specification's recommended ladder, 145 kb/s to 7.8 Mb/s, steps 1.3x to
    /// 2.5x). An ad's lowest variant more than one widest step (2x) above the primary's lowest
    /// tier is beyond what a viewer at the bottom has shown it can sustain; an ad's top more than
    /// two widest steps (4x) below the primary's top drops a viewer at the top by more than the
    /// one-step switches ABR makes anyway.
    static let step = 2.0, bottomFactor = step, topFactor = step * step

    public static let description = RuleDescription(
        id: "ladder-mismatch", title: "The interstitial's ladder strands viewers at the bottom or drops those at the top",
        rationale: "Interstitials need not match the primary's tiers; what harms a viewer is an ad whose lowest variant is more than one ladder step (2x) above the primary's lowest tier, so a viewer whose link holds only that tier stalls in the ad, or whose top variant is more than two steps (4x) below the primary's top, a visible drop in quality for a viewer at the top. One step is the widest spacing of published ladder guidance: adjacent tiers 1.5 to 2 times apart (Apple TN2224; the HLS Authoring Specification's recommended ladder steps 1.3x to 2.5x). Compares the variants the class can play, by BANDWIDTH; audio-only classes are not graded.",
        source: "Apple, Getting Started with HLS Interstitials 1.0b4 (seeds/003): interstitials need not match the primary's tier structure, a suitable ladder is encouraged; draft-pantos-hls-rfc8216bis Appendix D: bitrates that allow effective ABR; Apple TN2224 (adjacent bit rates a factor of 1.5 to 2 apart) and the HLS Authoring Specification's recommended bit rate ladder",
        defaultSeverity: .warning, track: .video, inputs: "the primary's and the interstitial's multivariant playlists (BANDWIDTH, RESOLUTION) and the class's plays")

    public static let examples: [LadderExample] = [
        LadderExample(name: "6 Mb/s and 3 Mb/s tiers, one 700 kb/s ad: the top drops more than 4x", primary: [LadderTier(bandwidth: 6_000_000), LadderTier(bandwidth: 3_000_000)],
                      interstitial: [LadderTier(bandwidth: 700_000)], triggers: true),
        LadderExample(name: "a 400 kb/s tier and ads from 1 Mb/s: the bottom viewer stalls", primary: [LadderTier(bandwidth: 400_000), LadderTier(bandwidth: 2_000_000)],
                      interstitial: [LadderTier(bandwidth: 1_000_000), LadderTier(bandwidth: 2_000_000)], triggers: true),
        LadderExample(name: "a matching ladder, each ad a little under its tier",
                      primary: [LadderTier(bandwidth: 6_000_000), LadderTier(bandwidth: 3_000_000), LadderTier(bandwidth: 800_000)],
                      interstitial: [LadderTier(bandwidth: 5_500_000), LadderTier(bandwidth: 2_800_000), LadderTier(bandwidth: 750_000)],
                      triggers: false),
        LadderExample(name: "one 1.0 Mb/s ad for 1.2 and 0.9 Mb/s tiers (111 % of the lowest: no harm)",
                      primary: [LadderTier(bandwidth: 1_200_000), LadderTier(bandwidth: 900_000)],
                      interstitial: [LadderTier(bandwidth: 1_000_000)], triggers: false),
        LadderExample(name: "another tier structure: 5 ad variants for 3 primary tiers within the ends",
                      primary: [LadderTier(bandwidth: 7_800_000), LadderTier(bandwidth: 2_000_000), LadderTier(bandwidth: 365_000)],
                      interstitial: [400_000, 730_000, 1_100_000, 3_000_000, 6_000_000].map { LadderTier(bandwidth: $0) }, triggers: false),
    ]

    /// What harms a viewer at either end of the primary's ladder; nil when neither end is harmed.
    public static func evaluate(primary: [LadderTier], interstitial: [LadderTier]) -> Mismatch? {
        guard let primaryLow = primary.min(by: { $0.bandwidth < $1.bandwidth }), let primaryTop = primary.max(by: { $0.bandwidth < $1.bandwidth }),
              let adLow = interstitial.min(by: { $0.bandwidth < $1.bandwidth }), let adTop = interstitial.max(by: { $0.bandwidth < $1.bandwidth })
        else { return nil }
        var harms: [String] = [], wanted: [String] = []
        if Double(adLow.bandwidth) > Double(primaryLow.bandwidth) * bottomFactor {
            harms.append("its lowest variant, \(adLow.text), is \(ratio(adLow, primaryLow)) the primary's lowest tier \(primaryLow.text): a viewer whose link holds only that tier stalls in the ad")
            wanted.append("a variant at or under \(primaryLow.bandwidth / 1000 * Int(bottomFactor)) kb/s")
        }
        if Double(adTop.bandwidth) * topFactor < Double(primaryTop.bandwidth) {
            harms.append("its top variant, \(adTop.text), is \(ratio(primaryTop, adTop)) below the primary's top tier \(primaryTop.text): a viewer at the top sees the quality drop")
            wanted.append("a variant of at least \(primaryTop.bandwidth / 1000 / Int(topFactor)) kb/s")
        }
        guard !harms.isEmpty else { return nil }
        let ads = interstitial.sorted { $0.bandwidth > $1.bandwidth }.map(\.text).joined(separator: ", ")
        return Mismatch(
            expected: wanted.joined(separator: " and "), actual: ads,
            message: "the interstitial's ladder (\(ads)) harms viewers of the primary: " + harms.joined(separator: "; ")
                + ". Add \(wanted.joined(separator: " and ")) (a ladder step is at most 2x: Apple TN2224, HLS Authoring Specification)",
            remediation: nil)
    }

    /// "2.5 times" (above) or "4.3 times" (below), for the message.
    static func ratio(_ higher: LadderTier, _ lower: LadderTier) -> String {
        let value = Double(higher.bandwidth) / Double(max(lower.bandwidth, 1))
        return String(format: "%.1f times", value)
    }

    /// The variants of a multivariant playlist a class can play, as tiers (variants without
    /// BANDWIDTH are left out).
    static func tiers(_ playlist: MultivariantPlaylist, for plays: Capabilities) -> [LadderTier] {
        VariantSelector.playable(from: playlist, for: plays).compactMap { choice in
            guard let bandwidth = choice.bandwidth else { return nil }
            return LadderTier(bandwidth: bandwidth, resolution: choice.declared.resolution)
        }
    }
}
