import HLS
import MediaProbe

/// Probes the renditions of one audit without fetching a media playlist the loader has already
/// fetched: each is handed to the probe as loaded (the primary's variants and renditions, every
/// asset's variants), looked up by the URL it was asked for or the one it came from. One the
/// loader never saw (an asset's audio rendition) is fetched by the probe. The session probes
/// each distinct location once.
struct RenditionProbes: Sendable {
    let session: ProbeSession
    /// The loaded media playlists by the URL each was asked for (and the one it came from).
    private(set) var loaded: [InputLocation: LoadedMediaPlaylist] = [:]

    init(session: ProbeSession, presentation: Presentation) {
        self.session = session
        for media in presentation.mediaPlaylists {
            remember(media, asked: presentation.resolutions.resolve(media.reference, from: presentation.location))
        }
        for case .loaded(let summary) in presentation.assets.values {
            for media in summary.mediaPlaylists {
                remember(media, asked: presentation.resolutions.resolve(media.reference, from: summary.location))
            }
        }
    }

    private mutating func remember(_ media: LoadedMediaPlaylist, asked: Result<InputLocation, LoadError>) {
        if case .success(let location) = asked { loaded[location] = media }
        // After a redirect, the same playlist under the URL it came from.
        if loaded[media.location] == nil { loaded[media.location] = media }
    }

    /// The rendition at `location`: `playlist` when the caller holds it, else the loaded one, else fetched.
    func describe(_ location: InputLocation, playlist: LoadedMediaPlaylist? = nil) async throws(ProbeError) -> MediaDescription {
        try await session.describeRendition(location, loaded: playlist ?? loaded[location])
    }

    /// A media playlist that is the root of what was loaded from `location` (a media playlist primary or asset).
    static func root(_ root: ParsedPlaylist, at location: InputLocation) -> LoadedMediaPlaylist? {
        guard case .media(let media) = root.playlist else { return nil }
        return LoadedMediaPlaylist(location: location, reference: location.description, playlist: media, diagnostics: root.diagnostics)
    }
}
