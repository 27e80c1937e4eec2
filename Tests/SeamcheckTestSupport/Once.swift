import Foundation

/// A value made at most once per test process, on first use, and shared by every test that asks
/// for it: a scenario or fixture that is costly to make. A failure is kept too, so that each test
/// that needs the value says why it is missing, not only the first.
public final class Once<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private let make: () throws -> Value
    private var result: Result<Value, Error>?

    public init(_ make: @escaping () throws -> Value) {
        self.make = make
    }

    public func get() throws -> Value {
        try lock.withLock {
            if result == nil { result = Result { try make() } }
            return try result!.get()
        }
    }
}
