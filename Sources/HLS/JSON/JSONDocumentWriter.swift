import Foundation

/// Writes an `Encodable` as `JSONDocument.encoder(pretty:dates:)` does, byte for byte, in a
/// fraction of the time: the values go into one tree, filled in place, then one buffer.
/// What it does not do as Foundation does (`Data`, `Decimal`, `superEncoder`, a container asked
/// for twice in conflicting kinds) makes `encode` return nil, and `JSONDocument.encode` then
/// uses Foundation's encoder. JSONDocumentWriterTests compares both on lint and inspect
/// documents and odd values.
public struct JSONDocumentWriter: Sendable {
    public var pretty: Bool
    public var dates: JSONDocument.Dates

    public init(pretty: Bool = true, dates: JSONDocument.Dates = .numeric) {
        self.pretty = pretty
        self.dates = dates
    }

    /// The document's bytes, or nil when it holds something only Foundation's encoder writes.
    public func encode<T: Encodable>(_ value: T) throws -> [UInt8]? {
        let state = JSONWriterState(dates: dates)
        let root = TreeEncoder(state: state, parent: nil, key: nil)
        guard let tree = try root.wrap(value), !state.unsupported else { return nil }
        var serializer = JSONTreeSerializer(pretty: pretty)
        serializer.write(tree)
        return serializer.bytes
    }
}

final class JSONWriterState {
    let dates: JSONDocument.Dates
    /// Set when the value asked for something this writer does not reproduce.
    var unsupported = false

    init(dates: JSONDocument.Dates) { self.dates = dates }
}

/// One value's encoder: holds what the value wrote (a scalar, or the container it asked for).
final class TreeEncoder: Encoder, SingleValueEncodingContainer {
    let state: JSONWriterState
    let parent: TreeEncoder?
    let key: (any CodingKey)?
    var value: JSONTree?

    init(state: JSONWriterState, parent: TreeEncoder?, key: (any CodingKey)?) {
        self.state = state
        self.parent = parent
        self.key = key
    }

    var codingPath: [any CodingKey] {
        var path: [any CodingKey] = []
        var encoder: TreeEncoder? = self
        while let current = encoder { if let key = current.key { path.append(key) }; encoder = current.parent }
        return path.reversed()
    }

    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        switch value {
        case .object(let box)?: return KeyedEncodingContainer(TreeKeyedContainer<Key>(encoder: self, box: box, path: []))
        case nil: break
        default: state.unsupported = true
        }
        let box = JSONObjectBox()
        value = .object(box)
        return KeyedEncodingContainer(TreeKeyedContainer<Key>(encoder: self, box: box, path: []))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        switch value {
        case .array(let box)?: return TreeUnkeyedContainer(encoder: self, box: box, path: [])
        case nil: break
        default: state.unsupported = true
        }
        let box = JSONArrayBox()
        value = .array(box)
        return TreeUnkeyedContainer(encoder: self, box: box, path: [])
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { self }

    private func set(_ tree: JSONTree) {
        if value != nil { state.unsupported = true }
        value = tree
    }

    func encodeNil() throws { set(.null) }
    func encode(_ value: Bool) throws { set(.literal(value ? "true" : "false")) }
    func encode(_ value: String) throws { set(.string(value)) }
    func encode(_ value: Double) throws { set(Self.number(value)) }
    func encode(_ value: Float) throws { set(Self.number(value)) }
    func encode(_ value: Int) throws { set(.literal(value.description)) }
    func encode(_ value: Int8) throws { set(.literal(value.description)) }
    func encode(_ value: Int16) throws { set(.literal(value.description)) }
    func encode(_ value: Int32) throws { set(.literal(value.description)) }
    func encode(_ value: Int64) throws { set(.literal(value.description)) }
    func encode(_ value: UInt) throws { set(.literal(value.description)) }
    func encode(_ value: UInt8) throws { set(.literal(value.description)) }
    func encode(_ value: UInt16) throws { set(.literal(value.description)) }
    func encode(_ value: UInt32) throws { set(.literal(value.description)) }
    func encode(_ value: UInt64) throws { set(.literal(value.description)) }
    func encode<T: Encodable>(_ value: T) throws { set(try wrap(value) ?? .object(JSONObjectBox())) }

    /// Foundation's spelling: `description` without a trailing `.0`; inf, -inf and nan as the
    /// strings JSONDocument names.
    static func number<F: BinaryFloatingPoint & CustomStringConvertible>(_ value: F) -> JSONTree {
        if value.isNaN { return .string("nan") }
        if value.isInfinite { return .string(value < 0 ? "-inf" : "inf") }
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        return .literal(text)
    }

    /// What `value` writes, under `key` of this encoder's container (nil: it wrote nothing).
    func wrap<T: Encodable>(_ value: T, key: (any CodingKey)? = nil) throws -> JSONTree? {
        if let text = value as? String { return .string(text) }
        if let date = value as? Date { return wrapDate(date) }
        if let url = value as? URL { return .string(url.absoluteString) }
        if value is Data || value is Decimal { state.unsupported = true; return .null }
        let encoder = TreeEncoder(state: state, parent: self, key: key)
        try value.encode(to: encoder)
        return encoder.value
    }

    private func wrapDate(_ date: Date) -> JSONTree {
        switch state.dates {
        case .numeric: return Self.number(date.timeIntervalSinceReferenceDate)
        case .iso8601: return .string(date.formatted(.iso8601))
        case .iso8601Milliseconds: return .string(HLSDate.format(date))
        }
    }
}

struct TreeKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: TreeEncoder
    let box: JSONObjectBox
    let path: [any CodingKey]

    var codingPath: [any CodingKey] { encoder.codingPath + path }

    mutating func encodeNil(forKey key: Key) throws { box.set(.null, for: key.stringValue) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { box.set(.literal(value ? "true" : "false"), for: key.stringValue) }
    mutating func encode(_ value: String, forKey key: Key) throws { box.set(.string(value), for: key.stringValue) }
    mutating func encode(_ value: Double, forKey key: Key) throws { box.set(TreeEncoder.number(value), for: key.stringValue) }
    mutating func encode(_ value: Float, forKey key: Key) throws { box.set(TreeEncoder.number(value), for: key.stringValue) }
    mutating func encode(_ value: Int, forKey key: Key) throws { box.set(.literal(value.description), for: key.stringValue) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { box.set(.literal(value.description), for: key.stringValue) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { box.set(.literal(value.description), for: key.stringValue) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { box.set(.literal(value.description), for: key.stringValue) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { box.set(.literal(value.description), for: key.stringValue) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { box.set(.literal(value.description), for: key.stringValue) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { box.set(.literal(value.description), for: key.stringValue) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { box.set(.literal(value.description), for: key.stringValue) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { box.set(.literal(value.description), for: key.stringValue) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { box.set(.literal(value.description), for: key.stringValue) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        box.set(try encoder.wrap(value, key: key) ?? .object(JSONObjectBox()), for: key.stringValue)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        let nested: JSONObjectBox
        switch box.existing(key.stringValue) {
        case .object(let known)?: nested = known
        case .array?: encoder.state.unsupported = true; nested = JSONObjectBox()
        default:
            nested = JSONObjectBox()
            box.set(.object(nested), for: key.stringValue)
        }
        return KeyedEncodingContainer(TreeKeyedContainer<NestedKey>(encoder: encoder, box: nested, path: path + [key]))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let nested: JSONArrayBox
        switch box.existing(key.stringValue) {
        case .array(let known)?: nested = known
        case .object?: encoder.state.unsupported = true; nested = JSONArrayBox()
        default:
            nested = JSONArrayBox()
            box.set(.array(nested), for: key.stringValue)
        }
        return TreeUnkeyedContainer(encoder: encoder, box: nested, path: path + [key])
    }

    mutating func superEncoder() -> any Encoder { unsupported() }
    mutating func superEncoder(forKey key: Key) -> any Encoder { unsupported() }

    private func unsupported() -> any Encoder {
        encoder.state.unsupported = true
        return TreeEncoder(state: encoder.state, parent: encoder, key: nil)
    }
}

struct TreeUnkeyedContainer: UnkeyedEncodingContainer {
    let encoder: TreeEncoder
    let box: JSONArrayBox
    let path: [any CodingKey]

    var codingPath: [any CodingKey] { encoder.codingPath + path }
    var count: Int { box.items.count }

    mutating func encodeNil() throws { box.items.append(.null) }
    mutating func encode(_ value: Bool) throws { box.items.append(.literal(value ? "true" : "false")) }
    mutating func encode(_ value: String) throws { box.items.append(.string(value)) }
    mutating func encode(_ value: Double) throws { box.items.append(TreeEncoder.number(value)) }
    mutating func encode(_ value: Float) throws { box.items.append(TreeEncoder.number(value)) }
    mutating func encode(_ value: Int) throws { box.items.append(.literal(value.description)) }
    mutating func encode(_ value: Int8) throws { box.items.append(.literal(value.description)) }
    mutating func encode(_ value: Int16) throws { box.items.append(.literal(value.description)) }
    mutating func encode(_ value: Int32) throws { box.items.append(.literal(value.description)) }
    mutating func encode(_ value: Int64) throws { box.items.append(.literal(value.description)) }
    mutating func encode(_ value: UInt) throws { box.items.append(.literal(value.description)) }
    mutating func encode(_ value: UInt8) throws { box.items.append(.literal(value.description)) }
    mutating func encode(_ value: UInt16) throws { box.items.append(.literal(value.description)) }
    mutating func encode(_ value: UInt32) throws { box.items.append(.literal(value.description)) }
    mutating func encode(_ value: UInt64) throws { box.items.append(.literal(value.description)) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        box.items.append(try encoder.wrap(value, key: IndexKey(intValue: box.items.count)) ?? .object(JSONObjectBox()))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let nested = JSONObjectBox()
        let key = IndexKey(intValue: box.items.count)
        box.items.append(.object(nested))
        return KeyedEncodingContainer(TreeKeyedContainer<NestedKey>(encoder: encoder, box: nested, path: path + [key]))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let nested = JSONArrayBox()
        let key = IndexKey(intValue: box.items.count)
        box.items.append(.array(nested))
        return TreeUnkeyedContainer(encoder: encoder, box: nested, path: path + [key])
    }

    mutating func superEncoder() -> any Encoder {
        encoder.state.unsupported = true
        return TreeEncoder(state: encoder.state, parent: encoder, key: nil)
    }
}

/// An array element's place in a coding path, as Foundation names it.
struct IndexKey: CodingKey {
    var stringValue: String
    var intValue: Int?

    init(intValue: Int) {
        stringValue = "Index \(intValue)"
        self.intValue = intValue
    }

    init?(stringValue: String) { nil }
}
