import Foundation
import HLS

/// Turns user inputs into probe targets: a multivariant playlist becomes the media playlists of
/// its variants and renditions (each probed as a rendition); anything else stays as given.
public enum ProbeTargets {
    public static func expand(_ inputs: [InputLocation], timeout: Double = 15) async throws(ProbeError) -> [InputLocation] {
        var options = PresentationLoader.Options()
        options.playlistLimits.connectTimeout = timeout
        options.playlistLimits.totalTimeout = timeout
        let loader = PresentationLoader(options: options)
        var targets: [InputLocation] = []
        for input in inputs {
            guard ProbeSession.isPlaylist(input) else {
                targets.append(input)
                continue
            }
            let parsed: ParsedPlaylist, resource: FetchedResource
            do { (parsed, resource) = try await loader.loadPlaylist(input) } catch { throw .playlist(error) }
            guard case .multivariant(let multivariant) = parsed.playlist else {
                targets.append(input)
                continue
            }
            // Audio and video renditions; subtitles (WebVTT) and captions are not media to probe.
            let references = multivariant.variants.map(\.uri)
                + multivariant.renditions.filter { $0.type == .audio || $0.type == .video }.compactMap(\.uri)
            for reference in references {
                let location: InputLocation
                do { location = try resource.location.resolving(reference) } catch { throw .playlist(error) }
                if !targets.contains(location) { targets.append(location) }
            }
        }
        return targets
    }
}
