import Foundation
import HLS

/// The interstitial asset playlists an audit reads: each distinct one once, however many
/// interstitials name it (a VOD can schedule the same ad hundreds of times). The loader fetched
/// every asset already, within the asset limits and in parallel: a loaded one is read from
/// there, one whose own playlist failed is not asked again. One that failed in a variant only is
/// loaded here, so that each class finds out whether the variant it selects is the one that fails.
struct AssetPlaylists {
    typealias Loaded = Result<(ParsedPlaylist, FetchedResource), LoadError>

    let loader: PresentationLoader
    let presentation: Presentation
    private var loaded: [String: Loaded] = [:]

    init(loader: PresentationLoader, presentation: Presentation) {
        self.loader = loader
        self.presentation = presentation
    }

    /// What is known of `location` without fetching: loaded here, or by the loader.
    func known(_ location: InputLocation) -> Loaded? {
        let key = location.description
        if let known = loaded[key] { return known }
        switch presentation.assets[key] {
        case .loaded(let summary)? where summary.root != nil:
            return .success((summary.root!, FetchedResource(location: summary.location, data: Data(), contentType: nil, elapsed: summary.elapsed)))
        case .failed(let error)? where error.subject == key:
            return .failure(error)
        default:
            return nil
        }
    }

    /// Loads, `width` at a time, every location not known yet.
    mutating func prefetch(_ locations: [InputLocation], width: Int) async {
        var missing: [InputLocation] = []
        var seen: Set<String> = []
        for location in locations where known(location) == nil && seen.insert(location.description).inserted { missing.append(location) }
        let loader = self.loader
        let results = await PresentationLoader.map(missing, width: width) { await Self.fetch(location: $0, with: loader) }
        guard !Task.isCancelled else { return }
        for (location, result) in zip(missing, results) { loaded[location.description] = result }
    }

    /// The playlist at `location`: known already, or fetched now (and remembered unless the task was cancelled).
    mutating func load(_ location: InputLocation) async throws(LoadError) -> (ParsedPlaylist, FetchedResource) {
        if let known = known(location) { return try known.get() }
        let result = await Self.fetch(location: location, with: loader)
        if !Task.isCancelled { loaded[location.description] = result }
        return try result.get()
    }

    private static func fetch(location: InputLocation, with loader: PresentationLoader) async -> Loaded {
        do throws(LoadError) { return .success(try await loader.loadPlaylist(location, limits: loader.assetPlaylistLimits)) } catch {
            return .failure(error)
        }
    }
}
