import Foundation
import LabCore
import HTTPTypes
import Hummingbird

/// Who may write into the lab. A verdict feeds `calibrate --write`, so `POST /api/verdicts` takes
/// JSON only (a cross-site form or `text/plain` post needs no CORS preflight; JSON does), from the
/// lab's own origin (Origin and Sec-Fetch-Site, when the client sends them), with the server's
/// token (the lab page carries it; scripts pass it). The Host must name this server (one of its
/// addresses, `localhost` or its host name): a page that rebinds its own DNS name to the lab's
/// address is same-origin with itself, not with the lab, and gets neither the token nor a write.
public struct LabAccess: Sendable {
    /// The header the lab page and scripts send the token in (`Authorization: Bearer` works too).
    public static let tokenHeader = "X-Seamcheck-Lab-Token"
    /// The environment variable `lab serve` (and scripts) read the token from.
    public static let tokenVariable = "SEAMCHECK_LAB_TOKEN"

    /// The header a sender pushing playlists (FCUP, docs/lab-run.md) names the receiver in: with
    /// the lab token, the request is logged as that receiver's, so its session still holds every
    /// playlist it asked for. Without the right token the header is ignored.
    public static let pushedForHeader = "X-Seamcheck-Pushed-For"

    public let token: String
    /// Lowercased host names and addresses (no port) by which a client reaches this server.
    let ownHosts: Set<String>

    public init(token: String, bind: String) {
        self.token = token
        var hosts: Set<String> = ["localhost", "127.0.0.1", "::1", bind.lowercased()]
        hosts.formUnion(LocalAddresses.list())
        var name = [CChar](repeating: 0, count: 256)
        if gethostname(&name, name.count) == 0 {
            let host = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self).lowercased()
            if !host.isEmpty { hosts.formUnion([host, host + ".local"]) }
        }
        ownHosts = hosts
    }

    /// 32 random bytes, hex.
    public static func newToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }

    /// Whether `bind` keeps the server on this host (127.0.0.0/8, ::1, localhost).
    public static func isLoopback(_ bind: String) -> Bool {
        bind == "localhost" || bind == "::1" || bind.hasPrefix("127.")
    }

    /// Writes `token` to `path`, readable by this user only (0600), replacing what was there.
    public static func writeToken(_ token: String, to path: String) throws(LabAccessError) {
        unlink(path)  // a file (or a link) left by someone else is not reused
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw .cannotWriteToken(path: path, reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        let bytes = Array((token + "\n").utf8)
        guard fchmod(fd, 0o600) == 0, write(fd, bytes, bytes.count) == bytes.count else {
            throw .cannotWriteToken(path: path, reason: String(cString: strerror(errno)))
        }
    }

    /// The host part of a Host header (`[::1]:8080`, `lab.local:8080`, `10.0.0.2`), lowercased.
    static func host(ofAuthority authority: String) -> String {
        let text = authority.lowercased()
        if text.hasPrefix("["), let end = text.firstIndex(of: "]") { return String(text[text.index(after: text.startIndex)..<end]) }
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        return parts.count == 2 ? String(parts[0]) : text
    }

    /// Whether a request with this Host header reached the server by one of its own names.
    func isOwn(authority: String?) -> Bool {
        guard let authority, !authority.isEmpty else { return false }
        return ownHosts.contains(Self.host(ofAuthority: authority))
    }

    /// Why a write is refused (nil: allowed).
    func refusal(for request: Request) -> LabAccessRefusal? {
        let type = request.headers[.contentType]?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
        guard type == "application/json" else { return .notJSON(request.headers[.contentType]) }
        let authority = request.head.authority
        guard isOwn(authority: authority) else { return .foreignHost(authority ?? "") }
        if let origin = request.headers[.origin], origin.lowercased() != "http://" + (authority ?? "").lowercased() {
            return .crossOrigin(origin)
        }
        if let site = request.headers[HTTPField.Name("Sec-Fetch-Site")!], site != "same-origin", site != "none" {
            return .crossOrigin("Sec-Fetch-Site: " + site)
        }
        let bearer = request.headers[.authorization].flatMap { $0.hasPrefix("Bearer ") ? String($0.dropFirst(7)) : nil }
        guard let sent = request.headers[HTTPField.Name(Self.tokenHeader)!] ?? bearer else { return .noToken }
        return Self.same(sent, token) ? nil : .wrongToken
    }

    /// The receiver a pushed request is for: the address in `pushedForHeader`, when the request
    /// carries this server's token and the value is an IP address; nil otherwise.
    static func pushedFor(_ request: Request, token: String) -> String? {
        guard let value = request.headers[HTTPField.Name(pushedForHeader)!],
              let sent = request.headers[HTTPField.Name(tokenHeader)!], same(sent, token) else { return nil }
        let address = value.trimmingCharacters(in: .whitespaces)
        var v4 = in_addr(), v6 = in6_addr()
        guard address.count <= 64, inet_pton(AF_INET, address, &v4) == 1 || inet_pton(AF_INET6, address, &v6) == 1 else { return nil }
        return address
    }

    /// Compares in time independent of where the strings differ.
    static func same(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        return zip(x, y).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }
}

/// Why `POST /api/verdicts` refused a write: 415 for a body that is not JSON, 403 for the rest.
enum LabAccessRefusal: Equatable {
    case notJSON(String?)
    case foreignHost(String)
    case crossOrigin(String)
    case noToken
    case wrongToken

    var status: HTTPResponse.Status { if case .notJSON = self { .unsupportedMediaType } else { .forbidden } }

    var message: String {
        switch self {
        case .notJSON(let type):
            "verdicts are JSON: send Content-Type: application/json (got \(type.map { String($0.prefix(100)) } ?? "none"))"
        case .foreignHost(let host):
            "this server is not \(String(host.prefix(255))): reach the lab by its address, localhost or its host name"
        case .crossOrigin(let origin):
            "verdicts are written from the lab page of this server only, not from \(String(origin.prefix(255)))"
        case .noToken:
            "no lab token: the lab page sends it; scripts send the header \(LabAccess.tokenHeader) with the token `lab serve` wrote to its token file"
        case .wrongToken:
            "wrong lab token (it changes each time `lab serve` starts unless --token or \(LabAccess.tokenVariable) sets it): reload the lab page, or read the token file again"
        }
    }
}

public enum LabAccessError: Error, Sendable, Equatable, CustomStringConvertible {
    case cannotWriteToken(path: String, reason: String)

    public var description: String {
        switch self {
        case .cannotWriteToken(let path, let reason):
            "cannot write the lab token to \(path) (\(reason)); choose a writable place with --token-file"
        }
    }
}
