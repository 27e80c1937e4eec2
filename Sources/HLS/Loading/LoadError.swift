/// Why a playlist, asset list or asset could not be loaded. Each case names the URL or path and
/// its message says what to check; the CLI maps every case to exit code 2.
public enum LoadError: Error, Equatable, Sendable, CustomStringConvertible {
    case fileNotFound(String)
    case notARegularFile(String)
    case unreadable(String, reason: String)
    case tooLarge(String, limit: Int)
    case httpStatus(String, code: Int)
    case redirectLoop(String)
    case tooManyRedirects(String, limit: Int)
    case redirectToUnsupportedScheme(String, target: String)
    /// A redirect whose Location is empty or not a URL.
    case badRedirect(String, location: String)
    /// No response headers within the connect timeout.
    case noResponse(String, seconds: Double, limit: TimeLimit = .option)
    /// The whole transfer did not finish within the total timeout.
    case timedOut(String, seconds: Double, limit: TimeLimit = .option)
    case connectionFailed(String, reason: String)
    /// The host did not take a connection: its name does not resolve, it refused, or no TCP
    /// connection within the connect timeout. The loader asks such a host only once per load.
    case hostUnreachable(String, reason: String)
    /// libcurl, loaded on first use, is not installed or not usable.
    case httpUnavailable(String, reason: String)
    /// The task asking for it was cancelled (Ctrl-C, a matrix run stopping): not a fault of the input.
    case cancelled(String)
    /// A playlist loaded over http(s) pointed at a local file.
    case localReferenceFromRemote(reference: String, playlist: String)
    case unsupportedScheme(reference: String, playlist: String)
    case invalidReference(reference: String, playlist: String)
    case notAPlaylist(String, PlaylistParseError)
    /// The server said it is sending media (Content-Type video/..., audio/...), not a playlist.
    case mediaInsteadOfPlaylist(String, contentType: String)
    /// Not fetched: the run is offline (`--offline`), so remote resources are not checked.
    case offline(String)

    /// The URL or path the error is about.
    public var subject: String {
        switch self {
        case .fileNotFound(let s), .notARegularFile(let s), .unreadable(let s, _), .tooLarge(let s, _), .httpStatus(let s, _),
             .redirectLoop(let s), .tooManyRedirects(let s, _), .redirectToUnsupportedScheme(let s, _), .noResponse(let s, _, _),
             .timedOut(let s, _, _), .connectionFailed(let s, _), .hostUnreachable(let s, _), .httpUnavailable(let s, _), .cancelled(let s), .badRedirect(let s, _), .notAPlaylist(let s, _), .mediaInsteadOfPlaylist(let s, _),
             .offline(let s):
            return s
        case .localReferenceFromRemote(let r, _), .unsupportedScheme(let r, _), .invalidReference(let r, _):
            return r
        }
    }

    public var description: String {
        switch self {
        case .fileNotFound(let path): return "\(path): no such file; check the path"
        case .notARegularFile(let path): return "\(path): not a regular file (a directory or a device); give a playlist file"
        case .unreadable(let path, let reason): return "\(path): cannot be read (\(reason)); check its permissions"
        case .tooLarge(let url, let limit):
            return "\(url): larger than the \(Self.bytes(limit)) limit; the transfer was stopped (is this really a playlist?)"
        case .httpStatus(let url, let code):
            return "\(url): the server answered HTTP \(code)" + (code == 404 ? " (not found); check the URL" : code >= 500 ? "; the server failed, try again later" : "; check the URL and access rights")
        case .redirectLoop(let url): return "\(url): redirect loop (a URL redirected back to one already visited); fix the server's redirects"
        case .tooManyRedirects(let url, let limit): return "\(url): more than \(limit) redirects; fix the server's redirects"
        case .redirectToUnsupportedScheme(let url, let target):
            return "\(url): redirected to \(target); only http and https redirects are followed"
        case .badRedirect(let url, let location):
            return "\(url): redirected to '\(location)', which is not a URL; fix the server's redirects"
        case .cancelled(let url): return "\(url): cancelled before it was loaded"
        case .offline(let url): return "\(url): not fetched (--offline); not checked"
        case .noResponse(let url, let seconds, let limit):
            return "\(url): no response within \(limit.describe(seconds)); the server is down or too slow (\(limit.advice))"
        case .timedOut(let url, let seconds, let limit):
            return "\(url): the transfer did not finish within \(limit.describe(seconds)); the server is too slow (\(limit.advice))"
        case .connectionFailed(let url, let reason): return "\(url): cannot connect (\(reason)); check the host name and the network"
        case .hostUnreachable(let url, let reason): return "\(url): cannot connect (\(reason)); check the host name and the network"
        case .httpUnavailable(let url, let reason):
            return "\(url): cannot fetch over http(s): libcurl cannot be loaded (\(reason)); install libcurl4 (scripts/setup-deps.sh)"
        case .localReferenceFromRemote(let reference, let playlist):
            return "\(reference): refused: the remote playlist \(playlist) points at a local file; a playlist loaded over http(s) may only reference http(s) URLs"
        case .unsupportedScheme(let reference, let playlist):
            return "\(reference) (in \(playlist)): unsupported scheme; playlists may reference http(s) URLs and, from local playlists, files"
        case .invalidReference(let reference, let playlist):
            return "\(reference) (in \(playlist)): not a valid URI reference"
        case .notAPlaylist(let url, let reason): return "\(url): \(reason)"
        case .mediaInsteadOfPlaylist(let url, let type):
            return "\(url): the server sends media (Content-Type \(type)), not a playlist; seamcheck lint and inspect read playlists only"
        }
    }

    static func bytes(_ n: Int) -> String {
        n >= 1 << 20 && n % (1 << 20) == 0 ? "\(n >> 20) MiB" : n >= 1024 && n % 1024 == 0 ? "\(n >> 10) KiB" : "\(n) bytes"
    }

    static func seconds(_ s: Double) -> String { "\(HLSNumber.format(s)) s" }
}
