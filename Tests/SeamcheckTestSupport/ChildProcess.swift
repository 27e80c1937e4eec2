import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A child process started with an empty signal mask, its stdout and stderr collected.
///
/// Not Foundation's `Process`: on Linux it passes on the spawning thread's signal mask, and
/// Swift's async tests run on libdispatch threads that block SIGTERM, so `terminate()` would
/// leave the child running (and `waitUntilExit()` waiting) forever.
public final class ChildProcess: @unchecked Sendable {
    public let pid: pid_t
    private let lock = NSLock()
    private var data = Data()
    private var exitStatus: Int32?
    private var readToEnd = false

    public init(executable: URL, arguments: [String], environment: [String: String]? = nil) throws {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { throw SpawnFailed(executable: executable.path, code: errno) }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }  // dup2 clears it on the child's copies
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
        posix_spawn_file_actions_adddup2(&actions, fds[1], 2)
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
        let argv = ([executable.path] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let code = posix_spawn(&pid, executable.path, &actions, &attributes, argv, envp)
        close(fds[1])
        guard code == 0 else {
            close(fds[0])
            throw SpawnFailed(executable: executable.path, code: code)
        }
        self.pid = pid
        let reader = fds[0]
        Thread { [self] in
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = read(reader, &buffer, buffer.count)
                if count > 0 {
                    lock.withLock { data.append(contentsOf: buffer[0..<count]) }
                } else if count == 0 || errno != EINTR {
                    break
                }
            }
            close(reader)
            lock.withLock { readToEnd = true }
        }.start()
    }

    public struct SpawnFailed: Error, CustomStringConvertible {
        let executable: String
        let code: Int32
        public var description: String { "cannot start \(executable): \(String(cString: strerror(code)))" }
    }

    /// Everything the child wrote so far.
    public var output: String { lock.withLock { String(decoding: data, as: UTF8.self) } }

    /// The exit status, once the child has exited (reaped here, so the PID is never reused
    /// under us); nil while it runs.
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

    /// Polls until the child exits (and its output is read) or `timeout` passes; SIGKILLs it
    /// then. Returns the exit code.
    @discardableResult
    public func wait(timeout: TimeInterval) -> Int32 {
        let deadline = Date().addingTimeInterval(timeout)
        while exitCode == nil {
            if Date() > deadline {
                kill(pid, SIGKILL)
                return wait(timeout: 5)
            }
            Thread.sleep(forTimeInterval: 0.02)
        }
        let drained = Date().addingTimeInterval(2)
        while !lock.withLock({ readToEnd }), Date() < drained { Thread.sleep(forTimeInterval: 0.01) }
        return exitCode ?? -1
    }

    /// SIGTERM to this PID only, then waits for it to exit.
    public func terminate() {
        if exitCode == nil {
            kill(pid, SIGTERM)
            wait(timeout: 5)
        }
    }
}
