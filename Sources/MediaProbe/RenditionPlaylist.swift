import HLS

/// What an HLS rendition's media playlist says about how it is packaged, beside what its media
/// says: the facts receivers size their parsers, buffers and decryption sessions by. Set by
/// rendition probes (null for other inputs); the probe JSON's `playlist`.
public struct RenditionPlaylist: Codable, Sendable, Equatable {
    /// EXT-X-VERSION (1 when the tag is absent, as RFC 8216 4.3.1.2 says).
    public var version: Int
    /// EXT-X-TARGETDURATION in seconds.
    public var targetDuration: Int?
    /// The longest EXTINF, in seconds.
    public var longestSegment: Double?
    /// Every distinct EXT-X-KEY of the playlist other than METHOD=NONE (segments and EXT-X-MAP),
    /// in order of first use; empty for a clear rendition.
    public var keys: [KeySystem]

    public init(version: Int, targetDuration: Int?, longestSegment: Double?, keys: [KeySystem]) {
        self.version = version
        self.targetDuration = targetDuration
        self.longestSegment = longestSegment
        self.keys = keys
    }

    /// The packaging facts of `playlist`.
    public init(_ playlist: MediaPlaylist) {
        var keys: [KeySystem] = []
        for segment in playlist.segments {
            for key in [segment.map?.key, segment.key].compactMap({ $0 }) where key.method != "NONE" {
                let system = KeySystem(method: key.method, keyFormat: key.keyFormat ?? "identity")
                if !keys.contains(system) { keys.append(system) }
            }
        }
        self.init(version: playlist.version ?? 1, targetDuration: playlist.targetDuration,
                  longestSegment: playlist.segments.filter { !$0.gap }.map(\.duration).max(), keys: keys)
    }

    /// A variant with a separate audio rendition, as one: what the receiver loads for both (the
    /// newer version, the longer durations, every key).
    public func merged(with other: RenditionPlaylist) -> RenditionPlaylist {
        func larger<T: Comparable>(_ a: T?, _ b: T?) -> T? { [a, b].compactMap { $0 }.max() }
        return RenditionPlaylist(version: max(version, other.version), targetDuration: larger(targetDuration, other.targetDuration),
                                 longestSegment: larger(longestSegment, other.longestSegment),
                                 keys: keys + other.keys.filter { !keys.contains($0) })
    }

    /// A method and key format of EXT-X-KEY ("identity" when KEYFORMAT is absent, its default).
    public struct KeySystem: Codable, Sendable, Equatable, Hashable, CustomStringConvertible {
        public var method: String
        public var keyFormat: String

        public init(method: String, keyFormat: String = "identity") {
            self.method = method
            self.keyFormat = keyFormat
        }

        public var description: String {
            switch keyFormat {
            case "identity": return method
            case "com.apple.streamingkeydelivery": return "\(method) (FairPlay)"
            case "urn:uuid:edef8ba9-79d6-4ace-a3c8-27dcd51d21ed": return "\(method) (Widevine)"
            case "com.microsoft.playready", "urn:uuid:9a04f079-9840-4286-ab92-e65be0885f95": return "\(method) (PlayReady)"
            default: return "\(method) (\(keyFormat))"
            }
        }
    }
}
