import Foundation

/// The test HTTP server (Tests/Server/test_http_server.py) on 127.0.0.1, serving `root`.
///
/// A real server in a separate process: tests see real sockets, real Range handling, real
/// redirects and real slowness. Stopped when the object goes away; it also exits by itself
/// after `lifetime` seconds, so a crashed test never leaves it behind for long.
public final class TestHTTPServer: @unchecked Sendable {
    public let root: String
    public let port: Int
    private let process: Process

    public init(root: String, lifetime: Double = 900) throws {
        self.root = root
        let script = MediaFixture.packageRoot + "/Tests/Server/test_http_server.py"
        process = Process()
        process.executableURL = URL(fileURLWithPath: try Command.resolve("python3"))
        process.arguments = [script, "--root", root, "--lifetime", String(lifetime)]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // The first line is "PORT n".
        var buffer = Data()
        while !buffer.contains(UInt8(ascii: "\n")) {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            buffer.append(chunk)
        }
        let line = String(decoding: buffer, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard line.hasPrefix("PORT "), let port = Int(line.dropFirst(5)) else {
            process.terminate()
            throw CommandError.notFound("test HTTP server did not start (got '\(line)')")
        }
        self.port = port
    }

    deinit {
        stop()
    }

    public func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
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
        let data = try Data(contentsOf: URL(string: url("/__log"))!)
        return try JSONDecoder().decode([Request].self, from: data)
    }

    public func resetLog() throws {
        _ = try Data(contentsOf: URL(string: url("/__reset"))!)
    }
}
