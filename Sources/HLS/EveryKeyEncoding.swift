import Foundation

extension KeyedEncodingContainer {
    /// Writes every stored property of `value` whose name is a key of this container, a nil as
    /// `null` (the JSON convention: every key present, null when unknown; scripts test
    /// `x == null` rather than key presence). Properties that are not keys stay out (the reports'
    /// HTML-only fields). One body for every such `encode(to:)`: `try c.encodeEveryKey(of: self)`;
    /// `EveryKeyEncodingTests` checks, per type, that the keys written are its stored properties.
    public mutating func encodeEveryKey<T>(of value: T) throws {
        for child in Mirror(reflecting: value).children {
            guard let label = child.label, let key = Key(stringValue: label) else { continue }
            if let encodable = child.value as? any Encodable {
                try encode(encodable, forKey: key)
            } else if Mirror(reflecting: child.value).displayStyle == .optional {
                try encodeNil(forKey: key)
            } else {
                throw EncodingError.invalidValue(child.value, .init(codingPath: codingPath + [key],
                                                                    debugDescription: "\(T.self).\(label) is not Encodable"))
            }
        }
    }
}
