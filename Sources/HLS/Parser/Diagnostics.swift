/// A problem in a playlist that does not stop parsing: the tag is skipped or read leniently,
/// as players do, and the problem is named with its line.
public struct PlaylistDiagnostic: Sendable, Equatable, Codable, CustomStringConvertible {
    public enum Level: String, Sendable, Codable { case error, warning }

    public var line: Int
    public var level: Level
    /// The tag, e.g. `EXT-X-STREAM-INF`; nil for URI lines and the file as a whole.
    public var tag: String?
    public var message: String

    public init(line: Int, level: Level, tag: String?, message: String) {
        self.line = line
        self.level = level
        self.tag = tag
        self.message = message
    }

    public var description: String {
        "line \(line): \(level.rawValue): " + (tag.map { "\($0): " } ?? "") + message
    }
}

/// Why a body is not a playlist at all: the only fatal parse failure.
public enum PlaylistParseError: Error, Equatable, Sendable, CustomStringConvertible {
    case empty
    case html
    /// The first line, shortened, that should have been `#EXTM3U`.
    case missingHeader(firstLine: String)
    case notUTF8
    /// A multivariant playlist where a media playlist belongs (or the reverse).
    case unexpectedKind(String)

    public var description: String {
        switch self {
        case .empty: return "is empty, not a playlist"
        case .html: return "is an HTML page, not a playlist (an error page, a login or captive portal?)"
        case .missingHeader(let first):
            return "is not a playlist: the first line must be #EXTM3U, found \"\(first)\""
        case .notUTF8: return "is not a playlist: it is not UTF-8 text (a media file?)"
        case .unexpectedKind(let what): return "is \(what)"
        }
    }
}

/// A parsed playlist with the problems found on the way.
public struct ParsedPlaylist: Sendable, Equatable {
    public var playlist: Playlist
    public var diagnostics: [PlaylistDiagnostic]
    /// Variables in force at the end (EXT-X-DEFINE), for media playlists that IMPORT them.
    public var variables: [String: String]
}
