import Foundation
import Processes

/// `seamcheck lab serve` running as a child process on 127.0.0.1 and a free port, for the length
/// of a `with` block: stopped when the block ends, however it ends.
public final class LabServerProcess: @unchecked Sendable {
    public let process: RunningProcess
    public let port: Int
    public let database: String

    /// Starts the server, hands it to `body`, and stops it when `body` returns or throws.
    /// `directory` is the server's working folder (this process's when nil).
    public static func with<T>(streams: String, database: String, arguments: [String] = [], environment: [String: String]? = nil,
                               directory: String? = nil, timeout: TimeInterval = 30, _ body: (LabServerProcess) throws -> T) throws -> T {
        let server = try LabServerProcess(starting: streams, database: database, arguments: arguments, environment: environment,
                                          directory: directory, timeout: timeout)
        defer { server.stop() }
        return try body(server)
    }

    /// `with` for an async `body`.
    public static func with<T>(streams: String, database: String, arguments: [String] = [], environment: [String: String]? = nil,
                               timeout: TimeInterval = 30, _ body: (LabServerProcess) async throws -> T) async throws -> T {
        let server = try LabServerProcess(starting: streams, database: database, arguments: arguments, environment: environment,
                                          timeout: timeout)
        do {
            let value = try await body(server)
            server.stop()
            return value
        } catch {
            server.stop()
            throw error
        }
    }

    /// Starts the server and waits (at most `timeout` seconds) for its "serving" line.
    private init(starting streams: String, database: String, arguments: [String], environment: [String: String]?,
                 directory: String? = nil, timeout: TimeInterval) throws {
        self.database = database
        process = try RunningProcess(SeamcheckBinary.path,
                                     ["lab", "serve", "--streams", streams, "--bind", "127.0.0.1", "--port", "0",
                                      "--db", database, "--profiles-dir", MediaFixture.packageRoot + "/DeviceProfiles"] + arguments,
                                     environment: environment, directory: directory)
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let match = process.output.firstMatch(of: /lab: serving http:\/\/127\.0\.0\.1:(\d+)\//), let port = Int(match.1) {
                self.port = port
                return
            }
            if let code = process.exitCode {
                throw LabServerFailed(description: "lab serve exited \(code) before serving:\n\(process.output)")
            }
            guard Date() < deadline else {
                process.terminate()
                throw LabServerFailed(description: "lab serve did not start within \(timeout) s:\n\(process.output)")
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    public func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// SIGTERM, then waits for the exit; returns the exit code. Safe to call again.
    @discardableResult
    public func stop(timeout: TimeInterval = 15) -> Int32 {
        if process.exitCode == nil { kill(process.pid, SIGTERM) }  // a reaped PID may be someone else's by now
        return process.wait(timeout: timeout)
    }

    public struct LabServerFailed: Error, CustomStringConvertible {
        public var description: String
    }
}
