import Foundation
import HLS

/// One input to probe; `loaded` is its media playlist when reading the input loaded it already.
public struct ProbeTarget: Sendable, Equatable {
    public var location: InputLocation
    public var loaded: LoadedMediaPlaylist?

    public init(location: InputLocation, loaded: LoadedMediaPlaylist? = nil) {
        self.location = location
        self.loaded = loaded
    }
}

/// Turns user inputs into probe targets: a multivariant playlist becomes the media playlists of
/// its variants and renditions (each probed as a rendition); anything else stays as given.
public enum ProbeTargets {
    public static func expand(_ inputs: [InputLocation], timeout: Double = 15) async throws(ProbeError) -> [InputLocation] {
        try await expandLoaded(inputs, timeout: timeout).map(\.location)
    }

    /// As `expand`, keeping a media playlist given as input as it was loaded to tell its kind,
    /// so that its probe does not fetch it again.
    public static func expandLoaded(_ inputs: [InputLocation], timeout: Double = 15) async throws(ProbeError) -> [ProbeTarget] {
        var options = PresentationLoader.Options()
        options.playlistLimits.connectTimeout = timeout
        options.playlistLimits.totalTimeout = timeout
        let loader = PresentationLoader(options: options)
        var targets: [ProbeTarget] = []
        for input in inputs {
            guard ProbeSession.isPlaylist(input) else {
                targets.append(ProbeTarget(location: input))
                continue
            }
            let parsed: ParsedPlaylist, resource: FetchedResource
            do { (parsed, resource) = try await loader.loadPlaylist(input) } catch { throw .playlist(error) }
            guard case .multivariant(let multivariant) = parsed.playlist else {
                let loaded = parsed.playlist.media.map {
                    LoadedMediaPlaylist(location: resource.location, reference: input.description, playlist: $0, diagnostics: parsed.diagnostics)
                }
                targets.append(ProbeTarget(location: input, loaded: loaded))
                continue
            }
            // Audio and video renditions; subtitles (WebVTT) and captions are not media to probe.
            let references = multivariant.variants.map(\.uri)
                + multivariant.renditions.filter { $0.type == .audio || $0.type == .video }.compactMap(\.uri)
            for reference in references {
                let location: InputLocation
                do { location = try resource.location.resolving(reference) } catch { throw .playlist(error) }
                if !targets.contains(where: { $0.location == location }) { targets.append(ProbeTarget(location: location)) }
            }
        }
        return targets
    }
}
