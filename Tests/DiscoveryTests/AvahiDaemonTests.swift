import Discovery
import Foundation
import Processes
import SeamcheckTestSupport
import XCTest

final class AvahiDaemonTests: XCTestCase {
    func testServerInfoReportsRunningDaemonAndItsHostName() throws {
        let info = try AvahiTestEnvironment.requireDaemon()
        XCTAssertEqual(info.state, .running)
        XCTAssertTrue(info.version.hasPrefix("avahi "), info.version)
        XCTAssertFalse(info.hostName.isEmpty)
        XCTAssertEqual(info.hostNameFQDN, "\(info.hostName).\(info.domainName)")
        if AvahiTestEnvironment.usesServicesScriptBus {
            XCTAssertEqual(info.hostName, "seamcheck-ci")
            XCTAssertEqual(info.hostNameFQDN, "seamcheck-ci.local")
        }
    }

    /// libdbus reads DBUS_SYSTEM_BUS_ADDRESS once per process, so the missing bus is tried in a
    /// child run of this test binary (`MissingBusProbe`) with the variable pointing nowhere.
    func testServerInfoOnMissingBusThrowsDaemonNotRunning() throws {
        guard AvahiTestEnvironment.environment[MissingBusProbe.childKey] == nil else {
            throw XCTSkip("parent side only")
        }
        var environment = AvahiTestEnvironment.environment
        environment["DBUS_SYSTEM_BUS_ADDRESS"] = "unix:path=/nonexistent/seamcheck/dbus.sock"
        environment[MissingBusProbe.childKey] = "1"
        let child = try RunningProcess(try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"),
                                       ["DiscoveryTests.MissingBusProbe/testServerInfoAndBrowseThrowDaemonNotRunning"],
                                       environment: environment)
        let status = child.wait(timeout: 60)
        let output = child.output

        XCTAssertEqual(status, 0, output)
        XCTAssertTrue(output.contains("PROBE serverInfo: avahi-daemon is not running ("), output)
        XCTAssertTrue(output.contains("PROBE browse: avahi-daemon is not running ("), output)
        XCTAssertTrue(output.contains("Executed 1 test, with 0 failures"), output)
        XCTAssertFalse(output.contains("skipped"), output)
    }
}

/// Runs only as the child process of `testServerInfoOnMissingBusThrowsDaemonNotRunning`.
final class MissingBusProbe: XCTestCase {
    static let childKey = "SEAMCHECK_DISCOVERY_MISSING_BUS_CHILD"

    func testServerInfoAndBrowseThrowDaemonNotRunning() async throws {
        guard AvahiTestEnvironment.environment[Self.childKey] == "1" else {
            throw XCTSkip("runs only as the child of AvahiDaemonTests.testServerInfoOnMissingBusThrowsDaemonNotRunning")
        }
        do {
            let info = try AvahiDaemon.serverInfo()
            XCTFail("expected daemonNotRunning, got \(info)")
        } catch {
            guard case .daemonNotRunning = error else { return XCTFail("expected daemonNotRunning, got \(error)") }
            XCTAssertEqual(error.exitCode, 3)
            print("PROBE serverInfo: \(error)")
        }
        let started = Date()
        do {
            let receivers = try await AirPlayBrowser.browse(timeout: .seconds(5))
            XCTFail("expected daemonNotRunning, got \(receivers)")
        } catch {
            guard case .daemonNotRunning = error else { return XCTFail("expected daemonNotRunning, got \(error)") }
            XCTAssertLessThan(Date().timeIntervalSince(started), 2, "a missing daemon must fail at once")
            print("PROBE browse: \(error)")
        }
    }
}
