import Foundation
import HLS

/// Probes inputs for one run: each distinct input at most once, a bounded number at a time.
///
/// FFmpeg calls block their thread, so they run on dedicated threads rather than Swift's
/// cooperative pool; `maxConcurrent` bounds how many run at once.
///
/// Several callers may wait for one probe. A cancelled caller gets `.cancelled` at once; the
/// probe goes on while anyone else waits for it, and is stopped (through FFmpeg's interrupt
/// callback) and forgotten only when nobody does, so a later request probes again.
///
/// An input named `.m3u8` or `.m3u` is an HLS media playlist: its rendition is probed from the
/// init section and first segment (see ``MediaProber/probeRendition(_:at:cancellation:)``).
public actor ProbeSession {
    private let prober: MediaProber
    private let loader: PresentationLoader
    private let maxConcurrent: Int
    private var running = 0
    private var waiters: [CheckedContinuation<Void, Never>] = []
    private var results: [InputLocation: Task<MediaDescription, Error>] = [:]
    private var interested: [InputLocation: Int] = [:]
    public private(set) var probesPerformed = 0
    private var statistics: [InputLocation: ProbeStatistics] = [:]
    /// The init sections and segments the run has read: rendition probes put them here, and the
    /// loudness measurements of an audit read the same ones from here rather than fetching again.
    public nonisolated let segments: SegmentCache

    public init(options: ProbeOptions = ProbeOptions(), maxConcurrent: Int = ProcessInfo.processInfo.activeProcessorCount,
                segments: SegmentCache = SegmentCache()) {
        self.prober = MediaProber(options: options)
        self.segments = segments
        var loaderOptions = PresentationLoader.Options()
        loaderOptions.playlistLimits.connectTimeout = options.timeout
        loaderOptions.playlistLimits.totalTimeout = options.timeout
        self.loader = PresentationLoader(options: loaderOptions)
        self.maxConcurrent = max(1, maxConcurrent)
    }

    /// The description of `location`, probing it on first request only (failures are cached too).
    public func describe(_ location: InputLocation) async throws(ProbeError) -> MediaDescription {
        try await describe(location, asRendition: Self.isPlaylist(location))
    }

    /// The description of the rendition whose media playlist is at `location`, whatever its name.
    /// `loaded` is that playlist when the caller has it already (an audit's loader fetched every
    /// media playlist): it is probed as it is, not fetched again. Results are keyed by `location`.
    public func describeRendition(_ location: InputLocation, loaded: LoadedMediaPlaylist? = nil) async throws(ProbeError) -> MediaDescription {
        try await describe(location, asRendition: true, loaded: loaded)
    }

    private func describe(_ location: InputLocation, asRendition: Bool, loaded: LoadedMediaPlaylist? = nil) async throws(ProbeError) -> MediaDescription {
        let task: Task<MediaDescription, Error>
        if let existing = results[location] {
            task = existing
        } else {
            task = Task { try await self.run(location, asRendition: asRendition, loaded: loaded) }
            results[location] = task
        }
        interested[location, default: 0] += 1
        let outcome = await Self.wait(for: task)
        interested[location, default: 1] -= 1
        switch outcome {
        case .success(let media):
            return media
        case .failure(let error as ProbeError):
            throw error
        case .failure:
            // This caller was cancelled. Stop the probe if nobody else waits for it.
            if interested[location] == 0, results[location] == task {
                task.cancel()
                results[location] = nil
            }
            throw .cancelled(location.description)
        }
    }

    /// The task's result, or `CancellationError` as soon as the calling task is cancelled
    /// (without cancelling `task`, which other callers may be waiting for).
    private static func wait(for task: Task<MediaDescription, Error>) async -> Result<MediaDescription, Error> {
        let gate = ResultGate()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                gate.install(continuation)
                Task { gate.resume(with: await task.result) }
            }
        } onCancel: {
            gate.resume(with: .failure(CancellationError()))
        }
    }

    private func run(_ location: InputLocation, asRendition: Bool, loaded: LoadedMediaPlaylist?) async throws -> MediaDescription {
        await acquire()
        defer { release() }
        probesPerformed += 1
        let prober = self.prober
        let cancellation = ProbeCancellation()
        let cache = segments
        let work: @Sendable () throws -> (MediaDescription, ProbeStatistics)
        if let loaded {
            work = { try prober.probeRenditionWithStatistics(loaded.playlist, at: loaded.location, cancellation: cancellation, cache: cache) }
        } else if asRendition {
            let playlist = try await loadMediaPlaylist(location)
            work = { try prober.probeRenditionWithStatistics(playlist.media, at: playlist.location, cancellation: cancellation, cache: cache) }
        } else {
            work = { try prober.probeWithStatistics(location, cancellation: cancellation) }
        }
        let (media, cost) = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<(MediaDescription, ProbeStatistics), Error>) in
                Thread.detachNewThread { continuation.resume(with: Result { try work() }) }
            }
        } onCancel: {
            cancellation.cancel()
        }
        statistics[location] = cost
        return media
    }

    /// Whether an input names an HLS playlist (by its path's extension).
    public static func isPlaylist(_ location: InputLocation) -> Bool {
        let path: String
        switch location {
        case .file(let p): path = p
        case .remote(let url): path = url.path
        }
        return ["m3u8", "m3u"].contains(PathText.fileExtension(PathText.lastComponent(path)).lowercased())
    }

    private func loadMediaPlaylist(_ location: InputLocation) async throws(ProbeError) -> (media: MediaPlaylist, location: InputLocation) {
        let parsed: ParsedPlaylist, resource: FetchedResource
        do { (parsed, resource) = try await loader.loadPlaylist(location) } catch { throw .playlist(error) }
        switch parsed.playlist {
        case .media(let media): return (media, resource.location)
        case .multivariant(let multivariant):
            throw .multivariantPlaylist(location.description, variants: multivariant.variants.map(\.uri))
        }
    }

    /// What probing `location` cost, once it has been probed successfully.
    public func statistics(for location: InputLocation) -> ProbeStatistics? {
        statistics[location]
    }

    private func acquire() async {
        if running < maxConcurrent {
            running += 1
            return
        }
        await withCheckedContinuation { waiters.append($0) }
    }

    private func release() {
        if waiters.isEmpty {
            running -= 1
        } else {
            waiters.removeFirst().resume()
        }
    }
}

/// Resumes one continuation once, with whichever result comes first.
private final class ResultGate: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<Result<MediaDescription, Error>, Never>?
    private var early: Result<MediaDescription, Error>?
    private var done = false

    func install(_ continuation: CheckedContinuation<Result<MediaDescription, Error>, Never>) {
        lock.lock()
        if let early {
            done = true
            lock.unlock()
            continuation.resume(returning: early)
            return
        }
        self.continuation = continuation
        lock.unlock()
    }

    func resume(with result: Result<MediaDescription, Error>) {
        lock.lock()
        guard !done else { return lock.unlock() }
        guard let continuation else {
            if early == nil { early = result }
            return lock.unlock()
        }
        done = true
        self.continuation = nil
        lock.unlock()
        continuation.resume(returning: result)
    }
}
