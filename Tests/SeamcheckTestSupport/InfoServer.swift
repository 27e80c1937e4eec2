import Foundation
import Processes

/// Tests/Server/airplay_info_server.py in a child process on 127.0.0.1: a stand-in receiver's
/// `/info` (or RTSP) answer per mode, one port per mode. Stopped by `stop()` or when the object goes.
public final class InfoServer: @unchecked Sendable {
    public let ports: [String: Int]
    private let process: RunningProcess

    /// Starts the script and waits (at most 10 s) for its "PORT mode n" lines and "READY".
    public init(modes: [String]) throws {
        let script = MediaFixture.packageRoot + "/Tests/Server/airplay_info_server.py"
        process = try RunningProcess(try TestEnvironment.require("python3"),
                                     [script, "--lifetime", "600"] + modes.flatMap { ["--listen", $0] })
        let deadline = Date().addingTimeInterval(10)
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
            throw CommandError.notFound("airplay_info_server.py did not start: \(process.output)")
        }
        self.ports = ports
    }

    /// Everything the script printed: a "REQUEST mode ..." line per request it answered.
    public var output: String { process.output }

    public func stop() { process.terminate() }

    deinit { stop() }
}
