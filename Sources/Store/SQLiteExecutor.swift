import Foundation
import GRDB

/// SQLite through GRDB: WAL, a 10 s busy wait for the other writer, `synchronous=NORMAL` (a killed
/// process loses nothing committed, a power cut may lose the last transactions but never corrupts the file).
public final class SQLiteExecutor: SQLExecutor {
    public let location: DatabaseLocation
    public var dialect: SQLDialect { .sqlite }
    let pool: any DatabaseWriter
    /// Opened read-only: this user may read the file but not write it or its folder.
    public let readOnly: Bool

    /// Opens `path`; with `create` false a missing file is `.missing`, with it true the file and its folder are made.
    public init(path: String, create: Bool) throws(StoreFailure) {
        location = .sqlite(path: path)
        if !FileManager.default.fileExists(atPath: path) {
            guard create else { throw .missing(location: path) }
            let directory = URL(fileURLWithPath: path).deletingLastPathComponent()
            do { try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true) } catch {
                throw .cannotOpen(location: path, reason: (error as NSError).localizedDescription)
            }
        }
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
        }
        do {
            let pool = try DatabasePool(path: path, configuration: configuration)
            // A file that is not SQLite fails here, not at the first query.
            _ = try pool.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM sqlite_master") }
            self.pool = pool
            readOnly = false
        } catch {
            // A results file this user may read but not write (an archived run, another user's
            // station) still serves the commands that only read: opened read-only instead.
            guard !create, !Self.writable(path), let queue = try Self.openReadOnly(path) else {
                throw .cannotOpen(location: path, reason: Self.reason(error))
            }
            pool = queue
            readOnly = true
        }
        Self.openFiles.add(self)
    }

    deinit { Self.openFiles.remove(self) }

    public func read<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        do { return try pool.read { db in try body(GRDBConnection(db: db)) } } catch let error as DatabaseError {
            throw StoreFailure.failed(location: location.description, reason: Self.reason(error))
        }
    }

    public func write<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        if readOnly {
            throw StoreFailure.failed(location: location.description, reason: "this command writes results, and this user "
                + "may only read the file (or its folder); run it as the file's owner, or give --db a writable copy")
        }
        do { return try pool.write { db in try body(GRDBConnection(db: db)) } } catch let error as DatabaseError {
            throw StoreFailure.failed(location: location.description, reason: Self.reason(error))
        }
    }

    /// Checkpoints the WAL into the file (TRUNCATE: the `-wal` is left empty), then closes: what a
    /// writer has committed is then in the `.sqlite` alone, so a copy of that one file holds it.
    public func close() {
        Self.openFiles.remove(self)
        try? pool.writeWithoutTransaction { db in try Self.checkpoint(db) }
        try? pool.close()
    }

    /// `PRAGMA wal_checkpoint(TRUNCATE)` waiting at most `wait` for another process's readers and
    /// writer; what they still hold stays in the WAL (the checkpoint then copies what it can).
    static func checkpoint(_ db: Database, wait: Int = 2_000) throws {
        try db.execute(sql: "PRAGMA busy_timeout = \(wait)")
        _ = try Row.fetchAll(db, sql: "PRAGMA wal_checkpoint(TRUNCATE)")
        try db.execute(sql: "PRAGMA busy_timeout = 10000")
    }

    /// Checkpoints every SQLite database this process still has open, each through a connection of
    /// its own (a writer busy on another thread is not waited for): `Seamcheck.main` calls it when
    /// the process ends, however a command ended, so no command leaves its results in the `-wal`.
    public static func checkpointAllOpen() {
        for path in openFiles.paths {
            guard let queue = try? DatabaseQueue(path: path) else { continue }
            try? queue.writeWithoutTransaction { db in try checkpoint(db) }
            try? queue.close()
        }
    }

    /// The executors open in this process.
    private static let openFiles = OpenExecutors()

    /// Whether this process may write the file and its folder (WAL needs `-wal` and `-shm` beside it).
    static func writable(_ path: String) -> Bool {
        access(path, W_OK) == 0 && access(URL(fileURLWithPath: path).deletingLastPathComponent().path, W_OK) == 0
    }

    /// The file opened read-only: through its `-shm` when SQLite can use it, else as immutable,
    /// which is only right when no `-wal` holds results not yet in the file (then it refuses).
    static func openReadOnly(_ path: String) throws(StoreFailure) -> DatabaseQueue? {
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(10)
        func opened(_ name: String) -> DatabaseQueue? {
            guard let queue = try? DatabaseQueue(path: name, configuration: configuration),
                  (try? queue.read({ try Int.fetchOne($0, sql: "SELECT count(*) FROM sqlite_master") })) != nil else { return nil }
            return queue
        }
        if let queue = opened(path) { return queue }
        let wal = (try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int) ?? 0
        if wal > 0 {
            throw .cannotOpen(location: path, reason: "it is read-only for this user and its latest results are still in "
                + "\(path)-wal; run any seamcheck command on it once as the file's owner (which folds them in), or copy both files")
        }
        let uri = "file:" + (path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? path) + "?immutable=1"
        return opened(uri)
    }

    /// SQLite's own words for a failure.
    public static func reason(_ error: any Error) -> String {
        if let error = error as? DatabaseError { return error.message ?? error.description }
        return String(describing: error)
    }
}

struct GRDBConnection: SQLConnection {
    let db: Database
    var dialect: SQLDialect { .sqlite }

    func execute(_ sql: String, _ arguments: [any SQLBindable]) throws {
        if arguments.isEmpty { return try db.execute(sql: sql) }
        try db.cachedStatement(sql: sql).execute(arguments: Self.arguments(arguments))
    }

    func query(_ sql: String, _ arguments: [any SQLBindable]) throws -> [SQLRow] {
        let statement = try db.cachedStatement(sql: sql)
        let columns = statement.columnNames
        return try Row.fetchAll(statement, arguments: Self.arguments(arguments)).map { row in
            SQLRow(columns: columns, values: row.databaseValues.map(Self.value))
        }
    }

    /// As optional existentials: GRDB maps those with a closure, while its initializer for a
    /// sequence of one conforming type maps with a key path, unspecialised here (under `lab serve`'s
    /// playlist load that map was a third of the request log's thread).
    static func arguments(_ values: [any SQLBindable]) -> StatementArguments {
        StatementArguments(values.map { value -> (any DatabaseValueConvertible)? in
            switch value.sqlValue {
            case .null: return nil
            case .integer(let v): return v
            case .real(let v): return v
            case .text(let v): return v
            case .blob(let v): return v
            }
        })
    }

    static func value(_ value: DatabaseValue) -> SQLValue {
        switch value.storage {
        case .null: return .null
        case .int64(let v): return .integer(v)
        case .double(let v): return .real(v)
        case .string(let v): return .text(v)
        case .blob(let v): return .blob(v)
        }
    }
}

/// The SQLite files open in this process, by executor.
final class OpenExecutors: @unchecked Sendable {
    private let lock = NSLock()
    private var executors: [ObjectIdentifier: String] = [:]

    func add(_ executor: SQLiteExecutor) {
        guard case .sqlite(let path) = executor.location else { return }
        lock.withLock { executors[ObjectIdentifier(executor)] = path }
    }

    func remove(_ executor: SQLiteExecutor) { _ = lock.withLock { executors.removeValue(forKey: ObjectIdentifier(executor)) } }

    var paths: [String] { lock.withLock { Array(Set(executors.values)).sorted() } }
}
