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

/// `ladder-mismatch`: the interstitial's variants do not cover the primary's tiers that a class
/// can play, so a receiver on some tier switches to a much lower or higher bitrate at the seam.
public enum LadderRule {
    /// An ad variant covers a tier when its bandwidth is at most 10 % above it (Apple 3.4: at or
    /// under; 10 % is the declared-versus-measured tolerance Apple allows) and at least a quarter
    /// of it (below, the picture visibly drops: 700 kb/s on a 6 Mb/s tier is under an eighth).
    static let above = 1.1, below = 0.25

    public static let description = RuleDescription(
        id: "ladder-mismatch", title: "The interstitial's variants do not cover the primary's tiers",
        rationale: "A receiver keeps its bandwidth estimate across the switch: on a tier with no ad variant between a quarter of its bandwidth and 10 % above it, it jumps to a much lower bitrate (a visible drop) or a higher one it may not sustain (a stall). Compares the variants the class can play, by BANDWIDTH; audio-only classes pick the lowest variant and are not graded.",
        source: "Apple HLS Authoring Specification (2025-06-26) 3.4: ad variants at or under the bandwidth of the primary variant they replace; AWS MediaTailor refuses ads without variants matching the content's",
        defaultSeverity: .warning, track: .video, inputs: "the primary's and the interstitial's multivariant playlists (BANDWIDTH, RESOLUTION) and the class's plays")

    public static let examples: [LadderExample] = [
        LadderExample(name: "6 Mb/s and 3 Mb/s tiers, one 700 kb/s ad", primary: [LadderTier(bandwidth: 6_000_000), LadderTier(bandwidth: 3_000_000)],
                      interstitial: [LadderTier(bandwidth: 700_000)], triggers: true),
        LadderExample(name: "a 400 kb/s tier and ads from 1 Mb/s", primary: [LadderTier(bandwidth: 400_000), LadderTier(bandwidth: 2_000_000)],
                      interstitial: [LadderTier(bandwidth: 1_000_000), LadderTier(bandwidth: 2_000_000)], triggers: true),
        LadderExample(name: "a matching ladder, each ad a little under its tier",
                      primary: [LadderTier(bandwidth: 6_000_000), LadderTier(bandwidth: 3_000_000), LadderTier(bandwidth: 800_000)],
                      interstitial: [LadderTier(bandwidth: 5_500_000), LadderTier(bandwidth: 2_800_000), LadderTier(bandwidth: 750_000)],
                      triggers: false),
    ]

    /// The primary's tiers no interstitial variant covers; nil when every tier is covered.
    public static func evaluate(primary: [LadderTier], interstitial: [LadderTier]) -> Mismatch? {
        guard !primary.isEmpty, !interstitial.isEmpty else { return nil }
        let uncovered = primary.filter { tier in
            !interstitial.contains { Double($0.bandwidth) <= Double(tier.bandwidth) * above && Double($0.bandwidth) >= Double(tier.bandwidth) * below }
        }
        guard !uncovered.isEmpty else { return nil }
        let ads = interstitial.sorted { $0.bandwidth > $1.bandwidth }.map(\.text).joined(separator: ", ")
        let tiers = uncovered.sorted { $0.bandwidth > $1.bandwidth }.map(\.text).joined(separator: ", ")
        return Mismatch(
            expected: "an ad variant for each tier: \(primary.sorted { $0.bandwidth > $1.bandwidth }.map(\.text).joined(separator: ", "))",
            actual: ads,
            message: "no interstitial variant is within a quarter to 110 % of the primary's \(tiers) (the ad offers \(ads)): a receiver on \(uncovered.count == 1 ? "that tier" : "those tiers") changes bitrate sharply at the seam. Add ad variants at or just under each tier (Apple HLS Authoring Specification 3.4)",
            remediation: nil)
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
