import Foundation

/// Loads an input and what it leads to, with limits on every transfer and on concurrency.
public struct PresentationLoader: Sendable {
    public struct Options: Sendable {
        public var playlistLimits = FetchLimits(maxBytes: FetchLimits.playlistBytes)
        /// Asset lists and asset playlists: players give their servers about 10 s.
        public var assetLimits = FetchLimits(maxBytes: FetchLimits.assetListBytes).timed(Options.interstitialWait, .interstitial)
        /// Load every media playlist of a multivariant input.
        public var loadMediaPlaylists = true
        public var fetchAssetLists = true
        /// Load interstitial asset playlists (X-ASSET-URI, ASSETS[].URI): lint does, inspect does not.
        public var fetchAssets = true
        public var concurrency = 4

        public init() {}

        /// Every playlist fetch within `timeout` seconds (the user's --timeout: headers and body
        /// alike, no other cap); asset lists and asset playlists within the players' fixed wait,
        /// or `timeout` when that is shorter. Each limit names itself when it fires.
        public init(timeout: Double, fetchAssets: Bool) {
            playlistLimits = playlistLimits.timed(timeout, .option)
            if timeout < Options.interstitialWait { assetLimits = assetLimits.timed(timeout, .option) }
            self.fetchAssets = fetchAssets
        }

        /// Seconds players wait for an interstitial's asset list or asset before skipping it.
        public static let interstitialWait: Double = 10
    }

    public var fetcher: any ResourceFetching
    public var options: Options

    public init(fetcher: any ResourceFetching = ResourceFetcher(), options: Options = Options()) {
        self.fetcher = fetcher
        self.options = options
    }

    /// Fetches and parses one playlist; not a playlist (no #EXTM3U, HTML) is an error naming the URL.
    public func loadPlaylist(_ location: InputLocation, limits: FetchLimits? = nil,
                             importing variables: [String: String] = [:]) async throws(LoadError) -> (ParsedPlaylist, FetchedResource) {
        let resource = try await fetcher.fetch(location, limits: limits ?? options.playlistLimits)
        do throws(PlaylistParseError) {
            let context = PlaylistParsingContext(importedVariables: variables, queryParameters: resource.location.queryParameters)
            return (try PlaylistParser.parse(resource.data, context: context), resource)
        } catch {
            // A body that is not a playlist and is served as text/html is an error page, whatever it starts with.
            let html = resource.contentType?.hasPrefix("text/html") == true
            throw .notAPlaylist(resource.location.description, html && error != .empty ? .html : error)
        }
    }

    /// Loads `input` and what it references. A host that cannot be reached is asked once per
    /// load: a playlist scheduling 1,000 ads on a dead ad server fails them all at once instead of
    /// waiting out 1,000 connect timeouts.
    public func load(_ input: InputLocation) async throws(LoadError) -> Presentation {
        var run = self
        run.fetcher = UnreachableHostMemo(fetcher)
        return try await run.loadUnshared(input)
    }

    private func loadUnshared(_ input: InputLocation) async throws(LoadError) -> Presentation {
        let (root, resource) = try await loadPlaylist(input)
        var presentation = Presentation(input: input, location: resource.location, root: root, mediaPlaylists: [])
        switch root.playlist {
        case .media(let media):
            presentation.mediaPlaylists = [LoadedMediaPlaylist(location: resource.location, reference: input.description,
                                                               playlist: media, diagnostics: root.diagnostics)]
        case .multivariant(let multivariant):
            if options.loadMediaPlaylists {
                await loadMediaPlaylists(of: multivariant, variables: root.variables, into: &presentation)
            }
        }
        if options.fetchAssetLists { await fetchAssetLists(into: &presentation) }
        if options.fetchAssets { await fetchAssets(into: &presentation) }
        return presentation
    }

    /// Variant and rendition playlists, each distinct location once, in the order written.
    private func loadMediaPlaylists(of multivariant: MultivariantPlaylist, variables: [String: String],
                                    into presentation: inout Presentation) async {
        let references = multivariant.variants.map { ($0.uri, MediaPlaylistRole.variant) }
            + multivariant.renditions.compactMap { rendition in rendition.uri.map { ($0, MediaPlaylistRole.rendition) } }
            + multivariant.iFrameStreams.compactMap { stream in stream.uri.map { ($0, MediaPlaylistRole.iFrame) } }
        var targets: [(String, InputLocation)] = []
        var seen: Set<String> = []
        for (reference, role) in references {
            // A reference that cannot be followed (a file: URI in a remote playlist) is a failure
            // of that media playlist, not of the input.
            switch presentation.resolutions.remember(reference, from: presentation.location) {
            case .success(let location):
                if seen.insert(location.description).inserted { targets.append((reference, location)) }
            case .failure(let error):
                if seen.insert("\u{1}" + reference).inserted {
                    presentation.mediaFailures.append(MediaPlaylistFailure(reference: reference, error: error, role: role))
                }
            }
        }
        let roles = Dictionary(references.map { ($0.0, $0.1) }) { first, _ in first }
        let results = await Self.map(targets, width: options.concurrency) { target -> Result<LoadedMediaPlaylist, LoadError> in
            do throws(LoadError) {
                let (parsed, resource) = try await loadPlaylist(target.1, importing: variables)
                guard case .media(let media) = parsed.playlist else {
                    throw .notAPlaylist(resource.location.description, .unexpectedKind("a multivariant playlist where a media playlist belongs"))
                }
                let role = roles[target.0] ?? .variant
                return .success(LoadedMediaPlaylist(location: resource.location, reference: target.0, playlist: media,
                                                    diagnostics: parsed.diagnostics + Self.roleDiagnostics(media, role: role), role: role))
            } catch {
                return .failure(error)
            }
        }
        defer {
            // In the order the multivariant playlist writes them, whichever step failed.
            let order = Dictionary(references.enumerated().map { ($0.element.0, $0.offset) }) { first, _ in first }
            presentation.mediaFailures.sort { (order[$0.reference] ?? .max) < (order[$1.reference] ?? .max) }
        }
        for (target, result) in zip(targets, results) {
            switch result {
            case .success(let loaded): presentation.mediaPlaylists.append(loaded)
            case .failure(let error):
                presentation.mediaFailures.append(MediaPlaylistFailure(reference: target.0, error: error, role: roles[target.0] ?? .variant,
                                                                       location: target.1.description))
            }
        }
    }

    /// What the tag naming a media playlist requires of it (RFC 8216bis 4.4.6.2, 4.4.6.3): an
    /// I-frame stream's playlist has EXT-X-I-FRAMES-ONLY, a variant's or rendition's does not.
    static func roleDiagnostics(_ media: MediaPlaylist, role: MediaPlaylistRole) -> [PlaylistDiagnostic] {
        switch (role, media.iFramesOnly) {
        case (.iFrame, false):
            return [PlaylistDiagnostic(line: 1, level: .error, tag: "EXT-X-I-FRAMES-ONLY",
                                       message: "missing: EXT-X-I-FRAME-STREAM-INF names this playlist, so it must be I-frames only; players would use full segments for trick play")]
        case (.variant, true), (.rendition, true):
            return [PlaylistDiagnostic(line: 1, level: .error, tag: "EXT-X-I-FRAMES-ONLY",
                                       message: "an I-frame playlist named by \(role == .variant ? "EXT-X-STREAM-INF" : "EXT-X-MEDIA"): players would play its I-frames only; name it with EXT-X-I-FRAME-STREAM-INF")]
        default:
            return []
        }
    }

    private func fetchAssetLists(into presentation: inout Presentation) async {
        var targets: [InputLocation] = []
        var seen: Set<String> = []
        for media in presentation.mediaPlaylists {
            for range in media.playlist.dateRanges where range.isInterstitial {
                guard let reference = range.interstitial?.assetList,
                      case .success(let location) = presentation.resolutions.remember(reference, from: media.location),
                      seen.insert(location.description).inserted else { continue }
                targets.append(location)
            }
        }
        let outcomes = await Self.map(targets, width: options.concurrency) { location -> AssetListOutcome in
            do throws(LoadError) {
                let resource = try await fetcher.fetch(location, limits: options.assetLimits)
                do throws(AssetListError) {
                    return .loaded(try AssetList.decode(resource.data), location: resource.location, elapsed: resource.elapsed)
                } catch {
                    return .invalid(error, location: resource.location)
                }
            } catch {
                return .failed(error)
            }
        }
        for (location, outcome) in zip(targets, outcomes) { presentation.assetLists[location.description] = outcome }
    }

    private func fetchAssets(into presentation: inout Presentation) async {
        let targets = presentation.rememberAssetReferences()
        let outcomes = await Self.map(targets, width: options.concurrency) { location in await loadAsset(location) }
        for (location, outcome) in zip(targets, outcomes) { presentation.assets[location.description] = outcome }
    }

    /// An asset's playlist; for a multivariant asset, every variant's media playlist.
    private func loadAsset(_ location: InputLocation) async -> AssetPlaylistOutcome {
        do throws(LoadError) {
            let (parsed, resource) = try await loadPlaylist(location, limits: assetPlaylistLimits)
            switch parsed.playlist {
            case .media(let media):
                let loaded = LoadedMediaPlaylist(location: resource.location, reference: resource.location.description, playlist: media,
                                                 diagnostics: parsed.diagnostics)
                return .loaded(AssetPlaylistSummary(location: resource.location, liveMediaPlaylists: media.isVOD ? [] : [resource.location.description],
                                                    duration: media.totalDuration, elapsed: resource.elapsed, root: parsed, mediaPlaylists: [loaded]))
            case .multivariant(let multivariant):
                var live: [String] = []
                var duration: Double?
                var elapsed = resource.elapsed
                var seen: Set<String> = []
                var failures: [LoadError] = []
                var loaded = 0
                var mediaPlaylists: [LoadedMediaPlaylist] = []
                // Every variant at once (a few per asset), in the order written. A variant that does not
                // load is failed over by players: the asset fails only when none loads.
                var targets: [(uri: String, location: Result<InputLocation, LoadError>)] = []
                for variant in multivariant.variants {
                    do throws(LoadError) {
                        let variantLocation = try resource.location.resolving(variant.uri)
                        guard seen.insert(variantLocation.description).inserted else { continue }
                        targets.append((variant.uri, .success(variantLocation)))
                    } catch {
                        targets.append((variant.uri, .failure(error)))
                    }
                }
                let limits = assetPlaylistLimits, variables = parsed.variables
                let results = await Self.map(targets, width: Self.variantsAtOnce) { target -> Result<(ParsedPlaylist, FetchedResource), LoadError> in
                    do throws(LoadError) {
                        return .success(try await loadPlaylist(try target.location.get(), limits: limits, importing: variables))
                    } catch {
                        return .failure(error)
                    }
                }
                for (target, result) in zip(targets, results) {
                    switch result {
                    case .success(let (child, childResource)):
                        loaded += 1
                        guard let media = child.playlist.media else { continue }
                        mediaPlaylists.append(LoadedMediaPlaylist(location: childResource.location, reference: target.uri, playlist: media,
                                                                  diagnostics: child.diagnostics))
                        if !media.isVOD { live.append(childResource.location.description) }
                        if duration == nil { duration = media.totalDuration }
                        elapsed = max(elapsed, resource.elapsed + childResource.elapsed)
                    case .failure(let error):
                        if case .cancelled = error { throw error }
                        failures.append(error)
                    }
                }
                if loaded == 0, let first = failures.first { throw first }
                return .loaded(AssetPlaylistSummary(location: resource.location, liveMediaPlaylists: live,
                                                    duration: duration ?? 0, elapsed: elapsed, root: parsed, unloadedVariants: failures,
                                                    mediaPlaylists: mediaPlaylists))
            }
        } catch {
            return .failed(error)
        }
    }

    /// Variant playlists of one multivariant asset fetched at once (the assets themselves are
    /// fetched `concurrency` at a time).
    static let variantsAtOnce = 8

    /// The limits of an interstitial's asset playlist: a playlist's size, the asset time limits.
    public var assetPlaylistLimits: FetchLimits {
        var limits = options.playlistLimits
        limits.connectTimeout = options.assetLimits.connectTimeout
        limits.totalTimeout = options.assetLimits.totalTimeout
        limits.timeLimit = options.assetLimits.timeLimit
        return limits
    }

    /// `transform` over `items` with at most `width` running at once; results in input order.
    public static func map<T: Sendable, R: Sendable>(_ items: [T], width: Int, _ transform: @escaping @Sendable (T) async -> R) async -> [R] {
        await withTaskGroup(of: (Int, R).self) { group in
            var results = [R?](repeating: nil, count: items.count)
            var next = 0
            for _ in 0..<min(max(width, 1), items.count) {
                let index = next
                group.addTask { (index, await transform(items[index])) }
                next += 1
            }
            while let (index, result) = await group.next() {
                results[index] = result
                if next < items.count {
                    let index = next
                    group.addTask { (index, await transform(items[index])) }
                    next += 1
                }
            }
            return results.map { $0! }
        }
    }
}

/// Reads local files only: every remote request fails at once with `.offline` (`--offline`:
/// check a playlist before its CDN or ad server is live).
public struct OfflineFetcher: ResourceFetching {
    let base: any ResourceFetching

    public init(_ base: any ResourceFetching = ResourceFetcher()) { self.base = base }

    public func fetch(_ location: InputLocation, limits: FetchLimits) async throws(LoadError) -> FetchedResource {
        guard case .file = location else { throw .offline(location.description) }
        return try await base.fetch(location, limits: limits)
    }
}

/// A fetcher that remembers hosts that could not be reached and fails later requests to them at
/// once, with the first failure's reason.
final class UnreachableHostMemo: ResourceFetching, @unchecked Sendable {
    private let base: any ResourceFetching
    private let lock = NSLock()
    private var failures: [String: String] = [:]

    init(_ base: any ResourceFetching) {
        self.base = base
    }

    func fetch(_ location: InputLocation, limits: FetchLimits) async throws(LoadError) -> FetchedResource {
        guard case .remote(let url) = location, let host = Self.host(url) else {
            return try await base.fetch(location, limits: limits)
        }
        if let reason = lock.withLock({ failures[host] }) {
            throw .hostUnreachable(url.absoluteString, reason: reason + "; not asked again")
        }
        do {
            return try await base.fetch(location, limits: limits)
        } catch {
            // The host that failed: after a redirect, the target, not the one asked.
            if case .hostUnreachable(let subject, let reason) = error {
                let failed = URL(string: subject).flatMap(Self.host) ?? host
                lock.withLock { if failures[failed] == nil { failures[failed] = reason } }
            }
            throw error
        }
    }

    /// scheme://host:port, the unit that is reachable or not.
    private static func host(_ url: URL) -> String? {
        guard let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased() else { return nil }
        return "\(scheme)://\(host):\(url.port ?? (scheme == "https" ? 443 : 80))"
    }
}
