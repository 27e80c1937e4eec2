import Foundation
import HLS

/// The integrated loudness of a run of HLS segments, and what reading them cost. A segment that
/// cannot be read (a 404, a timeout) is left out and named; what was read is still measured.
public struct SegmentsLoudness: Sendable, Equatable {
    /// LUFS; nil when nothing could be measured (`problem` says why).
    public var integrated: Double?
    /// Seconds of audio decoded and measured.
    public var seconds: Double
    /// Segments read and measured, of `segmentsAsked`.
    public var segmentsMeasured: Int
    public var segmentsAsked: Int
    /// Segments left out, each "URI: reason".
    public var skipped: [String]
    public var problem: String?
    /// Bytes fetched (init sections, segments, keys) and wall-clock seconds, fetch and decode.
    public var bytesRead: Int64
    public var elapsed: Double

    public init(integrated: Double?, seconds: Double, segmentsMeasured: Int, segmentsAsked: Int, skipped: [String],
                problem: String?, bytesRead: Int64, elapsed: Double) {
        self.integrated = integrated
        self.seconds = seconds
        self.segmentsMeasured = segmentsMeasured
        self.segmentsAsked = segmentsAsked
        self.skipped = skipped
        self.problem = problem
        self.bytesRead = bytesRead
        self.elapsed = elapsed
    }

    /// Nothing measured, for `reason`, at no cost.
    public static func notMeasured(_ reason: String, asked: Int = 0) -> SegmentsLoudness {
        SegmentsLoudness(integrated: nil, seconds: 0, segmentsMeasured: 0, segmentsAsked: asked, skipped: [], problem: reason,
                         bytesRead: 0, elapsed: 0)
    }

    /// The level of several measured spans heard as one: their mean power, weighted by duration
    /// (BS.1770's gating is applied within each span, not across them). nil when none has a value.
    public static func combined(_ levels: [(lufs: Double, seconds: Double)]) -> Double? {
        let measured = levels.filter { $0.seconds > 0 && $0.lufs.isFinite }
        let total = measured.reduce(0) { $0 + $1.seconds }
        guard total > 0 else { return nil }
        let power = measured.reduce(0) { $0 + $1.seconds * pow(10, $1.lufs / 10) } / total
        return 10 * log10(power)
    }
}

extension LoudnessMeter {
    /// The largest run of segments held in memory for one measurement; past it the rest is left out (and said).
    public static let maxWindowBytes = 64 << 20

    /// Fetches `segments` of `playlist` (init sections included, AES-128 decrypted, a remote
    /// playlist's references over http(s) only) and measures their first audio track. Segments
    /// under one init section with no discontinuity between them are measured together; separate
    /// runs are combined by ``SegmentsLoudness/combined(_:)``. Each read gets `fetchTimeout`; the
    /// whole window stops at four times that (what was read is measured). Blocking; never throws.
    /// `cache`, when given, is shared with the other measurements of the same rendition.
    public func measure(segments: Range<Int>, of playlist: MediaPlaylist, at location: InputLocation, fetchTimeout: Double,
                        cache: SegmentCache? = nil, cancellation: ProbeCancellation = ProbeCancellation()) -> SegmentsLoudness {
        let started = Date()
        var result = measureWindow(segments: segments, of: playlist, at: location, fetchTimeout: fetchTimeout, cache: cache,
                                   cancellation: cancellation)
        result.elapsed = Date().timeIntervalSince(started)
        return result
    }

    private func measureWindow(segments: Range<Int>, of playlist: MediaPlaylist, at location: InputLocation, fetchTimeout: Double,
                               cache: SegmentCache?, cancellation: ProbeCancellation) -> SegmentsLoudness {
        let started = Date()
        let label = location.description
        let wanted = segments.clamped(to: playlist.segments.indices)
        var result = SegmentsLoudness.notMeasured("no segment to measure", asked: wanted.count)
        if let key = playlist.segments[wanted].compactMap(\.key).first(where: { $0.method != "NONE" && $0.method != "AES-128" }) {
            result.problem = "encrypted with METHOD=\(key.method); only AES-128 segments are decrypted here"
            return result
        }
        let deadline = started.addingTimeInterval(max(fetchTimeout, 1) * 4)
        var reader = SegmentReader(timeout: fetchTimeout, maxBytes: MediaProber.maxSegmentBytes)
        var initSections: [String: Data] = [:], keys: [String: Data] = [:]
        // Runs of segments measured together: (init section key, bytes, seconds of EXTINF).
        var runs: [(map: String, bytes: Data)] = []
        var held = 0
        func read(_ reference: String, range: ByteRange?, maxBytes: Int) throws(ProbeError) -> Data {
            let target: InputLocation
            do { target = try location.resolving(reference) } catch { throw .playlist(error) }
            let interrupt = InterruptState(deadline: min(deadline, Date().addingTimeInterval(fetchTimeout)), cancellation: cancellation)
            guard let cache else {
                reader.maxBytes = maxBytes
                let data = try reader.read(target, offset: range?.offset ?? 0, length: range?.length, interrupt: interrupt)
                result.bytesRead += Int64(data.count)
                return data
            }
            let (data, fetched) = try cache.read(target, offset: range?.offset ?? 0, length: range?.length, limit: maxBytes,
                                                 reader: reader, interrupt: interrupt)
            if fetched { result.bytesRead += Int64(data.count) }
            return data
        }
        // Every init section and segment of the window asked at once; the loop below then reads
        // them from the cache in order, and decides (and words) what was left out as before.
        if let cache {
            result.bytesRead += Self.prefetch(wanted, of: playlist, at: location, into: cache, reader: reader, deadline: deadline,
                                              fetchTimeout: fetchTimeout, cancellation: cancellation)
        }
        func keyBytes(_ key: EncryptionKey) throws(ProbeError) -> Data {
            guard let uri = key.uri else { throw .openFailed(label, reason: "EXT-X-KEY METHOD=AES-128 has no URI") }
            if let known = keys[uri] { return known }
            let data = try SegmentDecryption.checkedKey(try read(uri, range: nil, maxBytes: 1024), url: uri, label: label)
            keys[uri] = data
            return data
        }
        var previousMeasured = false
        for index in wanted {
            let segment = playlist.segments[index]
            if segment.gap { result.skipped.append("\(segment.uri): EXT-X-GAP"); previousMeasured = false; continue }
            if cancellation.isCancelled { result.problem = "cancelled"; return result }
            if Date() >= deadline {
                result.skipped.append("\(segment.uri) and \(wanted.upperBound - index - 1) more: the window's \(Self.seconds(deadline.timeIntervalSince(started))) s ran out")
                break
            }
            if held >= Self.maxWindowBytes {
                result.skipped.append("\(segment.uri) and \(wanted.upperBound - index - 1) more: past the \(Self.maxWindowBytes >> 20) MiB a measurement holds")
                break
            }
            do throws(ProbeError) {
                let mapKey = segment.map.map { "\($0.uri)|\($0.byteRange.map { "\($0.offset ?? 0)+\($0.length)" } ?? "")" } ?? ""
                if let map = segment.map, initSections[mapKey] == nil {
                    // Encrypted too when an AES-128 EXT-X-KEY precedes its EXT-X-MAP (RFC 8216 4.3.2.5).
                    let section = try read(map.uri, range: map.byteRange, maxBytes: MediaProber.maxSegmentBytes)
                    initSections[mapKey] = try SegmentDecryption.initSection(section, key: map.key, label: label) { key throws(ProbeError) in
                        try keyBytes(key)
                    }
                }
                var bytes = try read(segment.uri, range: segment.byteRange, maxBytes: MediaProber.maxSegmentBytes)
                if let key = segment.key, key.method == "AES-128" {
                    let iv = try SegmentDecryption.iv(key, mediaSequence: playlist.mediaSequence + index, label: label)
                    bytes = try SegmentDecryption.decrypt(bytes, key: try keyBytes(key), iv: iv, label: label)
                }
                held += bytes.count
                if previousMeasured, !segment.discontinuity, let last = runs.last, last.map == mapKey {
                    runs[runs.count - 1].bytes.append(bytes)
                } else {
                    runs.append((mapKey, (initSections[mapKey] ?? Data()) + bytes))
                }
                result.segmentsMeasured += 1
                previousMeasured = true
            } catch {
                if case .cancelled = error { result.problem = "cancelled"; return result }
                result.skipped.append("\(segment.uri): \(Self.reason(error))")
                previousMeasured = false
            }
        }
        var levels: [(lufs: Double, seconds: Double)] = []
        var failures: [String] = []
        for run in runs {
            do throws(ProbeError) {
                let measured = try measure(bytes: run.bytes, label: label)
                levels.append((measured.integrated, measured.seconds))
                result.seconds += measured.seconds
            } catch {
                failures.append(Self.reason(error))
            }
        }
        result.integrated = SegmentsLoudness.combined(levels)
        if result.integrated != nil {
            result.problem = nil
        } else if let failure = failures.first {
            result.problem = failure
        } else if !result.skipped.isEmpty {
            result.problem = "no segment could be read (\(result.skipped[0]))"
        }
        return result
    }

    /// Resources of a window fetched at once, at most this many at a time.
    static let prefetchWidth = 8

    /// Fetches the init sections and segments of `wanted` into `cache`, `prefetchWidth` at a
    /// time, until `maxWindowBytes` have come in; returns the bytes fetched. Failures are left in
    /// the cache for the measurement to meet in order.
    static func prefetch(_ wanted: Range<Int>, of playlist: MediaPlaylist, at location: InputLocation, into cache: SegmentCache,
                         reader: SegmentReader, deadline: Date, fetchTimeout: Double, cancellation: ProbeCancellation) -> Int64 {
        var reads: [(InputLocation, ByteRange?)] = []
        var seen: Set<String> = []
        for segment in playlist.segments[wanted] where !segment.gap {
            for (uri, range) in [segment.map.map { ($0.uri, $0.byteRange) }, (segment.uri, segment.byteRange)].compactMap({ $0 }) {
                guard let target = try? location.resolving(uri),
                      seen.insert("\(target)|\(range?.offset ?? 0)|\(range?.length ?? -1)").inserted else { continue }
                reads.append((target, range))
            }
        }
        guard reads.count > 1 else { return 0 }
        let fetched = ByteTally()
        BlockingWork.run(reads.count, width: prefetchWidth) { [reads] index in
            guard !cancellation.isCancelled, Date() < deadline, fetched.total < Int64(maxWindowBytes) else { return }
            let (target, range) = reads[index]
            let interrupt = InterruptState(deadline: min(deadline, Date().addingTimeInterval(fetchTimeout)), cancellation: cancellation)
            guard let (data, wasFetched) = try? cache.read(target, offset: range?.offset ?? 0, length: range?.length,
                                                          limit: MediaProber.maxSegmentBytes, reader: reader, interrupt: interrupt),
                  wasFetched else { return }
            fetched.add(data.count)
        }
        return fetched.total
    }

    /// Starts fetching the init sections and segments that measurements of `windows` will read
    /// into `cache`, each once however many windows share it, `width` at a time on threads of
    /// their own, and returns at once: a measurement, when it comes (after the probes say there
    /// is audio to measure), finds them there and counts them as its own reads. Up to
    /// `maxWindowBytes` of segments a window; windows with encrypted segments are left to their
    /// measurement (keys).
    public static func warm(_ windows: [(segments: Range<Int>, playlist: MediaPlaylist, location: InputLocation)], into cache: SegmentCache,
                            width: Int, fetchTimeout: Double, cancellation: ProbeCancellation) {
        var reads: [(InputLocation, ByteRange?)] = []
        var seen: Set<String> = []
        for (segments, playlist, location) in windows {
            let wanted = segments.clamped(to: playlist.segments.indices)
            if playlist.segments[wanted].contains(where: { $0.key.map { $0.method != "NONE" } ?? false }) { continue }
            var bytes = 0
            for segment in playlist.segments[wanted] where !segment.gap {
                for (uri, range) in [segment.map.map { ($0.uri, $0.byteRange) }, (segment.uri, segment.byteRange)].compactMap({ $0 }) {
                    guard let target = try? location.resolving(uri),
                          seen.insert("\(target)|\(range?.offset ?? 0)|\(range?.length ?? -1)").inserted else { continue }
                    reads.append((target, range))
                }
                bytes += segment.byteRange?.length ?? 0
                if bytes >= maxWindowBytes { break }
            }
        }
        guard !reads.isEmpty else { return }
        let reader = SegmentReader(timeout: fetchTimeout, maxBytes: MediaProber.maxSegmentBytes)
        let deadline = Date().addingTimeInterval(max(fetchTimeout, 1) * 4)
        Thread.detachNewThread { [reads] in
            BlockingWork.run(reads.count, width: width) { index in
                guard !cancellation.isCancelled, Date() < deadline else { return }
                let (target, range) = reads[index]
                let interrupt = InterruptState(deadline: min(deadline, Date().addingTimeInterval(fetchTimeout)), cancellation: cancellation)
                cache.warm(target, offset: range?.offset ?? 0, length: range?.length, limit: MediaProber.maxSegmentBytes,
                           reader: reader, interrupt: interrupt)
            }
        }
    }

    /// The part of a probe error worth repeating next to the segment it concerns.
    static func reason(_ error: ProbeError) -> String {
        switch error {
        case .notMedia(_, let reason), .openFailed(_, let reason), .truncated(_, let reason), .unreadable(_, let reason): return reason
        case .fileNotFound: return "not found"
        case .timedOut(_, let seconds): return "timed out after \(Self.seconds(seconds)) s"
        default:
            // The segment is named next to it already.
            let text = error.description
            if let input = error.input, text.hasPrefix(input + ": ") { return String(text.dropFirst(input.count + 2)) }
            return text
        }
    }

    static func seconds(_ value: Double) -> String { String(format: "%g", (value * 10).rounded() / 10) }
}
