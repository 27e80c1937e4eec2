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
            try migrator.migrate(pool)
            return pool
        } catch {
            throw .cannotOpen(reason: reason(error))
        }
    }

    /// SQLite's own words for a failure.
    public static func reason(_ error: any Error) -> String {
        if let error = error as? DatabaseError { return error.message ?? error.description }
        return String(describing: error)
    }
}
