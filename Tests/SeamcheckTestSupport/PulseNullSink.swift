import Foundation
import Processes

/// A private PulseAudio server with one null sink (`seamcheck_null`), reachable only through a
/// unix socket in a temporary folder: players play into the sink, its monitor source is what
/// they played. Stopped (this PID only) and its folder removed when `body` returns.
public struct PulseNullSink: Sendable {
    public static let sink = "seamcheck_null"
    /// "unix:/tmp/.../pulse.sock", for PULSE_SERVER or the pulse input's `server` option.
    public let server: String

    /// The monitor source as a `--capture-audio` input.
    public var monitorInput: String { "pulse:\(Self.sink).monitor?server=\(server)" }

    /// What a client playing into the sink needs (SDL players: ffplay).
    public func environment(_ base: [String: String]) -> [String: String] {
        base.merging(["PULSE_SERVER": server, "SDL_AUDIODRIVER": "pulseaudio", "PULSE_SINK": Self.sink]) { _, new in new }
    }

    public static func with<T>(_ body: (PulseNullSink) throws -> T) throws -> T {
        let pulseaudio = try TestEnvironment.require("pulseaudio")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("seamcheck-pulse-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let socket = folder + "/pulse.sock"
        let environment = ProcessInfo.processInfo.environment.merging(["HOME": folder, "XDG_RUNTIME_DIR": folder]) { _, new in new }
        let server = try RunningProcess(pulseaudio, ["--daemonize=no", "--system=no", "--use-pid-file=no", "--exit-idle-time=-1", "-n",
                                                     "--log-target=stderr", "-L", "module-null-sink sink_name=\(sink)",
                                                     "-L", "module-native-protocol-unix socket=\(socket) auth-anonymous=1"],
                                        environment: environment)
        defer { server.terminate() }
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            var info = stat()
            if stat(socket, &info) == 0 { return try body(PulseNullSink(server: "unix:" + socket)) }
            guard server.exitCode == nil else { break }
            usleep(20_000)
        }
        throw TestEnvironment.missing("pulseaudio did not open its socket in 10 s: \(server.stderr.suffix(300))")
    }
}
