@testable import AirPlay
import Foundation
import Processes
import SeamcheckTestSupport

/// Tests/Server/airplay_receiver.py in a child process: one port per mode, each playing an
/// AirPlay 1 receiver (or misbehaving as its mode says). Reads back what the server received.
final class ReceiverServer: @unchecked Sendable {
    let ports: [String: Int]
    private let process: RunningProcess

    struct Request: Decodable {
        var mode: String
        var conn: Int
        var method: String
        var path: String
        var headers: [String: String]
        var body: String

        var bodyData: Data { Data(base64Encoded: body) ?? Data() }
        func header(_ name: String) -> String? {
            headers.first { $0.key.lowercased() == name.lowercased() }?.value
        }
    }

    init(modes: [String]) throws {
        (process, ports) = try ModeServerScript.start("airplay_receiver.py", modes: modes)
    }

    deinit { process.terminate() }

    func endpoint(_ mode: String) -> AirPlayEndpoint {
        AirPlayEndpoint(host: "127.0.0.1", port: ports[mode] ?? 0, name: mode)
    }

    private func lines(_ prefix: String) -> [Substring] {
        process.output.split(separator: "\n").filter { $0.hasPrefix(prefix) }
    }

    /// The requests `mode`'s port received, in order.
    func requests(_ mode: String) -> [Request] {
        lines("REQUEST ").compactMap { try? JSONDecoder().decode(Request.self, from: Data($0.dropFirst(8).utf8)) }
            .filter { $0.mode == mode }
    }

    /// `mode`'s requests once `count` of them have been read (up to 5 s) and a tenth of a second
    /// more has passed for any extra one. The server logs each request before answering it, but its
    /// output reaches us asynchronously: an answer can arrive before the line that logged it.
    func requests(_ mode: String, expecting count: Int) -> [Request] {
        _ = wait { requests(mode).count >= count }
        Thread.sleep(forTimeInterval: 0.1)
        return requests(mode)
    }

    /// The server's lines starting with `prefix` (the reverse modes' REVERSE-... lines).
    func output(_ prefix: String) -> [String] { lines(prefix).map(String.init) }

    /// TCP connections `mode`'s port accepted.
    func connections(_ mode: String) -> Int {
        lines("CONNECT \(mode) ").count
    }

    /// (bytes, complete) of each streamed body of `mode`, once the server stopped sending it.
    func sent(_ mode: String) -> [(bytes: Int, complete: Bool)] {
        lines("SENT \(mode) ").compactMap { line in
            let parts = line.split(separator: " ")
            guard parts.count == 4, let bytes = Int(parts[2]) else { return nil }
            return (bytes, parts[3] == "true")
        }
    }

    /// Polls until `condition` holds or `timeout` passes (the server logs asynchronously).
    func wait(timeout: Double = 5, until condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while !condition() {
            if Date() > deadline { return false }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return true
    }
}
