import Foundation
import Store

/// The lab's store fails as the matrix's does: one error type (Store's `StoreError`).
public typealias LabStoreError = StoreError

/// The lab's tables in the results database the matrix also uses, SQLite or PostgreSQL through
/// one executor and one schema (Store's `Schema`, `LabSchema`): the serve runs with their suite
/// manifest, every request the server answered, the receivers client addresses map to, and the
/// operators' verdicts. Either store opens a database the other created.
public final class LabStore: Sendable {
    /// The database as shown to users: a SQLite path, or a PostgreSQL URL without its password.
    public let path: String
    public let executor: any SQLExecutor
    /// The station this process is (`LabStation`): what it writes carries it, and what only this
    /// station's rows answer (a lab run's requests, the receiver a verdict names, `--resume`) reads it.
    /// Reads that take a `station` argument read every station when it is nil.
    public let station: String

    /// Opens (and migrates) the database at `path` (a SQLite path or a `postgres://` URL); with
    /// `create` false a missing SQLite file is an error. `station` defaults to the host name.
    public init(path: String, create: Bool = true, station: String = LabStation.hostDefault) throws(LabStoreError) {
        do { executor = try ResultsDatabaseOpener.open(path, create: create) } catch { throw LabStoreError(error) }
        self.path = executor.location.description
        self.station = station
    }

    /// A store on an executor already open and migrated.
    public init(executor: any SQLExecutor, station: String = LabStation.hostDefault) {
        self.executor = executor
        path = executor.location.description
        self.station = station
    }

    /// `AND station = ?` (or nothing) for a read of one station or all, with its argument.
    static func stationClause(_ station: String?, column: String = "station", joiner: String = "AND") -> (sql: String, arguments: [any SQLBindable]) {
        guard let station else { return ("", []) }
        return (" \(joiner) \(column) = ?", [station])
    }

    func write<T>(_ operation: String, _ body: (any SQLConnection) throws -> T) throws(LabStoreError) -> T {
        do { return try executor.write(body) } catch { throw mapped(error, operation) }
    }

    func read<T>(_ operation: String, _ body: (any SQLConnection) throws -> T) throws(LabStoreError) -> T {
        do { return try executor.read(body) } catch { throw mapped(error, operation) }
    }

    private func mapped(_ error: any Error, _ operation: String) -> LabStoreError {
        StoreError(error, path: path, operation: operation)
    }
}
