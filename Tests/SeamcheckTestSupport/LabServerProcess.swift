import Foundation

/// `seamcheck lab serve` running as a child process on 127.0.0.1 and a free port.
public final class LabServerProcess: @unchecked Sendable {
    public let process: ChildProcess
    public let port: Int
    public let database: String

    /// Starts the server and waits (at most `timeout` seconds) for its "serving" line.
    public init(streams: String, database: String, arguments: [String] = [], environment: [String: String]? = nil,
                timeout: TimeInterval = 30) throws {
        self.database = database
        process = try ChildProcess(executable: URL(fileURLWithPath: SeamcheckBinary.path),
                                   arguments: ["lab", "serve", "--streams", streams, "--bind", "127.0.0.1", "--port", "0",
                                               "--db", database, "--profiles-dir", MediaFixture.packageRoot + "/DeviceProfiles"] + arguments,
                                   environment: environment)
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

    /// SIGTERM, then waits for the exit; returns the exit code.
    @discardableResult
    public func stop(timeout: TimeInterval = 15) -> Int32 {
        if process.exitCode == nil { kill(process.pid, SIGTERM) }  // a reaped PID may be someone else's by now
        return process.wait(timeout: timeout)
    }

    deinit {
        if process.exitCode == nil { process.terminate() }
    }

    public struct LabServerFailed: Error, CustomStringConvertible {
        public var description: String
    }
}
