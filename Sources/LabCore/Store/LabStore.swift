import Foundation
import Store

/// Why the lab's tables in the results database could not be used. Names the file and what to do.
public enum LabStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    case missing(path: String)
    case cannotOpen(path: String, reason: String)
    case failed(path: String, operation: String, reason: String)
    /// The database server cannot be reached (exit 3), refused the login, or has a newer schema (exit 2).
    case database(StoreFailure)

    /// Another writer held the database past the busy wait: the same write may succeed later.
    public var isBusy: Bool {
        if case .failed(_, _, let reason) = self { return StoreTrouble(reason: reason) == .busy }
        return false
    }

    /// A needed service (the PostgreSQL server) is missing: exit 3 rather than 2.
    public var serviceMissing: Bool { if case .database(let failure) = self { return failure.serviceMissing } else { return false } }

    init(_ failure: StoreFailure) {
        switch failure {
        case .missing(let location): self = .missing(path: location)
        case .cannotOpen(let location, let reason): self = .cannotOpen(path: location, reason: reason)
        default: self = .database(failure)
        }
    }

    public var description: String {
        switch self {
        case .missing(let path):
            return "\(path): no results database; run `seamcheck lab serve` first, or pass --db PATH"
        case .cannotOpen(let path, let reason):
            return "\(path): cannot open the results database (\(reason)); "
                + StoreTrouble(reason: reason).advice(path, otherwise: "check the path is a seamcheck SQLite file and writable")
        case .failed(let path, let operation, let reason):
            return "\(path): could not \(operation) (\(reason)); \(StoreTrouble(reason: reason).advice(path))"
        case .database(let failure):
            return failure.description
        }
    }
}

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
        switch error {
        case let error as LabStoreError: return error
        case let failure as StoreFailure:
            switch failure {
            case .unreachable, .rejected, .newerSchema: return .database(failure)
            case .failed(_, let reason): return .failed(path: path, operation: operation, reason: reason)
            default: return .failed(path: path, operation: operation, reason: failure.description)
            }
        default: return .failed(path: path, operation: operation, reason: "\(error)")
        }
    }
}
