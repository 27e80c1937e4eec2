import Foundation
import LabCore
import Hummingbird
import Logging
import NIOCore
import NIOPosix

/// The suite's files, confined to its folder: a path is resolved with its symbolic links (the cases
/// link to the shared primary) and refused unless the real file is inside the real suite folder.
/// FileMiddleware already refuses `..` after percent-decoding; this also stops a link that points out.
struct SuiteFileProvider: FileProvider {
    typealias FileAttributes = LocalFileSystem.FileAttributes
    typealias FileIdentifier = String

    let root: String
    let paths: ConfinedPaths
    private let files: LocalFileSystem
    /// Reads of 256 KiB, one at a time and only when the socket has taken the one before
    /// (RequestLogMiddleware waits on the connection's SocketMeter): no read-ahead, so a client that
    /// stops reading holds a few chunks, not the file. (Hummingbird's FileIO reads up to 8 chunks ahead.)
    static let chunkLength = 256 << 10

    init(root: String, paths: ConfinedPaths? = nil, logger: Logger) {
        self.root = root
        self.paths = paths ?? ConfinedPaths(root: root)
        self.files = LocalFileSystem(rootFolder: root, threadPool: .singleton, logger: logger)
    }

    func getFileIdentifier(_ path: String) -> String? {
        paths.resolve(path)?.path
    }

    func getAttributes(id: String) async throws -> FileAttributes? {
        try await files.getAttributes(id: id)
    }

    func loadFile(id: String, context: some RequestContext) async throws -> ResponseBody {
        try await SuiteFileReader.open(id, range: nil)
    }

    func loadFile(id: String, range: ClosedRange<Int>, context: some RequestContext) async throws -> ResponseBody {
        try await SuiteFileReader.open(id, range: range)
    }
}

/// A suite file as a response body read chunk by chunk on the thread pool, each chunk read only
/// once the writer took the one before.
enum SuiteFileReader {
    struct ReadFailed: Error, CustomStringConvertible {
        var description: String
    }

    /// The body of `path` (or of `range` of it, clamped to the file); 404 when it cannot be opened.
    static func open(_ path: String, range: ClosedRange<Int>?) async throws -> ResponseBody {
        let pool = NIOThreadPool.singleton
        let size: Int
        do {
            size = try await pool.runIfActive {
                var info = stat()
                guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
                    throw ReadFailed(description: "\(path): not a readable regular file")
                }
                return Int(info.st_size)
            }
        } catch { throw HTTPError(.notFound) }
        guard size > 0 else { return .init() }
        let whole = 0...(size - 1)
        let span = range.map { $0.clamped(to: whole) } ?? whole
        return ResponseBody(contentLength: span.count) { writer in
            let fd = try await pool.runIfActive {
                let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
                guard fd >= 0 else { throw ReadFailed(description: "cannot open \(path): errno \(errno)") }
                return fd
            }
            defer { Glibc.close(fd) }
            var offset = span.lowerBound
            while offset <= span.upperBound {
                let length = min(SuiteFileProvider.chunkLength, span.upperBound - offset + 1)
                let at = offset
                let chunk = try await pool.runIfActive { try read(fd, path: path, offset: at, length: length) }
                try await writer.write(chunk)
                offset += chunk.readableBytes
            }
            try await writer.finish(nil)
        }
    }

    /// `length` bytes at `offset`; throws if the file ends first (it shrank while served).
    static func read(_ fd: Int32, path: String, offset: Int, length: Int) throws -> ByteBuffer {
        var buffer = ByteBufferAllocator().buffer(capacity: length)
        while buffer.readableBytes < length {
            let want = length - buffer.readableBytes, at = offset + buffer.readableBytes
            let count = try buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: want) { bytes -> Int in
                var count: Int
                repeat { count = pread(fd, bytes.baseAddress, want, off_t(at)) } while count < 0 && errno == EINTR
                if count < 0 { throw ReadFailed(description: "cannot read \(path): errno \(errno)") }
                return count
            }
            if count == 0 { throw ReadFailed(description: "\(path) ended at \(at) bytes while served") }
        }
        return buffer
    }
}

enum SuiteFiles {
    /// MIME types of what a suite holds (RFC 8216 4 and Apple's HLS authoring spec).
    static let mediaTypes: [String: String] = [
        "m3u8": "application/vnd.apple.mpegurl",
        "m4s": "video/iso.segment",
        "mp4": "video/mp4",
        "m4v": "video/mp4",
        "m4a": "audio/mp4",
        "ts": "video/mp2t",
        "aac": "audio/aac",
        "ac3": "audio/ac3",
        "ec3": "audio/eac3",
        "vtt": "text/vtt",
        "webvtt": "text/vtt",
        "json": "application/json",
        "html": "text/html; charset=utf-8",
    ]

    static func mediaType(of path: String) -> String? {
        let bytes = path.utf8
        guard let dot = bytes.lastIndex(of: UInt8(ascii: ".")) else { return nil }
        let suffix = bytes[bytes.index(after: dot)...]
        guard !suffix.contains(UInt8(ascii: "/")) else { return nil }
        if suffix.elementsEqual("m3u8".utf8) { return playlistType }
        return mediaTypes[String(decoding: suffix, as: UTF8.self).lowercased()]
    }

    static let playlistType = "application/vnd.apple.mpegurl"

    /// The real path of `urlPath` (already percent-decoded) under `root`, or nil when it does not
    /// exist or is not inside `root` once every link is followed.
    static func confined(_ urlPath: String, root: String) -> String? {
        let relative = urlPath.drop { $0 == "/" }
        guard !relative.isEmpty, !relative.contains("\0") else { return nil }
        guard let real = realpath(root + "/" + relative, nil) else { return nil }
        defer { free(real) }
        let resolved = String(cString: real)
        return resolved.hasPrefix(root + "/") ? resolved : nil
    }

    /// A request's path percent-decoded (Foundation only when it has a `%`), or nil when it does not
    /// decode or holds `..` (never served, whatever it resolves to).
    static func requestPath(_ path: String) -> String? {
        let decoded = path.utf8.contains(UInt8(ascii: "%")) ? path.removingPercentEncoding : path
        guard let decoded else { return nil }
        var previousDot = false
        for byte in decoded.utf8 {
            let dot = byte == UInt8(ascii: ".")
            if dot && previousDot { return nil }
            previousDot = dot
        }
        return decoded
    }

    /// The lab case a request path belongs to (`/cases/<id>/...`).
    static func caseId(of path: String) -> String? {
        // The first two non-empty components, read in place (a request's path, on the hot path).
        let bytes = path.utf8
        var start: String.Index?
        var first = true
        var index = bytes.startIndex
        while true {
            let atEnd = index == bytes.endIndex
            if atEnd || bytes[index] == UInt8(ascii: "/") {
                if let begun = start {
                    let component = path[begun..<index]
                    if !first { return String(component) }
                    guard component == "cases" else { return nil }
                    first = false
                    start = nil
                }
                if atEnd { return nil }
            } else if start == nil {
                start = index
            }
            index = bytes.index(after: index)
        }
    }

    /// The origin a client used to reach us (`http://` + Host), for the suite's placeholders.
    /// A Host with anything but host and port characters, or none (HTTP/1.0), falls back to
    /// `fallback`: the address and port the connection arrived at.
    static func origin(host: String?, fallback: String) -> String {
        if let host, isHost(host) { return "http://" + host }
        return "http://" + fallback
    }

    /// 1 to 255 of `a-z A-Z 0-9 . - : [ ]` (a name or address and a port), checked byte by byte.
    static func isHost(_ host: String) -> Bool {
        let bytes = host.utf8
        guard !bytes.isEmpty, bytes.count <= 255 else { return false }
        return bytes.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: ":"), UInt8(ascii: "["), UInt8(ascii: "]"): return true
            default: return false
            }
        }
    }
}

/// Playlists and asset lists of the suite, with the origin placeholder replaced by the origin the
/// client used (interstitial asset URIs must be absolute). Served whole, never cached by clients;
/// made once per file and origin (`TemplateCache`).
struct TemplateMiddleware<Context: LocalAddressRequestContext>: RouterMiddleware {
    let root: String
    let placeholder: String
    let fallbackHost: String
    let paths: ConfinedPaths
    let cache = TemplateCache()

    init(root: String, placeholder: String, fallbackHost: String, paths: ConfinedPaths? = nil) {
        self.root = root
        self.placeholder = placeholder
        self.fallbackHost = fallbackHost
        self.paths = paths ?? ConfinedPaths(root: root)
    }
    /// Larger files are not templates: FileMiddleware serves them as they are.
    static var maxTemplateBytes: Int { 16 << 20 }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.method == .get || request.method == .head, let decoded = SuiteFiles.requestPath(request.uri.path),
              let reply = reply(decoded, authority: request.head.authority, local: context.localAddress)
        else { return try await next(request, context) }
        return reply.response(head: request.method == .head)
    }

    /// The template at `decoded` (a percent-decoded request path) with the origin the client used
    /// filled in; nil when it is not a template of the suite (the request passes on).
    func reply(_ decoded: String, authority: String?, local: SocketAddress?) -> PlaylistReply? {
        reply(decoded, authority: authority, localAuthority: SuiteFiles.authority(local))
    }

    /// As `reply(_:authority:local:)`, with the server's end of the connection as `ADDRESS:PORT`
    /// (the fast path makes it once a connection).
    func reply(_ decoded: String, authority: String?, localAuthority: String?) -> PlaylistReply? {
        guard decoded.hasSuffix(".m3u8") || decoded.hasSuffix(".json"),
              let file = paths.resolve(decoded),
              let buffer = cache.body(of: file.path, info: file.info, placeholder: placeholder, limit: Self.maxTemplateBytes,
                                      origin: SuiteFiles.origin(host: authority, fallback: localAuthority ?? fallbackHost))
        else { return nil }
        return PlaylistReply(contentType: SuiteFiles.mediaType(of: decoded) ?? "application/octet-stream", body: buffer)
    }
}

/// A playlist or asset list made by the lab server, served whole and never cached by clients.
struct PlaylistReply {
    var contentType: String
    var body: ByteBuffer

    var headers: HTTPFields {
        var headers = HTTPFields()
        headers[.contentType] = contentType
        headers[.cacheControl] = "no-cache"
        headers[.contentLength] = String(body.readableBytes)
        return headers
    }

    func response(head: Bool) -> Response {
        head ? Response(status: .ok, headers: headers) : Response(status: .ok, headers: headers, body: .init(byteBuffer: body))
    }
}

/// Byte ranges as RFC 9110 14 reads them, before FileMiddleware (which reads `bytes=-N` as the
/// first N+1 bytes and answers a range past the end with a broken 206): one satisfiable range is
/// passed on as `bytes=FIRST-LAST`; one past the end is 416 with `Content-Range: bytes */SIZE`;
/// several ranges, or a header that is not a byte range, are ignored (200, the whole file).
/// Also gives every suite file its HLS MIME type.
struct MediaFilesMiddleware<Context: RequestContext>: RouterMiddleware {
    let root: String
    let paths: ConfinedPaths

    init(root: String, paths: ConfinedPaths? = nil) {
        self.root = root
        self.paths = paths ?? ConfinedPaths(root: root)
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var request = request
        if let header = request.headers[.range] {
            var head = request.head
            head.headerFields[.range] = nil
            if let decoded = SuiteFiles.requestPath(request.uri.path), let file = paths.resolve(decoded) {
                let size = Int(file.info.st_size)
                switch ByteRange.resolve(header, size: size) {
                case .whole: break
                case .range(let first, let last): head.headerFields[.range] = "bytes=\(first)-\(last)"
                case .unsatisfiable:
                    var headers = HTTPFields()
                    headers[.contentRange] = "bytes */\(size)"
                    return Response(status: .rangeNotSatisfiable, headers: headers)
                }
            }
            request = Request(head: head, body: request.body)
        }
        var response = try await next(request, context)
        if response.headers[.contentType] == nil, let type = SuiteFiles.mediaType(of: request.uri.path) {
            response.headers[.contentType] = type
        }
        return response
    }
}

/// One `Range: bytes=...` header against a file of `size` bytes.
enum ByteRange: Equatable {
    /// A byte position (1*DIGIT, any length): one past what an Int holds is past every file's
    /// end, so it saturates (a first byte there is 416, a last byte there is the file's end).
    static func position(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        let significant = text.drop { $0 == "0" }
        return significant.utf8.count > 18 ? Int.max : Int(significant) ?? 0
    }

    case whole
    case range(first: Int, last: Int)
    case unsatisfiable

    static func resolve(_ header: String, size: Int) -> ByteRange {
        let value = header.trimmingCharacters(in: .whitespaces)
        guard value.lowercased().hasPrefix("bytes="), !value.contains(",") else { return .whole }
        let spec = value.dropFirst("bytes=".count).trimmingCharacters(in: .whitespaces)
        guard let dash = spec.firstIndex(of: "-") else { return .whole }
        let firstText = spec[..<dash], lastText = spec[spec.index(after: dash)...]
        if firstText.isEmpty {
            guard let suffix = position(lastText) else { return .whole }
            guard suffix > 0, size > 0 else { return .unsatisfiable }
            return .range(first: max(0, size - suffix), last: size - 1)
        }
        guard let first = position(firstText) else { return .whole }
        var last = size - 1
        if !lastText.isEmpty {
            guard let requested = position(lastText), requested >= first else { return .whole }
            last = min(requested, size - 1)
        }
        return first < size ? .range(first: first, last: last) : .unsatisfiable
    }
}
