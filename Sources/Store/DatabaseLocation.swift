import Foundation

/// Where the results are kept: a SQLite file (one machine) or a PostgreSQL database (several
/// stations and workers). Parsed from `--db` or `SEAMCHECK_DB`; `description` never shows a password.
public enum DatabaseLocation: Sendable, Equatable, CustomStringConvertible {
    case sqlite(path: String)
    case postgres(PostgresURL)

    /// The environment variable that gives `--db` its default.
    public static let environmentVariable = "SEAMCHECK_DB"

    /// `postgres://` or `postgresql://` URLs are PostgreSQL; anything else is a SQLite path.
    public init(parsing text: String) throws(StoreFailure) {
        let lower = text.lowercased()
        if lower.hasPrefix("postgres://") || lower.hasPrefix("postgresql://") {
            self = .postgres(try PostgresURL(parsing: text))
        } else if lower.hasPrefix("sqlite://") {
            self = .sqlite(path: String(text.dropFirst("sqlite://".count)))
        } else if let scheme = lower.firstMatch(of: /^([a-z][a-z0-9+.-]*):\/\//)?.1 {
            // mysql://, http://...: a URL of a database this tool does not speak, not a file name.
            throw .badLocation(location: PostgresURL.redact(text),
                               reason: "\(scheme):// is not a supported database; write postgres://USER@HOST/DATABASE or a SQLite file path")
        } else {
            self = .sqlite(path: text)
        }
    }

    /// `given`, else `SEAMCHECK_DB`, else `fallback`.
    public static func text(_ given: String?, fallback: String,
                            environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let given, !given.isEmpty { return given }
        if let value = environment[environmentVariable], !value.isEmpty { return value }
        return fallback
    }

    public var isPostgres: Bool { if case .postgres = self { return true } else { return false } }

    public var description: String {
        switch self {
        case .sqlite(let path): return path
        case .postgres(let url): return url.redacted
        }
    }
}

/// A parsed `postgres://user[:password]@host[:port]/db[?sslmode=...&host=/socket/dir]`.
public struct PostgresURL: Sendable, Equatable {
    public enum TLSMode: String, Sendable, Equatable {
        /// `prefer` (the default, as libpq's): TLS when the server offers it, without checking its certificate.
        case disable, prefer, require
        /// `verify-full`: TLS with the certificate checked against the system's roots and the host name.
        case verifyFull = "verify-full"
    }

    public var user: String
    public var password: String?
    public var host: String
    public var port: Int
    public var database: String
    /// The folder of the server's Unix socket (`?host=/path`); the socket is `.s.PGSQL.<port>` in it.
    public var socketDirectory: String?
    public var tls: TLSMode

    public init(parsing text: String) throws(StoreFailure) {
        let shown = PostgresURL.redact(text)
        func bad(_ why: String) -> StoreFailure { .badLocation(location: shown, reason: why) }
        guard let components = URLComponents(string: text) else {
            throw bad("not a URL; write postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE (percent-encode special characters)")
        }
        guard let user = components.percentEncodedUser.flatMap({ $0.removingPercentEncoding }), !user.isEmpty else {
            throw bad("no user; write postgres://USER@HOST/DATABASE")
        }
        self.user = user
        password = components.percentEncodedPassword.flatMap { $0.removingPercentEncoding }
        let database = String(components.path.drop(while: { $0 == "/" }))
        guard !database.isEmpty, !database.contains("/") else { throw bad("no database name; write postgres://USER@HOST/DATABASE") }
        self.database = database
        port = components.port ?? 5432
        guard (1...65535).contains(port) else { throw bad("port \(port) is not a TCP port") }
        var tls = TLSMode.prefer
        var socket: String?
        for item in components.queryItems ?? [] {
            switch item.name {
            case "sslmode":
                guard let mode = TLSMode(rawValue: item.value ?? "") else {
                    throw bad("sslmode \(item.value ?? "") is not one of disable, prefer, require, verify-full")
                }
                tls = mode
            case "host":
                guard let value = item.value, value.hasPrefix("/") else { throw bad("host= must be the absolute folder of the server's socket") }
                socket = value
            default:
                throw bad("unknown parameter \(item.name); known: sslmode, host")
            }
        }
        self.tls = tls
        socketDirectory = socket
        let host = components.host ?? ""
        guard !host.isEmpty || socket != nil else { throw bad("no host; write postgres://USER@HOST/DATABASE or ?host=/socket/folder") }
        self.host = host.isEmpty ? "localhost" : host
    }

    /// The socket file when connecting through a Unix socket.
    public var socketPath: String? { socketDirectory.map { "\($0)/.s.PGSQL.\(port)" } }

    /// The URL with its password replaced by `***`: what errors and logs show.
    public var redacted: String {
        var text = "postgres://\(user)\(password == nil ? "" : ":***")@"
        text += socketDirectory == nil ? host : ""
        text += port == 5432 ? "" : ":\(port)"
        text += "/\(database)"
        var query: [String] = []
        if tls != .prefer { query.append("sslmode=\(tls.rawValue)") }
        if let socketDirectory { query.append("host=\(socketDirectory)") }
        return query.isEmpty ? text : text + "?" + query.joined(separator: "&")
    }

    /// Hides the password of any URL-like text (for text that did not parse).
    public static func redact(_ text: String) -> String {
        guard let scheme = text.range(of: "://"), let at = text[scheme.upperBound...].lastIndex(of: "@") else { return text }
        let userInfo = text[scheme.upperBound..<at]
        guard let colon = userInfo.firstIndex(of: ":") else { return text }
        return String(text[..<colon]) + ":***" + String(text[at...])
    }
}
