import Foundation

/// What a playback session's request came back as, in the words every session uses: AirPlay 1
/// (`AirPlaySession`), the legacy video session and the AirPlay 2 session read a failed exchange,
/// a status and a property-list body the same way, so a receiver's answer means one thing to the
/// user whichever session met it. Pairing exchanges have their own reading (`AirPlayPairing.map`).
enum SessionAnswers {
    /// A request that got no answer: unreachable, timed out, closed or reset (it went away), not
    /// HTTP, or the encrypted channel failed.
    static func error(_ failure: ConnectionFailure, endpoint: String, path: String, timeout: Double) -> AirPlayError {
        switch failure {
        case .connect(let reason): return .connect(endpoint: endpoint, reason: reason)
        case .timeout: return .timeout(endpoint: endpoint, path: path, seconds: timeout)
        case .closed, .io: return .connectionClosed(endpoint: endpoint, path: path)
        case .malformed(let parse): return .badResponse(endpoint: endpoint, path: path, reason: parse.description)
        case .encryption(let reason): return .pairing(endpoint: endpoint, step: "encrypted channel (\(path))", reason: reason)
        }
    }

    /// 2xx passes. A digest challenge asks for a password; 401/403/453/470 ask for pairing (with
    /// `pairingName`, the `airplay pair` command that gives it); 404 on `/play` is no URL playback;
    /// 409 is another sender holding the receiver; anything else is `http` naming the step.
    static func check(_ response: HTTPResponse, endpoint: String, path: String, pairingName: String? = nil) throws(AirPlayError) {
        switch response.status {
        case 200..<300: return
        case 401 where response.header("www-authenticate")?.lowercased().hasPrefix("digest") == true:
            throw .passwordRequired(endpoint: endpoint)
        case 401, 403, 453, 470:
            if let pairingName { throw .needsPairing(endpoint: endpoint, receiver: pairingName) }
            throw .pairingRequired(endpoint: endpoint, status: response.status)
        case 404 where path == "/play": throw .noURLPlayback(endpoint: endpoint)
        case 409: throw .busy(endpoint: endpoint)
        default: throw .http(endpoint: endpoint, path: path, status: response.status, reason: response.statusText)
        }
    }

    /// The body as a property-list dictionary, or `badResponse` naming the step.
    static func plist(_ response: HTTPResponse, endpoint: String, path: String) throws(AirPlayError) -> [String: Any] {
        switch PropertyList.dictionary(from: response.body) {
        case .success(let dictionary): return dictionary
        case .failure(let error): throw .badResponse(endpoint: endpoint, path: path, reason: error.reason)
        }
    }

    /// `/playback-info`'s answer checked and read; an empty 200 is no playback (UxPlay answers
    /// one while its player has no position yet and once the item ended).
    static func playbackInfo(_ response: HTTPResponse, endpoint: String) throws(AirPlayError) -> PlaybackInfo {
        try check(response, endpoint: endpoint, path: "/playback-info")
        if response.body.isEmpty { return PlaybackInfo() }
        return PlaybackInfo(plist: try plist(response, endpoint: endpoint, path: "/playback-info"))
    }

    /// `/server-info`'s answer checked and read.
    static func serverInfo(_ response: HTTPResponse, endpoint: String) throws(AirPlayError) -> ServerInfo {
        try check(response, endpoint: endpoint, path: "/server-info")
        return ServerInfo(plist: try plist(response, endpoint: endpoint, path: "/server-info"))
    }
}

/// The control paths every session sends, formatted once: a rate that is not finite is 0, a
/// position that is not finite or negative is 0.
enum SessionPaths {
    static func rate(_ rate: Double) -> String { "/rate?value=\(String(format: "%.6f", rate.isFinite ? rate : 0))" }
    static func scrub(_ seconds: Double) -> String {
        "/scrub?position=\(String(format: "%.6f", seconds.isFinite ? max(seconds, 0) : 0))"
    }
}
