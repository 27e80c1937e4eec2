import Foundation
import Processes

/// Tests/Server/airplay_info_server.py in a child process on 127.0.0.1: a stand-in receiver's
/// `/info` (or RTSP) answer per mode, one port per mode. Stopped by `stop()` or when the object goes.
public final class InfoServer: @unchecked Sendable {
    public let ports: [String: Int]
    private let process: RunningProcess

    public init(modes: [String]) throws {
        (process, ports) = try ModeServerScript.start("airplay_info_server.py", modes: modes)
    }

    /// Everything the script printed: a "REQUEST mode ..." line per request it answered.
    public var output: String { process.output }

    public func stop() { process.terminate() }

    deinit { stop() }
}

/// A Tests/Server script that listens on 127.0.0.1, one port per `--listen` mode, and prints
/// "PORT mode n" per port, then "READY" (airplay_info_server.py, airplay_receiver.py).
public enum ModeServerScript {
    /// Starts `script` and waits (at most 10 s) for its ports; a script that does not give one
    /// per mode is stopped and its output thrown.
    public static func start(_ script: String, modes: [String]) throws -> (process: RunningProcess, ports: [String: Int]) {
        let process = try RunningProcess(try TestEnvironment.require("python3"),
                                         [MediaFixture.packageRoot + "/Tests/Server/" + script, "--lifetime", "600"]
                                            + modes.flatMap { ["--listen", $0] })
        let deadline = Date().addingTimeInterval(30)
        while !process.output.contains("READY"), process.exitCode == nil, Date() < deadline {
            Thread.sleep(forTimeInterval: 0.02)
        }
        var ports: [String: Int] = [:]
        for line in process.output.split(separator: "\n") where line.hasPrefix("PORT ") {
            let parts = line.split(separator: " ")
            if parts.count == 3, let port = Int(parts[2]) { ports[String(parts[1])] = port }
        }
        guard ports.count == modes.count else {
            process.terminate()
            throw CommandError.didNotStart("\(script) did not start: \(process.output)")
        }
        return (process, ports)
    }
}
