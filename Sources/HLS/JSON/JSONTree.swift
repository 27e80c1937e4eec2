/// A document being encoded by `JSONDocumentWriter`: scalars already in their JSON spelling,
/// containers filled in place (no copies of subtrees, unlike Foundation's encoder).
enum JSONTree {
    case string(String)
    /// A number, `true`, `false` or `null`, written as is.
    case literal(String)
    case array(JSONArrayBox)
    case object(JSONObjectBox)

    static var null: JSONTree { .literal("null") }
}

final class JSONArrayBox {
    var items: [JSONTree] = []
}

final class JSONObjectBox {
    /// In the order encoded; a key encoded again is a later entry (see `sortedEntries`).
    var keys: [String] = []
    var values: [JSONTree] = []

    func set(_ value: JSONTree, for key: String) {
        keys.append(key)
        values.append(value)
    }

    /// The nested object or array already at `key`, as a second `nestedContainer(forKey:)` finds it.
    func existing(_ key: String) -> JSONTree? {
        guard let index = keys.lastIndex(of: key) else { return nil }
        return values[index]
    }
}

/// Serialises a `JSONTree` as Foundation's `JSONWriter` does with `.sortedKeys` and
/// `.withoutEscapingSlashes`: keys in UTF-8 byte order, two-space indent and `" : "` when pretty,
/// an empty container as `[\n\n]` with the closing indent, control characters as `\uXXXX` in
/// lowercase hex except `\b \f \n \r \t`.
struct JSONTreeSerializer {
    let pretty: Bool
    var bytes: [UInt8] = []
    private var indent = 0

    init(pretty: Bool) {
        self.pretty = pretty
        bytes.reserveCapacity(1 << 16)
    }

    mutating func write(_ tree: JSONTree) {
        switch tree {
        case .string(let text): writeString(text)
        case .literal(let text): append(text)
        case .array(let box):
            bytes.append(UInt8(ascii: "["))
            if pretty { bytes.append(0x0A); indent += 1 }
            for (index, item) in box.items.enumerated() {
                if index > 0 { if pretty { bytes.append(UInt8(ascii: ",")); bytes.append(0x0A) } else { bytes.append(UInt8(ascii: ",")) } }
                if pretty { writeIndent() }
                write(item)
            }
            if pretty { bytes.append(0x0A); indent -= 1; writeIndent() }
            bytes.append(UInt8(ascii: "]"))
        case .object(let box):
            bytes.append(UInt8(ascii: "{"))
            if pretty { bytes.append(0x0A); indent += 1 }
            for (position, entry) in Self.sortedEntries(box).enumerated() {
                if position > 0 { bytes.append(UInt8(ascii: ",")); if pretty { bytes.append(0x0A) } }
                if pretty { writeIndent() }
                writeString(entry.key)
                if pretty { append(" : ") } else { bytes.append(UInt8(ascii: ":")) }
                write(box.values[entry.value])
            }
            if pretty { bytes.append(0x0A); indent -= 1; writeIndent() }
            bytes.append(UInt8(ascii: "}"))
        }
    }

    /// The entries of `box` as Foundation's encoder keeps them in a `[String: Value]` (a key
    /// encoded again, or a canonically equal one, keeps the first spelling and takes the last
    /// value), in UTF-8 byte order of the keys: (key, index of the value).
    static func sortedEntries(_ box: JSONObjectBox) -> [(key: String, value: Int)] {
        var entries: [(key: String, value: Int)] = []
        entries.reserveCapacity(box.keys.count)
        if box.keys.count <= 16 {
            for (index, key) in box.keys.enumerated() {
                if let known = entries.firstIndex(where: { $0.key == key }) { entries[known].value = index } else { entries.append((key, index)) }
            }
        } else {
            var position: [String: Int] = [:]
            for (index, key) in box.keys.enumerated() {
                if let known = position[key] { entries[known].value = index } else {
                    position[key] = entries.count
                    entries.append((key, index))
                }
            }
        }
        entries.sort { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
        return entries
    }

    private mutating func writeIndent() {
        for _ in 0..<indent { bytes.append(0x20); bytes.append(0x20) }
    }

    private mutating func append(_ text: String) {
        var text = text
        text.withUTF8 { bytes.append(contentsOf: $0) }
    }

    private mutating func writeString(_ text: String) {
        JSONString.appendQuoted(text, to: &bytes)
    }
}

/// A JSON string in Foundation's spelling (`"`, `\` and control characters escaped, `/` and
/// everything past ASCII as is): the one escaping the Codable path and `LintJSON` share.
public enum JSONString {
    private static let hex: [UInt8] = Array("0123456789abcdef".utf8)

    public static func appendQuoted(_ text: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { utf8 in
            var mark = 0
            for (index, byte) in utf8.enumerated() where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                if index > mark { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[mark..<index])) }
                mark = index + 1
                bytes.append(UInt8(ascii: "\\"))
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(byte)
                case 0x08: bytes.append(UInt8(ascii: "b"))
                case 0x0C: bytes.append(UInt8(ascii: "f"))
                case 0x0A: bytes.append(UInt8(ascii: "n"))
                case 0x0D: bytes.append(UInt8(ascii: "r"))
                case 0x09: bytes.append(UInt8(ascii: "t"))
                default:
                    bytes.append(contentsOf: [UInt8(ascii: "u"), 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
                }
            }
            if utf8.count > mark { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[mark..<utf8.count])) }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
