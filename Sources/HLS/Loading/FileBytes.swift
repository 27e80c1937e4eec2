import Foundation

/// A file's bytes read with read(2) into one buffer sized by its `stat`: Foundation's
/// `FileHandle.read(upToCount:)` reads 4 KiB a call (a 2 MB playlist was 490 calls, the `Data`
/// grown on the way).
enum FileBytes {
    /// At most `limit + 1` bytes, so that a caller sees a file that grew past `limit` after its
    /// `stat` said `expected` (or a /proc file whose `stat` says 0); errno's text when it fails.
    static func read(_ path: String, expected: Int, limit: Int) -> Result<Data, FileBytesError> {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return .failure(FileBytesError(open: true)) }
        defer { close(fd) }
        let most = limit < Int.max ? limit + 1 : limit
        var data = Data(count: max(1, min(most, expected + 1)))
        var count = 0
        while true {
            let capacity = data.count
            let n = data.withUnsafeMutableBytes { bytes in Glibc.read(fd, bytes.baseAddress! + count, capacity - count) }
            if n < 0 {
                if errno == EINTR { continue }
                return .failure(FileBytesError(open: false))
            }
            if n == 0 { break }
            count += n
            if count == capacity {
                guard capacity < most else { break }
                data.count = min(most, max(capacity * 2, 4_096))
            }
        }
        data.count = count
        return .success(data)
    }
}

/// errno's text of a failed open(2) or read(2).
struct FileBytesError: Error {
    var open: Bool
    var reason = String(cString: strerror(errno))
}
