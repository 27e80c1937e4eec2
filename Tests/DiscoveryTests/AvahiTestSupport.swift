import Discovery
import Foundation
import SeamcheckTestSupport
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// Access to the real avahi-daemon for tests: skips (or, with SEAMCHECK_REQUIRE_AVAHI=1, fails)
/// when it cannot be reached.
enum AvahiTestEnvironment {
    static var environment: [String: String] { ProcessInfo.processInfo.environment }

    /// True when DBUS_SYSTEM_BUS_ADDRESS points at the bus scripts/services.sh starts, whose
    /// avahi-daemon is named seamcheck-ci.
    static var usesServicesScriptBus: Bool {
        environment["DBUS_SYSTEM_BUS_ADDRESS"]?.hasSuffix(".build/services/dbus.sock") ?? false
    }

    /// The daemon's server info, or a skip / failure that says how to start the daemon.
    static func requireDaemon() throws -> AvahiServerInfo {
        do {
            return try AvahiDaemon.serverInfo()
        } catch {
            let message = "avahi-daemon is not reachable: \(error) For these tests run "
                + "`scripts/services.sh start && source .build/services/env` first."
            if environment["SEAMCHECK_REQUIRE_AVAHI"] == "1" { throw AvahiUnavailable(message: message) }
            throw XCTSkip(message)
        }
    }

    struct AvahiUnavailable: Error, CustomStringConvertible {
        let message: String
        var description: String { "SEAMCHECK_REQUIRE_AVAHI=1 but \(message)" }
    }

    /// Finds `name` on PATH.
    static func executable(_ name: String) throws -> URL {
        let path = environment["PATH"] ?? "/usr/bin:/bin"
        let directories = path.split(separator: ":").map(String.init) + ["/usr/sbin", "/usr/bin"]
        for directory in directories {
            let url = URL(fileURLWithPath: directory).appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        throw XCTSkip("\(name) is not installed (apt-get install avahi-utils)")
    }
}

/// An `avahi-publish -s` process advertising one service; `stop()` terminates only that PID.
final class AvahiPublisher {
    private let child: ChildProcess

    /// Starts the publisher and waits (up to `timeout` seconds) for its "Established" line.
    init(name: String, type: String, port: Int, txt: [String], timeout: TimeInterval = 10) throws {
        child = try ChildProcess(executable: try AvahiTestEnvironment.executable("avahi-publish"),
                                 arguments: ["-s", name, type, String(port)] + txt)
        let deadline = Date().addingTimeInterval(timeout)
        while !child.output.contains("Established under name") {
            if child.output.contains("Failed") || child.exitCode != nil || Date() > deadline {
                stop()
                throw PublishFailed(output: child.output)
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    struct PublishFailed: Error, CustomStringConvertible {
        let output: String
        var description: String { "avahi-publish did not establish its service: \(output)" }
    }

    func stop() { child.terminate() }

    deinit { stop() }
}
