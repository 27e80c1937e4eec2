import Foundation
import Processes
import XCTest

/// The Python of .build/hap-venv (`scripts/python-venv.sh hap`): HAP-python from PyPI, the independent
/// implementation of HAP pairing the AirPlay tests check against.
public enum HAPPython {
    public static func python() throws -> String {
        let python = MediaFixture.packageRoot + "/.build/hap-venv/bin/python"
        guard FileManager.default.isExecutableFile(atPath: python),
              (try? Command.run(python, ["-c", "import pyhap"], timeout: 30))?.status == 0 else {
            throw TestEnvironment.missing("\(python) has no HAP-python (run scripts/python-venv.sh hap)")
        }
        return python
    }

    /// stdout of Tests/Server/hap_vectors.py with `arguments`, trimmed.
    public static func vectors(_ arguments: [String]) throws -> String {
        let result = try Command.run(try python(), [MediaFixture.packageRoot + "/Tests/Server/hap_vectors.py"] + arguments, timeout: 60)
        guard result.status == 0 else { throw HAPPythonFailure(message: "hap_vectors.py failed: \(result.stderr)") }
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

public struct HAPPythonFailure: Error, CustomStringConvertible {
    public let message: String
    public init(message: String) { self.message = message }
    public var description: String { message }
}

/// A HAP-python accessory (Tests/Server/hap_accessory.py) in a child process on 127.0.0.1, mDNS
/// advertising off; stopped at the end of `with`.
public final class HAPAccessory: @unchecked Sendable {
    public let port: Int
    public let pin: String
    private let process: RunningProcess
    public let state: String

    private init(pin: String) throws {
        self.pin = pin
        state = FileManager.default.temporaryDirectory.appendingPathComponent("seamcheck-hap-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        process = try RunningProcess(try HAPPython.python(), [MediaFixture.packageRoot + "/Tests/Server/hap_accessory.py",
                                                             "--pin", pin, "--state", state, "--lifetime", "300"])
        let deadline = Date().addingTimeInterval(30)
        while !process.output.contains("READY"), process.exitCode == nil, Date() < deadline {
            Thread.sleep(forTimeInterval: 0.02)
        }
        guard let line = process.output.split(separator: "\n").first(where: { $0.hasPrefix("PORT accessory ") }),
              let port = Int(line.split(separator: " ")[2]) else {
            process.terminate()
            throw HAPPythonFailure(message: "hap_accessory.py did not start: \(process.output)")
        }
        self.port = port
    }

    public static func with<T>(pin: String = "031-45-154", _ body: (HAPAccessory) async throws -> T) async throws -> T {
        let accessory = try HAPAccessory(pin: pin)
        defer { accessory.stop() }
        return try await body(accessory)
    }

    /// Controller identifiers the accessory reported paired. Its "PAIRED" line is printed from the
    /// accessory's own thread as it stores the pairing and reaches us through a pipe, so it may lag
    /// the answer to M5: this waits up to 2 s for the first one (and so 2 s when there is none).
    public var paired: [String] {
        func read() -> [String] {
            process.output.split(separator: "\n").filter { $0.hasPrefix("PAIRED ") }.map { String($0.dropFirst(7)) }
        }
        let deadline = Date().addingTimeInterval(2)
        var lines = read()
        while lines.isEmpty, Date() < deadline {
            Thread.sleep(forTimeInterval: 0.02)
            lines = read()
        }
        return lines
    }

    public var output: String { process.output }

    public func stop() {
        process.terminate()
        try? FileManager.default.removeItem(atPath: state)
    }
}

/// A test's own Python peer (Tests/Server/SCRIPT, in the hap venv) listening on one loopback port
/// per mode: it prints "PORT mode n" for each, then "READY", then whatever the test reads from
/// `output`. Not a receiver: a way to send one scripted answer per mode. Stopped at `stop()`.
public final class LoopbackPeers: @unchecked Sendable {
    public let ports: [String: Int]
    private let process: RunningProcess

    public init(script: String, modes: [String], lifetime: Int = 120) throws {
        process = try RunningProcess(try HAPPython.python(), [MediaFixture.packageRoot + "/Tests/Server/" + script,
                                                             "--lifetime", String(lifetime)] + modes.flatMap { ["--listen", $0] })
        let deadline = Date().addingTimeInterval(30)
        while !process.output.contains("READY"), process.exitCode == nil, Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        var ports: [String: Int] = [:]
        for line in process.output.split(separator: "\n") where line.hasPrefix("PORT ") {
            let parts = line.split(separator: " ")
            if parts.count == 3, let port = Int(parts[2]) { ports[String(parts[1])] = port }
        }
        guard ports.count == modes.count else {
            process.terminate()
            throw HAPPythonFailure(message: "\(script) did not start: \(process.output)")
        }
        self.ports = ports
    }

    public var output: String { process.output }

    public func stop() { process.terminate() }
}
