import ArgumentParser
import Foundation
import HLS
import Store

struct DbCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "db",
        abstract: "Migrate, check or copy the results database (SQLite or PostgreSQL).",
        discussion: "Sharing one PostgreSQL between stations and workers: docs/postgres.md.",
        subcommands: [DbMigrateCommand.self, DbCheckCommand.self, DbCopyCommand.self])
}

struct DbMigrateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate", abstract: "Bring the database's schema up to this version (every command also does it on opening).",
        discussion: "Exit 0 done; 3 the server cannot be reached; 2 the login is refused or the schema is newer than this binary's.")

    @OptionGroup var database: DatabaseOption

    func run() throws {
        let executor = try ResultsDatabaseOpener.open(database.path, create: true, migrate: false)
        defer { executor.close() }
        let before = try Schema.status(executor)
        try Schema.migrate(executor)
        let after = try Schema.status(executor)
        let applied = before.pending.filter { !after.pending.contains($0) }
        Terminal.writeStderr("seamcheck: \(database.shown): schema version \(before.version) -> \(after.version) of \(after.latest)"
            + (applied.isEmpty ? " (nothing to do)" : "; applied \(applied.joined(separator: ", "))") + "\n")
    }
}

/// `db check`'s document (`--format json`).
struct DatabaseCheckDocument: Codable {
    var schemaVersion = 1
    var database: String
    var kind: String
    var reachable: Bool
    var version: Int
    var latest: Int
    var pending: [String]
    var unknown: [String]
}

struct DbCheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check", abstract: "Connect, and say the schema version and the migrations pending.",
        discussion: """
        Changes nothing. Exit 0 reachable with a schema this binary knows (pending migrations are applied by `db migrate` \
        or by any command that writes); 3 the server cannot be reached; 2 the login is refused (wrong user, password or \
        database name) or the schema is newer than this binary's.
        """)

    @OptionGroup var database: DatabaseOption

    @Option(help: "table (default on a terminal) or json.")
    var format: ListFormat?

    func run() throws {
        let executor = try ResultsDatabaseOpener.open(database.path, create: false, migrate: false)
        defer { executor.close() }
        let status = try Schema.status(executor)
        let document = DatabaseCheckDocument(database: database.shown, kind: executor.dialect.rawValue, reachable: true,
                                             version: status.version, latest: status.latest, pending: status.pending, unknown: status.unknown)
        switch ListFormat.resolve(format) {
        case .json:
            try Output.write(String(decoding: try JSONDocument.encoder(pretty: true).encode(document), as: UTF8.self) + "\n", to: nil)
        case .table:
            var lines = ["database:  \(document.database) (\(document.kind), reachable)",
                         "schema:    version \(status.version) of \(status.latest)"]
            if !status.pending.isEmpty { lines.append("pending:   \(status.pending.joined(separator: ", ")) (run `seamcheck db migrate`)") }
            if !status.unknown.isEmpty { lines.append("unknown:   \(status.unknown.joined(separator: ", ")) (from a newer Seamcheck)") }
            try Output.write(lines.joined(separator: "\n") + "\n", to: nil)
        }
        if !status.unknown.isEmpty { throw StoreFailure.newerSchema(location: database.shown, unknown: status.unknown) }
    }
}

struct DbCopyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "copy", abstract: "Copy a database's whole history (matrix and lab) into another, such as a station's SQLite file into PostgreSQL.",
        discussion: """
        Ids are kept, rows are copied in batches of one transaction each, and rows the target already has are skipped: \
        copying again adds nothing, and a copy cut short is finished by running it again. A target that holds another \
        history under the same ids is refused before anything is written. Prints a line per table: rows read, rows copied.
        """)

    @Option(help: ArgumentHelp("The database to copy from (usually a SQLite file).", valueName: "path|url"))
    var from: String

    @Option(help: ArgumentHelp("The database to copy into (usually postgres://...); migrated first.", valueName: "path|url"))
    var to: String

    func run() throws {
        let source = try ResultsDatabaseOpener.open(from, create: false, migrate: false)
        defer { source.close() }
        let sourceStatus = try Schema.status(source)
        if !sourceStatus.unknown.isEmpty { throw StoreFailure.newerSchema(location: source.location.description, unknown: sourceStatus.unknown) }
        // A source from before a migration takes it first: its rows then have what the target's
        // columns need (a lab row's station comes from the host it recorded, not the column's '').
        if !sourceStatus.pending.isEmpty { try Schema.migrate(source) }
        let target = try ResultsDatabaseOpener.open(to, create: true)
        defer { target.close() }
        var lines: [String] = []
        let counts = try DatabaseCopy.copy(from: source, to: target)
        for count in counts { lines.append("\(count.table)\t\(count.read)\t\(count.copied)") }
        try Output.write("table\tread\tcopied\n" + lines.joined(separator: "\n") + "\n", to: nil)
        Terminal.writeStderr("seamcheck: db copy: \(source.location) -> \(target.location): \(counts.map(\.copied).reduce(0, +)) row(s) copied, "
            + "\(counts.map { $0.read - $0.copied }.reduce(0, +)) already there\n")
    }
}
