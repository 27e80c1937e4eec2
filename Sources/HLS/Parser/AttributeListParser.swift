/// The attribute-list grammar of rfc8216bis 4.2, over the UTF-8 bytes after a tag's colon.
///
/// Lenient where players are (spaces around commas), strict where the grammar matters: an
/// unterminated quote, a missing `=`, a repeated name or an empty value is a diagnostic and the
/// attribute is dropped, never a crash or a silently different value.
enum AttributeListParser {
    static let maxAttributes = 256

    static func parse(_ b: UnsafeBufferPointer<UInt8>, line: Int, tag: String, variables: VariableTable,
                      diagnostics: inout [PlaylistDiagnostic]) -> AttributeList {
        var items: [Attribute] = []
        items.reserveCapacity(8)
        let n = b.count
        var i = 0
        func problem(_ message: String) {
            diagnostics.append(PlaylistDiagnostic(line: line, level: .error, tag: tag, message: message))
        }
        while i < n {
            while i < n, b[i] == 0x20 || b[i] == 0x09 { i += 1 }
            if i == n { break }
            let nameStart = i
            while i < n, b[i] != UInt8(ascii: "="), b[i] != UInt8(ascii: ",") { i += 1 }
            var nameEnd = i
            while nameEnd > nameStart, b[nameEnd - 1] == 0x20 { nameEnd -= 1 }
            let name = String(decoding: UnsafeBufferPointer(rebasing: b[nameStart..<nameEnd]), as: UTF8.self)
            guard i < n, b[i] == UInt8(ascii: "=") else {
                problem(name.isEmpty ? "empty attribute (two commas in a row?)" : "attribute \(name) has no '=value'; it is ignored")
                if i < n { i += 1 }
                continue
            }
            i += 1
            while i < n, b[i] == 0x20 { i += 1 }
            let value: AttributeValue
            if i < n, b[i] == UInt8(ascii: "\"") {
                let start = i + 1
                var close = start
                while close < n, b[close] != UInt8(ascii: "\"") { close += 1 }
                guard close < n else {
                    problem("the quoted value of \(name) has no closing quote; \(name) is ignored")
                    break
                }
                var text = String(decoding: UnsafeBufferPointer(rebasing: b[start..<close]), as: UTF8.self)
                if variables.mayReference(UnsafeBufferPointer(rebasing: b[start..<close])) {
                    text = variables.substitute(text, line: line, tag: tag, diagnostics: &diagnostics)
                }
                value = .quotedString(text)
                i = close + 1
                while i < n, b[i] == 0x20 { i += 1 }
                if i < n, b[i] != UInt8(ascii: ",") {
                    problem("unexpected text after the quoted value of \(name)")
                    while i < n, b[i] != UInt8(ascii: ",") { i += 1 }
                }
            } else {
                let start = i
                while i < n, b[i] != UInt8(ascii: ",") { i += 1 }
                var end = i
                while end > start, b[end - 1] == 0x20 || b[end - 1] == 0x09 { end -= 1 }
                let token = UnsafeBufferPointer(rebasing: b[start..<end])
                guard !token.isEmpty else {
                    problem("attribute \(name) has an empty value; it is ignored")
                    if i < n { i += 1 }
                    continue
                }
                value = variables.mayReference(token)
                    ? substituted(token, name: name, line: line, tag: tag, variables: variables, diagnostics: &diagnostics)
                    : classify(token)
            }
            if i < n { i += 1 }
            if !isValidName(name) {
                problem("attribute name \"\(name)\" has characters outside [A-Z0-9-]")
            }
            if items.contains(where: { $0.name == name }) {
                problem("attribute \(name) appears more than once; the first value is used")
                continue
            }
            // Real tags have a few dozen; the cap keeps the duplicate check from going quadratic
            // on a hostile line of a million attributes.
            guard items.count < Self.maxAttributes else {
                problem("more than \(Self.maxAttributes) attributes; the rest of the tag is ignored")
                break
            }
            items.append(Attribute(name: name, value: value))
        }
        return AttributeList(items)
    }

    /// An unquoted value with a `{$NAME}` in it. rfc8216bis 4.3 allows variable references in
    /// hexadecimal-sequences (besides URI lines and quoted-strings): a value written `0x...`, or
    /// one that substitution turns into `0x` and hexadecimal digits, is substituted and then
    /// typed (so `0x{$id}` with id=ZZ is an invalid hexadecimal-sequence, as players see it).
    /// A reference in any other unquoted value is a diagnostic and is left as written.
    static func substituted(_ token: UnsafeBufferPointer<UInt8>, name: String, line: Int, tag: String, variables: VariableTable,
                            diagnostics: inout [PlaylistDiagnostic]) -> AttributeValue {
        let written = String(decoding: token, as: UTF8.self)
        let hexadecimal = written.hasPrefix("0x") || written.hasPrefix("0X")
        var scratch: [PlaylistDiagnostic] = []
        var text = variables.substitute(written, line: line, tag: tag, diagnostics: &scratch)
        let value = text.withUTF8 { classify($0) }
        if hexadecimal {
            diagnostics += scratch
            return value
        }
        if case .hexadecimal = value {
            diagnostics += scratch
            return value
        }
        diagnostics.append(PlaylistDiagnostic(line: line, level: .warning, tag: tag,
            message: "\(name)=\(written): a variable reference in an unquoted value that is not a hexadecimal-sequence; rfc8216bis 4.3 allows "
                + "them only in URI lines, quoted-strings and hexadecimal-sequences, so it is left as written (hls.js substitutes it anyway): quote the value or write 0x..."))
        return classify(token)
    }

    /// The type of an unquoted value from its spelling.
    static func classify(_ t: UnsafeBufferPointer<UInt8>) -> AttributeValue {
        let text = String(decoding: t, as: UTF8.self)
        if t.count > 2, t[0] == UInt8(ascii: "0"), t[1] == UInt8(ascii: "x") || t[1] == UInt8(ascii: "X"),
           t[2...].allSatisfy(isHexDigit) {
            return .hexadecimal(text)
        }
        if let d = HLSNumber.parse(t) { return .decimal(d, text: text) }
        if let x = t.firstIndex(of: UInt8(ascii: "x")),
           let w = HLSNumber.parseInteger(UnsafeBufferPointer(rebasing: t[..<x])),
           let h = HLSNumber.parseInteger(UnsafeBufferPointer(rebasing: t[(x + 1)...])) {
            return .resolution(width: w, height: h)
        }
        return .enumerated(text)
    }

    private static func isHexDigit(_ c: UInt8) -> Bool {
        (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102)
    }

    private static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.allSatisfy { ($0 >= 65 && $0 <= 90) || ($0 >= 48 && $0 <= 57) || $0 == UInt8(ascii: "-") }
    }
}

/// EXT-X-DEFINE variables and `{$NAME}` substitution (rfc8216bis 4.3).
struct VariableTable: Sendable {
    private(set) var values: [String: String] = [:]
    /// Bytes substitution has added in this parse, shared by every copy of the table: the
    /// per-line cap alone lets millions of short lines each grow by 64 KiB.
    private let budget = ExpansionBudget()

    var isEmpty: Bool { values.isEmpty }

    mutating func define(_ name: String, _ value: String) { values[name] = value }

    func value(_ name: String) -> String? { values[name] }

    /// The most bytes one substituted line (or value) may grow to.
    static let maxExpansion = 64 * 1024
    /// The most bytes substitution may add in one parse (four maximum-size playlists).
    static let maxTotalExpansion = 64 << 20

    /// Cheap pre-check: substitution is only attempted where `{$` occurs.
    func mayReference(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard b.count >= 4 else { return false }
        for k in 0..<(b.count - 1) where b[k] == UInt8(ascii: "{") && b[k + 1] == UInt8(ascii: "$") { return true }
        return false
    }

    /// Replaces every `{$NAME}`; an undefined NAME is a diagnostic (the spec makes it a parse
    /// failure) and the reference is left as written.
    func substitute(_ text: String, line: Int, tag: String?, diagnostics: inout [PlaylistDiagnostic]) -> String {
        var result = ""
        var rest = Substring(text)
        while let open = rest.range(of: "{$") {
            result += rest[..<open.lowerBound]
            let after = rest[open.upperBound...]
            guard let close = after.firstIndex(of: "}") else {
                result += rest[open.lowerBound...]
                rest = ""
                break
            }
            let name = String(after[..<close])
            if let value = values[name], Self.isValidName(name) {
                // Values are themselves substituted, so nested definitions multiply: cap the
                // expansion of one line so a small playlist cannot exhaust memory.
                guard result.utf8.count + value.utf8.count <= Self.maxExpansion else {
                    diagnostics.append(PlaylistDiagnostic(line: line, level: .error, tag: tag,
                        message: "variable substitution grows past \(Self.maxExpansion) bytes; the rest of the line is left as written"))
                    result += rest[open.lowerBound...]
                    rest = ""
                    break
                }
                guard budget.spend(value.utf8.count) else {
                    if budget.firstRefusal() { diagnostics.append(PlaylistDiagnostic(line: line, level: .error, tag: tag,
                        message: "variable substitution has added \(Self.maxTotalExpansion >> 20) MiB to this playlist; later references are left as written")) }
                    result += rest[open.lowerBound...]
                    rest = ""
                    break
                }
                result += value
            } else {
                diagnostics.append(PlaylistDiagnostic(line: line, level: .error, tag: tag,
                    message: "variable reference {$\(name)} has no EXT-X-DEFINE before it; it is left as written"))
                result += rest[open.lowerBound...close]
            }
            rest = after[after.index(after: close)...]
        }
        return result + rest
    }

    static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.allSatisfy {
            ($0 >= 65 && $0 <= 90) || ($0 >= 97 && $0 <= 122) || ($0 >= 48 && $0 <= 57) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_")
        }
    }
}

/// A byte count shared by the copies of one parse's `VariableTable`; reports its limit once.
final class ExpansionBudget: @unchecked Sendable {
    private var spent = 0
    private var exhausted = false
    private var reported = false

    /// True the first time only: the limit is one diagnostic, not one per line.
    func firstRefusal() -> Bool {
        defer { reported = true }
        return !reported
    }

    /// Whether `bytes` more fit; false from the first time they do not.
    func spend(_ bytes: Int) -> Bool {
        guard !exhausted, spent + bytes <= VariableTable.maxTotalExpansion else {
            exhausted = true
            return false
        }
        spent += bytes
        return true
    }
}
