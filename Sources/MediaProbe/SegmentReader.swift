import CFFmpeg
import Foundation
import HLS

/// Reads one resource (or a byte range of it) into memory with FFmpeg's I/O: the same protocol
/// allowlist and timeouts as a probe, and a bounded Range request for http(s) byte ranges.
struct SegmentReader {
    var timeout: Double
    /// A segment larger than this is refused rather than buffered.
    var maxBytes: Int

    func read(_ location: InputLocation, offset: Int = 0, length: Int?, interrupt: InterruptState) throws(ProbeError) -> Data {
        let input = location.description
        try FFmpegRuntime.requireLibraries(for: input)
        // Check the size before any arithmetic on it: offset and length come from a playlist.
        if let length, length > maxBytes {
            throw .openFailed(input, reason: "byte range of \(length) bytes exceeds the \(maxBytes)-byte limit")
        }
        guard offset >= 0, !offset.addingReportingOverflow(length ?? 0).overflow else {
            throw .openFailed(input, reason: "byte range at offset \(offset) is out of range")
        }
        var dictionary: OpaquePointer?
        defer { sc_av_dict_free(&dictionary) }
        let url: String
        switch location {
        case .file(let path):
            _ = try MediaProber.checkLocalFile(path)
            sc_av_dict_set(&dictionary, "protocol_whitelist", ProbeOptions.localProtocols, 0)
            url = "file:" + path
        case .remote(let remote):
            sc_av_dict_set(&dictionary, "protocol_whitelist", ProbeOptions.remoteProtocols, 0)
            sc_av_dict_set(&dictionary, "rw_timeout", String(ProbeOptions.microseconds(timeout)), 0)
            if offset > 0 { sc_av_dict_set(&dictionary, "offset", String(offset), 0) }
            if let length { sc_av_dict_set(&dictionary, "end_offset", String(offset + length), 0) }
            url = remote.absoluteString
        }
        var callback = AVIOInterruptCB(callback: { opaque in
            guard let opaque else { return 0 }
            return Unmanaged<InterruptState>.fromOpaque(opaque).takeUnretainedValue().shouldStop ? 1 : 0
        }, opaque: Unmanaged.passUnretained(interrupt).toOpaque())
        var io: UnsafeMutablePointer<AVIOContext>?
        let log = LogCapture()
        let status = FFmpegRuntime.capturingLog(into: log) { sc_avio_open2(&io, url, AVIO_FLAG_READ, &callback, &dictionary) }
        guard status >= 0, let opened = io else {
            if interrupt.shouldStop { throw interrupt.error(for: input, timeout: timeout) }
            if status == sc_averror(ENOENT) { throw .fileNotFound(input) }
            var remote = false
            if case .remote = location { remote = true }
            throw .openFailed(input, reason: Self.openFailure(status, log: log.messages, remote: remote))
        }
        defer { sc_avio_closep(&io) }
        if case .file = location, offset > 0, sc_avio_seek(opened, Int64(offset), SEEK_SET) < 0 {
            throw .truncated(input, reason: "the byte range starts at \(offset), past the end of the file")
        }
        let wanted = length ?? maxBytes + 1
        var data = Data()
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while data.count < wanted {
            let count = sc_avio_read(opened, &chunk, Int32(min(chunk.count, wanted - data.count)))
            if count == sc_averror_eof() || count == 0 { break }
            guard count > 0 else {
                if interrupt.shouldStop { throw interrupt.error(for: input, timeout: timeout) }
                throw .openFailed(input, reason: FFmpegRuntime.errorText(count))
            }
            data.append(contentsOf: chunk[0..<Int(count)])
        }
        if length == nil && data.count > maxBytes {
            throw .openFailed(input, reason: "segment is larger than the \(maxBytes)-byte limit")
        }
        if let length, data.count < length {
            throw .truncated(input, reason: "byte range of \(length) bytes at \(offset) ended after \(data.count) bytes")
        }
        return data
    }

    /// Why an open failed, in the server's words where FFmpeg heard them: its error code says
    /// only "Server returned 5XX Server Error reply", its log "HTTP error 503 Service Unavailable";
    /// FFmpeg's http protocol answers a redirect to anything but http(s) (`file:` included) with a
    /// bare EINVAL and no log line; a protocol off the allowlist logs "not on whitelist".
    static func openFailure(_ status: Int32, log: [String], remote: Bool) -> String {
        if let refused = log.first(where: { $0.contains("not on whitelist") }) {
            return "refused: a protocol a remote input may not use (\(refused))"
        }
        if remote, status == sc_averror(EINVAL) {
            return "refused: the server redirected it to something other than http(s), such as a local file, or the URL is malformed"
        }
        if let http = log.first(where: { $0.hasPrefix("HTTP error ") }) {
            return "the server answered " + http.dropFirst("HTTP error ".count).trimmingCharacters(in: .whitespaces).prefix(80)
        }
        return FFmpegRuntime.errorText(status)
    }
}
