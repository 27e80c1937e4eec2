import GRDB
import GRDBSQLite

/// One row's values for `SQLConnection.executeRows`, bound in order as they come: into the SQLite
/// statement itself (no boxing, no argument array), or gathered for a database without that path.
public struct SQLRowBinding {
    /// The SQLite statement bound into; nil when the values are gathered instead.
    let statement: OpaquePointer?
    private(set) var index: Int32 = 0
    private(set) var values: [any SQLBindable] = []

    init(statement: OpaquePointer?) { self.statement = statement }

    public mutating func bind(_ value: Int64) {
        index += 1
        if let statement { sqlite3_bind_int64(statement, index, value) } else { values.append(value) }
    }

    public mutating func bind(_ value: Int) { bind(Int64(value)) }

    public mutating func bind(_ value: Bool) { bind(Int64(value ? 1 : 0)) }

    public mutating func bind(_ value: Double) {
        index += 1
        if let statement { sqlite3_bind_double(statement, index, value) } else { values.append(value) }
    }

    /// As GRDB binds a `String` (copied by SQLite, read up to its first NUL).
    public mutating func bind(_ value: String) {
        index += 1
        if let statement { sqlite3_bind_text(statement, index, value, -1, SQLITE_TRANSIENT) } else { values.append(value) }
    }

    public mutating func bind(_ value: String?) {
        guard let value else { return bindNull() }
        bind(value)
    }

    public mutating func bind(_ value: Int?) {
        guard let value else { return bindNull() }
        bind(Int64(value))
    }

    public mutating func bindNull() {
        index += 1
        if let statement { sqlite3_bind_null(statement, index) } else { values.append(SQLValue.null) }
    }
}

/// SQLite's "copy the bytes now" destructor (the C macro does not come through).
private let SQLITE_TRANSIENT = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)

extension GRDBConnection {
    /// Prepared once (GRDB's statement cache), then per row: reset, bind in place, step.
    func executeRows(_ sql: String, count: Int, bind: (Int, inout SQLRowBinding) -> Void) throws {
        let statement = try db.cachedStatement(sql: sql)
        let pointer = statement.sqliteStatement
        defer { sqlite3_reset(pointer); sqlite3_clear_bindings(pointer) }
        for row in 0..<count {
            sqlite3_reset(pointer)
            var binding = SQLRowBinding(statement: pointer)
            bind(row, &binding)
            let code = sqlite3_step(pointer)
            guard code == SQLITE_DONE || code == SQLITE_ROW else {
                let message = db.sqliteConnection.map { String(cString: sqlite3_errmsg($0)) }
                throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: sql)
            }
        }
    }
}
