import Foundation
import LabCore
import LabRun
import LabServer
import SeamcheckTestSupport
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// `lab serve` logs what never reaches its middleware (issue 20, item 7): requests the HTTP parser
/// rejects, and requests still in flight when the server stops on SIGTERM. Real sockets on 127.0.0.1.
final class LabServeRejectedRequestTests: HandMadeSuiteTestCase {
    func testGarbageAndAnOversizedHeaderAreLoggedAsRejected() throws {
        let answers = try LabServerProcess.with(streams: folder, database: database, arguments: ["--no-browse"]) { server in
            let garbage = try RawClient.exchange(port: server.port, Array("GARBAGE\r\n\r\n".utf8))
            let oversized = "GET /cases/mid/primary/index.m3u8 HTTP/1.1\r\nHost: lab\r\nX-Big: "
                + String(repeating: "a", count: 200 << 10) + "\r\n\r\n"
            let big = try RawClient.exchange(port: server.port, Array(oversized.utf8))
            // A normal request still works after both.
            let fine = try RawClient.exchange(port: server.port, Array("GET / HTTP/1.1\r\nHost: lab\r\nConnection: close\r\n\r\n".utf8))
            XCTAssertEqual(server.stop(), 0)
            return [garbage, big, fine]
        }
        XCTAssertTrue(answers[0].hasPrefix("HTTP/1.1 400"), "garbage is answered 400: \(answers[0].prefix(80))")
        XCTAssertTrue(answers[2].hasPrefix("HTTP/1.1 200"), "\(answers[2].prefix(80))")

        let requests = try LabStore(path: database, create: false).requests()
        let rejected = requests.filter { $0.method == "-" }
        XCTAssertEqual(rejected.count, 2, "one record per rejected request: \(requests.map { "\($0.method) \($0.path) \($0.status)" })")
        for record in rejected {
            XCTAssertEqual(record.client, "127.0.0.1")
            XCTAssertNotNil(record.clientPort)
            XCTAssertEqual(record.path, "-", "the parser produced no request head")
            XCTAssertEqual(record.bytes, 0)
        }
        XCTAssertEqual(rejected.first?.status, 400, "garbage was answered 400")
        XCTAssertEqual(rejected.map(\.status), [400, 400], "what was sent: 400 to both")
        XCTAssertEqual(requests.filter { $0.method == "GET" }.count, 1, "the good request is logged as ever")

    }

    func testAFloodOfGarbageOnOneConnectionCostsOneRecord() throws {
        try LabServerProcess.with(streams: folder, database: database, arguments: ["--no-browse"]) { server in
            var flood: [UInt8] = []
            for _ in 0..<2000 { flood += Array("GARBAGE\r\n\r\n".utf8) }
            _ = try RawClient.exchange(port: server.port, flood)
            XCTAssertEqual(server.stop(), 0)
        }
        let rejected = try LabStore(path: database, create: false).requests().filter { $0.method == "-" }
        XCTAssertEqual(rejected.count, 1, "the parser stops at its first error; the rest of the flood is not logged")
    }

    func testADownloadInFlightAtSIGTERMIsLoggedAsCutWithWhatTheSocketTook() throws {
        let size = 64 << 20
        try Data(count: size).write(to: URL(fileURLWithPath: folder + "/primary/big.m4s"))
        let received = try LabServerProcess.with(streams: folder, database: database, arguments: ["--no-browse"]) { server in
            let client = try StalledClient(port: server.port, receiveBuffer: 64 << 10,
                                           request: "GET /cases/mid/primary/big.m4s HTTP/1.1\r\nHost: lab\r\n\r\n")
            Thread.sleep(forTimeInterval: 2)  // the server fills the buffers on the way and waits
            let received = client.drainWithoutWaiting()
            let started = Date()
            XCTAssertEqual(server.stop(timeout: 20), 0, "lab serve stops on SIGTERM with a download in flight")
            XCTAssertLessThan(Date().timeIntervalSince(started), 10, "SIGTERM does not wait for the stalled client")
            client.reset()
            return received
        }
        let big = try XCTUnwrap(try LabStore(path: database, create: false).requests().first { $0.path.hasSuffix("big.m4s") },
                                "the request in flight at SIGTERM is logged")
        XCTAssertFalse(big.completed, "cut by the shutdown")
        XCTAssertEqual(big.status, 200)
        XCTAssertEqual(big.expectedBytes, size)
        XCTAssertGreaterThanOrEqual(big.bytes, received.body - SuiteFileChunk.length, "logged \(big.bytes), client got \(received.body)")
        XCTAssertLessThan(big.bytes, size, "the socket took part of the file")
    }
}

/// Sends raw bytes (whatever the server makes of them), then reads the answer until the server
/// closes or 5 s pass. MSG_NOSIGNAL: a server that closes mid-send is an answer, not a SIGPIPE.
enum RawClient {
    static func exchange(port: Int, _ bytes: [UInt8]) throws -> String {
        let fd = try connected(port: port)
        defer { close(fd) }
        send(fd, bytes)
        return receive(fd)
    }

    /// A socket connected to 127.0.0.1:`port`, sends and receives timing out after 5 s.
    static func connected(port: Int) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(fd)
            throw CommandError.notFound("cannot connect to 127.0.0.1:\(port): errno \(errno)")
        }
        return fd
    }

    static func send(_ fd: Int32, _ bytes: [UInt8]) {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { break }
            sent += count
        }
    }

    /// What arrives until the server closes, 5 s pass, or 1 MiB came.
    static func receive(_ fd: Int32) -> String {
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 << 10)
        while answer.count < 1 << 20 {
            let count = recv(fd, &buffer, buffer.count, 0)
            guard count > 0 else { break }
            answer += buffer.prefix(count)
        }
        return String(decoding: answer, as: UTF8.self)
    }
}
