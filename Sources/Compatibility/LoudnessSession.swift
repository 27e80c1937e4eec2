import Foundation
import HLS
import MediaProbe

/// The measurements of one audit, each distinct (rendition, segments) once, `width` at a time,
/// and what they cost. FFmpeg blocks its thread, so each runs on a thread of its own.
actor LoudnessSession {
    private let meter = LoudnessMeter()
    private let loader: PresentationLoader
    private let fetchTimeout: Double
    private let width: Int
    private let cancellation = ProbeCancellation()
    /// The run's resources: what the probes read (init sections, first segments) is not fetched
    /// again, and windows of breaks close together share their segments.
    private let segments: SegmentCache
    private var playlists: [InputLocation: Task<Result<(MediaPlaylist, InputLocation), LoadError>, Never>] = [:]
    private var spans: [String: Task<SegmentsLoudness, Never>] = [:]
    private var running = 0
    private var waiters: [CheckedContinuation<Void, Never>] = []
    private var cost = LoudnessCost(measured: true)
    private var records: [String: [(key: String, record: AssetLoudness)]] = [:]
    private var fixLevels: [String: Double] = [:]

    /// `seed`: media playlists loaded already (the primary's, the assets'), by the URL each is asked for: no second fetch.
    init(loader: PresentationLoader, fetchTimeout: Double, width: Int, seed: [InputLocation: LoadedMediaPlaylist], segments: SegmentCache) {
        self.loader = loader
        self.segments = segments
        self.fetchTimeout = fetchTimeout
        self.width = max(1, width)
        for (asked, loaded) in seed {
            playlists[asked] = Task<Result<(MediaPlaylist, InputLocation), LoadError>, Never> { .success((loaded.playlist, loaded.location)) }
        }
    }

    /// Every segment of the rendition at `location`.
    func whole(_ location: InputLocation) async -> SegmentsLoudness {
        switch await playlist(location) {
        case .failure(let error): return .notMeasured("its media playlist cannot be loaded: \(error.description)")
        case .success(let (playlist, final)): return await span(playlist, at: final, segments: 0..<playlist.segments.count)
        }
    }

    /// The programme on each side of `brk` on the rendition at `location`.
    func around(_ location: InputLocation, _ brk: LoudnessBreak, seconds: Double)
        async -> (before: SegmentsLoudness?, after: SegmentsLoudness?, problem: String?) {
        switch await playlist(location) {
        case .failure(let error): return (nil, nil, "its media playlist cannot be loaded: \(error.description)")
        case .success(let (playlist, final)):
            let windows = brk.windows(in: playlist, seconds: seconds)
            // Both sides at once.
            async let before = side(playlist, at: final, windows.before)
            async let after = side(playlist, at: final, windows.after)
            return (await before, await after, windows.problem)
        }
    }

    private func side(_ playlist: MediaPlaylist, at location: InputLocation, _ range: Range<Int>?) async -> SegmentsLoudness? {
        guard let range else { return nil }
        return await span(playlist, at: location, segments: range)
    }

    /// The windows `whole(ad)` and `around(primary, brk)` will measure, for `warm`: only on
    /// playlists read already (none is fetched here).
    func windows(ad: InputLocation, primary: InputLocation, _ brk: LoudnessBreak, seconds: Double)
        async -> [(segments: Range<Int>, playlist: MediaPlaylist, location: InputLocation)] {
        var windows: [(segments: Range<Int>, playlist: MediaPlaylist, location: InputLocation)] = []
        if let task = playlists[ad], case .success(let (playlist, final)) = await task.value {
            windows.append((0..<playlist.segments.count, playlist, final))
        }
        if let task = playlists[primary], case .success(let (playlist, final)) = await task.value {
            let sides = brk.windows(in: playlist, seconds: seconds)
            windows += [sides.before, sides.after].compactMap { $0 }.map { ($0, playlist, final) }
        }
        return windows
    }

    /// Starts fetching what measurements of `windows` will read, while the probes decide whether
    /// there is audio to measure (one round trip fewer after them); returns at once.
    func warm(_ windows: [(segments: Range<Int>, playlist: MediaPlaylist, location: InputLocation)]) {
        LoudnessMeter.warm(windows, into: segments, width: width, fetchTimeout: fetchTimeout, cancellation: cancellation)
    }

    /// A media playlist read elsewhere in the audit.
    func seed(_ playlist: MediaPlaylist, at location: InputLocation) {
        if playlists[location] == nil { playlists[location] = Task { .success((playlist, location)) } }
    }

    private func playlist(_ location: InputLocation) async -> Result<(MediaPlaylist, InputLocation), LoadError> {
        if let known = playlists[location] { return await known.value }
        let loader = self.loader
        let task = Task<Result<(MediaPlaylist, InputLocation), LoadError>, Never> {
            do throws(LoadError) {
                let (parsed, resource) = try await loader.loadPlaylist(location)
                self.add(bytes: Int64(resource.data.count))
                guard case .media(let media) = parsed.playlist else {
                    return .failure(.notAPlaylist(resource.location.description, .unexpectedKind("a multivariant playlist where a media playlist belongs")))
                }
                return .success((media, resource.location))
            } catch {
                return .failure(error)
            }
        }
        playlists[location] = task
        return await task.value
    }

    private func span(_ playlist: MediaPlaylist, at location: InputLocation, segments: Range<Int>) async -> SegmentsLoudness {
        let key = "\(location)|\(segments.lowerBound)|\(segments.upperBound)"
        if let known = spans[key] { return await known.value }
        let meter = self.meter, timeout = fetchTimeout, cancellation = self.cancellation, cache = self.segments
        let task = Task<SegmentsLoudness, Never> {
            await self.acquire()
            let measured = await withCheckedContinuation { continuation in
                Thread.detachNewThread {
                    continuation.resume(returning: meter.measure(segments: segments, of: playlist, at: location, fetchTimeout: timeout,
                                                                 cache: cache, cancellation: cancellation))
                }
            }
            self.release(after: measured)
            return measured
        }
        spans[key] = task
        return await withTaskCancellationHandler { await task.value } onCancel: { cancellation.cancel() }
    }

    private func add(bytes: Int64) { cost.bytesRead += bytes }

    private func acquire() async {
        if running < width { running += 1; return }
        await withCheckedContinuation { waiters.append($0) }
    }

    private func release(after measured: SegmentsLoudness) {
        if measured.integrated == nil { cost.notMeasured += 1 } else { cost.measurements += 1 }
        cost.segments += measured.segmentsMeasured
        cost.bytesRead += measured.bytesRead
        cost.milliseconds += Int((measured.elapsed * 1000).rounded())
        if waiters.isEmpty { running -= 1 } else { waiters.removeFirst().resume() }
    }

    /// The level the fix of `role` normalises to: the first class's programme level, so that one
    /// encode serves every class hearing about the same programme.
    func fixLevel(_ programme: Double, role: String) -> Double {
        if let known = fixLevels[role] { return known }
        fixLevels[role] = programme
        return programme
    }

    func record(_ record: AssetLoudness, role: String, key: String) {
        if let index = records[role, default: []].firstIndex(where: { $0.key == key && $0.record.problem == record.problem }) {
            records[role]![index].record.deviceClasses += record.deviceClasses
        } else {
            records[role, default: []].append((key, record))
        }
    }

    /// What was measured for `role`, one entry per group of classes, in `order`.
    func records(for role: String, order: [String]) -> [AssetLoudness] {
        let rank = Dictionary(order.enumerated().map { ($0.element, $0.offset) }) { first, _ in first }
        return (records[role] ?? []).map(\.record).map { record in
            var sorted = record
            sorted.deviceClasses.sort { (rank[$0] ?? .max) < (rank[$1] ?? .max) }
            return sorted
        }.sorted { (rank[$0.deviceClasses.first ?? ""] ?? .max) < (rank[$1.deviceClasses.first ?? ""] ?? .max) }
    }

    /// What loudness cost; segments fetched ahead for a measurement that did not happen (the
    /// probe found no audio) count too, so the cost stays every byte past the probes'.
    func totals(programmeSeconds: Double) async -> LoudnessCost {
        let cache = segments
        let unread = await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: cache.unreadWarmBytes()) }
        }
        var total = cost
        total.bytesRead += unread
        total.programmeSeconds = programmeSeconds
        return total
    }
}
