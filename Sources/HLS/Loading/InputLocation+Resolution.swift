import Foundation

extension InputLocation {
    /// The location as a URI: `file:///path` (percent-encoded) or the http(s) URL.
    public var uriText: String {
        switch self {
        case .file(let path):
            let encoded = path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? path
            return "file://" + encoded
        case .remote(let url): return url.absoluteString
        }
    }

    /// A reference written in the playlist at this location (a URI line, a URI attribute, an
    /// asset list's URI) resolved per RFC 3986.
    ///
    /// A remote playlist may only lead to http(s): an absolute `file:` URI in it, or any other
    /// scheme, is refused, so that no remote playlist can make the auditor read its own disk.
    /// A local playlist may reference local files and http(s) URLs.
    public func resolving(_ reference: String) throws(LoadError) -> InputLocation {
        let trimmed = reference.trimmingSpaces()
        guard !trimmed.isEmpty else { throw .invalidReference(reference: reference, playlist: description) }
        if URIReference.isPlainHTTP(trimmed) {
            // Its own resolution (nothing to encode, no fragment, no dot segment): the 1,000 ads' X-ASSET-URIs.
            guard let url = URL(string: trimmed), let host = url.host, !host.isEmpty else {
                throw .invalidReference(reference: reference, playlist: description)
            }
            return .remote(url)
        }
        let ref = URIReference(parsing: URIReference.encodingInvalidCharacters(trimmed))
        // An absolute reference (every X-ASSET-URI) does not read its base: the base's URI
        // (percent-encoding a path) is made only for relative ones.
        let resolved = ref.resolved(against: ref.scheme == nil ? URIReference(parsing: uriText) : ref)
        let scheme = resolved.scheme?.lowercased() ?? ""
        switch scheme {
        case "http", "https":
            var clean = resolved
            clean.fragment = nil
            guard let url = URL(string: clean.description), let host = url.host, !host.isEmpty else {
                throw .invalidReference(reference: reference, playlist: description)
            }
            return .remote(url)
        case "file":
            guard !isRemote else { throw .localReferenceFromRemote(reference: reference, playlist: description) }
            guard resolved.authority == nil || resolved.authority == "" || resolved.authority == "localhost" else {
                throw .unsupportedScheme(reference: reference, playlist: description)
            }
            let path = URIReference.removingPercentEncoding(resolved.path) ?? resolved.path
            return .file(path: path.isEmpty ? "/" : path)
        default:
            throw .unsupportedScheme(reference: reference, playlist: description)
        }
    }

    /// The query parameters of a remote location, for EXT-X-DEFINE QUERYPARAM.
    public var queryParameters: [String: String] {
        guard case .remote(let url) = self, let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems else {
            return [:]
        }
        var result: [String: String] = [:]
        for item in items where result[item.name] == nil { result[item.name] = item.value ?? "" }
        return result
    }

    /// True when the reference is an absolute URI (has a scheme), as X-ASSET-URI must be.
    public static func isAbsoluteURI(_ reference: String) -> Bool {
        URIReference.hasScheme(Substring(reference.trimmingSpaces()).utf8)
    }
}
