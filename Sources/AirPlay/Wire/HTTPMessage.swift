import Foundation

// HTTP/1.1 as AirPlay 1 receivers speak it: requests formatted, responses parsed from bytes as
// they arrive. Pure: no sockets here, so every malformed answer can be tested byte for byte.

/// One request to a receiver. Header order is kept (receivers are simple parsers).
struct HTTPRequest: Sendable, Equatable {
    var method: String
    var path: String
    var headers: [(String, String)]
    var body: Data
    /// `HTTP/1.1`, or `RTSP/1.0` for AirPlay 2's RTSP requests (sent without a `Host` header).
    var version: String

    init(method: String, path: String, headers: [(String, String)] = [], body: Data = Data(), version: String = "HTTP/1.1") {
        self.method = method
        self.path = path
        self.headers = headers
        self.body = body
        self.version = version
    }

    static func == (lhs: HTTPRequest, rhs: HTTPRequest) -> Bool {
        lhs.method == rhs.method && lhs.path == rhs.path && lhs.body == rhs.body && lhs.version == rhs.version
            && lhs.headers.map { "\($0.0):\($0.1)" } == rhs.headers.map { "\($0.0):\($0.1)" }
    }

    /// The bytes on the wire; `Content-Length` is always sent (0 for no body), as receivers expect.
    func serialized(host: String) -> [UInt8] {
        var head = "\(method) \(path) \(version)\r\n"
        if version.hasPrefix("HTTP/") { head += "Host: \(host)\r\n" }
        for (name, value) in headers where name.lowercased() != "content-length" {
            head += "\(name): \(value)\r\n"
        }
        head += "Content-Length: \(body.count)\r\n\r\n"
        return Array(head.utf8) + Array(body)
    }
}

/// One parsed answer.
struct HTTPResponse: Sendable, Equatable {
    var status: Int
    var reason: String
    /// Names lowercased; a repeated header keeps its last value.
    var headers: [String: String]
    var body: Data

    func header(_ name: String) -> String? { headers[name.lowercased()] }

    /// The server said it will close the connection after this answer.
    var closesConnection: Bool {
        header("connection")?.lowercased().contains("close") ?? false
    }
}

/// Why bytes are not a usable HTTP answer.
enum HTTPParseError: Error, Equatable, CustomStringConvertible {
    case badStatusLine(String)
    case badHeader(String)
    case badContentLength(String)
    case badChunk(String)
    case headTooLarge(limit: Int)
    case bodyTooLarge(limit: Int)

    var description: String {
        switch self {
        case .badStatusLine(let line): return "not an HTTP status line: '\(line.prefix(80))'"
        case .badHeader(let line): return "malformed header line '\(line.prefix(80))'"
        case .badContentLength(let value): return "bad Content-Length '\(value.prefix(40))'"
        case .badChunk(let line): return "bad chunk size line '\(line.prefix(40))'"
        case .headTooLarge(let limit): return "response head larger than \(limit) bytes"
        case .bodyTooLarge(let limit): return "body larger than the limit of \(limit) bytes"
        }
    }
}

/// Builds one response from bytes fed in any split. Lines may end in CRLF or a bare LF (Kodi
/// ends some status lines with LF only). Bodies: Content-Length, chunked, or (no length) up to
/// the close of the connection; each bounded by `maxBodyBytes`, checked before buffering.
struct HTTPResponseParser {
    static let maxHeadBytes = 64 * 1024
    let maxBodyBytes: Int
    /// Answers to HEAD have no body whatever their headers say.
    let bodyless: Bool
    private var buffer: [UInt8] = []
    private var head: (status: Int, reason: String, headers: [String: String])?
    private var body: [UInt8] = []
    private var state: State = .head

    private enum State {
        case head
        case fixed(length: Int)
        case chunkSize
        case chunkData(remaining: Int)
        case chunkEnd
        case chunkTrailer
        case untilClose
        case done
    }

    init(maxBodyBytes: Int, bodyless: Bool = false) {
        self.maxBodyBytes = maxBodyBytes
        self.bodyless = bodyless
    }

    /// True once any byte of the answer arrived (a close before that may be a stale keep-alive).
    private(set) var receivedAny = false

    /// Feeds bytes; returns the response once complete. Bytes after a complete response are
    /// ignored (receivers do not pipeline).
    mutating func feed<Bytes: Collection<UInt8>>(_ bytes: Bytes) throws(HTTPParseError) -> HTTPResponse? {
        if !bytes.isEmpty { receivedAny = true }
        buffer.append(contentsOf: bytes)
        return try advance()
    }

    /// The connection closed: a body read up to the close is complete; anything else is not.
    mutating func finish() -> HTTPResponse? {
        guard case .untilClose = state else { return nil }
        body = buffer
        return complete()
    }

    private mutating func complete() -> HTTPResponse? {
        state = .done
        guard let head else { return nil }
        return HTTPResponse(status: head.status, reason: head.reason, headers: head.headers, body: Data(body))
    }

    private mutating func advance() throws(HTTPParseError) -> HTTPResponse? {
        while true {
            switch state {
            case .done:
                return nil
            case .head:
                guard let end = headEnd() else {
                    if buffer.count > Self.maxHeadBytes { throw .headTooLarge(limit: Self.maxHeadBytes) }
                    return nil
                }
                let text = String(decoding: buffer[..<end.head], as: UTF8.self)
                buffer.removeFirst(end.body)
                try startBody(head: text)
            case .fixed(let length):
                guard buffer.count >= length else { return nil }
                body = Array(buffer[..<length])
                return complete()
            case .untilClose:
                if buffer.count > maxBodyBytes { throw .bodyTooLarge(limit: maxBodyBytes) }
                return nil
            case .chunkSize:
                guard let line = takeLine() else {
                    if buffer.count > 1024 { throw .badChunk(String(decoding: buffer.prefix(40), as: UTF8.self)) }
                    return nil
                }
                let digits = line.split(separator: ";", maxSplits: 1).first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
                guard !digits.isEmpty, digits.count <= 15, let size = Int(digits, radix: 16), size >= 0 else {
                    throw .badChunk(line)
                }
                guard body.count + size <= maxBodyBytes else { throw .bodyTooLarge(limit: maxBodyBytes) }
                state = size == 0 ? .chunkTrailer : .chunkData(remaining: size)
            case .chunkData(let remaining):
                let take = min(remaining, buffer.count)
                body.append(contentsOf: buffer[..<take])
                buffer.removeFirst(take)
                guard take == remaining else {
                    state = .chunkData(remaining: remaining - take)
                    return nil
                }
                state = .chunkEnd
            case .chunkEnd:
                guard let line = takeLine() else {
                    if buffer.count > 2 { throw .badChunk(String(decoding: buffer.prefix(40), as: UTF8.self)) }
                    return nil
                }
                guard line.isEmpty else { throw .badChunk(line) }
                state = .chunkSize
            case .chunkTrailer:
                guard let line = takeLine() else {
                    if buffer.count > Self.maxHeadBytes { throw .headTooLarge(limit: Self.maxHeadBytes) }
                    return nil
                }
                if line.isEmpty { return complete() }
            }
        }
    }

    /// Where the head ends (before the blank line) and the body starts: CRLFCRLF or LFLF or a mix.
    private func headEnd() -> (head: Int, body: Int)? {
        var index = 0
        while index < buffer.count, let lf = buffer[index...].firstIndex(of: 0x0A) {
            let next = lf + 1
            if next < buffer.count, buffer[next] == 0x0A { return (lf, next + 1) }
            if next + 1 < buffer.count, buffer[next] == 0x0D, buffer[next + 1] == 0x0A { return (lf, next + 2) }
            index = next
        }
        return nil
    }

    /// One line without its CRLF or LF, removed from the buffer; nil until a LF arrives.
    private mutating func takeLine() -> String? {
        guard let lf = buffer.firstIndex(of: 0x0A) else { return nil }
        var line = buffer[..<lf]
        if line.last == 0x0D { line = line.dropLast() }
        let text = String(decoding: line, as: UTF8.self)
        buffer.removeFirst(lf + 1)
        return text
    }

    private mutating func startBody(head text: String) throws(HTTPParseError) {
        // By scalar: in Swift "\r\n" is one Character, and a split on "\n" would not see it.
        var lines = text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false).map {
            String(String.UnicodeScalarView($0.last == "\r" ? $0.dropLast() : $0[...]))
        }
        let statusLine = lines.removeFirst()
        let parts = statusLine.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/") || parts[0].hasPrefix("RTSP/"),
              parts[1].count == 3, let status = Int(parts[1]) else {
            throw .badStatusLine(statusLine)
        }
        let reason = parts.count > 2 ? String(parts[2]) : ""
        var headers: [String: String] = [:]
        for line in lines where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else { throw .badHeader(line) }
            let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
            headers[name] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        head = (status, reason, headers)
        if bodyless || status / 100 == 1 || status == 204 || status == 304 {
            state = .fixed(length: 0)
        } else if headers["transfer-encoding"]?.lowercased().contains("chunked") == true {
            state = .chunkSize
        } else if let value = headers["content-length"] {
            guard let length = Int(value), length >= 0 else { throw .badContentLength(value) }
            guard length <= maxBodyBytes else { throw .bodyTooLarge(limit: maxBodyBytes) }
            state = .fixed(length: length)
        } else if parts[0].hasPrefix("RTSP/") {
            // RTSP (RFC 2326 12.14): no Content-Length, no body. UxPlay answers /pair-pin-start so.
            state = .fixed(length: 0)
        } else {
            state = .untilClose
        }
    }
}
