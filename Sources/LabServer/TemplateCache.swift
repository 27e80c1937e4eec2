import Foundation
import LabCore
import NIOCore

/// The playlists `lab serve` rewrites, kept ready to send: each template file (a playlist or an
/// asset list of the suite) split around the origin placeholder, the body made from it for each
/// origin clients used (a lab has one or two), and for a live case its window at each step.
/// Playlists are the hot path of a lab (every receiver polls its live playlist each target
/// duration), so a request costs a `stat` and a lookup, not a read, a join and a parse. Kept while
/// the file's size and modification time stay the same (a suite regenerated under a running
/// server is read again).
final class TemplateCache: @unchecked Sendable {
    private struct Entry {
        var size: Int
        var modified: timespec
        var pieces: [String]
        /// The file with the origin filled in, by origin.
        var bodies: [String: ByteBuffer] = [:]
        /// The file as a live window template, by origin.
        var windows: [String: LiveWindowBodies] = [:]
    }

    /// Origins kept per file; past it, the file's bodies are made again.
    static let maxOrigins = 16

    private let lock = NSLock()
    private var entries: [String: Entry] = [:]

    /// The regular file at `path` with every `placeholder` replaced by `origin`, or nil when it is
    /// not a regular file or is larger than `limit` bytes.
    /// `info`: the file's `stat`, when the caller has it (else it is taken here).
    func body(of path: String, info: stat? = nil, placeholder: String, limit: Int, origin: String) -> ByteBuffer? {
        update(path, info: info, placeholder: placeholder, limit: limit) { entry in
            if let known = entry.bodies[origin] { return known }
            if entry.bodies.count >= Self.maxOrigins { entry.bodies = [:] }
            let body = ByteBuffer(string: entry.pieces.joined(separator: origin))
            entry.bodies[origin] = body
            return body
        }
    }

    /// The live window template at `path` for `origin`; nil as for `body`, or when it lists no segment.
    func liveWindow(of path: String, info: stat? = nil, placeholder: String, limit: Int, origin: String) -> LiveWindowBodies? {
        update(path, info: info, placeholder: placeholder, limit: limit) { entry in
            if let known = entry.windows[origin] { return known }
            guard let playlist = LiveWindowPlaylist(template: entry.pieces.joined(separator: origin)) else { return nil }
            if entry.windows.count >= Self.maxOrigins { entry.windows = [:] }
            let bodies = LiveWindowBodies(playlist)
            entry.windows[origin] = bodies
            return bodies
        }
    }

    /// `make` on the current entry of `path`, read again when the file changed.
    private func update<T>(_ path: String, info given: stat?, placeholder: String, limit: Int, _ make: (inout Entry) -> T?) -> T? {
        var info = given ?? stat()
        if given == nil { guard stat(path, &info) == 0 else { return nil } }
        guard (info.st_mode & S_IFMT) == S_IFREG, Int(info.st_size) <= limit else { return nil }
        let size = Int(info.st_size), modified = info.st_mtim
        let current = lock.withLock { () -> T?? in
            // In place: no copy of the entry's dictionaries, no second hash of the path.
            guard let index = entries.index(forKey: path) else { return .none }
            let known = entries.values[index]
            guard known.size == size, known.modified.tv_sec == modified.tv_sec, known.modified.tv_nsec == modified.tv_nsec else { return .none }
            return .some(make(&entries.values[index]))
        }
        if let current { return current }
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        var entry = Entry(size: size, modified: modified, pieces: String(decoding: data, as: UTF8.self).components(separatedBy: placeholder))
        let made = make(&entry)
        lock.withLock { entries[path] = entry }
        return made
    }
}

/// One live case's playlist for one origin, and its text at each window step, made on first use:
/// the edge moves with the clock, the text only when the window takes in a segment or ends.
final class LiveWindowBodies: @unchecked Sendable {
    let playlist: LiveWindowPlaylist
    private let lock = NSLock()
    /// Two cases may link to one template with windows of their own: the window is part of the key.
    private struct Key: Hashable {
        var step: LiveWindowPlaylist.Step
        var windowSegments: Int
        var startOffset: Double
    }
    private var steps: [Key: ByteBuffer] = [:]

    init(_ playlist: LiveWindowPlaylist) {
        self.playlist = playlist
    }

    /// The playlist at `edge`.
    func body(edge: Double, live: LabLiveWindow) -> ByteBuffer {
        let step = playlist.step(edge: edge, size: live.windowSegments)
        let key = Key(step: step, windowSegments: live.windowSegments, startOffset: live.startOffset)
        if let known = lock.withLock({ steps[key] }) { return known }
        let body = ByteBuffer(string: playlist.text(step: step, live: live))
        // Bounded by the template's segments (one step per segment, and the end) per case.
        lock.withLock { steps[key] = body }
        return body
    }

    /// Steps made so far.
    var stepCount: Int { lock.withLock { steps.count } }
}
