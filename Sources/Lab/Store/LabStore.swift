import Foundation
import GRDB
import Matrix

/// Why the lab's tables in the results database could not be used. Names the file and what to do.
public enum LabStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    case missing(path: String)
    case cannotOpen(path: String, reason: String)
    case failed(path: String, operation: String, reason: String)

    public var description: String {
        switch self {
        case .missing(let path):
            return "\(path): no results database; run `seamcheck lab serve` first, or pass --db PATH"
        case .cannotOpen(let path, let reason):
            return "\(path): cannot open the results database (\(reason)); check the path is a seamcheck SQLite file and writable"
        case .failed(let path, let operation, let reason):
            return "\(path): could not \(operation) (\(reason)); check free disk space and permissions"
        }
    }
}

/// The lab's tables in the results database the matrix also uses (opened by `ResultsDatabase`):
/// the serve runs with their suite manifest, every request the server answered, the receivers
/// client addresses map to, and the operators' verdicts. Their migrations are named `lab-*`, apart
/// from the matrix's, so either side opens a database the other created.
public final class LabStore: Sendable {
    public let path: String
    let pool: DatabasePool

    /// Opens (and migrates) the database at `path`; with `create` false a missing file is an error.
    public init(path: String, create: Bool = true) throws(LabStoreError) {
        self.path = path
        do { pool = try ResultsDatabase.open(path, create: create, migrator: Self.migrator) } catch {
            switch error {
            case .missing: throw .missing(path: path)
            case .cannotOpen(let reason): throw .cannotOpen(path: path, reason: reason)
            }
        }
    }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("lab-v1-serves-requests-receivers-verdicts") { db in
            try db.execute(sql: """
                CREATE TABLE labServe (
                  id INTEGER PRIMARY KEY AUTOINCREMENT,
                  startedAt TEXT NOT NULL, stoppedAt TEXT,
                  bind TEXT NOT NULL, port INTEGER NOT NULL, streams TEXT NOT NULL, manifest TEXT NOT NULL,
                  pid INTEGER NOT NULL, host TEXT NOT NULL);
                CREATE TABLE labRequest (
                  id INTEGER PRIMARY KEY AUTOINCREMENT,
                  serveId INTEGER NOT NULL,
                  at REAL NOT NULL,
                  client TEXT NOT NULL, clientPort INTEGER,
                  method TEXT NOT NULL, path TEXT NOT NULL, query TEXT,
                  range TEXT, status INTEGER NOT NULL, bytes INTEGER NOT NULL, expectedBytes INTEGER,
                  durationMs REAL NOT NULL, userAgent TEXT, caseId TEXT, completed INTEGER NOT NULL);
                CREATE INDEX labRequestByClient ON labRequest(client, at);
                CREATE TABLE labReceiver (
                  address TEXT PRIMARY KEY,
                  name TEXT NOT NULL, deviceId TEXT, model TEXT, deviceClass TEXT, classifiedBy TEXT,
                  reason TEXT NOT NULL, source TEXT NOT NULL, seenAt REAL NOT NULL);
                CREATE TABLE labVerdict (
                  id INTEGER PRIMARY KEY AUTOINCREMENT,
                  recordedAt REAL NOT NULL,
                  receiver TEXT NOT NULL, deviceId TEXT, deviceClass TEXT, client TEXT,
                  caseId TEXT NOT NULL, verdict TEXT NOT NULL, seconds REAL, note TEXT, source TEXT NOT NULL);
                CREATE INDEX labVerdictByCase ON labVerdict(caseId, receiver);
                """)
        }
        migrator.registerMigration("lab-v2-receiver-info") { db in
            try db.execute(sql: """
                ALTER TABLE labReceiver ADD COLUMN declaredHDRFormats TEXT;
                ALTER TABLE labReceiver ADD COLUMN declaredCodecs TEXT;
                ALTER TABLE labReceiver ADD COLUMN supportsInterstitials INTEGER;
                """)
        }
        // Unattended runs (`lab run`): LabRunStore.swift reads and writes these.
        migrator.registerMigration("lab-v3-runs") { db in try LabStore.createRunTables(db) }
        // Verdicts' via and runId (LabRecords.swift).
        LabVerdictRecord.registerMigrations(&migrator)
        registerReceiverHistory(&migrator)
        return migrator
    }

    func write<T>(_ operation: String, _ body: (Database) throws -> T) throws(LabStoreError) -> T {
        do { return try pool.write(body) } catch {
            throw .failed(path: path, operation: operation, reason: Self.reason(error))
        }
    }

    func read<T>(_ operation: String, _ body: (Database) throws -> T) throws(LabStoreError) -> T {
        do { return try pool.read(body) } catch {
            throw .failed(path: path, operation: operation, reason: Self.reason(error))
        }
    }

    static func reason(_ error: any Error) -> String { ResultsDatabase.reason(error) }
}
