import Foundation
import LabCore
import Hummingbird
import NIOCore

/// When each client joined each live behaviour case: its last fetch of the case's multivariant
/// playlist. Bounded: past `capacity` entries the oldest join is forgotten (that client's next media
/// playlist fetch joins afresh).
final class LiveJoinBook: @unchecked Sendable {
    let capacity: Int
    private let lock = NSLock()
    private var joins: [String: Date] = [:]

    init(capacity: Int = 1024) {
        self.capacity = max(1, capacity)
    }

    private static func key(_ client: String, _ caseId: String) -> String { client + "\u{0}" + caseId }

    /// Records a join at `at` (a later fetch of the multivariant playlist joins again).
    func join(_ client: String, case caseId: String, at: Date) {
        lock.withLock {
            joins[Self.key(client, caseId)] = at
            if joins.count > capacity, let oldest = joins.min(by: { $0.value < $1.value })?.key { joins[oldest] = nil }
        }
    }

    /// The client's join, recorded at `now` when there is none on record.
    func joined(_ client: String, case caseId: String, now: Date) -> Date {
        if let at = lock.withLock({ joins[Self.key(client, caseId)] }) { return at }
        join(client, case: caseId, at: now)
        return now
    }

    var count: Int { lock.withLock { joins.count } }
}

/// Makes the media playlist of a live behaviour case per client: the edge stood at the case's
/// `joinEdge` at the client's join and moves with `clock` since (`LiveWindowPlaylist` cuts the
/// window from the template on disk, once per window step: `TemplateCache`). Other requests pass on; a fetch of the case's `master.m3u8`
/// records the join and passes on too. Clients are told apart by address, as sessions are.
struct LiveWindowMiddleware<Context: RemoteAddressRequestContext & LocalAddressRequestContext>: RouterMiddleware {
    let root: String
    let placeholder: String
    let fallbackHost: String
    /// Live windows by case id.
    let live: [String: LabLiveWindow]
    let clock: @Sendable () -> Date
    let book: LiveJoinBook
    let paths: ConfinedPaths
    let cache = TemplateCache()

    init(manifest: LabManifest, root: String, fallbackHost: String, clock: @escaping @Sendable () -> Date, book: LiveJoinBook = LiveJoinBook(),
         paths: ConfinedPaths? = nil) {
        self.root = root
        self.paths = paths ?? ConfinedPaths(root: root)
        self.placeholder = manifest.originPlaceholder
        self.fallbackHost = fallbackHost
        self.live = Dictionary(manifest.cases.compactMap { c in c.behaviour?.live.map { (c.id, $0) } }, uniquingKeysWith: { first, _ in first })
        self.clock = clock
        self.book = book
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard !live.isEmpty, request.method == .get || request.method == .head,
              let decoded = SuiteFiles.requestPath(request.uri.path),
              let reply = reply(decoded, client: context.remoteAddress?.ipAddress ?? "unknown",
                                authority: request.head.authority, local: context.localAddress)
        else { return try await next(request, context) }
        return reply.response(head: request.method == .head)
    }

    /// The live window of `decoded` (a percent-decoded request path) for `client`; nil when it is
    /// not a live case's media playlist (the request passes on). A fetch of a live case's
    /// `master.m3u8` records the client's join and passes on too.
    func reply(_ decoded: String, client: String, authority: String?, local: SocketAddress?) -> PlaylistReply? {
        guard !live.isEmpty else { return nil }
        return reply(decoded, client: client, authority: authority, localAuthority: SuiteFiles.authority(local))
    }

    /// As `reply(_:client:authority:local:)`, with the server's end of the connection as `ADDRESS:PORT`.
    func reply(_ decoded: String, client: String, authority: String?, localAuthority: String?) -> PlaylistReply? {
        guard !live.isEmpty, let caseId = SuiteFiles.caseId(of: decoded), let window = live[caseId] else { return nil }
        let folder = "/cases/\(caseId)/"
        if decoded == folder + "master.m3u8" {
            book.join(client, case: caseId, at: clock())
            return nil
        }
        guard decoded == folder + "primary.m3u8", let file = paths.resolve(decoded),
              let template = cache.liveWindow(of: file.path, info: file.info, placeholder: placeholder,
                                              limit: TemplateMiddleware<Context>.maxTemplateBytes,
                                              origin: SuiteFiles.origin(host: authority, fallback: localAuthority ?? fallbackHost))
        else { return nil }
        let now = clock()
        let joined = book.joined(client, case: caseId, now: now)
        let edge = window.joinEdge + max(0, now.timeIntervalSince(joined))
        return PlaylistReply(contentType: SuiteFiles.mediaType(of: decoded) ?? "application/vnd.apple.mpegurl",
                             body: template.body(edge: edge, live: window))
    }
}
