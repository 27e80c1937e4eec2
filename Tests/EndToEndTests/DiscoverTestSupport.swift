import Foundation
import Processes
import SeamcheckTestSupport
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// The real avahi-daemon for `seamcheck discover` tests (scripts/services.sh): skipped when it
/// cannot be reached, a failure with SEAMCHECK_REQUIRE_SERVICES=1.
enum DiscoverEnvironment {
    static var environment: [String: String] { ProcessInfo.processInfo.environment }

    static func requireAvahi(bus: String? = nil) throws {
        var extra: [String: String] = [:]
        if let bus { extra["DBUS_SYSTEM_BUS_ADDRESS"] = bus }
        let answer = try? Command.run("dbus-send", ["--system", "--print-reply=literal", "--reply-timeout=2000",
                                                    "--dest=org.freedesktop.Avahi", "/", "org.freedesktop.Avahi.Server.GetState"],
                                      environment: extra)
        guard let answer, answer.status == 0, answer.stdout.contains("int32 2") else {
            let message = "avahi-daemon is not reachable (\(answer?.stderr ?? "no dbus-send")); run "
                + "`scripts/services.sh start && source .build/services/env` first"
            throw TestEnvironment.missing(message)
        }
    }

    /// A random locally administered MAC: runs never collide with each other's leftovers.
    static func randomDeviceId() -> (colons: String, plain: String) {
        var bytes = (0..<6).map { _ in UInt8.random(in: 0...255) }
        bytes[0] = (bytes[0] | 0x02) & 0xFE
        let hex = bytes.map { String(format: "%02X", $0) }
        return (hex.joined(separator: ":"), hex.joined())
    }

    /// `seamcheck discover ... --format json`, decoded.
    static func discoverJSON(_ arguments: [String], environment: [String: String] = [:]) throws -> (status: Int32, json: [String: Any], stderr: String) {
        let result = try SeamcheckBinary.run(["discover", "--format", "json"] + arguments, environment: environment)
        let json = (try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]) ?? [:]
        return (result.status, json, result.stderr)
    }

    /// The JSON objects among a child's output lines (stdout and stderr are one stream there).
    static func jsonLines(_ output: String) -> [[String: Any]] {
        output.split(separator: "\n").filter { $0.hasPrefix("{") }.compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    /// Polls `condition` until it holds or `timeout` passes.
    @discardableResult
    static func wait(_ timeout: TimeInterval, for condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while !condition() {
            if Date() > deadline { return false }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return true
    }
}

/// One fake receiver: an `avahi-publish -s` process per service. `stop()` ends only those PIDs.
final class FakeReceiver {
    let name: String
    let deviceId: (colons: String, plain: String)
    private var publishers: [RunningProcess] = []

    /// Starts publishing `_airplay._tcp` (with `deviceid` added) and, when `raop` is given,
    /// `_raop._tcp` as `<MAC>@<name>`. Call `waitEstablished` before browsing.
    init(name: String, airplay: [String]?, raop: [String]?, port: Int = 7000, raopPort: Int? = nil,
         deviceId: (colons: String, plain: String) = DiscoverEnvironment.randomDeviceId(),
         environment: [String: String]? = nil) throws {
        self.name = name
        self.deviceId = deviceId
        let publish = try TestEnvironment.require("avahi-publish")
        if let airplay {
            let txt = airplay.contains { $0.hasPrefix("deviceid=") } ? airplay : ["deviceid=\(deviceId.colons)"] + airplay
            publishers.append(try RunningProcess(publish, ["-s", name, "_airplay._tcp", String(port)] + txt, environment: environment))
        }
        if let raop {
            publishers.append(try RunningProcess(publish, ["-s", "\(deviceId.plain)@\(name)", "_raop._tcp", String(raopPort ?? port)] + raop,
                                                 environment: environment))
        }
    }

    /// Waits for every publisher's "Established under name" line.
    func waitEstablished(timeout: TimeInterval = 15) throws {
        for publisher in publishers {
            let established = DiscoverEnvironment.wait(timeout) {
                publisher.output.contains("Established under name") || publisher.output.contains("Failed") || publisher.exitCode != nil
            }
            guard established, publisher.output.contains("Established under name") else {
                throw PublishFailed(output: publisher.output)
            }
        }
    }

    struct PublishFailed: Error, CustomStringConvertible {
        let output: String
        var description: String { "avahi-publish did not establish its service: \(output)" }
    }

    func stop() {
        publishers.forEach { $0.terminate() }
    }

    deinit { stop() }
}
