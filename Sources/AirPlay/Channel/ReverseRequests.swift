import Foundation

/// Bounds of the reverse connection: a receiver that sends garbage, a huge event or a flood of
/// them is a finding and its connection is closed; nothing it sends is buffered past these.
public struct ReverseLimits: Sendable, Equatable {
    /// A request head (request line and headers) larger than this is garbage.
    public var maxHeadBytes: Int
    /// An event body larger than this (its `Content-Length`) is refused before it is read.
    public var maxEventBytes: Int
    /// Events read and not yet taken by the sender; one more closes the connection.
    public var maxQueuedEvents: Int

    public init(maxHeadBytes: Int = 16 << 10, maxEventBytes: Int = 256 << 10, maxQueuedEvents: Int = 64) {
        self.maxHeadBytes = maxHeadBytes
        self.maxEventBytes = maxEventBytes
        self.maxQueuedEvents = maxQueuedEvents
    }
}

/// One request the receiver sent on the reverse connection.
struct ReverseRequest: Equatable {
    var method: String
    var path: String
    var version: String
    /// Names lowercased.
    var headers: [String: String]
    var body: Data

    /// The answer: `200 OK`, empty, with the request's `CSeq` when it had one.
    var answer: [UInt8] {
        var text = "\(version.hasPrefix("RTSP/") ? "RTSP/1.0" : "HTTP/1.1") 200 OK\r\nContent-Length: 0\r\n"
        if let cseq = headers["cseq"] { text += "CSeq: \(cseq)\r\n" }
        return Array((text + "\r\n").utf8)
    }
}

/// Splits the receiver's bytes into requests (Content-Length bodies; lines ending in CRLF or LF).
/// Pure, so every malformed stream can be tested byte for byte. After a finding it takes nothing
/// more: the connection is to be closed.
struct ReverseRequestParser {
    let limits: ReverseLimits
    private var buffer: [UInt8] = []
    private var head: (method: String, path: String, version: String, headers: [String: String], length: Int)?
    private(set) var failed = false

    init(limits: ReverseLimits) { self.limits = limits }

    /// Takes `bytes` and returns every request now complete, or the finding that ends the stream.
    mutating func feed<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Result<[ReverseRequest], PushFinding> {
        guard !failed else { return .success([]) }
        buffer.append(contentsOf: bytes)
        var complete: [ReverseRequest] = []
        while true {
            if head == nil {
                guard let end = Self.headEnd(buffer) else {
                    if buffer.count > limits.maxHeadBytes { return fail("a request head larger than \(limits.maxHeadBytes) bytes") }
                    return .success(complete)
                }
                guard end.head <= limits.maxHeadBytes else { return fail("a request head larger than \(limits.maxHeadBytes) bytes") }
                let text = String(decoding: buffer[..<end.head], as: UTF8.self)
                buffer.removeFirst(end.body)
                switch Self.parseHead(text, limits: limits) {
                case .success(let parsed): head = parsed
                case .failure(let finding): return fail(finding.description)
                }
            }
            guard let current = head, buffer.count >= current.length else { return .success(complete) }
            complete.append(ReverseRequest(method: current.method, path: current.path, version: current.version,
                                           headers: current.headers, body: Data(buffer[..<current.length])))
            buffer.removeFirst(current.length)
            head = nil
        }
    }

    private mutating func fail(_ reason: String) -> Result<[ReverseRequest], PushFinding> {
        failed = true
        buffer = []
        return .failure(PushFinding("reverse connection: \(reason)"))
    }

    private static func parseHead(_ text: String, limits: ReverseLimits)
        -> Result<(method: String, path: String, version: String, headers: [String: String], length: Int), PushFinding> {
        var lines = text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false).map {
            String(String.UnicodeScalarView($0.last == "\r" ? $0.dropLast() : $0[...]))
        }
        let requestLine = lines.removeFirst()
        let parts = requestLine.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        let printable = requestLine.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value < 0x7F }
        guard parts.count == 3, printable, parts[0].allSatisfy({ $0.isLetter || $0 == "_" }),
              ["HTTP/", "RTSP/", "EVENT/"].contains(where: { parts[2].hasPrefix($0) }) else {
            return .failure(PushFinding("not a request line: '\(printableText(requestLine.prefix(60)))'"))
        }
        var headers: [String: String] = [:]
        for line in lines where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else {
                return .failure(PushFinding("malformed header line '\(printableText(line.prefix(60)))'"))
            }
            headers[line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()] =
                line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        if headers["transfer-encoding"] != nil {
            return .failure(PushFinding("\(parts[0]) \(parts[1].prefix(60)) with Transfer-Encoding (only Content-Length bodies are read)"))
        }
        var length = 0
        if let value = headers["content-length"] {
            guard let parsed = Int(value), parsed >= 0 else {
                return .failure(PushFinding("bad Content-Length '\(printableText(value.prefix(20)))'"))
            }
            guard parsed <= limits.maxEventBytes else {
                return .failure(PushFinding("\(parts[0]) \(parts[1].prefix(60)) of \(parsed) bytes, over the limit of \(limits.maxEventBytes)"))
            }
            length = parsed
        }
        return .success((parts[0], parts[1], parts[2], headers, length))
    }

    /// Where the head ends (before the blank line) and the body starts: CRLFCRLF, LFLF or a mix.
    static func headEnd(_ buffer: [UInt8]) -> (head: Int, body: Int)? {
        var index = 0
        while index < buffer.count, let lf = buffer[index...].firstIndex(of: 0x0A) {
            let next = lf + 1
            if next < buffer.count, buffer[next] == 0x0A { return (lf, next + 1) }
            if next + 1 < buffer.count, buffer[next] == 0x0D, buffer[next + 1] == 0x0A { return (lf, next + 2) }
            index = next
        }
        return nil
    }

    static func printableText<S: StringProtocol>(_ text: S) -> String {
        String(text.unicodeScalars.map { $0.value >= 0x20 && $0.value < 0x7F ? Character($0) : "?" })
    }
}
