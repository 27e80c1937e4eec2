/// A URI reference split as RFC 3986 Appendix B splits it, and resolved as section 5.2 says.
///
/// Written out rather than left to Foundation's URL(string:relativeTo:) so that the result is
/// the same on every platform and pinned by the RFC's own examples (section 5.4) in the tests.
public struct URIReference: Sendable, Equatable, CustomStringConvertible {
    public var scheme: String?
    public var authority: String?
    public var path: String
    public var query: String?
    public var fragment: String?

    public init(scheme: String?, authority: String?, path: String, query: String?, fragment: String?) {
        self.scheme = scheme
        self.authority = authority
        self.path = path
        self.query = query
        self.fragment = fragment
    }

    /// Splits without validating: `^(([^:/?#]+):)?(//([^/?#]*))?([^?#]*)(\?([^#]*))?(#(.*))?`.
    /// The delimiters are ASCII, so the split walks UTF-8 bytes (not Characters: URIs of 64 KiB
    /// from EXT-X-DEFINE are resolved for every interstitial).
    public init(parsing text: String) {
        let utf8 = text.utf8
        var rest = utf8[...]
        func isByte(_ b: UInt8, in set: StaticString) -> Bool {
            set.withUTF8Buffer { $0.contains(b) }
        }
        scheme = nil
        if let colon = rest.firstIndex(where: { isByte($0, in: ":/?#") }), rest[colon] == UInt8(ascii: ":"), colon != rest.startIndex {
            scheme = String(Substring(rest[..<colon]))
            rest = rest[utf8.index(after: colon)...]
        }
        authority = nil
        if rest.starts(with: "//".utf8) {
            let after = rest.dropFirst(2)
            let end = after.firstIndex(where: { isByte($0, in: "/?#") }) ?? after.endIndex
            authority = String(Substring(after[..<end]))
            rest = after[end...]
        }
        if let hash = rest.firstIndex(of: UInt8(ascii: "#")) {
            fragment = String(Substring(rest[utf8.index(after: hash)...]))
            rest = rest[..<hash]
        } else {
            fragment = nil
        }
        if let mark = rest.firstIndex(of: UInt8(ascii: "?")) {
            query = String(Substring(rest[utf8.index(after: mark)...]))
            rest = rest[..<mark]
        } else {
            query = nil
        }
        path = String(Substring(rest))
    }

    /// Recomposed as RFC 3986 5.3 does.
    public var description: String {
        var out = ""
        if let scheme { out += scheme + ":" }
        if let authority { out += "//" + authority }
        out += path
        if let query { out += "?" + query }
        if let fragment { out += "#" + fragment }
        return out
    }

    public var isAbsolute: Bool { scheme != nil }

    /// RFC 3986 5.2.2 (strict): this reference resolved against an absolute `base`.
    public func resolved(against base: URIReference) -> URIReference {
        var target = URIReference(scheme: nil, authority: nil, path: "", query: nil, fragment: fragment)
        if let scheme {
            target.scheme = scheme
            target.authority = authority
            target.path = Self.removeDotSegments(path)
            target.query = query
            return target
        }
        target.scheme = base.scheme
        if authority != nil {
            target.authority = authority
            target.path = Self.removeDotSegments(path)
            target.query = query
            return target
        }
        target.authority = base.authority
        if path.isEmpty {
            target.path = base.path
            target.query = query ?? base.query
        } else {
            target.path = path.hasPrefix("/") ? Self.removeDotSegments(path) : Self.removeDotSegments(merge(base))
            target.query = query
        }
        return target
    }

    /// RFC 3986 5.2.3.
    private func merge(_ base: URIReference) -> String {
        if base.authority != nil, base.path.isEmpty { return "/" + path }
        guard let slash = base.path.lastIndex(of: "/") else { return path }
        return String(base.path[...slash]) + path
    }

    /// RFC 3986 5.2.4.
    static func removeDotSegments(_ path: String) -> String {
        // Most paths have no segment that starts with ".": nothing to remove, and no walk by Characters.
        var previous = UInt8(ascii: "/")
        guard path.utf8.contains(where: { byte in
            defer { previous = byte }
            return byte == UInt8(ascii: ".") && previous == UInt8(ascii: "/")
        }) else { return path }
        var input = Substring(path)
        var output: [Substring] = []
        while !input.isEmpty {
            if input.hasPrefix("../") {
                input = input.dropFirst(3)
            } else if input.hasPrefix("./") {
                input = input.dropFirst(2)
            } else if input.hasPrefix("/./") {
                input = input.dropFirst(2)
            } else if input == "/." {
                input = "/"
            } else if input.hasPrefix("/../") {
                input = input.dropFirst(3)
                if !output.isEmpty { output.removeLast() }
            } else if input == "/.." {
                input = "/"
                if !output.isEmpty { output.removeLast() }
            } else if input == "." || input == ".." {
                input = ""
            } else {
                let searchStart = input.hasPrefix("/") ? input.index(after: input.startIndex) : input.startIndex
                let end = input[searchStart...].firstIndex(of: "/") ?? input.endIndex
                output.append(input[..<end])
                input = input[end...]
            }
        }
        return output.joined()
    }

    /// Percent-encodes what may not appear in a URI (spaces, non-ASCII), leaving `%XX` and the
    /// reserved characters alone, so that what playlists write in practice still resolves.
    public static func encodingInvalidCharacters(_ text: String) -> String {
        guard !text.utf8.allSatisfy(isAllowed) else { return text }
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count + 16)
        for byte in text.utf8 {
            if isAllowed(byte) {
                out.append(byte)
            } else {
                out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// An absolute http(s) reference that resolves to itself: a lowercase scheme, no byte that
    /// `encodingInvalidCharacters` would encode, no fragment, no dot segment to remove.
    static func isPlainHTTP(_ text: String) -> Bool {
        let utf8 = text.utf8
        guard utf8.starts(with: "https://".utf8) || utf8.starts(with: "http://".utf8) else { return false }
        var previous: UInt8 = 0
        for byte in utf8 {
            guard isAllowed(byte), byte != UInt8(ascii: "#"), !(byte == UInt8(ascii: ".") && previous == UInt8(ascii: "/")) else { return false }
            previous = byte
        }
        return true
    }

    private static func isAllowed(_ byte: UInt8) -> Bool {
        switch byte {
        case 0...0x20, 0x7F...: return false
        case UInt8(ascii: "\""), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "\\"), UInt8(ascii: "^"), UInt8(ascii: "`"),
             UInt8(ascii: "{"), UInt8(ascii: "|"), UInt8(ascii: "}"): return false
        default: return true
        }
    }

    /// `%XX` sequences decoded, as Foundation's `removingPercentEncoding` (nil for a `%` without
    /// two hexadecimal digits or bytes that are not UTF-8), in one pass over the bytes.
    public static func removingPercentEncoding(_ text: String) -> String? {
        guard text.utf8.contains(UInt8(ascii: "%")) else { return text }
        func hexValue(_ byte: UInt8) -> UInt8? {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
            case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
            case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
            default: return nil
            }
        }
        let bytes = Array(text.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = 0
        while i < bytes.count {
            if bytes[i] == UInt8(ascii: "%") {
                guard i + 2 < bytes.count, let high = hexValue(bytes[i + 1]), let low = hexValue(bytes[i + 2]) else { return nil }
                out.append(high << 4 | low)
                i += 3
            } else {
                out.append(bytes[i])
                i += 1
            }
        }
        return String(validating: out, as: UTF8.self)
    }

    /// Whether `text` starts with a scheme (RFC 3986 Appendix B's split), without splitting it.
    static func hasScheme(_ text: Substring.UTF8View) -> Bool {
        guard let delimiter = text.firstIndex(where: { $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") })
        else { return false }
        return text[delimiter] == UInt8(ascii: ":") && delimiter != text.startIndex
    }
}
