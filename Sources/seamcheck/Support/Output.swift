import Foundation
import HLS
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A document that could not be written: where to, and the errno of the failed call.
struct OutputError: Error, CustomStringConvertible {
    enum Destination: Equatable {
        case standardOutput
        case file(String)

        var name: String {
            switch self {
            case .standardOutput: return "standard output"
            case .file(let path): return path
            }
        }
    }

    var destination: Destination
    var code: Int32

    /// The reader of stdout went away (`| head -1`): not worth a message.
    var isBrokenPipe: Bool { destination == .standardOutput && code == EPIPE }

    var description: String {
        "cannot write the output to \(destination.name): \(String(cString: strerror(code)))"
    }
}

/// errno of a failed system call.
struct SystemCallError: Error {
    var code: Int32
}

/// Every byte of command output goes through here: whole documents to stdout or to `--output`,
/// and `discover --watch`'s lines. Failures are thrown as `OutputError` (exit 2 with a message in
/// `Seamcheck.main`), never ignored.
///
/// `--output` onto a new path or a regular file is atomic (a temporary file in the same directory,
/// renamed over it): a reader never sees half a report. Onto anything else that exists (a FIFO, a
/// device, a symbolic link) the document is written through it, as a shell's `>` would: the link
/// is followed, and only a regular file is truncated.
enum Output {
    static func write(_ text: String, to path: String?) throws(OutputError) {
        guard let path else { return try writeStandardOutput(text) }
        try write(text, toFile: path)
    }

    static func writeStandardOutput(_ text: String) throws(OutputError) {
        do { try writeAll(text, to: STDOUT_FILENO) } catch {
            throw OutputError(destination: .standardOutput, code: error.code)
        }
    }

    /// The end of a process whose stdout reader has gone: as if SIGPIPE had killed it (which it
    /// does when SIGPIPE is not ignored, before `write` can return EPIPE). Quiet; shells report
    /// status 141.
    static func endForBrokenPipe() -> Never {
        signal(SIGPIPE, SIG_DFL)
        var pipeOnly = sigset_t()
        sigemptyset(&pipeOnly)
        sigaddset(&pipeOnly, SIGPIPE)
        pthread_sigmask(SIG_UNBLOCK, &pipeOnly, nil)
        raise(SIGPIPE)
        _exit(128 + SIGPIPE)
    }

    // MARK: - Files

    private static func write(_ text: String, toFile path: String) throws(OutputError) {
        let failed = { (code: Int32) in OutputError(destination: .file(path), code: code) }
        var link = stat()
        guard lstat(path, &link) == 0 else {
            guard errno == ENOENT else { throw failed(errno) }
            return try replaceAtomically(path, with: text)
        }
        switch link.st_mode & S_IFMT {
        case S_IFREG:
            try replaceAtomically(path, with: text)
        case S_IFDIR:
            throw failed(EISDIR)
        default:
            // A symbolic link (to anything, or to nothing yet), a FIFO, a device, a socket.
            try writeThrough(path, text)
        }
    }

    /// Opens `path` as `>` does (following a link, creating a dangling link's target) and writes
    /// the document; only a regular file is truncated, so a FIFO or a device keeps its nature.
    private static func writeThrough(_ path: String, _ text: String) throws(OutputError) {
        let failed = { (code: Int32) in OutputError(destination: .file(path), code: code) }
        var flags = O_WRONLY | O_CREAT | O_CLOEXEC
        var target = stat()
        if stat(path, &target) == 0 {
            switch target.st_mode & S_IFMT {
            case S_IFDIR: throw failed(EISDIR)
            case S_IFREG: flags |= O_TRUNC
            default: break
            }
        }
        let fd = retryingOnEINTR { open(path, flags, 0o666) }
        guard fd >= 0 else { throw failed(errno) }
        do { try writeAll(text, to: fd) } catch {
            close(fd)
            throw failed(error.code)
        }
        guard close(fd) == 0 || errno == EINTR else { throw failed(errno) }
    }

    /// A temporary file next to `path`, written in full and renamed over it. Parent folders are
    /// made as needed (matrix reports go to a new Reports/<run id>/).
    private static func replaceAtomically(_ path: String, with text: String) throws(OutputError) {
        let failed = { (code: Int32) in OutputError(destination: .file(path), code: code) }
        let url = URL(fileURLWithPath: path)
        let directory = url.deletingLastPathComponent().path
        if let code = makeDirectories(directory) { throw failed(code) }
        var template = Array(PathText.appending(".\(url.lastPathComponent).XXXXXX", to: directory).utf8CString)
        let fd = mkstemp(&template)
        guard fd >= 0 else { throw failed(errno) }
        let temporary = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        var done = false
        defer { if !done { unlink(temporary) } }

        // mkstemp makes the file 0600: give it the mode a new file gets (0666 less the umask),
        // or the permissions of the file it replaces.
        var existing = stat()
        let mode: mode_t
        if stat(path, &existing) == 0 {
            mode = existing.st_mode & 0o777
        } else {
            mode = 0o666 & ~Self.currentUmask()
        }
        fchmod(fd, mode)
        do { try writeAll(text, to: fd) } catch {
            close(fd)
            throw failed(error.code)
        }
        guard close(fd) == 0 || errno == EINTR else { throw failed(errno) }
        guard rename(temporary, path) == 0 else { throw failed(errno) }
        done = true
    }

    /// `mkdir -p`: nil when `path` is (now) a directory, else the errno that stopped it.
    private static func makeDirectories(_ path: String) -> Int32? {
        var info = stat()
        if stat(path, &info) == 0 { return info.st_mode & S_IFMT == S_IFDIR ? nil : ENOTDIR }
        guard errno == ENOENT else { return errno }
        let parent = PathText.deletingLastComponent(path)
        if !parent.isEmpty, parent != path, let code = makeDirectories(parent) { return code }
        if mkdir(path, 0o777) == 0 || errno == EEXIST { return nil }
        return errno
    }

    // MARK: - write(2)

    /// Every byte of `text` to `fd`: short writes continue, EINTR retries, and a non-blocking
    /// descriptor that is full is waited on. Throws the errno of the first real failure.
    static func writeAll(_ text: String, to fd: Int32) throws(SystemCallError) {
        var text = text
        let code: Int32? = text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = systemWrite(fd, bytes.baseAddress! + offset, bytes.count - offset)
                if written > 0 {
                    offset += written
                    continue
                }
                if written == 0 { return EIO }  // no progress: do not spin
                switch errno {
                case EINTR:
                    continue
                case EAGAIN, EWOULDBLOCK:
                    var wait = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                    _ = poll(&wait, 1, -1)
                default:
                    return errno
                }
            }
            return nil
        }
        if let code { throw SystemCallError(code: code) }
    }

    private static func retryingOnEINTR(_ call: () -> Int32) -> Int32 {
        while true {
            let result = call()
            if result >= 0 || errno != EINTR { return result }
        }
    }
}

/// write(2), named apart from `Output.write`.
private func systemWrite(_ fd: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    write(fd, bytes, count)
}

extension Output {
    /// The process umask, read from /proc (Linux 4.7+) so that no other thread ever sees it
    /// changed; setting and restoring it is the fallback.
    static func currentUmask() -> mode_t {
        if let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
           let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Umask:") }),
           let value = mode_t(line.dropFirst("Umask:".count).trimmingCharacters(in: .whitespaces), radix: 8) {
            return value
        }
        let mask = umask(0)
        umask(mask)
        return mask
    }
}
