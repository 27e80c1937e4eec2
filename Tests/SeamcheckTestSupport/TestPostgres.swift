import Foundation
import Processes
import XCTest

/// A real PostgreSQL for the shared results store's tests: started (or found running) by
/// `scripts/services.sh postgres-start`, which writes .build/services/postgres.env. It is left
/// running for the other tests of the process; scripts/test.sh stops what it started, and by hand
/// `scripts/services.sh postgres-stop` does. Without PostgreSQL or root, `shared()` throws
/// `XCTSkip` (a failure with SEAMCHECK_REQUIRE_SERVICES=1, as the other services).
public final class TestPostgres: Sendable {
    /// `postgres://seamcheck:PASSWORD@127.0.0.1:PORT/seamcheck?sslmode=disable`.
    public let url: String
    /// The same database through the Unix socket (trusted: no password).
    public let socketURL: String
    public let password: String
    public let port: Int
    public let socketDirectory: String
    /// The folder of PostgreSQL's programs (createdb, psql).
    public let bin: String

    private static let started = Once<TestPostgres> { try TestPostgres.start() }

    public static func shared() throws -> TestPostgres { try started.get() }

    static var script: String { MediaFixture.packageRoot + "/scripts/services.sh" }
    static var envFile: String { MediaFixture.packageRoot + "/.build/services/postgres.env" }

    private init(environment: [String: String]) throws {
        guard let url = environment["SEAMCHECK_TEST_POSTGRES_URL"], let socketURL = environment["SEAMCHECK_TEST_POSTGRES_SOCKET_URL"],
              let bin = environment["SEAMCHECK_TEST_POSTGRES_BIN"], let port = environment["SEAMCHECK_TEST_POSTGRES_PORT"].flatMap(Int.init),
              let socket = environment["SEAMCHECK_TEST_POSTGRES_SOCKET_DIR"],
              let password = URLComponents(string: url)?.password else {
            throw TestEnvironment.missing("\(Self.envFile) lacks the SEAMCHECK_TEST_POSTGRES_* lines; rerun scripts/services.sh postgres-start")
        }
        self.url = url
        self.socketURL = socketURL
        self.bin = bin
        self.port = port
        self.socketDirectory = socket
        self.password = password
    }

    private static func start() throws -> TestPostgres {
        guard getuid() == 0 else { throw TestEnvironment.missing("PostgreSQL tests start the server as root (it then runs as seamcheck-pg)") }
        guard FileManager.default.fileExists(atPath: "/usr/lib/postgresql") || ToolPath.find("pg_ctl") != nil else {
            throw TestEnvironment.missing("PostgreSQL is not installed (run scripts/setup-deps.sh: Debian's postgresql)")
        }
        let result = try Command.run(script, ["postgres-start"], timeout: 120)
        guard result.status == 0 else {
            throw TestEnvironment.missing("scripts/services.sh postgres-start failed (\(result.status)): \(result.stderr)")
        }
        return try TestPostgres(environment: try readEnvironment())
    }

    static func readEnvironment() throws -> [String: String] {
        let text = try String(contentsOfFile: envFile, encoding: .utf8)
        var values: [String: String] = [:]
        for line in text.split(separator: "\n") where line.hasPrefix("export ") {
            let pair = line.dropFirst("export ".count)
            guard let equals = pair.firstIndex(of: "=") else { continue }
            // The script writes values with printf %q: only `?` and `&` get a backslash here.
            values[String(pair[..<equals])] = String(pair[pair.index(after: equals)...]).replacingOccurrences(of: "\\", with: "")
        }
        return values
    }

    /// A new empty database, so that each test starts from nothing; returns its TCP URL.
    public func makeDatabase(_ prefix: String = "t") throws -> String {
        let name = "\(prefix.lowercased().filter { $0.isLetter || $0.isNumber })_\(UUID().uuidString.prefix(8).lowercased())"
        let result = try Command.run(bin + "/createdb", ["-h", socketDirectory, "-p", String(port), "-U", "seamcheck", name], timeout: 60)
        guard result.status == 0 else { throw Failed(description: "createdb \(name): \(result.stderr)") }
        return url(database: name)
    }

    /// The TCP URL of `database`, with `password` (the right one unless given).
    public func url(database: String, user: String = "seamcheck", password: String? = nil) -> String {
        "postgres://\(user):\(password ?? self.password)@127.0.0.1:\(port)/\(database)?sslmode=disable"
    }

    /// Runs SQL through psql on the socket (what a test sets up behind the tool's back).
    @discardableResult
    public func psql(_ database: String, _ sql: String) throws -> String {
        let result = try Command.run(bin + "/psql", ["-h", socketDirectory, "-p", String(port), "-U", "seamcheck", "-d", database,
                                                     "-v", "ON_ERROR_STOP=1", "-tAc", sql], timeout: 60)
        guard result.status == 0 else { throw Failed(description: "psql: \(result.stderr)") }
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Stops the server (`postgres-stop`): what a worker sees when the database goes away mid-run.
    public func stopServer() throws {
        let result = try Command.run(Self.script, ["postgres-stop"], timeout: 60)
        guard result.status == 0 else { throw Failed(description: "postgres-stop: \(result.stderr)") }
    }

    /// Starts it again on the same port (`postgres-start` keeps the last port when it is free).
    public func startServer() throws {
        let result = try Command.run(Self.script, ["postgres-start"], timeout: 120)
        guard result.status == 0 else { throw Failed(description: "postgres-start: \(result.stderr)") }
        let port = try Self.readEnvironment()["SEAMCHECK_TEST_POSTGRES_PORT"].flatMap(Int.init)
        guard port == self.port else { throw Failed(description: "postgres-start moved from port \(self.port) to \(port ?? 0)") }
    }

    /// The database name of a URL this value made.
    public static func databaseName(_ url: String) -> String {
        URLComponents(string: url).map { String($0.path.dropFirst()) } ?? ""
    }

    public struct Failed: Error, CustomStringConvertible {
        public let description: String
    }
}
