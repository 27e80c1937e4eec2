import ArgumentParser
import Compatibility
import Foundation
import LabCore
import LabRun
import LabServer
import Logging
import ResultsReporting
import Store

/// Options every lab command shares.
struct LabDatabaseOption: ParsableArguments {
    @Option(name: .customLong("db"), help: DatabaseText.help)
    var given: String?

    /// What to open: --db, else SEAMCHECK_DB, else Reports/seamcheck.sqlite (may hold a password: never print it).
    var path: String { DatabaseText.resolve(given) }
    /// The database as printed: a path, or a URL without its password.
    var shown: String { DatabaseText.shown(path) }

    func validate() throws { try DatabaseText.checkFolder(path) }

    /// Opens the database as `station` (the host name when nil: a command that only reads).
    func open(create: Bool, station: String? = nil) throws(LabStoreError) -> LabStore {
        try LabStore(path: path, create: create, station: station ?? LabStation.hostDefault)
    }
}

/// `--station NAME` of a command that writes as a station: lab serve, lab run, lab record.
struct LabStationOption: ParsableArguments {
    @Option(name: .customLong("station"),
            help: ArgumentHelp("This lab station's name, carried by everything it writes (default: \(LabStation.variable), else the host name).",
                               discussion: "Stations sharing one database (--db postgres://...) need different names.",
                               valueName: "NAME"))
    var given: String?

    func validate() throws {
        if let given { do { _ = try LabStation.validated(given) } catch { throw ValidationError(error.description) } }
    }

    /// --station, else SEAMCHECK_STATION, else the host name.
    func resolve() throws -> String { try LabStation.resolve(given) }
}

/// `--station NAME` of a command that reads: one station's rows, or (without it) every station's.
struct LabStationFilter: ParsableArguments {
    @Option(name: .customLong("station"), help: ArgumentHelp("Read this station's rows only (default: every station's).", valueName: "NAME"))
    var name: String?

    /// The station to read, checked against the stations the database knows (nil: all).
    func resolve(in store: LabStore) throws -> String? {
        guard let name else { return nil }
        let known = try store.stations()
        guard known.contains(name) else {
            let shown = known.map { $0.isEmpty ? "'' (rows from before stations)" : $0 }
            throw CLIFailure.input("no station '\(name)' in \(store.path)\(Suggestion.text(for: name, in: known)); stations: "
                                   + (shown.isEmpty ? "none yet (run `seamcheck lab serve`)" : shown.joined(separator: ", ")))
        }
        return name
    }
}

struct LabServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the lab suite, log every request, map clients to receivers, and host the lab page.",
        discussion: """
        Serves the suite folder over HTTP/1.1 (keep-alive, byte ranges, HLS MIME types) and the lab page at /, \
        where an operator plays each case on a receiver and records a verdict. Every request goes into the results \
        database as it happens (client address, time, method, path, range, status, bytes, duration, User-Agent). \
        Receivers found through avahi-daemon, and inventory pins (with `addresses`), map client addresses to \
        receivers and device classes; without avahi-daemon it serves anyway and says why clients stay unmapped. \
        Stops on SIGINT or SIGTERM with everything logged in the database. Writing a verdict (POST /api/verdicts) \
        takes JSON from the lab page of this server with its token, which the page carries and which is written, \
        readable by you only, to --token-file for scripts (docs/lab-security.md). The dashboard at /dashboard \
        (read-only) shows every run in the database, live as cells finish (docs/lab-dashboard.md).
        """)

    @Option(help: "The suite folder made by `seamcheck lab streams`.")
    var streams: String = "Reports/lab"

    @Option(help: "The address to listen on: 0.0.0.0 for every interface, 127.0.0.1 for this host only.")
    var bind: String = "0.0.0.0"

    @Option(help: "The TCP port (0 picks a free one and prints it).")
    var port: Int = 8080

    @OptionGroup var database: LabDatabaseOption

    @OptionGroup var station: LabStationOption

    @Option(help: "A lab inventory YAML file: pins receivers to classes by deviceId, name or addresses.")
    var inventory: String?

    @Flag(name: .customLong("no-browse"), help: "Do not browse for receivers through avahi-daemon.")
    var noBrowse = false

    @Option(help: "Browse on this network interface only, such as eth0.")
    var interface: String?

    @Option(name: .customLong("idle-timeout"), help: "Close a connection that sends or reads nothing for this many seconds.")
    var idleTimeout: Double = 60

    @Option(help: ArgumentHelp("The token that writing a verdict needs (default: \(LabAccess.tokenVariable), else a new random one).",
                               discussion: "The lab page carries it; scripts send it in the \(LabAccess.tokenHeader) header."))
    var token: String?

    @Option(name: .customLong("token-file"), help: "Where to write the token for scripts, readable by you only (default: the database path + .lab-token; for PostgreSQL, $XDG_STATE_HOME/seamcheck/seamcheck.lab-token, else ~/.local/state/seamcheck/seamcheck.lab-token).")
    var tokenFile: String?

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel: String = "info"

    @OptionGroup var profilesDir: ProfilesDirOption

    /// Bench only (scripts/bench/lab-serve.sh): `hummingbird:BYTES` or `nio:BYTES` serves a constant
    /// body of BYTES on --bind and --port instead of the suite (BenchCeiling).
    @Option(name: .customLong("bench-ceiling"), help: .hidden)
    var benchCeiling: String?

    /// Bench only: every request through Hummingbird's router (no PlaylistFastPath).
    @Flag(name: .customLong("bench-no-fast-path"), help: .hidden)
    var benchNoFastPath = false

    func validate() throws {
        if let benchCeiling {
            let parts = benchCeiling.split(separator: ":")
            guard parts.count == 2, BenchCeiling.Kind(rawValue: String(parts[0])) != nil, let bytes = Int(parts[1]), bytes >= 0 else {
                throw ValidationError("--bench-ceiling must be hummingbird:BYTES or nio:BYTES")
            }
        }
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0 to 65535") }
        try OptionChecks.bindAddress(bind)
        guard idleTimeout >= 0.1 && idleTimeout <= 86_400 else { throw ValidationError("--idle-timeout must be 0.1 to 86400 seconds") }
        if let token, token.count < 16 || token.count > 256 || !token.allSatisfy(\.isHexDigit) {
            throw ValidationError("--token must be 16 to 256 hexadecimal digits (such as `openssl rand -hex 32`)")
        }
        guard Logger.Level(rawValue: logLevel) != nil else {
            throw ValidationError("--log-level must be one of trace, debug, info, notice, warning, error, critical")
        }
    }

    func run() async throws {
        if let benchCeiling, let kind = BenchCeiling.Kind(rawValue: String(benchCeiling.prefix { $0 != ":" })),
           let bytes = Int(benchCeiling.drop { $0 != ":" }.dropFirst()) {
            try await BenchCeiling.run(kind, bind: bind, port: port, bodyBytes: bytes)
            return
        }
        let logger = LabLogging.logger(level: logLevel)
        let suite = try LabSuite.load(streams)
        let profiles = try ProfileLocator.load(explicitDirectory: profilesDir.path, selecting: [])
        let pins = try inventory.map { path throws(InventoryError) in try LabInventory.load(path, knownClasses: profiles.map(\.id)) }
        let stationName = try station.resolve()
        let store = try database.open(create: true, station: stationName)
        var options = LabServerOptions(bind: bind, port: port, suite: suite, profiles: profiles, inventory: pins,
                                       browse: !noBrowse, interface: interface, idleTimeout: .milliseconds(Int64(idleTimeout * 1000)))
        let environmentToken = ProcessInfo.processInfo.environment[LabAccess.tokenVariable].flatMap { $0.isEmpty ? nil : $0 }
        if let environmentToken, environmentToken.count < 16 || !environmentToken.allSatisfy(\.isHexDigit) {
            throw CLIFailure.input("\(LabAccess.tokenVariable) must be 16 to 256 hexadecimal digits (such as `openssl rand -hex 32`)")
        }
        options.token = token ?? environmentToken ?? LabAccess.newToken()
        options.playlistFastPath = !benchNoFastPath
        let (tokenPath, tokenFolder) = LabTokenPath.resolve(given: tokenFile, databasePath: database.path,
                                                            isPostgres: store.executor.location.isPostgres)
        try LabTokenPath.prepare(tokenFolder)
        try LabAccess.writeToken(options.token, to: tokenPath)
        options.dashboardCellRenderer = { cell, labCase in LabCellHTML.render(cell, labCase: labCase) }
        let bind = self.bind, db = database.shown
        try await LabServer.run(options, store: store, logger: logger) { port in
            Terminal.writeStderr("seamcheck: lab: serving http://\(bind):\(port)/ (suite \(suite.root), database \(db), station \(stationName)); verdict token in \(tokenPath)\n")
            Terminal.writeStderr("seamcheck: lab: dashboard at http://\(bind == "0.0.0.0" ? "127.0.0.1" : bind):\(port)/dashboard (read-only; every station's runs in \(db))\n")
        }
    }
}

/// swift-log on stderr, once per process.
enum LabLogging {
    private static let bootstrapped: Void = {
        LoggingSystem.bootstrap { label in StreamLogHandler.standardError(label: label) }
    }()

    static func logger(level: String) -> Logger {
        _ = bootstrapped
        var logger = Logger(label: "seamcheck.lab")
        logger.logLevel = Logger.Level(rawValue: level) ?? .info
        return logger
    }
}
