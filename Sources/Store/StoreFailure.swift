import Foundation

/// Why a database could not be used, whichever kind it is. `location` is already redacted.
public enum StoreFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// `--db` is not a path nor a PostgreSQL URL we can read.
    case badLocation(location: String, reason: String)
    /// A SQLite file that does not exist, opened without `create`.
    case missing(location: String)
    /// The server did not answer (refused, timed out, no such host or socket): a missing service, exit 3.
    case unreachable(location: String, reason: String)
    /// The server answered and said no: wrong password, no such user or database. Exit 2.
    case rejected(location: String, reason: String)
    /// TLS was asked for (`sslmode=require`, `verify-*`) and the server does not offer it, or its
    /// handshake failed: the server is there, the settings disagree. Exit 2.
    case tlsRefused(location: String, reason: String)
    /// The database was migrated by a newer Seamcheck: it knows migrations this binary does not. Exit 2.
    case newerSchema(location: String, unknown: [String])
    case cannotOpen(location: String, reason: String)
    /// The connection broke after COMMIT was sent: the transaction may have landed or not. Never
    /// run again by the executor (it could write twice); an idempotent write settles it. Exit 3.
    case outcomeUnknown(location: String, reason: String)
    /// A statement failed (a constraint, a full disk, a lost connection after the retries).
    case failed(location: String, reason: String)

    /// Exit 3 (a needed service is missing) rather than 2.
    public var serviceMissing: Bool {
        switch self {
        case .unreachable, .outcomeUnknown: return true
        default: return false
        }
    }

    public var location: String {
        switch self {
        case .badLocation(let l, _), .missing(let l), .unreachable(let l, _), .rejected(let l, _), .tlsRefused(let l, _), .newerSchema(let l, _),
             .cannotOpen(let l, _), .failed(let l, _), .outcomeUnknown(let l, _):
            return l
        }
    }

    public var description: String {
        switch self {
        case .badLocation(let location, let reason):
            return "\(location): not a usable --db (\(reason))"
        case .missing(let location):
            return "\(location): no results database; run a command that writes one first, or pass --db PATH"
        case .unreachable(let location, let reason):
            return "\(location): cannot reach the PostgreSQL server (\(reason)); check that it runs and that host, port "
                + "or socket folder are right (`seamcheck db check --db URL`)"
        case .rejected(let location, let reason):
            return "\(location): the PostgreSQL server refused the connection (\(reason)); check the user, password and "
                + "database name in the URL (or the server's pg_hba.conf), then `seamcheck db check --db URL`"
        case .tlsRefused(let location, let reason):
            return "\(location): the PostgreSQL server answered but TLS could not be set up (\(reason)); turn on `ssl` in "
                + "the server's postgresql.conf (with a certificate it is trusted for), or on a network you trust use "
                + "`sslmode=prefer` or `sslmode=disable` in the URL"
        case .newerSchema(let location, let unknown):
            return "\(location): the database was migrated by a newer Seamcheck (unknown migrations: "
                + "\(unknown.joined(separator: ", "))); use that version or a newer one, or another --db"
        case .cannotOpen(let location, let reason):
            return "\(location): cannot open the results database (\(reason)); "
                + StoreTrouble(reason: reason).advice(location, otherwise: "check the path is a seamcheck SQLite file and writable")
        case .outcomeUnknown(let location, let reason):
            return "\(location): the connection broke after COMMIT was sent (\(reason)): the write may or may not have landed; "
                + "writing it again is safe (it is keyed, so it is never stored twice)"
        case .failed(let location, let reason):
            return "\(location): \(reason)"
        }
    }
}
