import Discovery
import Foundation
import Processes
import SeamcheckTestSupport
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// Access to the real avahi-daemon for tests: skips (or, with SEAMCHECK_REQUIRE_SERVICES=1, fails)
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
            throw TestEnvironment.missing(message)
        }
    }
}

/// An `avahi-publish -s` process advertising one service; `stop()` terminates only that PID.
final class AvahiPublisher {
    private let child: RunningProcess

    /// Starts the publisher and waits (up to `timeout` seconds) for its "Established" line.
    init(name: String, type: String, port: Int, txt: [String], timeout: TimeInterval = 10) throws {
        child = try RunningProcess(try TestEnvironment.require("avahi-publish"), ["-s", name, type, String(port)] + txt)
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
