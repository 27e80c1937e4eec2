import HLS
import MediaProbe

/// The first two steps of a playlist audit, so that data flows through once: *plan* (every
/// interstitial asset in schedule order, and what each class would select of the primary and of
/// each asset), then *fetch and probe* everything the plan needs, each distinct asset playlist
/// and rendition once, `width` at a time. The third step, evaluation, reads the results in plan
/// order from the caches these fill (`AssetPlaylists`, the `ProbeSession`), so its output is the
/// same whatever order the fetches finished in.
struct AuditPlan {
    /// One interstitial asset as scheduled: an asset of an asset list, or an X-ASSET-URI.
    struct Asset {
        var uri: String
        var base: InputLocation
        var role: String
        var placement: Placement
        /// The loader's failure to fetch the asset's playlist (already the spec finding asset-unreachable).
        var knownFailure: String?
        /// Its entry in the schedule.
        var entry: Int
    }

    var assets: [Asset] = []

    init(schedule: InterstitialSchedule, presentation: Presentation, timeline: LoadedMediaPlaylist) {
        for (entryIndex, entry) in schedule.entries.enumerated() {
            let base = Self.assetBase(entry, presentation: presentation, timeline: timeline)
            for asset in entry.assets {
                let role = "interstitial \(assets.count + 1)"
                let placement = Placement(id: entry.id, line: entry.line, kind: entry.placement.rawValue, offset: entry.offset,
                                          pod: entry.pod, positionInPod: entry.positionInPod, duration: asset.duration)
                var knownFailure: String?
                if case .failed(let error)? = presentation.asset(asset.uri, from: base) { knownFailure = error.description }
                assets.append(Asset(uri: asset.uri, base: base, role: role, placement: placement, knownFailure: knownFailure, entry: entryIndex))
            }
        }
    }

    /// Fetch and probe: the asset playlists not loaded yet, then the rendition (and audio
    /// rendition) each class selects first, of the primary and of every asset, in parallel,
    /// followed by the loudness measurements of those renditions when `loudness` is given.
    /// Failures are cached like successes; failover to a class's next variant happens in
    /// evaluation, for the few classes that need it.
    func prefetch(presentation: Presentation, profiles: [DeviceProfile], playlists: inout AssetPlaylists,
                  probes: RenditionProbes, width: Int, loudness: PlaylistLoudness? = nil) async {
        let locations = assets.compactMap { try? $0.base.resolving($0.uri) }
        await playlists.prefetch(locations, width: width)
        var roots: [(ParsedPlaylist, InputLocation)] = [(presentation.root, presentation.location)]
        for location in locations {
            if case .success(let (root, resource))? = playlists.known(location) { roots.append((root, resource.location)) }
        }
        var targets: [InputLocation] = []
        var seen: Set<InputLocation> = []
        var rootPlaylists: [InputLocation: LoadedMediaPlaylist] = [:]
        for (root, location) in roots {
            rootPlaylists[location] = RenditionProbes.root(root, at: location)
            for target in Self.firstChoices(root, at: location, profiles: profiles) where seen.insert(target).inserted {
                targets.append(target)
            }
        }
        // Probes first: a loudness job waits for its rendition's probe, which has started by then.
        var work: [@Sendable () async -> Void] = targets.map { target in
            { [rootPlaylists] in _ = try? await probes.describe(target, playlist: rootPlaylists[target]) }
        }
        // What loudness will read is asked for beside the probes, not after them.
        await loudness?.warmUp(plan: self, presentation: presentation, playlists: playlists, profiles: profiles)
        work += loudness?.prefetchJobs(plan: self, presentation: presentation, playlists: playlists, profiles: profiles, probes: probes) ?? []
        _ = await PresentationLoader.map(work, width: width) { await $0() }
    }

    /// What each class selects first of `root`: its variant and audio rendition, resolved (`location` itself for a media playlist).
    static func firstChoices(_ root: ParsedPlaylist, at location: InputLocation, profiles: [DeviceProfile]) -> [InputLocation] {
        switch root.playlist {
        case .media: return [location]
        case .multivariant(let multivariant):
            return profiles.flatMap { profile -> [InputLocation] in
                guard case .selected(let choice) = VariantSelector.select(from: multivariant, for: profile.plays) else { return [] }
                return ([choice.variantURI] + (choice.audioURI.map { [$0] } ?? [])).compactMap { try? location.resolving($0) }
            }
        }
    }

    /// Asset URIs resolve against their asset list, or against the media playlist for X-ASSET-URI.
    static func assetBase(_ entry: InterstitialSchedule.Entry, presentation: Presentation, timeline: LoadedMediaPlaylist) -> InputLocation {
        if let reference = entry.assetList, let list = try? timeline.location.resolving(reference),
           case .loaded(_, let finalLocation, _)? = presentation.assetLists[list.description] {
            return finalLocation
        }
        return timeline.location
    }
}
