import Foundation
import HLS

/// What the loader could not read below the input: findings on that part, never the end of the run.
enum LoadSpecRules {
    static let all = [mediaPlaylistUnreachable]
    typealias P = SpecPlaylist

    static let mediaPlaylistUnreachable = SpecRule(
        SpecRule.describe("media-playlist-unreachable", "A variant, rendition or I-frame playlist cannot be loaded", severity: .error,
                          rationale: "A media playlist the multivariant playlist names must load: a receiver that selects a variant that answers 404 (or a file: URI, an HTML error page) fails over to another variant at best, and stalls at worst. An I-frame playlist that does not load only costs trick play (a warning). The rest of the presentation is still checked.",
                          source: "RFC 8216bis 4.4.6.2 and 6.3.4 (the client loads the media playlist of the variant it selects)",
                          inputs: "the multivariant playlist and its media playlists (fetched)"),
        examples: [
            SpecExample("variant 404", triggers: true, playlist: P.multivariant(["v1.m3u8", "v2.m3u8"]),
                        resources: ["https://primary.example/v1.m3u8": P.media()]),
            SpecExample("file: variant in a remote playlist", triggers: true, playlist: P.multivariant(["v1.m3u8", "file:///etc/passwd"]),
                        resources: ["https://primary.example/v1.m3u8": P.media()]),
            SpecExample("I-frame playlist 404", triggers: true, playlist: P.multivariant(["v1.m3u8"])
                            + "#EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=100000,CODECS=\"avc1.64001f\",URI=\"v1-iframes.m3u8\"\n",
                        resources: ["https://primary.example/v1.m3u8": P.media()]),
            SpecExample("every variant loads", triggers: false, playlist: P.multivariant(["v1.m3u8", "v2.m3u8"]),
                        resources: ["https://primary.example/v1.m3u8": P.media(), "https://primary.example/v2.m3u8": P.media()]),
        ]) { context in
        let multivariant = context.presentation.root.playlist.multivariant
        return context.presentation.mediaFailures.compactMap { failure -> SpecViolation? in
            switch failure.error {
            case .cancelled, .offline: return nil  // not a fault of the playlist; --offline lists what it did not check
            default: break
            }
            let line = multivariant.flatMap { playlist in
                switch failure.role {
                case .variant: return playlist.variants.first { $0.uri == failure.reference }?.line
                case .rendition: return playlist.renditions.first { $0.uri == failure.reference }?.line
                case .iFrame: return playlist.iFrameStreams.first { $0.uri == failure.reference }?.line
                }
            }
            let (name, what) = switch failure.role {
            case .variant: ("EXT-X-STREAM-INF", "variant")
            case .rendition: ("EXT-X-MEDIA", "rendition")
            case .iFrame: ("EXT-X-I-FRAME-STREAM-INF", "I-frame")
            }
            let tag = name + " \(failure.reference)" + (line.map { " (line \($0))" } ?? "")
            // The status when the server answered one, else the reason (a redirect loop, a timeout, a refusal).
            let actual = failure.status.map { "\(failure.location ?? failure.reference): HTTP \($0)" } ?? failure.error.description
            return SpecViolation(tag: tag, line: line, playlist: nil, expected: "the \(what)'s media playlist loads", actual: actual,
                                 message: "the \(what) playlist \(failure.location ?? failure.reference) cannot be loaded: \(failure.error); "
                                     + (failure.role == .iFrame ? "receivers show no thumbnails or fast-forward frames from it (the rest was checked)"
                                                                : "receivers that select it fail over or stall (the rest was checked)"),
                                 severity: failure.role == .iFrame ? .warning : nil)
        }
    }
}

extension SpecPlaylist {
    /// A multivariant playlist with one AVC/AAC variant per URI, in descending bandwidth.
    static func multivariant(_ uris: [String]) -> String {
        var lines = ["#EXTM3U"]
        for (index, uri) in uris.enumerated() {
            lines += ["#EXT-X-STREAM-INF:BANDWIDTH=\(2_000_000 - index * 500_000),CODECS=\"avc1.64001f,mp4a.40.2\",RESOLUTION=1280x720", uri]
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
