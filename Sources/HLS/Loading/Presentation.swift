import Foundation

/// What names a media playlist in the multivariant playlist.
public enum MediaPlaylistRole: String, Sendable, Codable {
    /// EXT-X-STREAM-INF (or the input itself, for a media playlist input).
    case variant
    /// EXT-X-MEDIA with a URI.
    case rendition
    /// EXT-X-I-FRAME-STREAM-INF: trick play, never a playback variant.
    case iFrame = "i-frame"
}

/// A media playlist as loaded: where from, how it was referenced, what it says.
///
/// Held in one shared box, copied when changed: every rule walks the interstitials with the
/// playlist each is in, and a copy was ~18 retains (a 1,000-ad lint made 8,000 of them).
public struct LoadedMediaPlaylist: Sendable, Equatable {
    public var location: InputLocation {
        get { storage.location }
        set { unique().location = newValue }
    }
    /// The URI as the multivariant playlist writes it; the input itself for a media playlist input.
    public var reference: String {
        get { storage.reference }
        set { unique().reference = newValue }
    }
    public var role: MediaPlaylistRole {
        get { storage.role }
        set { unique().role = newValue }
    }
    public var playlist: MediaPlaylist {
        get { storage.playlist }
        _modify {
            let box = unique()
            yield &box.playlist
            box.mergedDateRanges = InterstitialSchedule.merged(box.playlist.dateRanges)
        }
    }
    public var diagnostics: [PlaylistDiagnostic] {
        get { storage.diagnostics }
        set { unique().diagnostics = newValue }
    }
    /// The date ranges with tags of one ID merged (`InterstitialSchedule.merged`), once per load
    /// rather than once per rule.
    public var mergedDateRanges: [DateRange] { storage.mergedDateRanges }

    private var storage: Storage

    public init(location: InputLocation, reference: String, playlist: MediaPlaylist, diagnostics: [PlaylistDiagnostic],
                role: MediaPlaylistRole = .variant) {
        storage = Storage(location: location, reference: reference, role: role, playlist: playlist, diagnostics: diagnostics,
                          mergedDateRanges: InterstitialSchedule.merged(playlist.dateRanges))
    }

    public static func == (lhs: LoadedMediaPlaylist, rhs: LoadedMediaPlaylist) -> Bool {
        let a = lhs.storage, b = rhs.storage
        return a.location == b.location && a.reference == b.reference && a.role == b.role && a.playlist == b.playlist
            && a.diagnostics == b.diagnostics && a.mergedDateRanges == b.mergedDateRanges
    }

    /// The box, copied first when another value shares it.
    private mutating func unique() -> Storage {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
        return storage
    }

    /// Mutable only through `unique()`, which no other value shares.
    private final class Storage: @unchecked Sendable {
        var location: InputLocation
        var reference: String
        var role: MediaPlaylistRole
        var playlist: MediaPlaylist
        var diagnostics: [PlaylistDiagnostic]
        var mergedDateRanges: [DateRange]

        init(location: InputLocation, reference: String, role: MediaPlaylistRole, playlist: MediaPlaylist, diagnostics: [PlaylistDiagnostic],
             mergedDateRanges: [DateRange]) {
            self.location = location
            self.reference = reference
            self.role = role
            self.playlist = playlist
            self.diagnostics = diagnostics
            self.mergedDateRanges = mergedDateRanges
        }

        func copy() -> Storage {
            Storage(location: location, reference: reference, role: role, playlist: playlist, diagnostics: diagnostics,
                    mergedDateRanges: mergedDateRanges)
        }
    }
}

/// What fetching an X-ASSET-LIST gave.
public enum AssetListOutcome: Sendable {
    case loaded(AssetList, location: InputLocation, elapsed: Double)
    case invalid(AssetListError, location: InputLocation)
    case failed(LoadError)
}

/// What fetching an interstitial asset's playlist (X-ASSET-URI or an asset list's URI) gave.
public enum AssetPlaylistOutcome: Sendable {
    case loaded(AssetPlaylistSummary)
    case failed(LoadError)
}

/// The facts lint needs about an asset: VOD or not, how long, how long the answer took.
public struct AssetPlaylistSummary: Sendable, Equatable {
    public var location: InputLocation
    /// Media playlists of the asset that are not VOD (no EXT-X-ENDLIST, no PLAYLIST-TYPE:VOD).
    public var liveMediaPlaylists: [String]
    /// The total EXTINF duration of the asset's (first) media playlist.
    public var duration: Double
    public var elapsed: Double
    /// The asset's own playlist as parsed (`location` is where it came from), so that an audit
    /// reads it without fetching it again.
    public var root: ParsedPlaylist?
    /// Variants of a multivariant asset that did not load while others did: players that select
    /// them fail over, so the asset still plays.
    public var unloadedVariants: [LoadError]
    /// The media playlists loaded with it (the root itself when it is one, else each variant's),
    /// so that an audit probes them without fetching them again. A `reference` resolves against
    /// `location` to the URL it was asked for.
    public var mediaPlaylists: [LoadedMediaPlaylist]

    public init(location: InputLocation, liveMediaPlaylists: [String], duration: Double, elapsed: Double, root: ParsedPlaylist? = nil,
                unloadedVariants: [LoadError] = [], mediaPlaylists: [LoadedMediaPlaylist] = []) {
        self.location = location
        self.liveMediaPlaylists = liveMediaPlaylists
        self.duration = duration
        self.elapsed = elapsed
        self.root = root
        self.unloadedVariants = unloadedVariants
        self.mediaPlaylists = mediaPlaylists
    }

    public var isVOD: Bool { liveMediaPlaylists.isEmpty }
}

/// A media playlist of the multivariant playlist that could not be loaded: a finding
/// (`media-playlist-unreachable`), never the end of the run.
public struct MediaPlaylistFailure: Sendable, Equatable {
    public typealias Role = MediaPlaylistRole

    /// The URI as the multivariant playlist writes it.
    public var reference: String
    public var error: LoadError
    public var role: Role
    /// The resolved URL; nil when the reference could not be resolved (or was refused).
    public var location: String?

    public init(reference: String, error: LoadError, role: Role = .variant, location: String? = nil) {
        self.reference = reference
        self.error = error
        self.role = role
        self.location = location
    }

    /// The HTTP status when the server answered one.
    public var status: Int? {
        if case .httpStatus(_, let code) = error { return code }
        return nil
    }
}

/// Everything loaded from one input: the playlist, its media playlists, and what its
/// interstitials point at (asset lists, asset playlists). Media segments are never fetched.
public struct Presentation: Sendable {
    public var input: InputLocation
    /// Where the input was read from after redirects.
    public var location: InputLocation
    public var root: ParsedPlaylist
    public var mediaPlaylists: [LoadedMediaPlaylist]
    public var mediaFailures: [MediaPlaylistFailure]
    /// Keyed by the resolved location's description.
    public var assetLists: [String: AssetListOutcome]
    public var assets: [String: AssetPlaylistOutcome]
    /// The references the loader resolved (asset lists, asset URIs), so that rules asking again
    /// do not resolve a 64 KiB URI once per rule and tag.
    public var resolutions = ReferenceResolutions()

    public init(input: InputLocation, location: InputLocation, root: ParsedPlaylist, mediaPlaylists: [LoadedMediaPlaylist],
                mediaFailures: [MediaPlaylistFailure] = [], assetLists: [String: AssetListOutcome] = [:],
                assets: [String: AssetPlaylistOutcome] = [:]) {
        self.input = input
        self.location = location
        self.root = root
        self.mediaPlaylists = mediaPlaylists
        self.mediaFailures = mediaFailures
        self.assetLists = assetLists
        self.assets = assets
    }

    /// The media playlist whose timeline interstitials are placed on: the first variant's (an
    /// I-frame playlist never is: players do not play it).
    public var primary: LoadedMediaPlaylist? { mediaPlaylists.first { $0.role != .iFrame } }

    /// The asset list an interstitial of `media` names, or nil when it names none or it was not fetched.
    public func assetList(for interstitial: Interstitial, in media: LoadedMediaPlaylist) -> AssetListOutcome? {
        guard let reference = interstitial.assetList else { return nil }
        return assetList(reference, in: media)
    }

    private func assetList(_ reference: String, in media: LoadedMediaPlaylist) -> AssetListOutcome? {
        switch resolutions.resolve(reference, from: media.location) {
        case .success(let location): return assetLists[location.description]
        case .failure(let error): return .failed(error)
        }
    }

    /// Resolves every asset URI the interstitials name (X-ASSET-URI, ASSETS[].URI of loaded asset
    /// lists) once, so that rules asking for them find them resolved (lint --offline too, where
    /// nothing is fetched); returns the distinct absolute ones, in the order written.
    @discardableResult
    public mutating func rememberAssetReferences() -> [InputLocation] {
        var targets: [InputLocation] = []
        var seen: Set<String> = []
        let ranges = mediaPlaylists.reduce(0) { $0 + $1.playlist.dateRanges.count }
        resolutions.reserveCapacity(resolutions.count + ranges)
        seen.reserveCapacity(ranges)
        func add(_ uri: String, _ base: InputLocation) {
            let resolved = resolutions.remember(uri, from: base)
            guard InputLocation.isAbsoluteURI(uri), case .success(let location) = resolved,
                  seen.insert(location.description).inserted else { return }
            targets.append(location)
        }
        for media in mediaPlaylists {
            for range in media.playlist.dateRanges where range.isInterstitial {
                // The two references only, as `Interstitial` reads them (quoted strings): reading
                // every attribute of 1,000 ads here cost more than the resolving.
                if let uri = range.clientAttributes["X-ASSET-URI"]?.quotedString { add(uri, media.location) }
                if let reference = range.clientAttributes["X-ASSET-LIST"]?.quotedString,
                   case .loaded(let list, let location, _)? = assetList(reference, in: media) {
                    for asset in list.assets { add(asset.uri, location) }
                }
            }
        }
        return targets
    }

    /// The outcome of loading an asset URI (absolute, as X-ASSET-URI and ASSETS[].URI must be).
    public func asset(_ uri: String, from base: InputLocation) -> AssetPlaylistOutcome? {
        switch resolutions.resolve(uri, from: base) {
        case .success(let location): return assets[location.description]
        case .failure(let error): return .failed(error)
        }
    }
}

/// References resolved against a base, each distinct pair once per load.
public struct ReferenceResolutions: Sendable {
    struct Key: Hashable, Sendable {
        var base: InputLocation
        var reference: String
    }

    private var results: [Key: Result<InputLocation, LoadError>] = [:]

    public init() {}

    public var count: Int { results.count }

    /// Room for `count` results without growing the table.
    public mutating func reserveCapacity(_ count: Int) { results.reserveCapacity(count) }

    /// The remembered result, else `base.resolving(reference)` (not remembered: the value is not mutated).
    public func resolve(_ reference: String, from base: InputLocation) -> Result<InputLocation, LoadError> {
        if let known = results[Key(base: base, reference: reference)] { return known }
        do throws(LoadError) { return .success(try base.resolving(reference)) } catch { return .failure(error) }
    }

    /// Resolves and remembers.
    public mutating func remember(_ reference: String, from base: InputLocation) -> Result<InputLocation, LoadError> {
        let key = Key(base: base, reference: reference)
        if let known = results[key] { return known }
        let result = resolve(reference, from: base)
        results[key] = result
        return result
    }
}
