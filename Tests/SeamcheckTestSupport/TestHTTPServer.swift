import Foundation
import Processes

/// The test HTTP server (Tests/Server/test_http_server.py) on 127.0.0.1, serving `root`.
///
/// A real server in a separate process: tests see real sockets, real Range handling, real
/// redirects and real slowness. Stopped when the object goes away; it also exits by itself
/// after `lifetime` seconds, so a crashed test never leaves it behind for long.
public final class TestHTTPServer: @unchecked Sendable {
    public let root: String
    public let port: Int
    private let process: RunningProcess

    /// `substitute`: text replaced with `url("/files")` in every .m3u8 and .json served (the lab
    /// suite's origin placeholder).
    public init(root: String, lifetime: Double = 900, substitute: String? = nil) throws {
        self.root = root
        let script = MediaFixture.packageRoot + "/Tests/Server/test_http_server.py"
        process = try RunningProcess(try TestEnvironment.require("python3"),
                                     [script, "--root", root, "--lifetime", String(lifetime)] + (substitute.map { ["--substitute", $0] } ?? []))
        // The first line is "PORT n". 30 s: Python took over 10 s to start on a loaded 2-core machine.
        let deadline = Date().addingTimeInterval(30)
        while !process.output.contains("\n"), process.exitCode == nil, Date() < deadline {
            Thread.sleep(forTimeInterval: 0.01)
        }
        let line = process.output.split(separator: "\n").first.map(String.init) ?? ""
        guard line.hasPrefix("PORT "), let port = Int(line.dropFirst(5)) else {
            process.terminate()
            throw CommandError.didNotStart("test HTTP server did not start (got '\(process.output)')")
        }
        self.port = port
    }

    deinit {
        stop()
    }

    public func stop() {
        process.terminate()
    }

    /// `http://127.0.0.1:PORT` + `path` (which starts with "/").
    public func url(_ path: String) -> String {
        "http://127.0.0.1:\(port)\(path)"
    }

    public struct Request: Decodable, Sendable {
        public var path: String
        public var range: String?
        public var status: Int
        public var bytes: Int
    }

    /// The requests served since start or the last `resetLog()`.
    public func log() throws -> [Request] {
        try JSONDecoder().decode([Request].self, from: try get("/__log"))
    }

    /// Clears the log and the /tick and /flip counters.
    public func resetLog() throws {
        _ = try get("/__reset")
    }

    /// How requests of one path misbehave (the server's /__fault route).
    public enum Fault: Sendable {
        /// An empty answer with this status.
        case status(Int)
        /// Waits this many seconds, then answers normally.
        case delay(Double)
        /// A 302 to this URL or path.
        case redirect(String)
        /// A 200 HTML page where the client expects a playlist or JSON.
        case html
    }

    /// From now on, requests of exactly `path` (a server path like "/files/a/b.m3u8") get `fault`;
    /// with `times`, only the next `times` requests.
    public func inject(_ fault: Fault, at path: String, times: Int? = nil) throws {
        var query = [URLQueryItem(name: "path", value: path)]
        switch fault {
        case .status(let code): query.append(URLQueryItem(name: "status", value: String(code)))
        case .delay(let seconds): query.append(URLQueryItem(name: "delay", value: String(seconds)))
        case .redirect(let target): query.append(URLQueryItem(name: "redirect", value: target))
        case .html: query.append(URLQueryItem(name: "html", value: "1"))
        }
        if let times { query.append(URLQueryItem(name: "times", value: String(times))) }
        var components = URLComponents()
        components.queryItems = query
        // "+" is a space in a query: encode it, and the other characters a path may hold.
        let text = (components.percentEncodedQuery ?? "").replacingOccurrences(of: "+", with: "%2B")
        _ = try get("/__fault?" + text)
    }

    public func clearFaults() throws {
        _ = try get("/__faults/clear")
    }

    /// A blocking GET on this server (Foundation on Linux has no Data(contentsOf:) for http).
    public func get(_ path: String) throws -> Data {
        let result = try Command.run("curl", ["-sS", "--max-time", "10", "-f", url(path)])
        guard result.status == 0 else { throw CommandError.failed("curl \(url(path))", result) }
        return Data(result.stdout.utf8)
    }
}
