import Foundation
import Logging
import NIOFoundationCompat
import PostgresNIO

/// PostgreSQL through postgres-nio, behind the same synchronous API as SQLite: a few pooled
/// connections on an event loop of their own, each call waiting (bounded) for its future. A call
/// that loses its connection before COMMIT was sent is run again on a new one, with backoff, for
/// `retrySeconds` (`SEAMCHECK_DB_RETRY_SECONDS`, default 60), then fails; a write that failed was
/// rolled back. One that loses it after COMMIT was sent is never run again (it may have landed):
/// it fails with `StoreFailure.outcomeUnknown`, and the caller writes the same keyed rows again.
/// Async callers go through `SQLExecutor.asyncRead`/`asyncWrite`, which block `StoreThreads`,
/// never Swift's cooperative pool.
public final class PostgresExecutor: SQLExecutor, @unchecked Sendable {
    public let location: DatabaseLocation
    public var dialect: SQLDialect { .postgres }
    public let url: PostgresURL
    /// How long a call goes on retrying a lost connection before it fails.
    public let retrySeconds: Double
    /// The longest wait for one statement's answer.
    public let statementSeconds: Double
    let maxConnections: Int
    private let configuration: PostgresConnection.Configuration
    private let condition = NSCondition()
    private var idle: [PostgresConnection] = []
    private var openCount = 0
    private var closed = false
    private var nextId = 0
    private static let logger = Logger(label: "seamcheck.postgres", factory: { _ in SwiftLogNoOpLogHandler() })
    /// One event loop thread for every PostgreSQL connection of the process: no caller ever runs on
    /// it, so a caller's blocking wait never holds up the I/O it waits for.
    static let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)

    public static let retryVariable = "SEAMCHECK_DB_RETRY_SECONDS"

    /// Connects once at once, so that an unreachable server (exit 3) or a refused login (exit 2)
    /// shows here rather than at the first write.
    public init(_ url: PostgresURL, maxConnections: Int = 4, connectSeconds: Double = 10, statementSeconds: Double = 60,
                environment: [String: String] = ProcessInfo.processInfo.environment) throws(StoreFailure) {
        self.url = url
        location = .postgres(url)
        self.maxConnections = max(1, maxConnections)
        self.statementSeconds = statementSeconds
        retrySeconds = environment[Self.retryVariable].flatMap(Double.init).map { min(max($0, 0), 3600) } ?? 60
        var configuration: PostgresConnection.Configuration
        if let socket = url.socketPath {
            configuration = .init(unixSocketPath: socket, username: url.user, password: url.password, database: url.database)
        } else {
            let tls: PostgresConnection.Configuration.TLS
            do {
                switch url.tls {
                case .disable: tls = .disable
                case .prefer, .require:
                    var settings = TLSConfiguration.makeClientConfiguration()
                    settings.certificateVerification = .none
                    let context = try NIOSSLContext(configuration: settings)
                    tls = url.tls == .prefer ? .prefer(context) : .require(context)
                case .verifyFull:
                    tls = .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
                }
            } catch {
                throw .cannotOpen(location: url.redacted, reason: "TLS: \(error)")
            }
            configuration = .init(host: url.host, port: url.port, username: url.user, password: url.password,
                                  database: url.database, tls: tls)
        }
        configuration.options.connectTimeout = .milliseconds(Int64(connectSeconds * 1000))
        self.configuration = configuration
        let first = try connect()
        condition.lock()
        openCount += 1
        idle.append(first)
        condition.unlock()
    }

    deinit { close() }

    public func close() {
        condition.lock()
        closed = true
        let connections = idle
        idle.removeAll()
        condition.broadcast()
        condition.unlock()
        for connection in connections { try? wait(connection.close() as EventLoopFuture<Void>, seconds: 5) }
    }

    public func read<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        try transaction("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", body)
    }

    public func write<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        try transaction("BEGIN", body)
    }

    /// Runs `body` inside BEGIN ... COMMIT; a lost connection runs it again on another, with backoff.
    private func transaction<T>(_ begin: String, _ body: (any SQLConnection) throws -> T) throws -> T {
        let deadline = Date().addingTimeInterval(retrySeconds)
        var attempt = 0
        while true {
            do {
                return try once(begin, body)
            } catch let failure as ConnectionLost {
                attempt += 1
                let pause = min(0.2 * pow(2, Double(attempt - 1)), 5)
                guard Date().addingTimeInterval(pause) < deadline else {
                    throw StoreFailure.unreachable(location: url.redacted,
                                                   reason: "\(failure.reason); gave up after \(Int(retrySeconds)) s of retries")
                }
                Thread.sleep(forTimeInterval: pause)
            }
        }
    }

    private func once<T>(_ begin: String, _ body: (any SQLConnection) throws -> T) throws -> T {
        let connection = try checkout()
        let sql = PostgresSQLConnection(connection: connection, executor: self)
        var broken = false
        defer { checkin(connection, broken: broken) }
        var commitSent = false
        do {
            try sql.execute(begin)
            let value = try body(sql)
            commitSent = true
            try sql.execute("COMMIT")
            return value
        } catch {
            if commitSent, error is ConnectionLost || connection.isClosed {
                // The server may have committed before the connection broke: running the body
                // again could write it twice. Say so; keyed writes make the caller's retry safe.
                broken = true
                let reason = (error as? ConnectionLost)?.reason ?? "the connection closed"
                throw StoreFailure.outcomeUnknown(location: url.redacted, reason: reason)
            }
            if error is ConnectionLost || connection.isClosed {
                broken = true
                throw error is ConnectionLost ? error : ConnectionLost(reason: "the connection closed")
            }
            do { try sql.execute("ROLLBACK") } catch { broken = true }
            throw error
        }
    }

    private func checkout() throws -> PostgresConnection {
        condition.lock()
        let until = Date().addingTimeInterval(statementSeconds)
        while true {
            if closed {
                condition.unlock()
                throw StoreFailure.failed(location: url.redacted, reason: "the database was closed")
            }
            if let connection = idle.popLast() {
                condition.unlock()
                if connection.isClosed {
                    condition.lock()
                    openCount -= 1
                    continue
                }
                return connection
            }
            if openCount < maxConnections {
                openCount += 1
                condition.unlock()
                do { return try connect() } catch {
                    condition.lock()
                    openCount -= 1
                    condition.broadcast()
                    condition.unlock()
                    if case .unreachable(_, let reason) = error { throw ConnectionLost(reason: reason) }
                    throw error
                }
            }
            guard condition.wait(until: until) else {
                condition.unlock()
                throw StoreFailure.failed(location: url.redacted, reason: "no free connection within \(Int(statementSeconds)) s")
            }
        }
    }

    private func checkin(_ connection: PostgresConnection, broken: Bool) {
        condition.lock()
        if broken || closed || connection.isClosed {
            openCount -= 1
            condition.broadcast()
            condition.unlock()
            try? wait(connection.close() as EventLoopFuture<Void>, seconds: 5)
            return
        }
        idle.append(connection)
        condition.signal()
        condition.unlock()
    }

    private func connect() throws(StoreFailure) -> PostgresConnection {
        condition.lock()
        nextId += 1
        let id = nextId
        condition.unlock()
        let future = PostgresConnection.connect(on: Self.group.next(), configuration: configuration, id: id, logger: Self.logger)
        do { return try wait(future, seconds: statementSeconds) } catch {
            throw classifyConnect(error)
        }
    }

    /// Unreachable (exit 3) or refused (exit 2), from what connecting failed with.
    func classifyConnect(_ error: any Error) -> StoreFailure {
        if let error = error as? PSQLError, error.code == .server {
            let state = error.serverInfo?[.sqlState] ?? ""
            let message = error.serverInfo?[.message] ?? "refused"
            // 28xxx: authentication; 3D000: no such database; 57P03: the server is starting or shutting down.
            if state == "57P03" { return .unreachable(location: url.redacted, reason: message) }
            return .rejected(location: url.redacted, reason: state.isEmpty ? message : "\(message) [\(state)]")
        }
        if let error = error as? PSQLError, error.code == .sslUnsupported {
            return .tlsRefused(location: url.redacted, reason: "it does not offer TLS, which sslmode=\(url.tls.rawValue) asks for")
        }
        if let error = error as? PSQLError, let underlying = error.underlying, underlying is NIOSSLError {
            return .tlsRefused(location: url.redacted, reason: "the TLS handshake failed: \(underlying)")
        }
        if let error = error as? PSQLError, [.authMechanismRequiresPassword, .unsupportedAuthMechanism, .saslError].contains(error.code) {
            return .rejected(location: url.redacted, reason: "\(error.code)")
        }
        return .unreachable(location: url.redacted, reason: Self.describe(error))
    }

    /// A short reason for a PostgreSQL or connection error (postgres-nio hides details from `description`).
    static func describe(_ error: any Error) -> String {
        if let error = error as? PSQLError {
            if let message = error.serverInfo?[.message] {
                let state = error.serverInfo?[.sqlState].map { " [\($0)]" } ?? ""
                return message + state
            }
            if let underlying = error.underlying { return "\(error.code): \(underlying)" }
            return "\(error.code)"
        }
        if error is WaitTimeout { return "no answer within the time allowed" }
        return String(describing: error)
    }

    func wait<T>(_ future: EventLoopFuture<T>, seconds: Double) throws -> T {
        let box = ResultBox<T>()
        future.whenComplete { box.set($0) }
        guard box.semaphore.wait(timeout: .now() + seconds) == .success else { throw WaitTimeout() }
        return try box.get()
    }

    func run(_ connection: PostgresConnection, _ sql: String, _ arguments: [any SQLBindable]) throws -> [SQLRow] {
        var binds = PostgresBindings(capacity: arguments.count)
        for argument in arguments {
            switch argument.sqlValue {
            case .null: binds.appendNull()
            case .integer(let v): binds.append(v)
            case .real(let v): binds.append(v)
            case .text(let v): binds.append(v)
            case .blob(let v): binds.append(ByteBuffer(data: v))
            }
        }
        let query = PostgresQuery(unsafeSQL: Self.numbered(sql), binds: binds)
        let result: PostgresQueryResult
        do { result = try wait(connection.query(query, logger: Self.logger), seconds: statementSeconds) } catch {
            if let error = error as? PSQLError, error.code == .server {
                let state = error.serverInfo?[.sqlState] ?? ""
                // 08: connection exception; 57P01-57P03: the server is shutting down or restarting.
                if state.hasPrefix("08") || state.hasPrefix("57P") { throw ConnectionLost(reason: Self.describe(error)) }
                throw StoreFailure.failed(location: url.redacted, reason: Self.describe(error))
            }
            if error is WaitTimeout { let _: EventLoopFuture<Void> = connection.close() }
            throw ConnectionLost(reason: Self.describe(error))
        }
        var rows: [SQLRow] = []
        for row in result {
            var columns: [String] = [], values: [SQLValue] = []
            for cell in row {
                columns.append(cell.columnName)
                values.append(Self.value(cell))
            }
            rows.append(SQLRow(columns: columns, values: values))
        }
        return rows
    }

    static func value(_ cell: PostgresCell) -> SQLValue {
        guard cell.bytes != nil else { return .null }
        switch cell.dataType {
        case .int2: return (try? cell.decode(Int16.self)).map { .integer(Int64($0)) } ?? .null
        case .int4: return (try? cell.decode(Int32.self)).map { .integer(Int64($0)) } ?? .null
        case .int8: return (try? cell.decode(Int64.self)).map { .integer($0) } ?? .null
        case .float4: return (try? cell.decode(Float.self)).map { .real(Double($0)) } ?? .null
        case .float8: return (try? cell.decode(Double.self)).map { .real($0) } ?? .null
        case .bool: return (try? cell.decode(Bool.self)).map { .integer($0 ? 1 : 0) } ?? .null
        case .bytea: return (try? cell.decode(ByteBuffer.self)).map { .blob(Data(buffer: $0)) } ?? .null
        case .numeric:
            // sum() of a BIGINT column: whole numbers stay integers.
            guard let decimal = try? cell.decode(Decimal.self) else { return .null }
            let number = NSDecimalNumber(decimal: decimal)
            return decimal == Decimal(number.int64Value) ? .integer(number.int64Value) : .real(number.doubleValue)
        default: return (try? cell.decode(String.self)).map { .text($0) } ?? .null
        }
    }

    /// `?` placeholders as `$1`, `$2`... (outside quoted text).
    static func numbered(_ sql: String) -> String {
        var out = "", n = 0, quote: Character?
        out.reserveCapacity(sql.count + 16)
        for c in sql {
            if let q = quote {
                if c == q { quote = nil }
                out.append(c)
            } else if c == "'" || c == "\"" {
                quote = c
                out.append(c)
            } else if c == "?" {
                n += 1
                out += "$\(n)"
            } else {
                out.append(c)
            }
        }
        return out
    }
}

/// A connection failed under a call: the call is tried again on another.
struct ConnectionLost: Error { var reason: String }
struct WaitTimeout: Error {}

private final class ResultBox<T>: @unchecked Sendable {
    let semaphore = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var result: Result<T, any Error>?

    func set(_ result: Result<T, any Error>) {
        lock.lock()
        self.result = result
        lock.unlock()
        semaphore.signal()
    }

    func get() throws -> T {
        lock.lock()
        defer { lock.unlock() }
        guard let result else { throw WaitTimeout() }
        return try result.get()
    }
}

struct PostgresSQLConnection: SQLConnection {
    let connection: PostgresConnection
    let executor: PostgresExecutor
    var dialect: SQLDialect { .postgres }

    func execute(_ sql: String, _ arguments: [any SQLBindable]) throws {
        _ = try executor.run(connection, sql, arguments)
    }

    func query(_ sql: String, _ arguments: [any SQLBindable]) throws -> [SQLRow] {
        try executor.run(connection, sql, arguments)
    }
}
