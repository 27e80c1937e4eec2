import Foundation

/// Why a store (the matrix's `ResultStore`, the lab's `LabStore`) could not do what it was asked:
/// the one error type above the executor. Names the database, the operation and what to do.
public enum StoreError: Error, Sendable, Equatable, CustomStringConvertible {
    case missing(path: String)
    case cannotOpen(path: String, reason: String)
    case failed(path: String, operation: String, reason: String)
    /// The connection broke after COMMIT was sent: the write may or may not have landed. It is
    /// not run again by the executor; writing the same rows again is safe (they carry keys that
    /// make a second copy a no-op), so the caller retries or reports.
    case outcomeUnknown(path: String, operation: String, reason: String)
    case noSuchRun(path: String, id: Int64, available: [Int64])
    case notEnoughRuns(path: String, found: Int)
    /// The database server cannot be reached (exit 3), refused the login, or has a newer schema (exit 2).
    case database(StoreFailure)

    /// A needed service (the PostgreSQL server) is missing or went away mid-write: exit 3 rather than 2.
    public var serviceMissing: Bool {
        switch self {
        case .database(let failure): return failure.serviceMissing
        case .outcomeUnknown: return true
        default: return false
        }
    }

    /// Opening failed: a missing file or one that cannot be opened keep their own cases.
    public init(_ failure: StoreFailure) {
        switch failure {
        case .missing(let location): self = .missing(path: location)
        case .cannotOpen(let location, let reason): self = .cannotOpen(path: location, reason: reason)
        default: self = .database(failure)
        }
    }

    /// What `operation` on the database at `path` failed with, as a `StoreError`.
    public init(_ error: any Error, path: String, operation: String) {
        switch error {
        case let error as StoreError: self = error
        case let failure as StoreFailure:
            switch failure {
            case .unreachable, .rejected, .newerSchema: self = .database(failure)
            case .outcomeUnknown(_, let reason): self = .outcomeUnknown(path: path, operation: operation, reason: reason)
            case .failed(_, let reason): self = .failed(path: path, operation: operation, reason: reason)
            default: self = .failed(path: path, operation: operation, reason: failure.description)
            }
        default: self = .failed(path: path, operation: operation, reason: "\(error)")
        }
    }

    public var description: String {
        switch self {
        case .missing(let path):
            return "\(path): no results database; run `seamcheck lab serve` or `seamcheck matrix run MATRIX.yaml` first, or pass --db PATH"
        case .cannotOpen(let path, let reason):
            return "\(path): cannot open the results database (\(reason)); check the path is a seamcheck SQLite file and writable"
        case .failed(let path, let operation, let reason):
            return "\(path): could not \(operation) (\(reason)); check free disk space and permissions"
        case .outcomeUnknown(let path, let operation, let reason):
            return "\(path): could not tell whether \(operation) was saved (\(reason) after COMMIT was sent); "
                + "running the same command again writes nothing twice"
        case .noSuchRun(let path, let id, let available):
            let shown = available.suffix(10).map(String.init).joined(separator: ", ")
            return "\(path): no run \(id); runs: \(shown.isEmpty ? "none" : shown) (see `seamcheck matrix history`)"
        case .notEnoughRuns(let path, let found):
            return "\(path): diff needs two runs of the matrix and found \(found); run the matrix again, or name two runs"
        case .database(let failure):
            return failure.description
        }
    }
}
