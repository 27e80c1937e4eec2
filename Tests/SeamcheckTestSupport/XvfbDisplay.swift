import Foundation
import Processes

/// A private X display (Xvfb, which picks a free display number itself) for the length of `body`:
/// players render into it and x11grab captures it. Stopped (this PID only) when `body` returns.
public struct XvfbDisplay: Sendable {
    /// ":N".
    public let name: String

    /// The environment a client of this display needs (SDL renders to X, plays no sound).
    public var environment: [String: String] {
        ProcessInfo.processInfo.environment.merging(["DISPLAY": name, "SDL_VIDEODRIVER": "x11", "SDL_AUDIODRIVER": "dummy"]) { _, new in new }
    }

    public static func with<T>(size: String = "640x360", _ body: (XvfbDisplay) throws -> T) throws -> T {
        let xvfb = try TestEnvironment.require("Xvfb")
        // -displayfd 1: the display number chosen is written to stdout once the server listens.
        let server = try RunningProcess(xvfb, ["-displayfd", "1", "-screen", "0", size + "x24", "-nolisten", "tcp"])
        defer { server.terminate() }
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            let text = server.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            if let number = Int(text), server.stdout.hasSuffix("\n") { return try body(XvfbDisplay(name: ":\(number)")) }
            guard server.exitCode == nil else { break }
            usleep(20_000)
        }
        throw TestEnvironment.missing("Xvfb did not start a display in 10 s: \(server.stderr.suffix(300))")
    }
}
