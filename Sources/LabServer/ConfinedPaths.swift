import Foundation

/// `SuiteFiles.confined` kept per request path: a request costs one `stat` of the path as asked
/// (every link followed) instead of `realpath`'s walk (a `readlink` per link). The kept resolution
/// holds while that `stat` names the same file (device and inode) as when it was resolved; a link
/// swapped to another file, or a file replaced, is resolved (and confined) again. Refusals are not
/// kept: a path outside the folder is resolved, and refused, every time.
final class ConfinedPaths: @unchecked Sendable {
    /// The real path inside the suite, and the file's `stat` (links followed) at this request.
    struct Resolved {
        var path: String
        var info: stat
    }

    private struct Entry {
        var path: String
        var device: UInt
        var inode: UInt
    }

    let root: String
    /// Paths kept; past it the cache starts again (a suite has a few thousand files).
    static let capacity = 16_384
    private let lock = NSLock()
    private var entries: [String: Entry] = [:]

    init(root: String) {
        self.root = root
    }

    /// The real path of `urlPath` (percent-decoded) under the root, or nil when it does not exist or
    /// is not inside the root once every link is followed.
    func resolve(_ urlPath: String) -> Resolved? {
        let relative = urlPath.drop { $0 == "/" }
        guard !relative.isEmpty, !relative.utf8.contains(0) else { return nil }
        var info = stat()
        guard stat(root + "/" + relative, &info) == 0 else { return nil }
        let device = UInt(info.st_dev), inode = UInt(info.st_ino)
        if let known = lock.withLock({ entries[urlPath] }), known.device == device, known.inode == inode {
            return Resolved(path: known.path, info: info)
        }
        guard let real = SuiteFiles.confined(urlPath, root: root) else { return nil }
        // The file may have changed between the two looks: keep only what both agree on.
        var check = stat()
        guard stat(real, &check) == 0 else { return nil }
        if UInt(check.st_dev) == device, UInt(check.st_ino) == inode {
            lock.withLock {
                if entries.count >= Self.capacity { entries.removeAll(keepingCapacity: true) }
                entries[urlPath] = Entry(path: real, device: device, inode: inode)
            }
        }
        return Resolved(path: real, info: check)
    }

    var count: Int { lock.withLock { entries.count } }
}
