@_exported import AirPlayModel
import Foundation

// The sender's interface as the lab's run loop sees it. The implementation (wire format, one
// kept-alive connection, plists) lives beside this file; nothing here knows of cases or rules.

/// One playback session on one receiver: what `lab run` and `seamcheck airplay` drive.
/// AirPlay 1 and AirPlay 2 (after pairing) receivers both come behind this protocol.
public protocol AirPlayPlayback: Sendable {
    /// `POST /play`: `startPosition` is seconds; the implementation sends what the receiver expects
    /// (a fraction of the duration for AirPlay 1 `Start-Position`).
    func play(url: URL, startPosition: Double) async throws(AirPlayError)
    /// `play` when the media's duration is known: AirPlay 1 gets the exact fraction
    /// `startPosition / duration` (without it a non-zero start is lost: see docs/airplay.md).
    func play(url: URL, startPosition: Double, duration: Double?) async throws(AirPlayError)
    func playbackInfo() async throws(AirPlayError) -> PlaybackInfo
    func setRate(_ rate: Double) async throws(AirPlayError)
    func scrub(to seconds: Double) async throws(AirPlayError)
    func stop() async throws(AirPlayError)
    /// `GET /server-info`.
    func serverInfo() async throws(AirPlayError) -> ServerInfo
    /// Closes the connection; safe to call more than once.
    func close() async
    /// The `X-Apple-Session-ID` the session's `/play` carries (the reverse connection of pushed
    /// playlists names it too); nil for a session without one.
    var playbackSessionId: String? { get }
    /// `POST /action` with a binary plist body (`FCUPMessages.action`, the answer to a pushed
    /// playlist request), in this session: the receiver matches it to `/play` by the session id.
    func postAction(_ body: Data) async throws(AirPlayError)
}

extension AirPlayPlayback {
    /// For conformers that do not use the duration (test doubles).
    public func play(url: URL, startPosition: Double, duration: Double?) async throws(AirPlayError) {
        try await play(url: url, startPosition: startPosition)
    }

    public var playbackSessionId: String? { nil }

    /// For conformers without pushed playlists (test doubles, sessions that never push).
    public func postAction(_ body: Data) async throws(AirPlayError) {
        throw .http(endpoint: "\(Self.self)", path: "/action", status: 501, reason: "Not Implemented")
    }

    /// For conformers written before `serverInfo` (test doubles): they have none to give.
    public func serverInfo() async throws(AirPlayError) -> ServerInfo {
        throw .http(endpoint: "\(Self.self)", path: "/server-info", status: 501, reason: "Not Implemented")
    }
}

/// What went wrong talking to one receiver: each case names what the receiver wants and what the
/// operator can do. Never thrown for a finding about media.
public enum AirPlayError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No TCP connection (refused, unreachable, or no answer within the connect timeout).
    case connect(endpoint: String, reason: String)
    /// The receiver did not answer `path` within `seconds`.
    case timeout(endpoint: String, path: String, seconds: Double)
    /// The connection closed (the receiver went away) during `path`.
    case connectionClosed(endpoint: String, path: String)
    /// 401/403/453/470: pairing (HAP) wanted before playback.
    case pairingRequired(endpoint: String, status: Int)
    /// A password is wanted (flags 0x80, `pw=true`, or a Digest challenge).
    case passwordRequired(endpoint: String)
    /// 404 on `/play`: the receiver has no URL playback (a mirroring-only receiver or a speaker).
    case noURLPlayback(endpoint: String)
    /// Any other HTTP status the step did not expect.
    case http(endpoint: String, path: String, status: Int, reason: String)
    /// A body that is not what the step expects (garbage plist, too large, wrong type).
    case badResponse(endpoint: String, path: String, reason: String)
    /// Pair-setup, pair-verify or the encrypted channel failed at `step` ("pair-setup M4",
    /// "encrypted channel"): malformed TLV8, a wrong proof or signature, bytes that do not decrypt.
    /// The connection was dropped. No key material is in `reason`.
    case pairing(endpoint: String, step: String, reason: String)
    /// The receiver's own refusal (its TLV8 `error` item) at `step`: a wrong code is
    /// `authentication`.
    case pairingRefused(endpoint: String, step: String, code: TLV8.ErrorCode)
    /// The receiver wants pairing, and no credentials for it are stored (and it offers no
    /// transient pairing). `receiver` is the name to give `seamcheck airplay pair`.
    case needsPairing(endpoint: String, receiver: String)
    /// 409: another sender holds the receiver (UxPlay takes one RTSP sender at a time).
    case busy(endpoint: String)

    public var description: String {
        switch self {
        case .connect(let endpoint, let reason):
            return "\(endpoint): cannot connect (\(reason)); check that the receiver is on and on this network, and its AirPlay port"
        case .timeout(let endpoint, let path, let seconds):
            return "\(endpoint): no answer to \(path) within \(seconds.formatted()) s; the receiver may be busy or asleep"
        case .connectionClosed(let endpoint, let path):
            return "\(endpoint): the receiver closed the connection during \(path) (receiver went away)"
        case .pairingRequired(let endpoint, let status):
            return "\(endpoint): answered \(status): it wants pairing before playback; run `seamcheck airplay pair` for it, or allow AirPlay without a code in its settings"
        case .passwordRequired(let endpoint):
            return "\(endpoint): it wants an AirPlay password; turn the password off in its AirPlay settings for the lab"
        case .noURLPlayback(let endpoint):
            return "\(endpoint): answered 404 to /play: it has no URL playback (screen mirroring or audio only); it cannot run lab cases"
        case .http(let endpoint, let path, let status, let reason):
            return "\(endpoint): \(path) answered \(status) \(reason)"
        case .badResponse(let endpoint, let path, let reason):
            return "\(endpoint): \(path) answered something unusable: \(reason)"
        case .pairing(let endpoint, let step, let reason):
            return "\(endpoint): \(step): \(reason); connection dropped"
        case .pairingRefused(let endpoint, let step, let code):
            let hint = code == .authentication ? "check the code the receiver shows and pair again"
                : "wait, or allow pairing in the receiver's AirPlay settings, then pair again"
            return "\(endpoint): \(step): the receiver refused: \(code); \(hint)"
        case .needsPairing(let endpoint, let receiver):
            let name = receiver.contains(where: { $0 == " " || $0 == "'" }) ? "'\(receiver.replacingOccurrences(of: "'", with: "'\\''"))'" : receiver
            return "\(endpoint): needs pairing: run seamcheck airplay pair \(name)"
        case .busy(let endpoint):
            return "\(endpoint): answered 409: another sender is connected to it; stop that sender (or wait for it), then run again"
        }
    }
}
