import Foundation
import Processes
import SeamcheckTestSupport
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// `seamcheck discover --watch`: events while receivers come and go, and while the daemon dies
/// and comes back.
final class DiscoverWatchTests: XCTestCase {
    private func watch(_ extra: [String], environment: [String: String]? = nil) throws -> RunningProcess {
        var env = environment ?? ProcessInfo.processInfo.environment
        env["NO_COLOR"] = "1"
        return try RunningProcess(SeamcheckBinary.path, ["discover", "--watch"] + extra, environment: env)
    }

    private func events(_ child: RunningProcess, _ kind: String, deviceId: String? = nil) -> [[String: Any]] {
        DiscoverEnvironment.jsonLines(child.output).filter { event in
            event["event"] as? String == kind
                && (deviceId == nil || (event["receiver"] as? [String: Any])?["deviceId"] as? String == deviceId)
        }
    }

    func testAddedAndRemovedEventsAsAPublisherComesAndGoes() throws {
        try DiscoverEnvironment.requireAvahi()
        let json = try watch(["--format", "json", "--interface", "lo"])
        let table = try watch(["--format", "table", "--interface", "lo"])
        defer { [json, table].forEach { $0.terminate() } }
        XCTAssertTrue(DiscoverEnvironment.wait(10) { !self.events(json, "browseComplete").isEmpty }, json.output)

        let name = "Seamcheck Watch \(DiscoverEnvironment.randomDeviceId().plain.suffix(4))"
        let receiver = try FakeReceiver(name: name, airplay: ["model=AppleTV11,1", "features=0x4A7FFFF7,0x4155FDE"],
                                        raop: ["am=AppleTV11,1"])
        try receiver.waitEstablished()
        let id = receiver.deviceId.colons
        XCTAssertTrue(DiscoverEnvironment.wait(10) {
            (self.events(json, "added", deviceId: id) + self.events(json, "updated", deviceId: id)).contains {
                ($0["receiver"] as? [String: Any])?["services"] as? [String] == ["_airplay._tcp", "_raop._tcp"]
            }
        }, json.output)
        let added = try XCTUnwrap(events(json, "added", deviceId: id).first?["receiver"] as? [String: Any])
        XCTAssertEqual(added["name"] as? String, name)
        XCTAssertEqual(added["deviceClass"] as? String, "apple-tv-4k")
        XCTAssertEqual(events(json, "added", deviceId: id).count, 1, "one receiver, one added event")

        receiver.stop()
        XCTAssertTrue(DiscoverEnvironment.wait(10) { !self.events(json, "removed", deviceId: id).isEmpty }, json.output)
        let removed = try XCTUnwrap(events(json, "removed", deviceId: id).first)
        XCTAssertEqual(removed["schemaVersion"] as? Int, 1)
        XCTAssertEqual((removed["receiver"] as? [String: Any])?["name"] as? String, name)
        XCTAssertTrue(DiscoverEnvironment.wait(5) { table.output.contains("- removed  \(name)") }, table.output)
        XCTAssertTrue(table.output.contains("+ added    \(name)  \(id)  apple-tv-4k  AppleTV11,1"), table.output)
        XCTAssertTrue(table.output.contains("= initial browse complete: "), table.output)

        kill(json.pid, SIGINT)
        XCTAssertEqual(json.wait(timeout: 5), 0, "SIGINT ends the watch cleanly")
        kill(table.pid, SIGTERM)
        XCTAssertEqual(table.wait(timeout: 5), 0, "SIGTERM too")
    }

    func testWatchTimeoutEndsTheWatch() throws {
        try DiscoverEnvironment.requireAvahi()
        let started = Date()
        // 5 s: well past Avahi's ALL_FOR_NOW (about 1 s after the browse starts, later on a loaded
        // CI machine), which the browseComplete event needs; a watch without --timeout never ends.
        let child = try watch(["--format", "json", "--timeout", "5"])
        XCTAssertEqual(child.wait(timeout: 20), 0, child.output)
        XCTAssertEqual(events(child, "browseComplete").count, 1, child.output)
        XCTAssertLessThan(Date().timeIntervalSince(started), 10)
    }

    /// A daemon of our own (PrivateAvahi), so that killing it leaves the shared one alone.
    func testDaemonDeathDropsReceiversAndTheWatchReconnectsWhenItIsBack() throws {
        let daemon = try PrivateAvahi()
        defer { daemon.stop() }
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SYSTEM_BUS_ADDRESS"] = daemon.bus

        let busOnly = try SeamcheckBinary.run(["discover"], environment: ["DBUS_SYSTEM_BUS_ADDRESS": daemon.bus])
        XCTAssertEqual(busOnly.status, 3, "D-Bus without avahi-daemon: \(busOnly.stderr)")
        XCTAssertTrue(busOnly.stderr.contains("scripts/services.sh start"), busOnly.stderr)

        try daemon.startAvahi()
        let deviceId = DiscoverEnvironment.randomDeviceId()
        let airplay = ["model=AudioAccessory5,1", "features=0x445F8A00,0x1C340"]
        var receiver = try FakeReceiver(name: "Seamcheck Restart", airplay: airplay, raop: ["am=AudioAccessory5,1"],
                                        deviceId: deviceId, environment: environment)
        try receiver.waitEstablished()
        let child = try watch(["--format", "json"], environment: environment)
        defer { child.terminate() }
        XCTAssertTrue(DiscoverEnvironment.wait(10) { !self.events(child, "added", deviceId: deviceId.colons).isEmpty }, child.output)
        XCTAssertEqual((events(child, "added", deviceId: deviceId.colons).first?["receiver"] as? [String: Any])?["deviceClass"] as? String,
                       "speaker-audio-only")

        daemon.stopAvahi()
        receiver.stop()
        XCTAssertTrue(DiscoverEnvironment.wait(10) { !self.events(child, "daemonLost").isEmpty }, child.output)
        XCTAssertEqual(events(child, "removed", deviceId: deviceId.colons).count, 1, child.output)
        XCTAssertTrue(child.output.contains("seamcheck: avahi-daemon went away (Daemon connection failed); its receivers were dropped."),
                      child.output)
        let lines = DiscoverEnvironment.jsonLines(child.output).compactMap { $0["event"] as? String }
        XCTAssertEqual(Array(lines.suffix(2)), ["removed", "daemonLost"], "removals come before daemonLost")
        XCTAssertNil(child.exitCode, "the watch outlives the daemon")

        try daemon.startAvahi()
        receiver = try FakeReceiver(name: "Seamcheck Restart", airplay: airplay, raop: ["am=AudioAccessory5,1"],
                                    deviceId: deviceId, environment: environment)
        try receiver.waitEstablished()
        defer { receiver.stop() }
        XCTAssertTrue(DiscoverEnvironment.wait(15) { self.events(child, "added", deviceId: deviceId.colons).count == 2 }, child.output)
        XCTAssertEqual(events(child, "daemonReconnected").count, 1, child.output)
        XCTAssertTrue(child.output.contains("seamcheck: avahi-daemon is back; browsing again"), child.output)

        // Second death: the client is now a NO_FAIL one, whose daemon loss takes another path.
        daemon.stopAvahi()
        XCTAssertTrue(DiscoverEnvironment.wait(10) { self.events(child, "daemonLost").count == 2 }, child.output)
        XCTAssertEqual(events(child, "removed", deviceId: deviceId.colons).count, 2, child.output)

        kill(child.pid, SIGTERM)
        XCTAssertEqual(child.wait(timeout: 5), 0, child.output)
    }
}

/// A private D-Bus bus and an avahi-daemon that a test may kill and restart.
///
/// avahi-daemon's pid file path is compiled in and the shared daemon of scripts/services.sh
/// holds it, so this one runs in its own mount namespace (a tmpfs over /run/avahi-daemon) and
/// network namespace (its own loopback: no mDNS traffic meets the shared daemon's). Needs root
/// and unshare(1); the test is skipped without them.
final class PrivateAvahi {
    let directory: URL
    let bus: String
    private let dbus: RunningProcess
    private var avahi: RunningProcess?

    init() throws {
        guard getuid() == 0 else { throw XCTSkip("a private avahi-daemon needs root") }
        for tool in ["unshare", "ip", "dbus-daemon", "avahi-daemon", "dbus-send", "sh"] { _ = try TestEnvironment.require(tool) }
        directory = URL(fileURLWithPath: "/tmp/seamcheck-avahi-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        bus = "unix:path=\(directory.path)/bus.sock"
        try """
        <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
        <busconfig>
          <type>system</type>
          <listen>\(bus)</listen>
          <auth>EXTERNAL</auth>
          <policy context="default">
            <allow user="*"/><allow own="*"/><allow send_destination="*"/><allow receive_sender="*"/>
          </policy>
        </busconfig>
        """.write(to: directory.appendingPathComponent("bus.conf"), atomically: true, encoding: .utf8)
        try """
        [server]
        host-name=seamcheck-private
        use-ipv4=yes
        use-ipv6=no
        allow-interfaces=lo
        enable-dbus=yes
        [wide-area]
        enable-wide-area=no
        [publish]
        publish-hinfo=no
        publish-workstation=no
        """.write(to: directory.appendingPathComponent("avahi.conf"), atomically: true, encoding: .utf8)
        dbus = try RunningProcess(try TestEnvironment.require("dbus-daemon"),
                                  ["--config-file=\(directory.path)/bus.conf", "--nofork", "--nopidfile"])
        guard DiscoverEnvironment.wait(5, for: { FileManager.default.fileExists(atPath: "\(directory.path)/bus.sock") }) else {
            dbus.terminate()
            throw XCTSkip("the private dbus-daemon did not start: \(dbus.output)")
        }
    }

    /// Starts avahi-daemon in fresh namespaces and waits until it reports state 2 (running).
    func startAvahi() throws {
        let script = "mkdir -p /run/avahi-daemon && mount -t tmpfs tmpfs /run/avahi-daemon && ip link set lo up && "
            + "exec avahi-daemon -f \(directory.path)/avahi.conf --no-rlimits --no-proc-title --no-drop-root --no-chroot"
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SYSTEM_BUS_ADDRESS"] = bus
        let child = try RunningProcess(try TestEnvironment.require("unshare"), ["--mount", "--net", "sh", "-c", script],
                                       environment: environment)
        avahi = child
        let running = DiscoverEnvironment.wait(15) {
            child.exitCode != nil || (try? DiscoverEnvironment.requireAvahi(bus: self.bus)) != nil
        }
        guard running, child.exitCode == nil else {
            throw XCTSkip("cannot run a private avahi-daemon in its own namespaces here: \(child.output)")
        }
    }

    /// SIGTERM to the daemon (unshare execs sh, which execs avahi-daemon: one PID).
    func stopAvahi() {
        avahi?.terminate()
        avahi = nil
    }

    func stop() {
        stopAvahi()
        dbus.terminate()
        try? FileManager.default.removeItem(at: directory)
    }
}
