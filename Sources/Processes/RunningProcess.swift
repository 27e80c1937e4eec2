import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A child process, started with posix_spawn: stdin from /dev/null, stdout and stderr captured
/// (each at most `captureLimit` bytes; the rest is read and dropped, so the child never blocks on
/// a full pipe), an empty signal mask and default SIGTERM, SIGINT, SIGPIPE and SIGHUP handling.
///
/// Not Foundation's `Process`: on Linux it hands the child the spawning thread's signal mask and
/// the parent's ignored signals. Swift's concurrency threads block SIGTERM, and a command that
/// traps SIGINT ignores it, so a child started from either could not be stopped but by SIGKILL.
///
/// Most callers want `ProcessRunner.run` (to the end, with a timeout); a long-running child (a
/// server the caller talks to) is started with `init`, read with `output`, and ended with
/// `terminate()`.
public final class RunningProcess: @unchecked Sendable {
    /// 16 MiB per stream: more than any tool Seamcheck runs prints, bounded for one that loops.
    public static let defaultCaptureLimit = 16 << 20

    public let pid: pid_t
    public let executable: String
    private let lock = NSLock()
    private var captured = Capture()
    private var exitStatus: Int32?

    /// Starts `executable` (a path; `ToolPath.find` turns a name into one). `environment`
    /// replaces this process's environment when given; `directory` is the child's working folder.
    public init(_ executable: String, _ arguments: [String], environment: [String: String]? = nil, directory: String? = nil,
                captureLimit: Int = RunningProcess.defaultCaptureLimit) throws(SpawnError) {
        self.executable = executable
        var out: [Int32] = [-1, -1], err: [Int32] = [-1, -1]
        guard pipe(&out) == 0 else { throw SpawnError(executable: executable, code: errno) }
        guard pipe(&err) == 0 else {
            let code = errno
            out.forEach { close($0) }
            throw SpawnError(executable: executable, code: code)
        }
        for fd in out + err { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }  // dup2 clears it on the child's copies
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, out[1], 1)
        posix_spawn_file_actions_adddup2(&actions, err[1], 2)
        if let directory {
            guard let addChdir = Self.addChdir, addChdir(&actions, directory) == 0 else {
                (out + err).forEach { close($0) }
                throw SpawnError(executable: executable, code: ENOSYS, detail: "cannot set the working folder \(directory)")
            }
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGTERM, SIGINT, SIGPIPE, SIGHUP] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let environment = environment ?? ProcessInfo.processInfo.environment
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let code = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        close(out[1])
        close(err[1])
        guard code == 0 else {
            close(out[0])
            close(err[0])
            throw SpawnError(executable: executable, code: code)
        }
        self.pid = pid
        let (stdoutFD, stderrFD) = (out[0], err[0])
        Thread { [self] in readToEnd(stdout: stdoutFD, stderr: stderrFD, limit: captureLimit) }.start()
    }

    /// What the child wrote to stdout so far (at most the capture limit).
    public var stdout: String { lock.withLock { String(decoding: captured.stdout, as: UTF8.self) } }
    /// What the child wrote to stderr so far.
    public var stderr: String { lock.withLock { String(decoding: captured.stderr, as: UTF8.self) } }
    /// stdout and stderr in the order they were read: for waiting on a line a server prints.
    public var output: String { lock.withLock { String(decoding: captured.both, as: UTF8.self) } }

    /// The exit status once the child has exited (128 + the signal when a signal ended it); nil
    /// while it runs. The child is reaped here, so its PID is never reused under the caller.
    public var exitCode: Int32? {
        lock.withLock {
            if exitStatus == nil {
                var status: Int32 = 0
                if waitpid(pid, &status, WNOHANG) == pid {
                    exitStatus = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
                }
            }
            return exitStatus
        }
    }

    /// Blocks until the child exits and its output is read, or `timeout` passes: then it is
    /// SIGKILLed (a hang fails its caller instead of running into CI's own limit), the child only,
    /// not processes it started. Returns the exit status.
    @discardableResult
    public func wait(timeout: TimeInterval) -> Int32 {
        let deadline = Date().addingTimeInterval(timeout)
        while exitCode == nil {
            if Date() > deadline {
                kill(pid, SIGKILL)
                lock.withLock { captured.killed = true }
                return wait(timeout: 5)
            }
            Thread.sleep(forTimeInterval: 0.01)
        }
        // A grandchild that kept the pipes open does not hold the caller for long.
        let drained = Date().addingTimeInterval(2)
        while !lock.withLock({ captured.ended }), Date() < drained { Thread.sleep(forTimeInterval: 0.01) }
        return exitCode ?? -1
    }

    /// SIGTERM to this PID only, then waits for it (SIGKILL after `grace` seconds).
    public func terminate(grace: TimeInterval = 5) {
        guard exitCode == nil else { return }
        kill(pid, SIGTERM)
        wait(timeout: grace)
    }

    /// The child's end as a value: waits as `wait(timeout:)` does.
    public func result(timeout: TimeInterval) -> ProcessResult {
        let status = wait(timeout: timeout)
        return lock.withLock {
            ProcessResult(status: status, stdout: String(decoding: captured.stdout, as: UTF8.self),
                          stderr: String(decoding: captured.stderr, as: UTF8.self), timedOut: captured.killed)
        }
    }

    private func readToEnd(stdout: Int32, stderr: Int32, limit: Int) {
        var fds = [pollfd(fd: stdout, events: Int16(POLLIN), revents: 0), pollfd(fd: stderr, events: Int16(POLLIN), revents: 0)]
        var buffer = [UInt8](repeating: 0, count: 65536)
        var open = 2
        while open > 0 {
            guard poll(&fds, nfds_t(fds.count), -1) >= 0 else {
                if errno == EINTR { continue }
                break
            }
            for index in fds.indices where fds[index].fd >= 0 && fds[index].revents != 0 {
                let count = read(fds[index].fd, &buffer, buffer.count)
                if count > 0 {
                    lock.withLock { captured.append(buffer[0..<count], toStderr: index == 1, limit: limit) }
                } else if count == 0 || errno != EINTR {
                    close(fds[index].fd)
                    fds[index].fd = -1
                    open -= 1
                }
            }
        }
        lock.withLock { captured.ended = true }
    }

    private struct Capture {
        var stdout = Data(), stderr = Data(), both = Data()
        var ended = false, killed = false

        mutating func append(_ bytes: ArraySlice<UInt8>, toStderr: Bool, limit: Int) {
            let own = toStderr ? stderr.count : stdout.count
            let kept = bytes.prefix(max(0, limit - own))
            if toStderr { stderr.append(contentsOf: kept) } else { stdout.append(contentsOf: kept) }
            both.append(contentsOf: bytes.prefix(max(0, 2 * limit - both.count)))
        }
    }

    private typealias AddChdir = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32
    /// glibc 2.29's posix_spawn_file_actions_addchdir_np, which Swift's Glibc module does not show.
    private static let addChdir: AddChdir? = dlsym(nil, "posix_spawn_file_actions_addchdir_np").map { unsafeBitCast($0, to: AddChdir.self) }
}

/// How a child run to its end ended.
public struct ProcessResult: Sendable, Equatable {
    /// The exit status; 128 + the signal when a signal ended it; -1 when it could not start.
    public var status: Int32
    public var stdout: String
    public var stderr: String
    /// True when the timeout ran out and the child was SIGKILLed.
    public var timedOut = false

    public init(status: Int32, stdout: String, stderr: String, timedOut: Bool = false) {
        self.status = status
        self.stdout = stdout
        self.stderr = stderr
        self.timedOut = timedOut
    }
}

/// A child that could not be started: `description` names it and why.
public struct SpawnError: Error, Sendable, Equatable, CustomStringConvertible {
    public var executable: String
    /// errno of the failed call.
    public var code: Int32
    public var detail: String?

    public var description: String { "cannot start \(executable): \(detail ?? String(cString: strerror(code)))" }
}

/// The one way Seamcheck (and its tests) run a tool: to its end, with a timeout and bounded
/// output capture. `RunningProcess` is for a child that keeps running while the caller talks to it.
public enum ProcessRunner {
    /// Runs `executable` (a path: `ToolPath.find` turns a name into one) to its end, at most
    /// `timeout` seconds (then SIGKILL; `timedOut` says so), without holding a thread of the
    /// concurrency pool. Cancelling the task kills the child. A child that cannot start is status
    /// -1 with the reason on stderr.
    public static func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil,
                           directory: String? = nil, timeout: TimeInterval,
                           captureLimit: Int = RunningProcess.defaultCaptureLimit) async -> ProcessResult {
        let child: RunningProcess
        do { child = try RunningProcess(executable, arguments, environment: environment, directory: directory, captureLimit: captureLimit) } catch {
            return ProcessResult(status: -1, stdout: "", stderr: error.description)
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                Thread { continuation.resume(returning: child.result(timeout: timeout)) }.start()
            }
        } onCancel: {
            if child.exitCode == nil { kill(child.pid, SIGKILL) }
        }
    }

    /// `run` for a caller with no async context: blocks the calling thread.
    public static func runAndWait(_ executable: String, _ arguments: [String], environment: [String: String]? = nil,
                                  directory: String? = nil, timeout: TimeInterval,
                                  captureLimit: Int = RunningProcess.defaultCaptureLimit) -> ProcessResult {
        do {
            return try RunningProcess(executable, arguments, environment: environment, directory: directory, captureLimit: captureLimit)
                .result(timeout: timeout)
        } catch {
            return ProcessResult(status: -1, stdout: "", stderr: error.description)
        }
    }
}
