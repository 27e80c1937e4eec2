import Foundation
import HLS

extension MediaProber {
    /// The largest init section plus first segment a rendition probe reads.
    static let maxSegmentBytes = 64 << 20

    /// Describes an HLS rendition from its media playlist: only its init section (EXT-X-MAP) and
    /// first segment are read, with their byte ranges, never the whole stream. The duration is
    /// the playlist's. `location` is where the playlist was finally loaded from (after
    /// redirects): references resolve against it, and a remote playlist never reaches a local file.
    public func probeRendition(_ playlist: MediaPlaylist, at location: InputLocation,
                               cancellation: ProbeCancellation = ProbeCancellation()) throws(ProbeError) -> MediaDescription {
        try probeRenditionWithStatistics(playlist, at: location, cancellation: cancellation).media
    }

    func probeRenditionWithStatistics(_ playlist: MediaPlaylist, at location: InputLocation, cancellation: ProbeCancellation,
                                      cache: SegmentCache? = nil) throws(ProbeError) -> (media: MediaDescription, statistics: ProbeStatistics) {
        let started = Date()
        let label = location.description
        guard let first = playlist.segments.first(where: { !$0.gap }) else { throw .emptyPlaylist(label) }
        // Encrypted samples in fMP4 leave the stream parameters in the clear: read as they are,
        // no key fetched (an skd:// or other key is never needed). Elsewhere (MPEG-TS, packed
        // audio) they are inside the encrypted payload.
        var encryptedSamples: String?
        if let key = first.key, key.method != "NONE", key.method != "AES-128" {
            guard first.map != nil, EncryptedSamples.clearContainerMethods.contains(key.method) else {
                throw .encryptedRendition(label, method: key.method)
            }
            encryptedSamples = key.method
        }
        let interrupt = InterruptState(deadline: Date().addingTimeInterval(options.timeout), cancellation: cancellation)
        let reader = SegmentReader(timeout: options.timeout, maxBytes: Self.maxSegmentBytes)
        var bytes = Data()
        try withExtendedLifetime(interrupt) { () throws(ProbeError) in
            var keys = KeyFetches(reader: reader, playlist: location, interrupt: interrupt, label: label)
            // The init section and the segment at once (one round trip, not two), each within the
            // whole limit; the limit is for both together, checked below as the reader would.
            let read = { @Sendable (reference: String, range: ByteRange?) -> Result<Data, ProbeError> in
                Result { () throws(ProbeError) -> Data in try Self.read(reference, range: range, from: location, reader, interrupt, cache: cache) }
            }
            let fetchSegment = { @Sendable () -> Result<Data, ProbeError> in read(first.uri, first.byteRange) }
            // A byte range over the whole limit is refused before it is asked for, as the reader does.
            let oversized = (first.byteRange?.length ?? 0) > Self.maxSegmentBytes
            var section: Result<Data, ProbeError>?, segment: Result<Data, ProbeError>?
            switch (first.map, oversized) {
            case (let map?, false): (section, segment) = BlockingWork.both({ read(map.uri, map.byteRange) }, fetchSegment)
            case (let map?, true): section = read(map.uri, map.byteRange)
            case (nil, false): segment = fetchSegment()
            case (nil, true): break
            }
            if let map = first.map, let section {
                bytes.append(try SegmentDecryption.initSection(try section.get(), key: map.key, label: label) { key throws(ProbeError) in
                    try keys.key(key)
                })
            }
            // The segment gets what the init section left.
            let limit = Self.maxSegmentBytes - bytes.count
            let segmentLabel = (try? location.resolving(first.uri))?.description ?? first.uri
            _ = try Self.checked(Data(), length: first.byteRange?.length, limit: limit, input: segmentLabel)
            let data = try Self.checked(try (segment ?? fetchSegment()).get(), length: nil, limit: limit, input: segmentLabel)
            if let aes = first.key, aes.method == "AES-128" {
                let sequence = playlist.mediaSequence + (playlist.segments.firstIndex { !$0.gap } ?? 0)
                let iv = try SegmentDecryption.iv(aes, mediaSequence: sequence, label: label)
                bytes.append(try SegmentDecryption.decrypt(data, key: try keys.key(aes), iv: iv, label: label))
            } else {
                bytes.append(data)
            }
        }
        var media = try probe(bytes: bytes, label: label, encryptedSamples: encryptedSamples, cancellation: cancellation)
        media.duration = playlist.totalDuration
        // An EVENT playlist only grows: its first segment is the stream's start, as in VOD.
        media.liveWindow = !playlist.isVOD && playlist.playlistType != .event
        media.playlist = RenditionPlaylist(playlist)
        return (media, ProbeStatistics(bytesRead: Int64(bytes.count), seconds: Date().timeIntervalSince(started)))
    }

    /// A byte range without an offset is the first sub-range of its resource here: it starts at 0.
    private static func read(_ reference: String, range: ByteRange?, from playlist: InputLocation, _ reader: SegmentReader,
                             _ interrupt: InterruptState, cache: SegmentCache?) throws(ProbeError) -> Data {
        let target: InputLocation
        do { target = try playlist.resolving(reference) } catch { throw .playlist(error) }
        if let cache {
            return try cache.read(target, offset: range?.offset ?? 0, length: range?.length, limit: reader.maxBytes, reader: reader,
                                  interrupt: interrupt).data
        }
        return try reader.read(target, offset: range?.offset ?? 0, length: range?.length, interrupt: interrupt)
    }

    /// `data`, read within a larger limit, held to `limit` with the errors `SegmentReader` gives.
    static func checked(_ data: Data, length: Int?, limit: Int, input: String) throws(ProbeError) -> Data {
        if let length, length > limit {
            throw .openFailed(input, reason: "byte range of \(length) bytes exceeds the \(limit)-byte limit")
        }
        if length == nil && data.count > limit {
            throw .openFailed(input, reason: "segment is larger than the \(limit)-byte limit")
        }
        return data
    }
}

/// AES-128 keys of one rendition probe, each URI fetched once (init section and segment usually
/// share one): like the segment (a remote playlist's key over http(s) only), at most 1 KiB.
private struct KeyFetches {
    var reader: SegmentReader
    let playlist: InputLocation
    let interrupt: InterruptState
    let label: String
    private var fetched: [String: Data] = [:]

    init(reader: SegmentReader, playlist: InputLocation, interrupt: InterruptState, label: String) {
        self.reader = reader
        self.reader.maxBytes = 1024
        self.playlist = playlist
        self.interrupt = interrupt
        self.label = label
    }

    mutating func key(_ key: EncryptionKey) throws(ProbeError) -> Data {
        guard let uri = key.uri else { throw .openFailed(label, reason: "EXT-X-KEY METHOD=AES-128 has no URI") }
        if let known = fetched[uri] { return known }
        let target: InputLocation
        do { target = try playlist.resolving(uri) } catch { throw .playlist(error) }
        let bytes = try SegmentDecryption.checkedKey(try reader.read(target, offset: 0, length: nil, interrupt: interrupt),
                                                     url: target.description, label: label)
        fetched[uri] = bytes
        return bytes
    }
}
