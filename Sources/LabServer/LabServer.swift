import Compatibility
import Foundation
import LabCore
import HLS
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore

/// Why the lab server could not start.
public enum LabServeError: Error, Sendable, Equatable, CustomStringConvertible {
    case portInUse(bind: String, port: Int)
    case addressNotLocal(bind: String, local: [String])
    case cannotBind(bind: String, port: Int, reason: String)

    public var description: String {
        switch self {
        case .portInUse(let bind, let port):
            return "\(bind):\(port) is already in use by another program; stop it, or pick another port with --port (0 picks a free one)"
        case .addressNotLocal(let bind, let local):
            return "\(bind) is not an address of this host; bind one of \(local.joined(separator: ", ")), or 0.0.0.0 for all"
        case .cannotBind(let bind, let port, let reason):
            return "cannot listen on \(bind):\(port) (\(reason)); check --bind and --port"
        }
    }
}

/// What `lab serve` needs.
public struct LabServerOptions: Sendable {
    public var bind: String
    public var port: Int
    public var suite: LabSuite
    public var profiles: [DeviceProfile]
    public var inventory: LabInventory?
    /// Browse for receivers through avahi-daemon (to map clients to receivers and classes).
    public var browse: Bool
    public var interface: String?
    /// Close a connection idle this long (a stalled client holds nothing forever).
    public var idleTimeout: Duration
    /// Ask each discovered receiver GET /info (its class, declared HDR formats and codecs).
    public var askInfo: Bool = true
    /// The token `POST /api/verdicts` requires (LabAccess); the lab page carries it.
    public var token: String = LabAccess.newToken()
    /// Stop on SIGINT and SIGTERM (`lab serve`); false when the caller owns the signals and stops
    /// the server by cancelling its task (`lab run`).
    public var stopsOnSignals: Bool = true
    /// The wall clock the live behaviour cases' edges move with (injectable for tests).
    public var clock: @Sendable () -> Date = { Date() }
    /// Draws a cell's timeline on the dashboard (`/dashboard`); nil: the dashboard links to `lab report`.
    public var dashboardCellRenderer: DashboardCellRenderer?
    /// How often the dashboard's live feed looks for new cells in the store.
    public var dashboardPollInterval: Duration = .milliseconds(500)
    /// Answer playlists on the connection's event loop (PlaylistFastPath); false sends every request
    /// through Hummingbird's router (the benchmark compares the two).
    public var playlistFastPath: Bool = true

    public init(bind: String, port: Int, suite: LabSuite, profiles: [DeviceProfile], inventory: LabInventory? = nil,
                browse: Bool = true, interface: String? = nil, idleTimeout: Duration = .seconds(60)) {
        self.bind = bind
        self.port = port
        self.suite = suite
        self.profiles = profiles
        self.inventory = inventory
        self.browse = browse
        self.interface = interface
        self.idleTimeout = idleTimeout
    }
}

/// The lab server: the suite over HTTP/1.1 (keep-alive, byte ranges, HLS MIME types), the lab
/// page at `/` and its JSON API under `/api/`, every request logged to the results database.
public enum LabServer {
    /// Serves until SIGINT or SIGTERM; `onRunning` gets the bound port (useful with port 0).
    /// Everything logged is in the database when this returns.
    public static func run(_ options: LabServerOptions, store: LabStore, logger: Logger,
                           onRunning: @escaping @Sendable (Int) -> Void = { _ in }) async throws {
        let manifest = options.suite.manifest
        let serveId = try store.beginServe(bind: options.bind, port: options.port, streams: options.suite.root, manifest: manifest)
        let log = RequestLog(store: store, serveId: serveId, logger: logger)
        log.start()
        let directory = ClientDirectory(store: store, profiles: options.profiles, inventory: options.inventory,
                                        askInfo: options.askInfo, logger: logger)
        directory.pinInventory()
        let feed = DashboardFeed(store: store, logger: logger, interval: options.dashboardPollInterval)
        feed.start()
        let browsing = Task {
            guard options.browse else {
                logger.notice("not browsing for receivers (--no-browse): clients are mapped by inventory address pins only")
                return
            }
            if let failure = await directory.run(interface: options.interface) {
                logger.warning("cannot map clients to receivers through Avahi: \(failure.description). Serving anyway; sessions show client addresses only. Pin receivers by address in --inventory, or start avahi-daemon.")
            }
        }
        defer {
            feed.stop()
            directory.stop()
            browsing.cancel()
            log.close()
            do { try store.endServe(serveId) } catch { logger.error("\(error.description)") }
        }

        let paths = ConfinedPaths(root: options.suite.root)
        let knownCases = Set(manifest.cases.map(\.id))
        let fallbackHost = "\(options.bind):\(options.port)"
        let live = LiveWindowMiddleware<LabRequestContext>(manifest: manifest, root: options.suite.root, fallbackHost: fallbackHost,
                                                           clock: options.clock, paths: paths)
        let templates = TemplateMiddleware<LabRequestContext>(root: options.suite.root, placeholder: manifest.originPlaceholder,
                                                              fallbackHost: fallbackHost, paths: paths)
        let serverName = "seamcheck-lab"
        let fastPath = PlaylistFastPath.Responder(live: live, templates: templates, log: log, knownCases: knownCases, serverName: serverName)
        let router = Router(context: LabRequestContext.self)
        router.add(middleware: RequestLogMiddleware(log: log, knownCases: knownCases, token: options.token))
        router.add(middleware: live)
        router.add(middleware: templates)
        let files = FileMiddleware<LabRequestContext, SuiteFileProvider>(
            fileProvider: SuiteFileProvider(root: options.suite.root, paths: paths, logger: logger), cacheControl: .init([]))
            .withAdditionalMediaTypes(forFileExtensions: SuiteFiles.mediaTypes.compactMapValues { MediaType(from: $0) })
        router.add(middleware: MediaFilesMiddleware(root: options.suite.root, paths: paths))
        router.add(middleware: files)
        LabAPI(store: store, manifest: manifest, profiles: options.profiles,
               access: LabAccess(token: options.token, bind: options.bind)).register(on: router)
        DashboardAPI(store: store, manifest: manifest, feed: feed, renderCell: options.dashboardCellRenderer).register(on: router)

        let idle = TimeAmount.milliseconds(Int64(options.idleTimeout / .milliseconds(1)))
        let fastPathResponder = options.playlistFastPath ? fastPath : nil
        let app = Application(
            router: router,
            server: HTTPServerBuilder { responder in
                LabChildChannel(responder: responder, log: log, fastPath: fastPathResponder, idleTimeout: idle)
            },
            configuration: .init(address: .hostname(options.bind, port: options.port), serverName: serverName),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? options.port
                logger.notice("serving \(options.suite.root) on http://\(options.bind):\(port)/ (lab page at /, dashboard at /dashboard)")
                if !LabAccess.isLoopback(options.bind) {
                    logger.warning("bound to \(options.bind), beyond this host: anyone on its networks can fetch the suite and read the lab's sessions and verdicts; writing a verdict needs the lab token. Use --bind 127.0.0.1 to keep the lab on this host.")
                }
                onRunning(port)
            },
            logger: logger)
        do {
            try await app.runService(gracefulShutdownSignals: options.stopsOnSignals ? [.sigterm, .sigint] : [])
        } catch let error as IOError {
            throw Self.bindError(error, options: options)
        }
    }

    static func bindError(_ error: IOError, options: LabServerOptions) -> LabServeError {
        switch error.errnoCode {
        case EADDRINUSE: return .portInUse(bind: options.bind, port: options.port)
        case EADDRNOTAVAIL: return .addressNotLocal(bind: options.bind, local: LocalAddresses.list())
        default: return .cannotBind(bind: options.bind, port: options.port, reason: "\(error)")
        }
    }
}

/// This host's IPv4 addresses, for messages.
enum LocalAddresses {
    static func list() -> [String] {
        var result: [String] = []
        var first: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&first) == 0 else { return ["127.0.0.1"] }
        defer { freeifaddrs(first) }
        var cursor = first
        while let entry = cursor {
            if let address = entry.pointee.ifa_addr, address.pointee.sa_family == sa_family_t(AF_INET) {
                var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
                if getnameinfo(address, socklen_t(MemoryLayout<sockaddr_in>.size), &host, socklen_t(host.count), nil, 0, NI_NUMERICHOST) == 0 {
                    result.append(String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
                }
            }
            cursor = entry.pointee.ifa_next
        }
        return result.isEmpty ? ["127.0.0.1"] : result
    }
}
