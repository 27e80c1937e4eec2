import Foundation
import GRDB

/// The results database file the matrix and the lab share: opened one way for both (WAL, a 10 s
/// busy wait for the other writer, `synchronous=NORMAL`: a killed process loses nothing committed,
/// a power cut may lose the last transactions but never corrupts the file), each side migrating
/// its own tables.
public enum ResultsDatabase {
    public enum OpenError: Error, Sendable, Equatable {
        case missing
        case cannotOpen(reason: String)
    }

    /// Opens `path` and runs `migrator`; with `create` false a missing file is `.missing`, with it
    /// true the file and its folder are made.
    public static func open(_ path: String, create: Bool, migrator: DatabaseMigrator) throws(OpenError) -> DatabasePool {
        if !FileManager.default.fileExists(atPath: path) {
            guard create else { throw .missing }
            let directory = URL(fileURLWithPath: path).deletingLastPathComponent()
            do { try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true) } catch {
                throw .cannotOpen(reason: (error as NSError).localizedDescription)
            }
        }
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
        }
        do {
            let pool = try DatabasePool(path: path, configuration: configuration)
            try migrate(pool, with: migrator)
            return pool
        } catch {
            throw .cannotOpen(reason: reason(error))
        }
    }

    /// Migrates, tolerating another process that migrates the same new file at the same moment
    /// (`lab serve` and `lab report`, a test polling a run's database): each migration is its own
    /// transaction, so one that lost the race ("table ... already exists") rolled back, and the
    /// next try sees it applied.
    static func migrate(_ pool: DatabasePool, with migrator: DatabaseMigrator, attempts: Int = 5) throws {
        for attempt in 1... {
            do { return try migrator.migrate(pool) } catch {
                if attempt >= attempts { throw error }
                if (try? pool.read(migrator.hasCompletedMigrations)) == true { return }
                Thread.sleep(forTimeInterval: 0.1 * Double(attempt))
            }
        }
    }

    /// SQLite's own words for a failure.
    public static func reason(_ error: any Error) -> String {
        if let error = error as? DatabaseError { return error.message ?? error.description }
        return String(describing: error)
    }
}
