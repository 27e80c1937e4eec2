import AirPlay
import Foundation

/// A session whose `/play` pushes the case's playlists (`LabDelivery.pushed`): it opens the
/// reverse connection, plays the case's `mlhls://` URL, serves the receiver's playlist requests
/// (`PlaylistPusher`) and returns from `play` once the push settled. A finding (a URL outside the
/// case, a fetch that did not end, garbage on the reverse connection, no request at all) fails
/// `/play` with it, so the cell is `failed` with the finding as its reason and the run goes on.
/// Everything else goes to the wrapped session.
public final class PushedPlayback: AirPlayPlayback, @unchecked Sendable {
    private let base: any AirPlayPlayback
    private let endpoint: AirPlayEndpoint
    private let configuration: AirPlayConfiguration
    private let limits: PushLimits
    private let attribution: PushAttribution
    private let lock = NSLock()
    private var reverse: ReverseConnection?
    private var serving: Task<Void, Never>?
    private var pusher: PlaylistPusher?

    public init(_ base: any AirPlayPlayback, endpoint: AirPlayEndpoint, configuration: AirPlayConfiguration,
                limits: PushLimits = .init(), attribution: PushAttribution) {
        self.base = base
        self.endpoint = endpoint
        self.configuration = configuration
        self.limits = limits
        self.attribution = attribution
    }

    /// `opener` with every session pushing playlists; each receiver's fetches carry `token` and its
    /// address, so the lab server logs them as the receiver's.
    public static func opener(wrapping opener: @escaping AirPlayOpener, token: String, limits: PushLimits = .init(),
                              configuration: AirPlayConfiguration = .init()) -> AirPlayOpener {
        return { endpoint throws(AirPlayError) in
            let base = try await opener(endpoint)
            return PushedPlayback(base, endpoint: endpoint, configuration: configuration, limits: limits,
                                  attribution: PushAttribution(receiver: endpoint.host, token: token))
        }
    }

    /// The path errors of the push name.
    static let step = "/play (pushed playlists)"

    public func play(url: URL, startPosition: Double) async throws(AirPlayError) {
        try await play(url: url, startPosition: startPosition, duration: nil)
    }

    public func play(url: URL, startPosition: Double, duration: Double?) async throws(AirPlayError) {
        let name = endpoint.description
        guard let playlists = PushedPlaylists(playlist: url) else {
            throw .badResponse(endpoint: name, path: Self.step,
                               reason: "only a multivariant playlist named master.m3u8 can be pushed; \(url.absoluteString) is not one")
        }
        guard let sessionId = base.playbackSessionId else {
            throw .badResponse(endpoint: name, path: Self.step, reason: "this session has no X-Apple-Session-ID to push playlists in")
        }
        await stopServing()
        let connection = try await ReverseConnection.open(endpoint, sessionId: sessionId, configuration: configuration,
                                                         limits: limits.reverse)
        let pusher = PlaylistPusher(playlists: playlists, limits: limits, attribution: attribution)
        let base = self.base
        let task = Task { await pusher.serve(connection.items) { body throws(AirPlayError) in try await base.postAction(body) } }
        lock.withLock {
            reverse = connection
            serving = task
            self.pusher = pusher
        }
        try await base.play(url: URL(string: playlists.pushedURL) ?? url, startPosition: startPosition, duration: duration)
        let deadline = ContinuousClock.now.advanced(by: .milliseconds(Int64(limits.pushTimeout * 1000)))
        while true {
            if let finding = await pusher.findings.first {
                throw .badResponse(endpoint: name, path: Self.step, reason: finding.description)
            }
            if await pusher.pushSettled(now: .now) { return }
            if ContinuousClock.now >= deadline || !connection.isOpen {
                let asked = await pusher.answered.count
                let why = connection.isOpen ? "within \(limits.pushTimeout.formatted()) s of /play" : "before it closed the reverse connection"
                throw .badResponse(endpoint: name, path: Self.step, reason: asked == 0
                    ? "the receiver asked for no playlist \(why)"
                    : "the receiver asked for \(asked) playlist(s), not all it was given, \(why)")
            }
            try? await Task.sleep(for: .milliseconds(20))
            if Task.isCancelled { throw .connectionClosed(endpoint: name, path: Self.step) }
        }
    }

    /// A finding after `/play` returned (a playlist asked for later, garbage on the reverse
    /// connection) fails the poll with it.
    public func playbackInfo() async throws(AirPlayError) -> PlaybackInfo {
        if let pusher = lock.withLock({ self.pusher }), let finding = await pusher.findings.first {
            throw .badResponse(endpoint: endpoint.description, path: "reverse connection (pushed playlists)", reason: finding.description)
        }
        return try await base.playbackInfo()
    }

    /// The requests the receiver made for playlists and what each was answered (the tests read it).
    public var pushed: [(url: String, status: Int)] {
        get async {
            guard let pusher = lock.withLock({ self.pusher }) else { return [] }
            return await pusher.answered.map { ($0.url, $0.status) }
        }
    }

    public func setRate(_ rate: Double) async throws(AirPlayError) { try await base.setRate(rate) }
    public func scrub(to seconds: Double) async throws(AirPlayError) { try await base.scrub(to: seconds) }
    public func stop() async throws(AirPlayError) { try await base.stop() }
    public func serverInfo() async throws(AirPlayError) -> ServerInfo { try await base.serverInfo() }
    public var playbackSessionId: String? { base.playbackSessionId }
    public func postAction(_ body: Data) async throws(AirPlayError) { try await base.postAction(body) }

    public func close() async {
        await stopServing()
        await base.close()
    }

    private func stopServing() async {
        let (connection, task) = lock.withLock { () -> (ReverseConnection?, Task<Void, Never>?) in
            defer { reverse = nil; serving = nil }
            return (reverse, serving)
        }
        task?.cancel()
        await connection?.close()
        await task?.value
    }
}
