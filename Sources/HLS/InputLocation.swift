import Foundation

/// Where an input lives: a local file or a remote http(s) resource.
///
/// Parsed from what a user types (a path, a `file:` URL, an `http(s):` URL). Anything else with
/// a scheme is refused, so a typo like `htp://` is an error rather than a local file name.
public enum InputLocation: Hashable, Sendable, CustomStringConvertible {
    case file(path: String)
    case remote(URL)

    public init(parsing text: String, relativeTo directory: String = FileManager.default.currentDirectoryPath) throws(InputLocationError) {
        let trimmed = text.trimmingSpaces()
        guard !trimmed.isEmpty else { throw .empty }
        if let scheme = Self.scheme(of: trimmed) {
            switch scheme {
            case "http", "https":
                guard let url = URL(string: trimmed), url.host != nil, !(url.host ?? "").isEmpty else {
                    throw .malformedURL(trimmed)
                }
                self = .remote(url)
            case "file":
                guard let url = URL(string: trimmed), url.isFileURL else { throw .malformedURL(trimmed) }
                guard url.host == nil || url.host == "" || url.host == "localhost" else {
                    throw .remoteFileURL(trimmed)
                }
                self = .file(path: url.standardizedFileURL.path)
            default:
                throw .unsupportedScheme(scheme, trimmed)
            }
            return
        }
        let absolute = trimmed.hasPrefix("/") ? trimmed : directory + "/" + trimmed
        self = .file(path: URL(fileURLWithPath: absolute).standardizedFileURL.path)
    }

    /// The scheme, when the text starts with one (RFC 3986: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) ":").
    /// A single letter followed by ":" is not taken as a scheme.
    static func scheme(of text: String) -> String? {
        guard let colon = text.firstIndex(of: ":") else { return nil }
        let candidate = text[..<colon]
        guard candidate.count > 1, let first = candidate.first, first.isASCII, first.isLetter,
              candidate.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) })
        else { return nil }
        return candidate.lowercased()
    }

    public var isRemote: Bool {
        if case .remote = self { return true }
        return false
    }

    /// The text shown to users: the path or the URL as given.
    public var description: String {
        switch self {
        case .file(let path): return path
        case .remote(let url): return url.absoluteString
        }
    }

    /// The last path component, for short labels in reports; the whole URL when its path names no file.
    public var displayName: String {
        switch self {
        case .file(let path): return PathText.lastComponent(path)
        case .remote(let url):
            let name = PathText.fileName(ofInput: url.absoluteString)
            return name.isEmpty ? url.absoluteString : name
        }
    }
}

public enum InputLocationError: Error, Equatable, Sendable, CustomStringConvertible {
    case empty
    case malformedURL(String)
    case remoteFileURL(String)
    case unsupportedScheme(String, String)

    public var description: String {
        switch self {
        case .empty:
            return "empty input: give a path, a file: URL or an http(s) URL"
        case .malformedURL(let text):
            return "\(text): not a valid URL (expected http://host/path, https://host/path or file:///path)"
        case .remoteFileURL(let text):
            return "\(text): file: URLs must name a local file (file:///path); use http(s) for remote inputs"
        case .unsupportedScheme(let scheme, let text):
            return "\(text): unsupported scheme '\(scheme):' (use a local path, file:, http: or https:)"
        }
    }
}
