import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Asks AirPlay receivers `GET /info` (header `X-Apple-ProtocolVersion: 1`).
///
/// On the advertised AirPlay port first over HTTP/1.1, then, when the receiver does not speak
/// HTTP (an answer that is not a status line, a 400/404/501/505, a closed connection), over
/// RTSP/1.0 on a new connection; then over RTSP/1.0 on the RAOP port when it differs (UxPlay
/// answers there, and listens on no advertised AirPlay port). A receiver with only a RAOP
/// record is asked over RTSP/1.0 only. Each receiver's requests run on a thread of their own
/// with plain sockets; they cannot be cancelled, only bounded by the timeout, which covers every
/// address and attempt together.
public enum AirPlayInfoClient {
    public static let defaultTimeout: Duration = .seconds(2)
    /// Bodies larger than this are refused unread (by Content-Length) or cut off.
    static let maxResponseBytes = 4 << 20

    /// One port to ask and the transports to ask it with, in order.
    public struct Target: Sendable, Equatable {
        public var port: Int
        /// `_airplay._tcp` or `_raop._tcp`: the service that advertised `port`.
        public var service: String
        public var transports: [String]

        public init(port: Int, service: String, transports: [String]) {
            self.port = port
            self.service = service
            self.transports = transports
        }
    }

    public static let http = "HTTP/1.1"
    public static let rtsp = "RTSP/1.0"

    /// The ports to ask `receiver` on: its AirPlay port (HTTP, then RTSP), then its RAOP port
    /// (RTSP) when that is another one.
    public static func targets(for receiver: Receiver) -> [Target] {
        var targets: [Target] = []
        if receiver.services.contains("_airplay._tcp") {
            targets.append(Target(port: receiver.port, service: "_airplay._tcp", transports: [http, rtsp]))
        }
        if let raop = receiver.raopPort, raop > 0, !targets.contains(where: { $0.port == raop }) {
            targets.append(Target(port: raop, service: "_raop._tcp", transports: [rtsp]))
        }
        return targets
    }

    /// `GET /info` on `receiver`'s addresses (IPv4 first) and ports.
    public static func fetch(_ receiver: Receiver, timeout: Duration = defaultTimeout) async -> InfoOutcome {
        if receiver.isAsleep || receiver.port <= 0 { return InfoOutcome(result: .failure(.asleep)) }
        let interface = receiver.interfaces.first
        let addresses = receiver.addresses.map { address in
            // A link-local IPv6 address needs its interface to be reachable.
            address.lowercased().hasPrefix("fe80:") && !address.contains("%") ? interface.map { "\(address)%\($0)" } ?? address : address
        }
        return await fetch(addresses: addresses, targets: targets(for: receiver), timeout: timeout)
    }

    /// `GET /info` on the first of `addresses` that accepts a connection on `port`, over HTTP, then RTSP.
    public static func fetch(addresses: [String], port: Int, timeout: Duration = defaultTimeout) async -> Result<ReceiverInfo, InfoError> {
        await fetch(addresses: addresses, targets: [Target(port: port, service: "_airplay._tcp", transports: [http, rtsp])],
                    timeout: timeout).result
    }

    /// `GET /info` on each target in turn, on the first of `addresses` that accepts a connection.
    public static func fetch(addresses: [String], targets: [Target], timeout: Duration = defaultTimeout) async -> InfoOutcome {
        guard !addresses.isEmpty else { return InfoOutcome(result: .failure(.noAddress)) }
        guard !targets.isEmpty else { return InfoOutcome(result: .failure(.asleep)) }
        return await withCheckedContinuation { continuation in
            let request = InfoRequest(addresses: addresses, targets: targets, timeout: timeout)
            let thread = Thread { continuation.resume(returning: request.run()) }
            thread.name = "seamcheck.info"
            thread.start()
        }
    }
}

/// One receiver's `/info` exchanges, blocking on the calling thread until done or past its deadline.
struct InfoRequest: Sendable {
    struct Response {
        var status: Int
        var reason: String
        var body: Data
    }

    let addresses: [String]
    let targets: [AirPlayInfoClient.Target]
    let timeout: Duration

    /// HTTP statuses that mean "not an HTTP server": ask the same port again over RTSP.
    static let notHTTP: Set<Int> = [400, 404, 501, 505]

    func run() -> InfoOutcome {
        let deadline = ContinuousClock.now + timeout
        var attempts: [InfoAttempt] = []
        var refusal: (attempt: InfoAttempt, error: InfoError)?
        var failure = InfoError.noAddress
        for address in addresses {
            var reachable = false
            nextTarget: for target in targets {
                for transport in target.transports {
                    var attempt = InfoAttempt(transport: transport, address: address, port: target.port,
                                              service: target.service, status: nil, result: "")
                    switch exchange(address: address, port: target.port, version: transport, deadline: deadline) {
                    case .success(let response):
                        reachable = true
                        attempt.status = response.status
                        attempt.result = "\(response.status) \(response.reason)".trimmingCharacters(in: .whitespaces)
                        if response.status == 200 {
                            let result = Result { () throws(InfoError) in try ReceiverInfo(propertyList: response.body) }
                            if case .failure(let error) = result { attempt.result += ": " + error.description }
                            attempts.append(attempt)
                            return InfoOutcome(result: result, attempts: attempts, answeredBy: attempt)
                        }
                        attempts.append(attempt)
                        refusal = (attempt, .refused(status: response.status, reason: response.reason))
                        if transport == AirPlayInfoClient.http && Self.notHTTP.contains(response.status) { continue }
                        continue nextTarget
                    case .failure(let error):
                        attempt.result = error.attemptText
                        attempts.append(attempt)
                        switch error {
                        case .timedOut:
                            // The deadline has passed: nothing else can be asked.
                            return InfoOutcome(result: .failure(refusal?.error ?? error), attempts: attempts, answeredBy: refusal?.attempt)
                        case .unreachable:
                            if case .noAddress = failure { failure = error }
                            continue nextTarget  // nothing listens on this port: RTSP there would fail too
                        default:
                            reachable = true
                            failure = error
                        }
                    }
                }
            }
            if reachable { break }  // another address only for a receiver this one did not reach
        }
        if let refusal { return InfoOutcome(result: .failure(refusal.error), attempts: attempts, answeredBy: refusal.attempt) }
        return InfoOutcome(result: .failure(failure), attempts: attempts)
    }

    private func exchange(address: String, port: Int, version: String, deadline: ContinuousClock.Instant) -> Result<Response, InfoError> {
        let shown = address.contains(":") ? "[\(address)]:\(port)" : "\(address):\(port)"
        let timedOut = InfoError.timedOut(address: shown, seconds: Double(AvahiWatchSession.milliseconds(timeout)) / 1000)
        var hints = addrinfo()
        hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let code = getaddrinfo(address, String(port), &hints, &list)
        guard code == 0, let info = list else {
            return .failure(.unreachable(address: shown, reason: String(cString: gai_strerror(code))))
        }
        defer { freeaddrinfo(list) }

        let fd = socket(info.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { return .failure(.unreachable(address: shown, reason: String(cString: strerror(errno)))) }
        defer { close(fd) }

        if connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) != 0 {
            guard errno == EINPROGRESS else { return .failure(.unreachable(address: shown, reason: String(cString: strerror(errno)))) }
            guard wait(fd, for: Int16(POLLOUT), until: deadline) else { return .failure(timedOut) }
            var error: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length)
            guard error == 0 else { return .failure(.unreachable(address: shown, reason: String(cString: strerror(error)))) }
        }

        let headers = version.hasPrefix("RTSP") ? "CSeq: 1\r\n" : "Host: \(shown)\r\nConnection: close\r\n"
        let request = Array("GET /info \(version)\r\n\(headers)X-Apple-ProtocolVersion: 1\r\nUser-Agent: seamcheck\r\nContent-Length: 0\r\n\r\n".utf8)
        var sent = 0
        while sent < request.count {
            guard wait(fd, for: Int16(POLLOUT), until: deadline) else { return .failure(timedOut) }
            let count = request[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count < 0 {
                if errno == EAGAIN || errno == EINTR { continue }
                return .failure(.badResponse("the connection closed while sending (\(String(cString: strerror(errno))))"))
            }
            sent += count
        }

        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 16384)
        while true {
            if let response = Self.parse(received, complete: false) { return response }
            guard received.count <= AirPlayInfoClient.maxResponseBytes else {
                return .failure(.badResponse("more than \(AirPlayInfoClient.maxResponseBytes) bytes"))
            }
            guard wait(fd, for: Int16(POLLIN), until: deadline) else { return .failure(timedOut) }
            let count = recv(fd, &buffer, buffer.count, 0)
            if count > 0 {
                received.append(contentsOf: buffer[0..<count])
            } else if count == 0 {
                return Self.parse(received, complete: true)
                    ?? .failure(.badResponse(received.isEmpty ? "the connection closed without an answer" : "a truncated answer"))
            } else if errno != EAGAIN && errno != EINTR {
                return .failure(.badResponse("reading failed (\(String(cString: strerror(errno))))"))
            }
        }
    }

    /// Polls `fd` for `events` until `deadline`; false when it passed first.
    private func wait(_ fd: Int32, for events: Int16, until deadline: ContinuousClock.Instant) -> Bool {
        while true {
            let remaining = AvahiWatchSession.milliseconds(deadline - .now)
            guard remaining > 0 else { return false }
            var entry = pollfd(fd: fd, events: events, revents: 0)
            let result = poll(&entry, 1, Int32(clamping: remaining))
            if result > 0 { return true }  // ready, or an error the next call reports
            if result < 0 && errno != EINTR { return true }
        }
    }

    /// A complete response in `data`, a parse failure, or nil when more bytes are needed.
    /// `complete`: the peer closed, so a body without Content-Length ends here.
    static func parse(_ data: Data, complete: Bool) -> Result<Response, InfoError>? {
        guard let (head, bodyStart) = Self.head(of: data) else {
            if data.count >= 5, !(data.starts(with: Data("HTTP/".utf8)) || data.starts(with: Data("RTSP/".utf8))) {
                return .failure(.badResponse("not an HTTP or RTSP answer"))
            }
            return complete && !data.isEmpty ? .failure(.badResponse("a truncated header")) : nil
        }
        let statusLine = head[0].split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard statusLine.count >= 2, statusLine[0].hasPrefix("HTTP/") || statusLine[0].hasPrefix("RTSP/"),
              let status = Int(statusLine[1]) else {
            return .failure(.badResponse("not an HTTP or RTSP status line: '\(head[0].prefix(60))'"))
        }
        let reason = statusLine.count > 2 ? String(statusLine[2]) : ""
        var length: Int?
        for line in head.dropFirst() {
            let parts = line.split(separator: ":", maxSplits: 1)
            if parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces).lowercased() == "content-length" {
                length = Int(parts[1].trimmingCharacters(in: .whitespaces))
            }
        }
        let body = data[bodyStart...]
        if let length {
            guard length >= 0 else { return .failure(.badResponse("a negative Content-Length")) }
            guard length <= AirPlayInfoClient.maxResponseBytes else {
                return .failure(.badResponse("a body of \(length) bytes, more than \(AirPlayInfoClient.maxResponseBytes)"))
            }
            guard body.count >= length else { return complete ? .failure(.badResponse("a truncated body")) : nil }
            return .success(Response(status: status, reason: reason, body: Data(body.prefix(length))))
        }
        let bodiless = status != 200 || statusLine[0].hasPrefix("RTSP/")
        return bodiless || complete ? .success(Response(status: status, reason: reason, body: Data(body))) : nil
    }

    /// The header lines of `data` and where its body starts, or nil before the blank line. Lines end
    /// in CRLF or a bare LF (RFC 9112 2.2 lets a recipient accept LF; Kodi ends its status line so).
    static func head(of data: Data) -> (lines: [String], bodyStart: Data.Index)? {
        var lineStart = data.startIndex
        var lines: [String] = []
        var index = data.startIndex
        while index < data.endIndex {
            if data[index] == UInt8(ascii: "\n") {
                var lineEnd = index
                if lineEnd > lineStart, data[lineEnd - 1] == UInt8(ascii: "\r") { lineEnd -= 1 }
                if lineEnd == lineStart, !lines.isEmpty { return (lines, index + 1) }
                if lineEnd > lineStart { lines.append(String(decoding: data[lineStart..<lineEnd], as: UTF8.self)) }
                lineStart = index + 1
            }
            index += 1
        }
        return nil
    }
}
