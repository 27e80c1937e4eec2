import Foundation

/// One step of the results database's schema, written once in SQLite's DDL (`SQLDialect.ddl`
/// turns it into PostgreSQL's). Identifiers are those GRDB's migrator recorded, in its table
/// `grdb_migrations`, so files written by older versions open as they are.
public struct Migration: Sendable {
    public var identifier: String
    public var sql: String

    public init(_ identifier: String, _ sql: String) {
        self.identifier = identifier
        self.sql = sql
    }
}

/// The schema's versions, for the matrix's and the lab's tables alike (one list: each store
/// opens a database the other made). Append only: never change or reorder a released migration.
public enum Schema {
    public static let migrations: [Migration] = MatrixSchema.migrations + LabSchema.migrations + MatrixSchema.queueMigrations
        + LabSchema.stationMigrations + LabSchema.softwareMigrations + LabSchema.keyMigrations

    /// Where applied migrations are recorded (GRDB's name, kept for the files it wrote).
    public static let table = "grdb_migrations"
    /// PostgreSQL advisory lock taken while migrating, so that two workers starting at once migrate once.
    static let lockKey: Int64 = 0x5EA3_C4EC

    /// The schema as the database has it.
    public struct Status: Sendable, Equatable, Codable {
        /// Migrations applied that this binary knows (its schema version).
        public var version: Int
        /// This binary's latest version.
        public var latest: Int
        public var pending: [String]
        /// Migrations applied that this binary does not know: a newer Seamcheck migrated the database.
        public var unknown: [String]
    }

    public static func status(_ executor: any SQLExecutor) throws -> Status {
        let applied = try executor.read { c in try appliedIdentifiers(c) }
        let known = Set(migrations.map(\.identifier))
        return Status(version: migrations.filter { applied.contains($0.identifier) }.count, latest: migrations.count,
                      pending: migrations.map(\.identifier).filter { !applied.contains($0) },
                      unknown: applied.filter { !known.contains($0) }.sorted())
    }

    /// Applies what is pending, each migration in its own transaction (re-checked inside it, under
    /// a lock, so two processes migrating at once apply each step once). A database with
    /// migrations this binary does not know is `.newerSchema`, and nothing is changed.
    public static func migrate(_ executor: any SQLExecutor) throws(StoreFailure) {
        let location = executor.location.description
        do {
            var status = try Self.status(executor)
            if !status.unknown.isEmpty { throw StoreFailure.newerSchema(location: location, unknown: status.unknown) }
            if status.pending.isEmpty { return }
            try executor.write { c in
                try lock(c)
                try c.execute("CREATE TABLE IF NOT EXISTS \(table) (identifier TEXT NOT NULL PRIMARY KEY)")
            }
            status = try Self.status(executor)
            for migration in migrations where status.pending.contains(migration.identifier) {
                try executor.write { c in
                    try lock(c)
                    let done: Int? = try c.scalar("SELECT 1 FROM \(table) WHERE identifier = ?", [migration.identifier])
                    guard done == nil else { return }
                    for statement in statements(c.dialect.ddl(migration.sql)) { try c.execute(statement) }
                    try c.execute("INSERT INTO \(table) (identifier) VALUES (?)", [migration.identifier])
                }
            }
        } catch let failure as StoreFailure {
            throw failure
        } catch {
            throw .failed(location: location, reason: "could not migrate the schema (\(error))")
        }
    }

    private static func lock(_ c: any SQLConnection) throws {
        if c.dialect == .postgres { try c.execute("SELECT pg_advisory_xact_lock(\(lockKey))") }
    }

    static func appliedIdentifiers(_ c: any SQLConnection) throws -> Set<String> {
        let exists: Int?
        switch c.dialect {
        case .sqlite:
            exists = try c.scalar("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?", [table])
        case .postgres:
            exists = try c.scalar("SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = ?", [table])
        }
        guard (exists ?? 0) > 0 else { return [] }
        return Set(try c.query("SELECT identifier FROM \(table)").map { $0[0] as String })
    }

    /// The statements of a migration (no `;` inside their text).
    static func statements(_ sql: String) -> [String] {
        sql.split(separator: ";").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty }
    }

    /// The tables `db copy` moves, parents before children, with their key column.
    public static let tables: [(name: String, key: String)] = [
        ("run", "id"), ("matrixCase", "id"), ("cell", "id"), ("finding", "id"), ("runQueue", "runId, caseId"),
        ("labServe", "id"), ("labRequest", "id"), ("labReceiver", "station, address"), ("labReceiverHistory", "id"),
        ("labVerdict", "id"), ("labRun", "id"), ("labCell", "id"),
    ]
}
