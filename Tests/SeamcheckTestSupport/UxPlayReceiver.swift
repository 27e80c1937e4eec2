import Foundation
import Processes
import XCTest

/// UxPlay 1.74 (GStreamer) as a second real AirPlay video receiver, built from ../shared/peers
/// and started by `scripts/services.sh uxplay-start` in a network namespace of its own (its own
/// mDNS, Xvfb for its ximagesink, a PulseAudio null sink), stopped by `uxplay-stop` when this
/// value started it. Nothing is fetched: the source is the tarball in ../shared/peers.
///
/// Started once per suite: `try UxPlayReceiver.suite()` in each test, `UxPlayReceiver.endSuite()`
/// in the class's `tearDown`. Missing root, Xvfb, PulseAudio or the source, it throws `XCTSkip`;
/// with SEAMCHECK_REQUIRE_AVAHI=1 (scripts/test.sh, CI) it fails (`TestEnvironment.missing`).
/// Everything that talks to UxPlay must run inside the namespace: `run` and `spawn` do that.
public final class UxPlayReceiver: @unchecked Sendable {
    public private(set) var namespace = ""
    public private(set) var name = ""
    /// The namespace's address UxPlay answers on (it binds 0.0.0.0 inside the namespace).
    public private(set) var address = ""
    /// Its AirPlay (RTSP and HTTP) port: 7001 with `-p 7000`.
    public private(set) var port = 0
    /// The X display its ximagesink draws in (":N"), for x11grab.
    public private(set) var display = ""
    public private(set) var logPath = ""
    /// Its PulseAudio server ("unix:PATH"): the null sink's monitor is UxPlay's sound (`--capture-audio`).
    public private(set) var pulseServer = ""
    /// Seconds the last `uxplay-start` took (the build, once, included).
    public private(set) var startSeconds: TimeInterval = 0
    /// Whether this value started the namespace (and so stops it).
    public let ownsServices: Bool

    public var airplayEndpoint: String { "\(address):\(port)" }

    public struct Failed: Error, CustomStringConvertible {
        public let description: String
    }

    static var script: String { MediaFixture.packageRoot + "/scripts/services.sh" }
    static var envFile: String { MediaFixture.packageRoot + "/.build/services/uxplay.env" }
    static let ip = ToolPath.find("ip") ?? "/usr/sbin/ip"
    nonisolated(unsafe) private static var shared: UxPlayReceiver?
    private static let lock = NSLock()

    /// The suite's UxPlay: started at the first call, the same one after.
    public static func suite(timeout: TimeInterval = 90) throws -> UxPlayReceiver {
        try lock.withLock {
            if let shared { return shared }
            let started = try start(timeout: timeout)
            shared = started
            return started
        }
    }

    /// Stops the suite's UxPlay (when it started it); for the class's `tearDown`.
    public static func endSuite() {
        lock.withLock {
            try? shared?.stop()
            shared = nil
        }
    }

    public static func start(timeout: TimeInterval = 90) throws -> UxPlayReceiver {
        try checkMachine()
        let earlier = (try? execute(script, ["uxplay-status"], timeout: 30))?.stdout.contains("(present)") ?? false
        let uxplay = UxPlayReceiver(owns: !earlier)
        try uxplay.restart(timeout: timeout)
        return uxplay
    }

    private init(owns: Bool) { ownsServices = owns }

    public func stop() throws {
        guard ownsServices else { return }
        let result = try Self.execute(Self.script, ["uxplay-stop"], timeout: 60)
        guard result.status == 0 else { throw Failed(description: "scripts/services.sh uxplay-stop exited \(result.status): \(result.stderr)") }
    }

    /// SIGKILLs UxPlay only (a receiver that went away); its namespace, Xvfb and PulseAudio stay.
    public func kill() throws {
        let result = try Self.execute(Self.script, ["uxplay-kill"], timeout: 30)
        guard result.status == 0 else { throw Failed(description: "scripts/services.sh uxplay-kill exited \(result.status): \(result.stderr)") }
    }

    /// Starts UxPlay (again after `kill`, or all of it), waits until it answers, re-reads its env file.
    public func restart(timeout: TimeInterval = 90, pin: String? = nil) throws {
        let started = Date()
        var environment = ["SEAMCHECK_UXPLAY_TIMEOUT": String(Int(timeout / 2))]
        if let pin { environment["SEAMCHECK_UXPLAY_PIN"] = pin }
        let result = try Self.execute(Self.script, ["uxplay-start"], environment: environment, timeout: timeout)
        startSeconds = Date().timeIntervalSince(started)
        guard result.status == 0 else {
            throw Failed(description: "scripts/services.sh uxplay-start exited \(result.status) after \(String(format: "%.1f", startSeconds)) s:\n\(result.stderr)")
        }
        try readEnvironment()
    }

    @discardableResult
    public func run(_ argv: [String], environment: [String: String] = [:], timeout: Double = 60) throws -> CommandResult {
        try Self.execute(Self.ip, prefix(environment) + argv, timeout: timeout)
    }

    public func spawn(_ argv: [String], environment: [String: String] = [:]) throws -> RunningProcess {
        try RunningProcess(Self.ip, prefix(environment) + argv)
    }

    public func logTail(_ lines: Int = 30) -> String {
        let text = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "(no \(logPath))"
        return text.split(separator: "\n", omittingEmptySubsequences: false).suffix(lines).joined(separator: "\n")
    }

    static func execute(_ executable: String, _ arguments: [String], environment: [String: String] = [:],
                        timeout: TimeInterval) throws -> CommandResult {
        ProcessRunner.runAndWait(executable, arguments, environment: ProcessInfo.processInfo.environment.merging(environment) { _, new in new },
                                 timeout: timeout)
    }

    private func prefix(_ environment: [String: String]) -> [String] {
        ["netns", "exec", namespace, "env"] + environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
    }

    private func readEnvironment() throws {
        guard let text = try? String(contentsOfFile: Self.envFile, encoding: .utf8) else {
            throw Failed(description: "uxplay-start wrote no \(Self.envFile)")
        }
        var values: [String: String] = [:]
        for line in text.split(separator: "\n") where line.hasPrefix("export ") {
            let pair = line.dropFirst("export ".count)
            guard let equals = pair.firstIndex(of: "=") else { continue }
            values[String(pair[..<equals])] = KodiReceiver.unquote(pair[pair.index(after: equals)...])
        }
        func value(_ key: String) throws -> String {
            guard let value = values["SEAMCHECK_UXPLAY_" + key], !value.isEmpty else {
                throw Failed(description: "\(Self.envFile) has no SEAMCHECK_UXPLAY_\(key):\n\(text)")
            }
            return value
        }
        namespace = try value("NETNS")
        name = try value("NAME")
        address = try value("ADDRESS")
        display = try value("DISPLAY")
        logPath = try value("LOG")
        pulseServer = values["SEAMCHECK_UXPLAY_PULSE"] ?? ""
        let endpoint = try value("AIRPLAY")
        guard let colon = endpoint.lastIndex(of: ":"), let port = Int(endpoint[endpoint.index(after: colon)...]) else {
            throw Failed(description: "\(Self.envFile): SEAMCHECK_UXPLAY_AIRPLAY=\(endpoint) is not address:port")
        }
        self.port = port
    }

    static func checkMachine() throws {
        guard getuid() == 0 else { throw TestEnvironment.missing("UxPlay's network namespace needs root (ip netns); run the tests as root") }
        let peers = MediaFixture.packageRoot + "/../shared/peers"
        let tarballs = (try? FileManager.default.contentsOfDirectory(atPath: peers))?.filter { $0.hasPrefix("uxplay-") && $0.hasSuffix(".tar.gz") } ?? []
        guard !tarballs.isEmpty || ProcessInfo.processInfo.environment["SEAMCHECK_PEERS_DIR"] != nil else {
            throw TestEnvironment.missing("no UxPlay source in \(peers) (uxplay-*.tar.gz)")
        }
        for tool in ["Xvfb", "pulseaudio", "ip", "curl", "cmake", "make", "cc"] {
            _ = try TestEnvironment.require(tool)
        }
    }
}
