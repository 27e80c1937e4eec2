import Foundation
import HLS
import Synchronization

/// The media resources (init sections, segments, keys) read during one run, each fetched once:
/// a rendition probe and the loudness measurements of the same rendition share them, and so do
/// loudness windows that overlap (breaks less than two windows apart). Keyed by URL and byte
/// range. A reader that finds a resource being fetched by another waits for it. Holds at most
/// `maxBytes`; past that, resources are read but not kept. A failed read is remembered (a 404 or
/// a timeout is not asked twice), unless it was cancelled.
public final class SegmentCache: @unchecked Sendable {
    public let maxBytes: Int
    private let condition = NSCondition()
    private var stored: [String: Data] = [:]
    private var failed: [String: ProbeError] = [:]
    private var loading: Set<String> = []
    /// Fetched ahead by `warm` and not read since: the first reader counts them as its own fetch.
    private var unclaimed: [String: Int] = [:]
    private var warming = 0
    private var held = 0

    /// What a run holds by default: a few hundred ads' first segments and audio.
    public static let defaultMaxBytes = 256 << 20

    public init(maxBytes: Int = SegmentCache.defaultMaxBytes) {
        self.maxBytes = maxBytes
    }

    /// The bytes of `target` (`length` bytes at `offset`; to its end when `length` is nil) read by
    /// `reader` within `limit` bytes, from the cache or fetched now (`fetched` true). Bytes kept from
    /// a read under a larger limit are used only when they fit this one, so every caller gets what
    /// its own read would have given, errors included.
    func read(_ target: InputLocation, offset: Int, length: Int?, limit: Int, reader: SegmentReader,
              interrupt: InterruptState) throws(ProbeError) -> (data: Data, fetched: Bool) {
        var reader = reader
        reader.maxBytes = limit
        return try data("\(target)|\(offset)|\(length ?? -1)", limit: limit) { () throws(ProbeError) -> Data in
            try reader.read(target, offset: offset, length: length, interrupt: interrupt)
        }
    }

    /// The bytes of `key`, from the cache or from `fetch` (then `fetched` is true: they were read now).
    func data(_ key: String, limit: Int, fetch: () throws(ProbeError) -> Data) throws(ProbeError) -> (data: Data, fetched: Bool) {
        // A failure may depend on the limit (a segment larger than it): remembered with it.
        let failureKey = key + "|\(limit)"
        condition.lock()
        while true {
            if let data = stored[key] {
                let claimed = unclaimed.removeValue(forKey: key) != nil
                condition.unlock()
                if data.count <= limit { return (data, claimed) }
                // Kept from a read under a larger limit: this caller's own read decides.
                return (try fetch(), true)
            }
            if let error = failed[failureKey] { condition.unlock(); throw error }
            if !loading.contains(key) { break }
            condition.wait()
        }
        loading.insert(key)
        condition.unlock()
        let result = Result { () throws(ProbeError) -> Data in try fetch() }
        condition.lock()
        loading.remove(key)
        switch result {
        case .success(let data) where held + data.count <= maxBytes:
            stored[key] = data
            held += data.count
        case .failure(let error):
            if case .cancelled = error { break }
            failed[failureKey] = error
        default:
            break
        }
        condition.broadcast()
        condition.unlock()
        return (try result.get(), true)
    }

    /// Fetches `target` ahead of its first reader (unless held or being fetched already): that
    /// reader gets it as if it had fetched it itself (`fetched` true), so each measurement's cost
    /// is what it was without the head start. A failure is not remembered: the reader asks again.
    func warm(_ target: InputLocation, offset: Int, length: Int?, limit: Int, reader: SegmentReader, interrupt: InterruptState) {
        let key = "\(target)|\(offset)|\(length ?? -1)"
        condition.lock()
        guard stored[key] == nil, failed[key + "|\(limit)"] == nil, !loading.contains(key) else { condition.unlock(); return }
        loading.insert(key)
        warming += 1
        condition.unlock()
        var reader = reader
        reader.maxBytes = limit
        let data = try? reader.read(target, offset: offset, length: length, interrupt: interrupt)
        condition.lock()
        loading.remove(key)
        warming -= 1
        if let data, held + data.count <= maxBytes {
            stored[key] = data
            unclaimed[key] = data.count
            held += data.count
        }
        condition.broadcast()
        condition.unlock()
    }

    /// Bytes fetched ahead that no reader has read (an ad that turned out to have no audio), once
    /// every fetch ahead has ended: a cost of its own, beside what the readers counted.
    public func unreadWarmBytes() -> Int64 {
        condition.lock()
        defer { condition.unlock() }
        while warming > 0 { condition.wait() }
        return Int64(unclaimed.values.reduce(0, +))
    }

    /// Bytes held now.
    public var bytesHeld: Int { condition.withLock { held } }
}

/// Blocking reads (FFmpeg's I/O) run side by side, each on a thread of its own: what waits on the
/// network waits once, not once per resource.
enum BlockingWork {
    /// Calls `job` for every index of `0..<count`, at most `width` at once (this thread is one of
    /// them), and returns when every call has.
    static func run(_ count: Int, width: Int, _ job: @escaping @Sendable (Int) -> Void) {
        guard count > 0 else { return }
        let queue = IndexQueue(count: count)
        let helpers = min(max(width, 1), count) - 1
        let done = DispatchGroup()
        for _ in 0..<helpers {
            done.enter()
            Thread.detachNewThread {
                while let index = queue.next() { job(index) }
                done.leave()
            }
        }
        while let index = queue.next() { job(index) }
        done.wait()
    }

    /// `first` on this thread and `second` on another, at once.
    static func both<A, B>(_ first: () -> A, _ second: @escaping @Sendable () -> B) -> (A, B) {
        let box = ResultBox<B>()
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            box.value = second()
            done.signal()
        }
        let a = first()
        done.wait()
        return (a, box.value!)
    }

    private final class IndexQueue: @unchecked Sendable {
        private let lock = NSLock()
        private var nextIndex = 0
        private let count: Int

        init(count: Int) { self.count = count }

        func next() -> Int? {
            lock.withLock {
                guard nextIndex < count else { return nil }
                defer { nextIndex += 1 }
                return nextIndex
            }
        }
    }

    /// Written by one thread before a semaphore is signalled, read by the waiter after.
    private final class ResultBox<T>: @unchecked Sendable {
        var value: T?
    }
}

/// Bytes counted by several threads.
final class ByteTally: Sendable {
    private let value = Atomic<Int64>(0)

    func add(_ count: Int) { value.add(Int64(count), ordering: .relaxed) }

    var total: Int64 { value.load(ordering: .relaxed) }
}
