import Foundation

/// What went wrong with a database, told from its own words (SQLite's messages, PostgreSQL's
/// SQLSTATE text), and what to do about it: a locked database is not a full disk.
public enum StoreTrouble: Sendable, Equatable {
    /// Another connection held the database past the busy wait: worth trying again.
    case busy
    /// The file is damaged (or not a database).
    case corrupt
    /// The file, its folder, or the server says no writing.
    case readOnly
    /// The disk (or the server's) is full.
    case full
    case other

    public init(reason: String) {
        let text = reason.lowercased()
        if ["database is locked", "database table is locked", "sqlite_busy", "database schema is locked"].contains(where: { text.contains($0) }) {
            self = .busy
        } else if ["malformed", "file is not a database", "sqlite_corrupt", "sqlite_notadb"].contains(where: { text.contains($0) }) {
            self = .corrupt
        } else if ["readonly", "read-only", "read only", "permission denied", "access permission"].contains(where: { text.contains($0) }) {
            self = .readOnly
        } else if ["disk is full", "no space left", "could not extend file", "disk full"].contains(where: { text.contains($0) }) {
            self = .full
        } else {
            self = .other
        }
    }

    /// What to do, as the end of a message about `location`.
    public func advice(_ location: String, otherwise: String = "check free disk space and permissions") -> String {
        switch self {
        case .busy:
            return "another process held the database for writing longer than the 10 s busy wait; find it (`fuser \(location)`) or let it "
                + "finish, then try again"
        case .corrupt:
            return "the database file is damaged; keep a copy of it, then `sqlite3 \(location) .recover | sqlite3 recovered.sqlite` "
                + "and use recovered.sqlite (--db)"
        case .readOnly:
            return "the file or its folder is not writable by this user; check their owner and permissions (`ls -ld`), or give --db "
                + "a writable copy"
        case .full:
            return "the disk is full; free some space and try again"
        case .other:
            return otherwise
        }
    }
}
