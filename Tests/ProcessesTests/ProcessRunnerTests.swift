import Foundation
import Processes
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// The one runner, on real processes (/bin/sh, sleep, head): what it captures, how it ends
/// children that overrun or are cancelled, and what it says when one cannot start.
final class ProcessRunnerTests: XCTestCase {
    func testStdoutStderrAndTheStatusComeBackSeparately() async {
        let result = await ProcessRunner.run("/bin/sh", ["-c", "echo out; echo err >&2; exit 3"], timeout: 30)
        XCTAssertEqual([String(result.status), result.stdout, result.stderr], ["3", "out\n", "err\n"])
        XCTAssertFalse(result.timedOut)
    }

    func testAChildPastItsTimeoutIsKilledAndSaysSo() {
        let started = Date()
        let result = ProcessRunner.runAndWait("/bin/sh", ["-c", "exec sleep 30"], timeout: 0.5)
        XCTAssertTrue(result.timedOut)
        XCTAssertEqual(result.status, 128 + SIGKILL)
        XCTAssertLessThan(Date().timeIntervalSince(started), 10)
    }

    func testCaptureIsBoundedAndTheChildStillRunsToItsEnd() {
        let result = ProcessRunner.runAndWait("/bin/sh", ["-c", "head -c 5000000 /dev/zero; echo done >&2"], timeout: 30, captureLimit: 1000)
        XCTAssertEqual(result.status, 0)
        XCTAssertEqual(result.stdout.utf8.count, 1000)
        XCTAssertEqual(result.stderr, "done\n")
    }

    func testTheChildRunsInTheFolderGivenWithTheEnvironmentGiven() {
        let folder = FileManager.default.temporaryDirectory.resolvingSymlinksInPath().path
        let result = ProcessRunner.runAndWait("/bin/sh", ["-c", "pwd; echo $SEAMCHECK_PROBE"], environment: ["SEAMCHECK_PROBE": "yes"],
                                              directory: folder, timeout: 30)
        XCTAssertEqual(result.stdout, folder + "\nyes\n")
    }

    func testAnExecutableThatIsNotThereIsStatusMinusOneWithTheReason() async {
        let result = await ProcessRunner.run("/nonexistent/seamcheck-tool", [], timeout: 5)
        XCTAssertEqual(result.status, -1)
        XCTAssertTrue(result.stderr.hasPrefix("cannot start /nonexistent/seamcheck-tool: "), result.stderr)
    }

    /// Swift's concurrency threads block SIGTERM; a child must not inherit that (Foundation's
    /// Process hands it on, and `terminate()` then waits forever).
    func testSIGTERMEndsAChildStartedFromAThreadThatBlocksIt() throws {
        var blocked = sigset_t(), previous = sigset_t()
        sigemptyset(&blocked)
        sigaddset(&blocked, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &blocked, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        let child = try RunningProcess("/bin/sh", ["-c", "exec sleep 30"])
        let started = Date()
        child.terminate(grace: 10)
        XCTAssertEqual(child.exitCode, 128 + SIGTERM)
        XCTAssertLessThan(Date().timeIntervalSince(started), 5)
    }

    func testCancellingTheTaskKillsTheChild() async {
        let task = Task { await ProcessRunner.run("/bin/sh", ["-c", "exec sleep 30"], timeout: 60) }
        try? await Task.sleep(for: .milliseconds(300))
        let started = Date()
        task.cancel()
        let result = await task.value
        XCTAssertEqual(result.status, 128 + SIGKILL)
        XCTAssertLessThan(Date().timeIntervalSince(started), 10)
    }

    func testToolPathFindsNamesOnPATHAndTakesExecutablePathsAsTheyAre() {
        let sh = ToolPath.find("sh")
        XCTAssertNotNil(sh)
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: sh ?? ""))
        XCTAssertEqual(ToolPath.find("/bin/sh"), "/bin/sh")
        XCTAssertNil(ToolPath.find("seamcheck-no-such-tool"))
        XCTAssertNil(ToolPath.find("/nonexistent/sh"))
        // Not on PATH: the sbin and bin folders a user's PATH may lack.
        let fallback = ToolPath.find("sh", environment: ["PATH": "/nonexistent"])
        XCTAssertEqual(fallback.map { URL(fileURLWithPath: $0).deletingLastPathComponent().path }.map(ToolPath.fallbackFolders.contains), true)
    }
}
