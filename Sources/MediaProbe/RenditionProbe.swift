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

    func probeRenditionWithStatistics(_ playlist: MediaPlaylist, at location: InputLocation,
                                      cancellation: ProbeCancellation) throws(ProbeError) -> (media: MediaDescription, statistics: ProbeStatistics) {
        let started = Date()
        let label = location.description
        guard let first = playlist.segments.first(where: { !$0.gap }) else { throw .emptyPlaylist(label) }
        let aes = first.key.flatMap { $0.method == "AES-128" ? $0 : nil }
        if let key = first.key, key.method != "NONE", aes == nil { throw .encryptedRendition(label, method: key.method) }
        let interrupt = InterruptState(deadline: Date().addingTimeInterval(options.timeout), cancellation: cancellation)
        var reader = SegmentReader(timeout: options.timeout, maxBytes: Self.maxSegmentBytes)
        var bytes = Data()
        try withExtendedLifetime(interrupt) { () throws(ProbeError) in
            if let map = first.map {
                bytes.append(try read(map.uri, range: map.byteRange, from: location, reader, interrupt))
            }
            // The limit is for both together: the segment gets what the init section left.
            reader.maxBytes = Self.maxSegmentBytes - bytes.count
            let segment = try read(first.uri, range: first.byteRange, from: location, reader, interrupt)
            if let aes {
                // Fetched like the segment (a remote playlist's key over http(s) only), at most 1 KiB.
                guard let uri = aes.uri else { throw .openFailed(label, reason: "EXT-X-KEY METHOD=AES-128 has no URI") }
                var keyReader = reader
                keyReader.maxBytes = 1024
                let key = try read(uri, range: nil, from: location, keyReader, interrupt)
                let sequence = playlist.mediaSequence + (playlist.segments.firstIndex { !$0.gap } ?? 0)
                bytes.append(try SegmentDecryption.decrypt(segment, key: key,
                                                           iv: SegmentDecryption.iv(aes, mediaSequence: sequence, label: label), label: label))
            } else {
                bytes.append(segment)
            }
        }
        var media = try probe(bytes: bytes, label: label, cancellation: cancellation)
        media.duration = playlist.totalDuration
        return (media, ProbeStatistics(bytesRead: Int64(bytes.count), seconds: Date().timeIntervalSince(started)))
    }

    /// A byte range without an offset is the first sub-range of its resource here: it starts at 0.
    private func read(_ reference: String, range: ByteRange?, from playlist: InputLocation,
                      _ reader: SegmentReader, _ interrupt: InterruptState) throws(ProbeError) -> Data {
        let target: InputLocation
        do { target = try playlist.resolving(reference) } catch { throw .playlist(error) }
        return try reader.read(target, offset: range?.offset ?? 0, length: range?.length, interrupt: interrupt)
    }
}
