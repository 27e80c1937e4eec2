import Foundation
import Processes
import XCTest

/// Kodi 20 as a real AirPlay video receiver, started by `scripts/services.sh kodi-start` in a
/// network namespace of its own (its own D-Bus and avahi-daemon, a veth pair kept inside, no route
/// out) and stopped by `kodi-stop` when this value started it.
///
/// Use it scoped: `try await KodiReceiver.with { kodi in ... }` (one Kodi per test process). Missing Kodi, Xvfb, PulseAudio,
/// avahi or root, `start` throws `XCTSkip`; with SEAMCHECK_REQUIRE_SERVICES=1 (scripts/test.sh) it
/// fails (`TestEnvironment.missing`), so that a broken install step cannot pass as a skip.
/// Everything that talks to Kodi must run inside the namespace: `run` and `spawn` do that.
public final class KodiReceiver: @unchecked Sendable {
    /// The network namespace Kodi, its avahi-daemon and its D-Bus run in.
    public private(set) var namespace: String
    /// The namespace's D-Bus system bus (libavahi-client reads DBUS_SYSTEM_BUS_ADDRESS).
    public private(set) var dbusAddress: String
    /// The name Kodi announces (`services.devicename`).
    public private(set) var name: String
    /// The namespace's address Kodi is announced on (not reachable from the host).
    public private(set) var address: String
    /// Kodi's AirPlay port: 36667 (fixed in Kodi 20, not 7000).
    public private(set) var port: Int
    /// Kodi's device id: the fixed MAC of the veth end it uses, "02:53:43:4B:00:01".
    public private(set) var deviceId: String
    /// Kodi's JSON-RPC endpoint inside the namespace (no authentication).
    public private(set) var jsonRPC: String
    /// Kodi's own log (`~/.kodi/temp/kodi.log` of its profile under .build/services/kodi).
    public private(set) var logPath: String
    /// Seconds the last `kodi-start` took, to every readiness check passed.
    public private(set) var startSeconds: TimeInterval = 0
    /// Whether this value started the namespace (and so stops it); false when an earlier
    /// `kodi-start` left its namespace, which is then left as it was found (Kodi restarted in it).
    public let ownsServices: Bool

    /// The X display Kodi renders into (":N", its Xvfb's), for capturing its picture with x11grab; nil when unknown.
    public var display: String? {
        let file = MediaFixture.packageRoot + "/.build/services/kodi/display"
        guard let text = try? String(contentsOfFile: file, encoding: .utf8) else { return nil }
        let digits = text.filter(\.isNumber)
        return digits.isEmpty ? nil : ":" + digits
    }

    /// `address:port` of Kodi's AirPlay server.
    public var airplayEndpoint: String { "\(address):\(port)" }
    /// `http://address:port`: Kodi's AirPlay server as a URL.
    public var airplayURL: String { "http://\(airplayEndpoint)" }

    public struct Failed: Error, CustomStringConvertible {
        public let description: String
    }

    static var script: String { MediaFixture.packageRoot + "/scripts/services.sh" }
    static var envFile: String { MediaFixture.packageRoot + "/.build/services/kodi.env" }
    static let ip = ToolPath.find("ip") ?? "/usr/sbin/ip"

    /// Runs `body` with the process's Kodi: started at the first call and kept for the tests after
    /// (each call checks it answers and restarts it if a test killed it), stopped when the test
    /// bundle finishes, when this process started it. Starting and stopping Kodi's namespace costs
    /// about 11 s; the Kodi classes have nine tests that need a live Kodi, none a new one.
    public static func with<T>(timeout: TimeInterval = 120, _ body: (KodiReceiver) async throws -> T) async throws -> T {
        try await body(try shared(timeout: timeout))
    }

    nonisolated(unsafe) private static var sharedKodi: KodiReceiver?
    private static let sharedLock = NSLock()

    /// The process's Kodi (see `with`).
    public static func shared(timeout: TimeInterval = 120) throws -> KodiReceiver {
        try sharedLock.withLock {
            if let kodi = sharedKodi {
                try kodi.restart(timeout: timeout)  // kodi-start reuses a Kodi that answers
                return kodi
            }
            let kodi = try start(timeout: timeout)
            sharedKodi = kodi
            XCTestObservationCenter.shared.addTestObserver(StopAtEnd())
            return kodi
        }
    }

    /// Stops the process's Kodi when the bundle's tests are done.
    private final class StopAtEnd: NSObject, XCTestObservation {
        func testBundleDidFinish(_ testBundle: Bundle) {
            KodiReceiver.sharedLock.withLock {
                try? KodiReceiver.sharedKodi?.stop()
                KodiReceiver.sharedKodi = nil
            }
        }
    }

    /// Starts Kodi through `scripts/services.sh kodi-start` and reads its env file. Call `stop()`.
    public static func start(timeout: TimeInterval = 120) throws -> KodiReceiver {
        try checkMachine()
        // An earlier kodi-start's namespace (Kodi running or not) is someone else's to stop.
        let earlier = (try? execute(script, ["kodi-status"], timeout: 30))?.stdout.contains("(present)") ?? false
        let kodi = try KodiReceiver(owns: !earlier)
        try kodi.restart(timeout: timeout)
        return kodi
    }

    private init(owns: Bool) throws {
        ownsServices = owns
        namespace = ""; dbusAddress = ""; name = ""; address = ""; port = 0; deviceId = ""; jsonRPC = ""; logPath = ""
    }

    /// Stops Kodi, its daemons and its namespace when this value started them.
    public func stop() throws {
        guard ownsServices else { return }
        let result = try Self.execute(Self.script, ["kodi-stop"], timeout: 90)
        guard result.status == 0 else { throw Failed(description: "scripts/services.sh kodi-stop exited \(result.status): \(result.stderr)") }
    }

    /// SIGKILLs Kodi only (a receiver that went away); the namespace, its avahi and D-Bus stay.
    public func kill() throws {
        let result = try Self.execute(Self.script, ["kodi-kill"], timeout: 30)
        guard result.status == 0 else { throw Failed(description: "scripts/services.sh kodi-kill exited \(result.status): \(result.stderr)") }
    }

    /// Starts Kodi again (after `kill`), or the whole namespace when it is gone, waits until it
    /// answers and is announced, and re-reads what it announces.
    public func restart(timeout: TimeInterval = 120) throws {
        let started = Date()
        let result = try Self.execute(Self.script, ["kodi-start"], environment: ["SEAMCHECK_KODI_TIMEOUT": String(Int(timeout / 2))],
                                      timeout: timeout)
        startSeconds = Date().timeIntervalSince(started)
        guard result.status == 0 else {
            throw Failed(description: "scripts/services.sh kodi-start exited \(result.status) after \(String(format: "%.1f", startSeconds)) s:\n\(result.stderr)")
        }
        try readEnvironment()
    }

    /// Runs `argv` inside the namespace, with the namespace's bus as DBUS_SYSTEM_BUS_ADDRESS.
    @discardableResult
    public func run(_ argv: [String], environment: [String: String] = [:], timeout: Double = 60) throws -> CommandResult {
        try Self.execute(Self.ip, prefix(environment) + argv, timeout: timeout)
    }

    /// Runs a program to its end (`ProcessRunner`), SIGKILLed after `timeout` seconds.
    static func execute(_ executable: String, _ arguments: [String], environment: [String: String] = [:],
                        timeout: TimeInterval) throws -> CommandResult {
        ProcessRunner.runAndWait(executable, arguments, environment: ProcessInfo.processInfo.environment.merging(environment) { _, new in new },
                                 timeout: timeout)
    }

    /// Starts `argv` inside the namespace as a child process (a server that must keep running);
    /// the caller terminates it. Its output is collected.
    public func spawn(_ argv: [String], environment: [String: String] = [:]) throws -> RunningProcess {
        try RunningProcess(Self.ip, prefix(environment) + argv)
    }

    /// `curl` of `path` on Kodi's AirPlay server, from inside the namespace: (HTTP status, body).
    public func airplayGet(_ path: String, timeout: Int = 5) throws -> (status: Int, body: String) {
        let marker = "\n--seamcheck-status:"
        let result = try run(["curl", "-s", "--max-time", String(timeout), "-w", marker + "%{http_code}", airplayURL + path],
                             timeout: Double(timeout + 5))
        guard let range = result.stdout.range(of: marker, options: .backwards) else {
            throw Failed(description: "curl \(airplayURL + path) printed no status (exit \(result.status)): \(result.stderr)")
        }
        return (Int(result.stdout[range.upperBound...].trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0,
                String(result.stdout[..<range.lowerBound]))
    }

    /// The last `lines` lines of Kodi's own log, for failure messages.
    public func logTail(_ lines: Int = 30) -> String {
        let text = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "(no \(logPath))"
        return text.split(separator: "\n", omittingEmptySubsequences: false).suffix(lines).joined(separator: "\n")
    }

    private func prefix(_ environment: [String: String]) -> [String] {
        ["netns", "exec", namespace, "env", "DBUS_SYSTEM_BUS_ADDRESS=\(dbusAddress)"]
            + environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
    }

    /// Reads .build/services/kodi.env (`export NAME=VALUE`, values quoted by bash's printf %q).
    private func readEnvironment() throws {
        guard let text = try? String(contentsOfFile: Self.envFile, encoding: .utf8) else {
            throw Failed(description: "kodi-start wrote no \(Self.envFile)")
        }
        var values: [String: String] = [:]
        for line in text.split(separator: "\n") where line.hasPrefix("export ") {
            let pair = line.dropFirst("export ".count)
            guard let equals = pair.firstIndex(of: "=") else { continue }
            values[String(pair[..<equals])] = Self.unquote(pair[pair.index(after: equals)...])
        }
        func value(_ key: String) throws -> String {
            guard let value = values["SEAMCHECK_KODI_" + key], !value.isEmpty else {
                throw Failed(description: "\(Self.envFile) has no SEAMCHECK_KODI_\(key):\n\(text)")
            }
            return value
        }
        namespace = try value("NETNS")
        dbusAddress = try value("DBUS")
        name = try value("NAME")
        deviceId = try value("DEVICE_ID")
        jsonRPC = try value("JSONRPC")
        logPath = try value("LOG")
        let endpoint = try value("AIRPLAY")
        guard let colon = endpoint.lastIndex(of: ":"), let port = Int(endpoint[endpoint.index(after: colon)...]) else {
            throw Failed(description: "\(Self.envFile): SEAMCHECK_KODI_AIRPLAY=\(endpoint) is not address:port")
        }
        address = String(endpoint[..<colon])
        self.port = port
    }

    /// Undoes bash's `printf %q` for the values kodi-start writes: backslash escapes only.
    static func unquote(_ text: Substring) -> String {
        var out = "", escaped = false
        for character in text {
            if escaped { out.append(character); escaped = false } else if character == "\\" { escaped = true } else { out.append(character) }
        }
        return out
    }

    /// Throws XCTSkip (a failure under SEAMCHECK_REQUIRE_SERVICES=1) when this machine cannot run Kodi.
    static func checkMachine() throws {
        guard getuid() == 0 else { throw TestEnvironment.missing("Kodi's network namespace needs root (ip netns); run the tests as root") }
        let kodi = ["/usr/lib/x86_64-linux-gnu/kodi/kodi.bin", "/usr/lib/aarch64-linux-gnu/kodi/kodi.bin", "/usr/lib/kodi/kodi.bin"]
        guard kodi.contains(where: FileManager.default.isExecutableFile(atPath:)) else {
            throw TestEnvironment.missing("Kodi is not installed (run scripts/setup-deps.sh)")
        }
        for tool in ["Xvfb", "pulseaudio", "avahi-daemon", "avahi-browse", "dbus-daemon", "ip", "curl"] {
            _ = try TestEnvironment.require(tool)
        }
    }
}
