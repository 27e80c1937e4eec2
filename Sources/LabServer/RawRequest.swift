/// A request head read straight from a connection's bytes (RFC 9112 2-5), for `PlaylistFastPath`:
/// only the plain form receivers send is recognised (a request line `METHOD /target HTTP/1.x`,
/// header lines of visible ASCII ending in CRLF, no body). A head it recognises has a known end
/// (no `Content-Length` or `Transfer-Encoding`: RFC 9112 6.3 gives it no body), so the bytes after
/// it start the next request. Anything else (a body, `Upgrade`, obs-fold, bytes past ASCII, a bare
/// LF, a head past `limit`) is `unrecognised`: NIO's parser reads it and the rest of the connection,
/// as it reads every request that has no fast path.
struct RawRequest: Equatable {
    enum Method: Equatable { case get, head, other }

    var method: Method
    /// The method as sent (`GET`, `HEAD`, ...).
    var methodName: String
    /// The request target as sent (path and query, still percent-encoded).
    var target: String
    /// HTTP/1.0 (else 1.1).
    var http10: Bool
    var host: String?
    var userAgent: String?
    var range: String?
    /// The connection stays open after the answer (RFC 9112 9.3, as NIO's `isKeepAlive` reads it).
    var keepAlive: Bool
    /// The request carries `LabAccess.pushedForHeader` (Hummingbird's middleware reads it).
    var pushedFor: Bool

    enum Scan: Equatable {
        /// No end of the head yet: wait for more bytes.
        case incomplete
        /// A whole request, the first `length` bytes.
        case request(RawRequest, length: Int)
        /// Not the plain form: NIO's parser takes it from here.
        case unrecognised
    }

    /// Heads longer than this are left to NIO's parser (its own limit is larger).
    static let limit = 16 * 1024

    static func scan(_ bytes: UnsafeRawBufferPointer, limit: Int = RawRequest.limit) -> Scan {
        let cr = UInt8(ascii: "\r"), lf = UInt8(ascii: "\n"), space = UInt8(ascii: " ")
        let count = bytes.count
        // The request line.
        var i = 0
        while i < count, bytes[i] >= UInt8(ascii: "A"), bytes[i] <= UInt8(ascii: "Z") { i += 1 }
        if i == count { return count > 32 ? .unrecognised : .incomplete }
        guard i > 0, bytes[i] == space else { return .unrecognised }
        let methodEnd = i
        i += 1
        let targetStart = i
        while i < count, bytes[i] > space, bytes[i] < 0x7F { i += 1 }
        if i == count { return count > limit ? .unrecognised : .incomplete }
        guard i > targetStart, bytes[i] == space else { return .unrecognised }
        let targetEnd = i
        i += 1
        // `HTTP/1.0` or `HTTP/1.1`, then CRLF; a prefix of it while still arriving.
        let version = Array("HTTP/1.x\r\n".utf8)
        for k in 0..<min(version.count, count - i) {
            let byte = bytes[i + k]
            let fits = k == 7 ? (byte == UInt8(ascii: "0") || byte == UInt8(ascii: "1")) : byte == version[k]
            guard fits else { return .unrecognised }
        }
        if count - i < version.count { return .incomplete }
        let minor = bytes[i + 7]
        i += version.count
        let http10 = minor == UInt8(ascii: "0")

        var methodName = ""
        var method = Method.other
        let methodBytes = UnsafeRawBufferPointer(rebasing: bytes[0..<methodEnd])
        if methodBytes.elementsEqual("GET".utf8) { method = .get; methodName = "GET" }
        else if methodBytes.elementsEqual("HEAD".utf8) { method = .head; methodName = "HEAD" }
        else { methodName = String(decoding: methodBytes, as: UTF8.self) }
        var request = RawRequest(method: method, methodName: methodName, target: "", http10: http10, host: nil, userAgent: nil,
                                 range: nil, keepAlive: !http10, pushedFor: false)
        var hosts = 0
        var closeToken = false, keepAliveToken = false

        // Header lines, up to the empty one.
        while true {
            if i + 1 >= count { return count > limit ? .unrecognised : .incomplete }
            if bytes[i] == cr {
                guard bytes[i + 1] == lf else { return .unrecognised }
                i += 2
                break
            }
            let nameStart = i
            while i < count, isTokenByte(bytes[i]) { i += 1 }
            if i == count { return count > limit ? .unrecognised : .incomplete }
            guard i > nameStart, bytes[i] == UInt8(ascii: ":") else { return .unrecognised }
            let nameEnd = i
            i += 1
            while i < count, bytes[i] == space || bytes[i] == UInt8(ascii: "\t") { i += 1 }
            let valueStart = i
            while i < count, bytes[i] == UInt8(ascii: "\t") || (bytes[i] >= space && bytes[i] < 0x7F) { i += 1 }
            if i == count { return count > limit ? .unrecognised : .incomplete }
            guard bytes[i] == cr else { return .unrecognised }
            if i + 1 == count { return count > limit ? .unrecognised : .incomplete }
            guard bytes[i + 1] == lf else { return .unrecognised }
            var valueEnd = i
            while valueEnd > valueStart, bytes[valueEnd - 1] == space || bytes[valueEnd - 1] == UInt8(ascii: "\t") { valueEnd -= 1 }
            i += 2
            if i > limit { return .unrecognised }
            let name = UnsafeRawBufferPointer(rebasing: bytes[nameStart..<nameEnd])
            let value = UnsafeRawBufferPointer(rebasing: bytes[valueStart..<valueEnd])
            switch name.count {
            case 4 where equalsLowercased(name, "host"):
                hosts += 1
                request.host = String(decoding: value, as: UTF8.self)
            case 5 where equalsLowercased(name, "range"):
                request.range = joined(request.range, value)
            case 10 where equalsLowercased(name, "user-agent"):
                request.userAgent = joined(request.userAgent, value)
            case 10 where equalsLowercased(name, "connection"):
                for token in value.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: true) {
                    var token = token[...]
                    while let first = token.first, first == space || first == UInt8(ascii: "\t") { token = token.dropFirst() }
                    while let last = token.last, last == space || last == UInt8(ascii: "\t") { token = token.dropLast() }
                    if equalsLowercased(token, "close") { closeToken = true }
                    if equalsLowercased(token, "keep-alive") { keepAliveToken = true }
                }
            case 7 where equalsLowercased(name, "upgrade"),
                 14 where equalsLowercased(name, "content-length"),
                 17 where equalsLowercased(name, "transfer-encoding"):
                return .unrecognised
            case pushedForName.count where equalsLowercased(name, pushedForName):
                request.pushedFor = true
            default:
                break
            }
        }
        guard hosts <= 1 else { return .unrecognised }
        request.target = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[targetStart..<targetEnd]), as: UTF8.self)
        request.keepAlive = closeToken ? false : (http10 ? keepAliveToken : true)
        return .request(request, length: i)
    }

    private static let pushedForName = LabAccess.pushedForHeader.lowercased()

    /// A header repeated: its values joined as HTTP fields join them.
    private static func joined(_ known: String?, _ value: UnsafeRawBufferPointer) -> String {
        let text = String(decoding: value, as: UTF8.self)
        return known.map { $0 + ", " + text } ?? text
    }

    private static func equalsLowercased<C: Collection>(_ bytes: C, _ lowercase: String) -> Bool where C.Element == UInt8 {
        bytes.count == lowercase.utf8.count && zip(bytes, lowercase.utf8).allSatisfy { byte, expected in
            (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte) == expected
        }
    }

    /// `tchar` (RFC 9110 5.6.2).
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"), UInt8(ascii: "'"),
             UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "^"), UInt8(ascii: "_"),
             UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }
}
