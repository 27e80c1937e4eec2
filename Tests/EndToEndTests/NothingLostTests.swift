import Foundation
import LabCore
import Processes
import SeamcheckTestSupport
import XCTest

/// Issue 31, "nothing lost, nothing false", end to end with the built binary: a lab run whose
/// database another process holds locked keeps every cell (or ends resumable), the `.sqlite` alone
/// holds what a command wrote, capture inputs that block end with exit 2 within their deadline,
/// and the lab server answers clients without a Host header and HTTP/1.0 clients correctly.
final class NothingLostTests: XCTestCase {
    var folder = ""
    var database = ""
    var receivers: [LoopbackReceiver] = []
    var lockers: [RunningProcess] = []

    override func setUpWithError() throws {
        folder = try LabEnvironment.temporaryFolder("lost")
        database = folder + "/lab.sqlite"
    }

    override func tearDown() {
        receivers.forEach { $0.stop() }
        lockers.forEach { $0.terminate() }
        try? FileManager.default.removeItem(atPath: folder)
    }

    func receiver(_ host: String, _ options: [String] = []) throws -> LoopbackReceiver {
        let receiver = try LoopbackReceiver(host: host, options: options)
        receivers.append(receiver)
        return receiver
    }

    func runArguments(_ arguments: [String]) throws -> [String] {
        ["lab", "run", "--db", database, "--streams", try LabSuiteFixture.small(), "--bind", "127.0.0.1", "--poll-interval", "100"] + arguments
    }

    /// A process holding `BEGIN EXCLUSIVE` on the database for `seconds`, returned once the lock is
    /// held; one process (Python's sqlite3), so that `terminate()` ends it and frees the lock at once.
    func lock(_ path: String, seconds: Int) throws -> RunningProcess {
        let python = try TestEnvironment.require("python3")
        let script = "import sqlite3, sys, time\n"
            + "c = sqlite3.connect(sys.argv[1], timeout=20, isolation_level=None)\n"
            + "c.execute('BEGIN EXCLUSIVE'); print('LOCKED', flush=True)\n"
            + "time.sleep(float(sys.argv[2])); c.execute('COMMIT')\n"
        let locker = try RunningProcess(python, ["-c", script, path, String(seconds)])
        lockers.append(locker)
        XCTAssertTrue(DiscoverEnvironment.wait(30, for: { locker.output.contains("LOCKED") || locker.exitCode != nil }), locker.output)
        return locker
    }

    /// Starts `lab run` in the background and waits for its "lab run ID:" line; returns the process and the run id.
    func startRun(_ arguments: [String]) throws -> (RunningProcess, String) {
        let run = try RunningProcess(SeamcheckBinary.path, try runArguments(arguments), environment: ProcessInfo.processInfo.environment.merging(["NO_COLOR": "1"]) { _, new in new },
                                     directory: MediaFixture.packageRoot)
        XCTAssertTrue(DiscoverEnvironment.wait(60, for: { run.output.contains(" case(s) on ") || run.exitCode != nil }), run.output)
        let id = try XCTUnwrap(run.output.firstMatch(of: /lab run ([0-9]{8}-[0-9]{6}-[0-9a-f]+):/).map { String($0.1) }, run.output)
        return (run, id)
    }

    func testALabRunWhoseDatabaseIsLockedForThirtySecondsKeepsEveryCell() throws {
        let tv = try receiver("127.0.0.41", ["--duration", "3"])
        try LoopbackReceiver.requireSender(tv)
        let (run, id) = try startRun(["--receiver", tv.address, "--case", "control", "--case", "frame-rate-25", "--format", "json"])
        let locker = try lock(database, seconds: 30)
        let result = run.result(timeout: 300)
        XCTAssertNotNil(locker.exitCode, "the lock was held until the run's writes got through")
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertFalse(result.stderr.contains("disk space"), result.stderr)
        let listed = try SeamcheckBinary.run(["lab", "runs", "--db", database, "--format", "table"])
        XCTAssertTrue(listed.stdout.contains(id) && listed.stdout.contains("finished") && listed.stdout.contains("2/2"), listed.stdout)
    }

    func testARunThatCannotStoreACellEndsInterruptedWithExit5AndResumeCompletesIt() throws {
        let tv = try receiver("127.0.0.42", ["--duration", "3"])
        try LoopbackReceiver.requireSender(tv)
        let (run, id) = try startRun(["--receiver", tv.address, "--case", "control", "--case", "frame-rate-25", "--write-patience", "0",
                                      "--format", "json"])
        _ = try lock(database, seconds: 30)
        let result = run.result(timeout: 300)
        XCTAssertEqual(result.status, 5, result.stderr)
        XCTAssertTrue(result.stderr.contains("was played but could not be stored") && result.stderr.contains("database is locked")
                      && result.stderr.contains("--resume \(id)"), result.stderr)
        XCTAssertFalse(result.stderr.contains("no receiver could be run") || result.stderr.contains("disk space"), result.stderr)
        // The run has ended: the lock's holder is stopped (its transaction rolls back) rather than waited out.
        lockers.forEach { $0.terminate(); _ = $0.result(timeout: 60) }
        let runs = try SeamcheckBinary.run(["lab", "runs", "--db", database, "--format", "table"])
        XCTAssertTrue(runs.stdout.contains(id) && runs.stdout.contains("interrupted"), runs.stdout + runs.stderr)

        let resumed = try Command.run(SeamcheckBinary.path, try runArguments(["--resume", id, "--format", "json"]), timeout: 300)
        XCTAssertEqual(resumed.status, 0, resumed.stderr)
        let listed = try SeamcheckBinary.run(["lab", "runs", "--db", database, "--format", "table"])
        XCTAssertTrue(listed.stdout.contains(id) && listed.stdout.contains("finished") && listed.stdout.contains("2/2"), listed.stdout)
    }

    /// The run's rows are in the `.sqlite` when the command ends: a copy of that one file holds them.
    func testACopyOfTheSqliteFileAloneHoldsTheRun() throws {
        let tv = try receiver("127.0.0.43", ["--duration", "2"])
        try LoopbackReceiver.requireSender(tv)
        let result = try Command.run(SeamcheckBinary.path, try runArguments(["--receiver", tv.address, "--case", "control", "--format", "json"]),
                                     timeout: 300)
        XCTAssertEqual(result.status, 0, result.stderr)
        let copy = folder + "/copy/lab.sqlite"
        try FileManager.default.createDirectory(atPath: folder + "/copy", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: database, toPath: copy)
        let store = try LabStore(path: copy, create: false)
        let run = try XCTUnwrap(try store.runs().first, "the copied .sqlite has the run")
        XCTAssertEqual(run.state, .finished)
        XCTAssertEqual(try store.cells(runId: run.id).count, 1)
        XCTAssertEqual(try store.verdicts().filter { $0.source == .measured }.count, 1)
    }

    func testLabMeasureOnAFIFOWithoutAWriterEndsWithExit2NamingIt() throws {
        let fifo = folder + "/capture.fifo"
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let result = try Command.run(SeamcheckBinary.path, ["lab", "measure", fifo, "--duration", "2"], timeout: 60)
        XCTAssertEqual(result.status, 2, result.stderr)
        XCTAssertTrue(result.stderr.contains(fifo) && result.stderr.contains("FIFO"), result.stderr)

        // A writer that opens it and sends nothing: the same deadline.
        let writer = try RunningProcess("/bin/sh", ["-c", "exec 3>\(fifo); sleep 60"])
        lockers.append(writer)
        let silent = try Command.run(SeamcheckBinary.path, ["lab", "measure", fifo], timeout: 60)
        XCTAssertEqual(silent.status, 2, silent.stderr)
        XCTAssertTrue(silent.stderr.contains(fifo), silent.stderr)
    }

    func testLabRunWithAFIFOCaptureEndsWithExit2BeforeAnyPlay() throws {
        let tv = try receiver("127.0.0.44", ["--duration", "2"])
        try LoopbackReceiver.requireSender(tv)
        let fifo = folder + "/capture.fifo"
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let result = try Command.run(SeamcheckBinary.path, try runArguments(["--receiver", tv.address, "--case", "control", "--capture", fifo]),
                                     timeout: 60)
        XCTAssertEqual(result.status, 2, result.stderr)
        XCTAssertTrue(result.stderr.contains(fifo), result.stderr)
        XCTAssertFalse(tv.output.contains("PLAY "), "nothing was played: \(tv.output)")
    }

    /// Raw sockets: a GET without a Host header (HTTP/1.0) on a server listening on port 0.
    func testAClientWithoutAHostHeaderGetsTheBoundPortAndHTTP10ConnectionsClose() throws {
        let suite = try LabSuiteFixture.small()
        let playlist = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: suite + "/cases").sorted().first { id in
            (try? String(contentsOfFile: suite + "/cases/\(id)/primary.m3u8", encoding: .utf8))?.contains("X-ASSET-URI") == true
        }.map { "/cases/\($0)/primary.m3u8" })
        try LabServerProcess.with(suite: suite, database: database, inventory: nil, browse: false) { server in
            let script = """
                import socket, sys
                def ask(request, timeout):
                    s = socket.create_connection(("127.0.0.1", \(server.port))); s.settimeout(timeout)
                    s.sendall(request); data = b""
                    try:
                        while True:
                            chunk = s.recv(65536)
                            if not chunk: return data, "closed"
                            data += chunk
                    except socket.timeout:
                        return data, "open"
                    finally:
                        s.close()
                path = b"\(playlist)"
                for name, request in [("http10", b"GET " + path + b" HTTP/1.0\\r\\n\\r\\n"),
                                      ("http11", b"GET " + path + b" HTTP/1.1\\r\\nHost: 127.0.0.1:\(server.port)\\r\\n\\r\\n")]:
                    data, state = ask(request, 15 if name == "http10" else 2)
                    uris = [l for l in data.decode(errors="replace").splitlines() if "X-ASSET-URI" in l]
                    print(name, state, uris[0] if uris else "NO-URI")
                """
            let result = try Command.run("python3", ["-c", script], timeout: 60)
            XCTAssertEqual(result.status, 0, result.stderr)
            let lines = result.stdout.split(separator: "\n").map(String.init)
            let http10 = try XCTUnwrap(lines.first { $0.hasPrefix("http10") }, result.stdout)
            XCTAssertTrue(http10.hasPrefix("http10 closed"), "HTTP/1.0 without keep-alive is one request a connection: \(http10)")
            XCTAssertTrue(http10.contains("X-ASSET-URI=\"http://127.0.0.1:\(server.port)/"), http10)
            XCTAssertFalse(http10.contains(":0/"), http10)
            let http11 = try XCTUnwrap(lines.first { $0.hasPrefix("http11") }, result.stdout)
            XCTAssertTrue(http11.hasPrefix("http11 open"), "HTTP/1.1 stays kept alive: \(http11)")
        }
    }

    /// `lab serve` killed outright (SIGKILL: no flush, no checkpoint) keeps every request batch its
    /// log committed before: the rows are in the WAL, which the next open reads. What it loses is at
    /// most the batch not yet committed (`docs/lab.md`: one every 25 ms).
    func testALabServerKilledMidRunKeepsEveryBatchItCommitted() throws {
        let suite = try LabSuiteFixture.small()
        let playlist = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: suite + "/cases").sorted().first.map {
            "/cases/\($0)/primary.m3u8"
        })
        var killed: Int32?
        try LabServerProcess.with(suite: suite, database: database, inventory: nil, browse: false) { server in
            let script = """
                import socket
                s = socket.create_connection(("127.0.0.1", \(server.port))); s.settimeout(20)
                s.sendall(b"".join(b"GET \(playlist) HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\n\\r\\n" for _ in range(300)))
                data = b""
                while data.count(b"HTTP/1.1 200 OK") < 300:
                    chunk = s.recv(65536)
                    if not chunk: break
                    data += chunk
                print(data.count(b"HTTP/1.1 200 OK"))
                """
            let result = try Command.run("python3", ["-c", script], timeout: 60)
            XCTAssertEqual(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "300", result.stderr)
            // Counted by another process while the server runs (a reader of ours, closed last, would
            // fold the WAL into the file and hide what this is about).
            let count = "import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute('SELECT count(*) FROM labRequest').fetchone()[0])"
            XCTAssertTrue(DiscoverEnvironment.wait(30, for: {
                (try? Command.run("python3", ["-c", count, self.database], timeout: 20))?.stdout.hasPrefix("300") == true
            }), "the log committed the 300 requests")
            kill(server.process.pid, SIGKILL)
            killed = server.process.wait(timeout: 15)
        }
        XCTAssertNotNil(killed)
        XCTAssertTrue(FileManager.default.fileExists(atPath: database + "-wal"), "killed before its checkpoint: the rows are in the WAL")
        let store = try LabStore(path: database, create: false)
        let requests = try store.requests()
        XCTAssertEqual(requests.count, 300)
        XCTAssertTrue(requests.allSatisfy { $0.path == playlist && $0.status == 200 && $0.completed }, "\(requests.prefix(3))")
    }

    // MARK: words that send people the right way

    func testADamagedDatabaseIsToldToRecoverNotToFreeDiskSpace() throws {
        let damaged = folder + "/damaged.sqlite"
        try Data(repeating: 0x5A, count: 8192).write(to: URL(fileURLWithPath: damaged))
        let result = try SeamcheckBinary.run(["lab", "runs", "--db", damaged])
        XCTAssertEqual(result.status, 2, result.stderr)
        XCTAssertTrue(result.stderr.contains(".recover"), result.stderr)
        XCTAssertFalse(result.stderr.contains("disk space"), result.stderr)
    }

    func testADbPathInAMissingFolderIsRefusedAndNoFolderIsMade() throws {
        let missing = folder + "/no/such/dir/x.sqlite"
        let result = try SeamcheckBinary.run(["lab", "run", "--db", missing, "--receiver", "127.0.0.1:1", "--streams", try LabSuiteFixture.small()])
        XCTAssertEqual(result.status, 2, result.stderr)
        XCTAssertTrue(result.stderr.contains("does not exist"), result.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder + "/no"), "no folder tree was made")
    }

    /// A 1280x720 capture cut in half: its own size is reported (not the 480-wide analysis size),
    /// and a note says it ended early.
    func testACaptureCutShortSaysSoAndReportsItsOwnSize() throws {
        let suite = try LabSuiteFixture.small()
        let whole = folder + "/whole.mkv", cut = folder + "/cut.mkv"
        let made = try Command.run("ffmpeg", ["-v", "error", "-y", "-i", suite + "/primary/encoded.m3u8", "-vf", "scale=1280:720", "-an",
                                              "-c:v", "libx264", "-preset", "ultrafast", whole], timeout: 240)
        XCTAssertEqual(made.status, 0, made.stderr)
        let data = try Data(contentsOf: URL(fileURLWithPath: whole))
        try data.prefix(data.count / 2).write(to: URL(fileURLWithPath: cut))
        let result = try SeamcheckBinary.run(["lab", "measure", cut, "--streams", suite, "--format", "json"])
        let document = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], result.stderr)
        let capture = try XCTUnwrap(document["capture"] as? [String: Any])
        XCTAssertEqual(capture["width"] as? Int, 1280)
        XCTAssertEqual(capture["height"] as? Int, 720)
        XCTAssertTrue((document["notes"] as? [String] ?? []).contains { $0.contains("the capture ended early") }, "\(document["notes"] ?? "")")
        let full = try SeamcheckBinary.run(["lab", "measure", whole, "--streams", suite, "--format", "json"])
        XCTAssertFalse(full.stdout.contains("ended early"), "the whole file is not cut short: \(full.stdout.prefix(400))")
    }
}
