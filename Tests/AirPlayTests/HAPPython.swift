@testable import AirPlay
import Foundation
import Processes
import SeamcheckTestSupport
import XCTest

/// HAP-python (PyPI, scripts/hap-venv.sh) as the independent implementation the pairing code is
/// checked against: its SRP server and framing (Tests/Server/hap_vectors.py) and a real accessory
/// (Tests/Server/hap_accessory.py, mDNS advertising off, 127.0.0.1 only).
enum HAPPython {
    static func python() throws -> String {
        let python = MediaFixture.packageRoot + "/.build/hap-venv/bin/python"
        guard FileManager.default.isExecutableFile(atPath: python),
              (try? Command.run(python, ["-c", "import pyhap"], timeout: 30))?.status == 0 else {
            throw TestEnvironment.missing("\(python) has no HAP-python (run scripts/hap-venv.sh)")
        }
        return python
    }

    /// stdout of hap_vectors.py with `arguments`, trimmed.
    static func vectors(_ arguments: [String]) throws -> String {
        let result = try Command.run(try python(), [MediaFixture.packageRoot + "/Tests/Server/hap_vectors.py"] + arguments, timeout: 60)
        guard result.status == 0 else { throw HAPPythonFailure(message: "hap_vectors.py failed: \(result.stderr)") }
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

struct HAPPythonFailure: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

/// A HAP-python accessory in a child process, stopped by `with`'s end.
final class HAPAccessory: @unchecked Sendable {
    let port: Int
    let pin: String
    private let process: RunningProcess
    let state: String

    private init(pin: String) throws {
        self.pin = pin
        state = FileManager.default.temporaryDirectory.appendingPathComponent("seamcheck-hap-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        process = try RunningProcess(try HAPPython.python(), [MediaFixture.packageRoot + "/Tests/Server/hap_accessory.py",
                                                             "--pin", pin, "--state", state, "--lifetime", "300"])
        let deadline = Date().addingTimeInterval(15)
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

    static func with<T>(pin: String = "031-45-154", _ body: (HAPAccessory) async throws -> T) async throws -> T {
        let accessory = try HAPAccessory(pin: pin)
        defer { accessory.stop() }
        return try await body(accessory)
    }

    var endpoint: AirPlayEndpoint { AirPlayEndpoint(host: "127.0.0.1", port: port, name: "hap-python") }

    /// Controller identifiers the accessory reported paired.
    var paired: [String] {
        process.output.split(separator: "\n").filter { $0.hasPrefix("PAIRED ") }.map { String($0.dropFirst(7)) }
    }

    var output: String { process.output }

    func stop() {
        process.terminate()
        try? FileManager.default.removeItem(atPath: state)
    }
}
