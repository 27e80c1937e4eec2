import Foundation

/// `seamcheck db copy`: every row of the matrix's and the lab's tables from one database into
/// another (a station's SQLite history into the shared PostgreSQL), ids kept, in batches of one
/// transaction each. Rows whose key the target already has are skipped, so a second copy adds
/// nothing; a target whose rows under the same ids differ (another station's history) is refused
/// before anything is written.
public enum DatabaseCopy {
    public struct TableCount: Codable, Sendable, Equatable {
        public var table: String
        /// Rows in the source.
        public var read: Int
        /// Rows added to the target (the rest it had already).
        public var copied: Int
    }

    /// Rows per INSERT (PostgreSQL takes at most 65535 parameters a statement).
    static let batchRows = 200

    public static func copy(from source: any SQLExecutor, to target: any SQLExecutor,
                            progress: (TableCount) -> Void = { _ in }) throws -> [TableCount] {
        let tables = try Schema.tables.compactMap { table -> (name: String, key: String, columns: [String])? in
            let sourceColumns = try columns(table.name, source)
            guard !sourceColumns.isEmpty else { return nil }
            let targetColumns = Set(try columns(table.name, target).map { $0.lowercased() })
            return (table.name, table.key, sourceColumns.filter { targetColumns.contains($0.lowercased()) })
        }
        for table in tables where table.key == "id" { try checkSameHistory(table.name, table.columns, source, target) }
        var counts: [TableCount] = []
        for table in tables {
            var count = TableCount(table: table.name, read: 0, copied: 0)
            var offset = 0
            var after: SQLValue?
            let single = !table.key.contains(",")
            while true {
                // Pages by key (a page costs the same at the end of a large table as at its start); by offset for a composite key.
                let rows = try source.read { c in
                    let list = table.columns.joined(separator: ", "), page = batchRows * 5
                    if single, let after {
                        return try c.query("SELECT \(list) FROM \(table.name) WHERE \(table.key) > ? ORDER BY \(table.key) LIMIT \(page)", [after])
                    }
                    return try c.query("SELECT \(list) FROM \(table.name) ORDER BY \(table.key) LIMIT \(page) OFFSET \(single ? 0 : offset)")
                }
                if rows.isEmpty { break }
                offset += rows.count
                after = rows.last?.value(table.key)
                count.read += rows.count
                count.copied += try target.write { c in
                    var copied = 0
                    var start = 0
                    while start < rows.count {
                        let slice = rows[start..<min(start + batchRows, rows.count)]
                        start += slice.count
                        let placeholders = "(" + Array(repeating: "?", count: table.columns.count).joined(separator: ", ") + ")"
                        let sql = "INSERT INTO \(table.name) (\(table.columns.joined(separator: ", "))) VALUES "
                            + Array(repeating: placeholders, count: slice.count).joined(separator: ", ")
                            + " ON CONFLICT DO NOTHING RETURNING 1"
                        copied += try c.query(sql, slice.flatMap { $0.values.map { $0 as any SQLBindable } }).count
                    }
                    return copied
                }
            }
            progress(count)
            counts.append(count)
        }
        if target.dialect == .postgres {
            try target.write { c in
                for table in tables where table.key == "id" && table.name != "labRun" {
                    try c.execute("""
                        SELECT setval(pg_get_serial_sequence('\(table.name.lowercased())', 'id'),
                                      (SELECT COALESCE(max(id), 0) + 1 FROM \(table.name)), false)
                        """)
                }
            }
        }
        return counts
    }

    /// The columns of `table`, or none when it does not exist.
    static func columns(_ table: String, _ db: any SQLExecutor) throws -> [String] {
        try db.read { c in
            switch c.dialect {
            case .sqlite:
                return try c.query("SELECT name FROM pragma_table_info(?) ORDER BY cid", [table]).map { $0[0] as String }
            case .postgres:
                return try c.query("""
                    SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ?
                    ORDER BY ordinal_position
                    """, [table.lowercased()]).map { $0[0] as String }
            }
        }
    }

    /// Refuses a target that holds other rows under the source's ids: the first and last row of
    /// the source, where the target has their id, must be the same rows.
    static func checkSameHistory(_ table: String, _ columns: [String], _ source: any SQLExecutor, _ target: any SQLExecutor) throws {
        let list = columns.joined(separator: ", ")
        let ends = try source.read { c in
            try c.query("SELECT \(list) FROM \(table) WHERE id = (SELECT min(id) FROM \(table)) OR id = (SELECT max(id) FROM \(table))")
        }
        for row in ends {
            // Whatever the key's type: labRun's is text ("20261125-193000-1f2e"), the others' integers.
            let id = row.value("id")
            guard let other = try target.read({ c in try c.queryOne("SELECT \(list) FROM \(table) WHERE id = ?", [id]) }) else { continue }
            let same = zip(row.values, other.values).allSatisfy { a, b in
                a == b || Double.read(a).flatMap { x in Double.read(b).map { abs(x - $0) < 1e-6 } } == true
            }
            if !same {
                throw StoreFailure.failed(location: target.location.description, reason: """
                    \(table) \(shown(id)) in the target is not the source's \(table) \(shown(id)): it holds another history, and db copy keeps ids; \
                    copy into an empty database (or one this file was copied into before)
                    """)
            }
        }
    }

    /// A key as a message shows it.
    static func shown(_ value: SQLValue) -> String { String.read(value) ?? "NULL" }
}
