import Foundation

/// A value bound to, or read from, a statement: the five kinds both stores keep (a Bool is an
/// integer 0/1, a date is whatever the caller stored: ISO text or seconds since 1970).
public enum SQLValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)
}

/// Swift values a statement takes as an argument.
public protocol SQLBindable: Sendable {
    var sqlValue: SQLValue { get }
}

extension SQLValue: SQLBindable { public var sqlValue: SQLValue { self } }
extension Int: SQLBindable { public var sqlValue: SQLValue { .integer(Int64(self)) } }
extension Int32: SQLBindable { public var sqlValue: SQLValue { .integer(Int64(self)) } }
extension Int64: SQLBindable { public var sqlValue: SQLValue { .integer(self) } }
extension Double: SQLBindable { public var sqlValue: SQLValue { .real(self) } }
extension String: SQLBindable { public var sqlValue: SQLValue { .text(self) } }
extension Bool: SQLBindable { public var sqlValue: SQLValue { .integer(self ? 1 : 0) } }
extension Data: SQLBindable { public var sqlValue: SQLValue { .blob(self) } }
extension Optional: SQLBindable where Wrapped: SQLBindable {
    public var sqlValue: SQLValue { self?.sqlValue ?? .null }
}

/// Swift values a column reads as. Lenient across the two databases' types: an integer reads as
/// a Double, an integral real as an Int, a number as text.
public protocol SQLColumnReadable {
    static func read(_ value: SQLValue) -> Self?
}

extension Int64: SQLColumnReadable {
    public static func read(_ value: SQLValue) -> Int64? {
        switch value {
        case .integer(let v): return v
        case .real(let v): return v.rounded() == v && abs(v) < 9e18 ? Int64(v) : nil
        case .text(let v): return Int64(v)
        default: return nil
        }
    }
}
extension Int: SQLColumnReadable { public static func read(_ value: SQLValue) -> Int? { Int64.read(value).map { Int($0) } } }
extension Int32: SQLColumnReadable { public static func read(_ value: SQLValue) -> Int32? { Int64.read(value).flatMap { Int32(exactly: $0) } } }
extension Bool: SQLColumnReadable { public static func read(_ value: SQLValue) -> Bool? { Int64.read(value).map { $0 != 0 } } }
extension Double: SQLColumnReadable {
    public static func read(_ value: SQLValue) -> Double? {
        switch value {
        case .integer(let v): return Double(v)
        case .real(let v): return v
        case .text(let v): return Double(v)
        default: return nil
        }
    }
}
extension String: SQLColumnReadable {
    public static func read(_ value: SQLValue) -> String? {
        switch value {
        case .text(let v): return v
        case .integer(let v): return String(v)
        case .real(let v): return String(v)
        case .blob(let v): return String(decoding: v, as: UTF8.self)
        case .null: return nil
        }
    }
}
extension Data: SQLColumnReadable {
    public static func read(_ value: SQLValue) -> Data? {
        switch value {
        case .blob(let v): return v
        case .text(let v): return Data(v.utf8)
        default: return nil
        }
    }
}
extension Optional: SQLColumnReadable where Wrapped: SQLColumnReadable {
    public static func read(_ value: SQLValue) -> Wrapped?? {
        if case .null = value { return .some(nil) }
        return Wrapped.read(value).map { .some($0) }
    }
}

/// One result row. Column names are matched case-insensitively: PostgreSQL folds unquoted names
/// to lower case, SQLite keeps them as declared, and the stores' SQL is the same for both.
public struct SQLRow: Sendable, Equatable {
    public let columns: [String]
    public let values: [SQLValue]
    private let index: [String: Int]

    public init(columns: [String], values: [SQLValue]) {
        self.columns = columns
        self.values = values
        var index: [String: Int] = [:]
        for (i, name) in columns.enumerated() where index[name.lowercased()] == nil { index[name.lowercased()] = i }
        self.index = index
    }

    public static func == (a: SQLRow, b: SQLRow) -> Bool { a.columns == b.columns && a.values == b.values }

    public func hasColumn(_ name: String) -> Bool { index[name.lowercased()] != nil }

    /// The raw value of column `name` (`.null` when there is no such column).
    public func value(_ name: String) -> SQLValue {
        index[name.lowercased()].map { values[$0] } ?? .null
    }

    /// Column `name` as `T`. A NULL or unreadable value in a non-optional type is a programming
    /// error (the schema says NOT NULL), as it is with GRDB's rows.
    public subscript<T: SQLColumnReadable>(_ name: String) -> T {
        let raw = value(name)
        guard let value = T.read(raw) else { preconditionFailure("column \(name): \(raw) is not a \(T.self)") }
        return value
    }

    public subscript<T: SQLColumnReadable>(_ position: Int) -> T {
        let raw = position < values.count ? values[position] : .null
        guard let value = T.read(raw) else { preconditionFailure("column \(position): \(raw) is not a \(T.self)") }
        return value
    }
}
