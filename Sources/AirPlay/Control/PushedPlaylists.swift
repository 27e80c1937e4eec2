import Foundation

// Pushed playlists (FCUP, as the YouTube app plays on Apple TVs): the receiver is given a
// `mlhls://` URL it cannot fetch, asks the sender for each playlist over the reverse connection
// (`POST /event` unhandledURLRequest) and gets it in `POST /action` unhandledURLResponse. Pure:
// the events' plists, the action's plist, which URLs may be pushed, and the playlists rewritten so
// every URI in them is absolute (UxPlay requires it).

/// One `unhandledURLRequest`: the receiver wants `url`; the answer must carry `requestId`.
public struct FCUPRequest: Sendable, Equatable {
    public var requestId: Int
    public var url: String
    /// The headers the receiver asks the fetch to carry (`User-Agent`, `X-Playback-Session-Id`).
    public var headers: [String: String]
    public var sessionId: Int?

    public init(requestId: Int, url: String, headers: [String: String] = [:], sessionId: Int? = nil) {
        self.requestId = requestId
        self.url = url
        self.headers = headers
        self.sessionId = sessionId
    }
}

/// What one `POST /event` on the reverse connection said.
public enum ReverseEvent: Sendable, Equatable {
    case urlRequest(FCUPRequest)
    /// An event of another type (answered 200, not acted on).
    case other(type: String)
}

/// Why an event or a pushed URL is not usable: a finding about the receiver, never a crash.
public struct PushFinding: Error, Sendable, Equatable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

public enum FCUPMessages {
    public static let requestType = "unhandledURLRequest"
    public static let responseType = "unhandledURLResponse"

    /// The event in a `POST /event` body (XML or binary plist).
    public static func event(from body: Data) -> Result<ReverseEvent, PushFinding> {
        let dictionary: [String: Any]
        switch PropertyList.dictionary(from: body) {
        case .success(let value): dictionary = value
        case .failure(let error): return .failure(PushFinding("POST /event: \(error.reason)"))
        }
        guard let type = PropertyList.string(dictionary["type"]) else {
            return .failure(PushFinding("POST /event: no 'type' string in the plist (keys: \(keys(dictionary)))"))
        }
        guard type == requestType else { return .success(.other(type: String(type.prefix(80)))) }
        guard let request = dictionary["request"] as? [String: Any] else {
            return .failure(PushFinding("POST /event \(requestType): no 'request' dictionary (keys: \(keys(dictionary)))"))
        }
        guard let url = PropertyList.string(request["FCUP_Response_URL"]), !url.isEmpty else {
            return .failure(PushFinding("POST /event \(requestType): no FCUP_Response_URL (keys: \(keys(request)))"))
        }
        guard let requestId = PropertyList.int(request["FCUP_Response_RequestID"]) else {
            return .failure(PushFinding("POST /event \(requestType): no integer FCUP_Response_RequestID (keys: \(keys(request)))"))
        }
        var headers: [String: String] = [:]
        for (name, value) in request["FCUP_Response_Headers"] as? [String: Any] ?? [:] {
            if let text = PropertyList.string(value) { headers[String(name.prefix(128))] = String(text.prefix(1024)) }
        }
        let sessionId = PropertyList.int(dictionary["sessionID"]) ?? PropertyList.int(request["sessionID"])
        return .success(.urlRequest(FCUPRequest(requestId: requestId, url: String(url.prefix(4096)), headers: headers,
                                                sessionId: sessionId)))
    }

    /// The `POST /action` body answering `requestId`: a binary plist `{type: unhandledURLResponse,
    /// params: {FCUP_Response_URL, FCUP_Response_Data, FCUP_Response_RequestID, FCUP_Response_StatusCode}}`.
    public static func action(url: String, data: Data, requestId: Int, status: Int) -> Data {
        PropertyList.binary(["type": responseType,
                             "params": ["FCUP_Response_URL": url, "FCUP_Response_Data": data,
                                        "FCUP_Response_RequestID": requestId, "FCUP_Response_StatusCode": status] as [String: Any]])
    }

    private static func keys(_ dictionary: [String: Any]) -> String {
        dictionary.keys.sorted().prefix(8).map { String($0.prefix(40)) }.joined(separator: ", ")
    }
}

/// The pushed URLs of one case: `mlhls://HOST:PORT/cases/ID/master.m3u8` stands for the case's
/// `http://HOST:PORT/cases/ID/master.m3u8` on the lab server; only playlists inside the case's
/// folder are pushed.
public struct PushedPlaylists: Sendable, Equatable {
    public static let scheme = "mlhls"
    /// The case's multivariant playlist on the lab server.
    public let playlist: URL
    /// Its folder's path with a trailing slash (`/cases/control/`).
    public let folder: String

    /// Nil unless `playlist` is an http URL whose last path component is `master.m3u8` (what UxPlay
    /// and Apple TVs take as a pushed multivariant playlist).
    public init?(playlist: URL) {
        guard playlist.scheme == "http" || playlist.scheme == "https", playlist.host != nil,
              playlist.lastPathComponent == "master.m3u8" else { return nil }
        self.playlist = playlist
        folder = (playlist.path as NSString).deletingLastPathComponent.appending("/").replacingOccurrences(of: "//", with: "/")
    }

    /// The URL given to `/play`.
    public var pushedURL: String { Self.swapScheme(playlist.absoluteString, to: Self.scheme) }

    /// The lab server's URL for a URL the receiver asked for; refused (a finding, 404 to the
    /// receiver) unless it is a `mlhls` URL on the same host and port inside the case's folder.
    public func resolve(_ requested: String) -> Result<URL, PushFinding> {
        guard let asked = URL(string: requested), asked.scheme?.lowercased() == Self.scheme,
              let http = URL(string: Self.swapScheme(requested, to: playlist.scheme ?? "http")) else {
            return .failure(PushFinding("asked for \(requested.prefix(200)), which is not a \(Self.scheme):// URL this sender gave"))
        }
        guard http.host?.lowercased() == playlist.host?.lowercased(), http.port == playlist.port else {
            return .failure(PushFinding("asked for \(requested.prefix(200)), on another server than the case's"))
        }
        let raw = http.path
        let decoded = raw.removingPercentEncoding ?? raw
        let parts = decoded.split(separator: "/", omittingEmptySubsequences: false)
        guard !parts.contains(".."), !parts.contains("."), !decoded.contains("\\"), decoded.hasPrefix(folder) else {
            return .failure(PushFinding("asked for \(requested.prefix(200)), outside the case's folder \(folder)"))
        }
        return .success(http)
    }

    /// `text` (fetched from `source`) with every URI made absolute: in the multivariant playlist
    /// the playlists it names become `mlhls` URLs (so the receiver asks for them too); in a media
    /// playlist segments, maps, keys and interstitial assets become `http` URLs on the lab server,
    /// which the receiver fetches itself.
    public func rewrite(_ text: String, from source: URL, multivariant: Bool) -> String {
        func absolute(_ reference: String) -> String {
            guard let resolved = URL(string: reference, relativeTo: source)?.absoluteURL else { return reference }
            let isPlaylist = resolved.path.lowercased().hasSuffix(".m3u8")
            if multivariant, isPlaylist, resolved.scheme == playlist.scheme, resolved.host == playlist.host,
               resolved.port == playlist.port {
                return Self.swapScheme(resolved.absoluteString, to: Self.scheme)
            }
            return resolved.absoluteString
        }
        var lines: [String] = []
        for line in text.components(separatedBy: "\n") {
            let trimmed = line.hasSuffix("\r") ? String(line.dropLast()) : line
            if trimmed.isEmpty {
                lines.append(trimmed)
            } else if !trimmed.hasPrefix("#") {
                lines.append(absolute(trimmed.trimmingCharacters(in: .whitespaces)))
            } else {
                lines.append(Self.rewriteAttributes(trimmed, absolute))
            }
        }
        return lines.joined(separator: "\n")
    }

    /// Attributes whose quoted value is a URI.
    static let uriAttributes = ["URI", "X-ASSET-URI", "X-ASSET-LIST"]

    static func rewriteAttributes(_ line: String, _ transform: (String) -> String) -> String {
        guard line.hasPrefix("#EXT"), line.contains("=\"") else { return line }
        var result = ""
        var rest = Substring(line)
        while let range = rest.range(of: "=\"") {
            let name = rest[..<range.lowerBound].reversed().prefix { $0.isLetter || $0.isNumber || $0 == "-" }
            let attribute = String(name.reversed())
            result += rest[..<range.upperBound]
            rest = rest[range.upperBound...]
            guard let close = rest.firstIndex(of: "\"") else { break }
            let value = String(rest[..<close])
            result += uriAttributes.contains(attribute) && !value.isEmpty ? transform(value) : value
            rest = rest[close...]
        }
        return result + rest
    }

    static func swapScheme(_ url: String, to scheme: String) -> String {
        guard let colon = url.firstIndex(of: ":") else { return url }
        return scheme + url[colon...]
    }
}
