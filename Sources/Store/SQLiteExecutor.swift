import Foundation
import GRDB

/// SQLite through GRDB: WAL, a 10 s busy wait for the other writer, `synchronous=NORMAL` (a killed
/// process loses nothing committed, a power cut may lose the last transactions but never corrupts the file).
public final class SQLiteExecutor: SQLExecutor {
    public let location: DatabaseLocation
    public var dialect: SQLDialect { .sqlite }
    let pool: DatabasePool

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
            pool = try DatabasePool(path: path, configuration: configuration)
            // A file that is not SQLite fails here, not at the first query.
            _ = try pool.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM sqlite_master") }
        } catch {
            throw .cannotOpen(location: path, reason: Self.reason(error))
        }
    }

    public func read<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        do { return try pool.read { db in try body(GRDBConnection(db: db)) } } catch let error as DatabaseError {
            throw StoreFailure.failed(location: location.description, reason: Self.reason(error))
        }
    }

    public func write<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        do { return try pool.write { db in try body(GRDBConnection(db: db)) } } catch let error as DatabaseError {
            throw StoreFailure.failed(location: location.description, reason: Self.reason(error))
        }
    }

    public func close() { try? pool.close() }

    /// GRDB's pool, for the SQLite-only checks of tests.
    public var databasePool: DatabasePool { pool }

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

    static func arguments(_ values: [any SQLBindable]) -> StatementArguments {
        StatementArguments(values.map { value -> DatabaseValue in
            switch value.sqlValue {
            case .null: return .null
            case .integer(let v): return v.databaseValue
            case .real(let v): return v.databaseValue
            case .text(let v): return v.databaseValue
            case .blob(let v): return v.databaseValue
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
