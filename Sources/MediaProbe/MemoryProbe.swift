import CFFmpeg
import Foundation
import HLS

/// Where a probe reads from: a path or URL FFmpeg opens itself, or bytes already fetched.
enum ProbeSource {
    case location(InputLocation)
    case memory(MemoryInput)
}

extension MediaProber {
    /// Describes media from bytes already in memory, such as an HLS rendition's init section
    /// followed by its first segment. FFmpeg opens nothing itself: no file, no URL.
    ///
    /// `label` names the input in the description and in errors (the playlist URI, say).
    /// `encryptedSamples` is the method of fMP4 whose samples are encrypted (``EncryptedSamples``).
    public func probe(bytes: Data, label: String, encryptedSamples: String? = nil,
                      cancellation: ProbeCancellation = ProbeCancellation()) throws(ProbeError) -> MediaDescription {
        guard !bytes.isEmpty else { throw .emptyFile(label) }
        let capture = LogCapture()
        let interrupt = InterruptState(deadline: Date().addingTimeInterval(options.timeout), cancellation: cancellation)
        let input = MemoryInput(bytes)
        var bytesRead: Int64 = 0
        let result: Result<MediaDescription, ProbeError> = FFmpegRuntime.capturingLog(into: capture) {
            withExtendedLifetime((interrupt, input)) {
                Result { () throws(ProbeError) -> MediaDescription in
                    try open(.memory(input), input: label, fileSize: Int64(bytes.count), interrupt: interrupt,
                             log: capture, bytesRead: &bytesRead, encryptedSamples: encryptedSamples)
                }
            }
        }
        return try result.get()
    }
}

/// Bytes read by FFmpeg through a custom AVIOContext (read and seek callbacks).
final class MemoryInput {
    let data: Data
    private var position = 0

    init(_ data: Data) {
        self.data = data
    }

    /// An AVIOContext over these bytes; the caller keeps `self` alive while it is used and
    /// releases it with `free`.
    func makeIOContext() -> UnsafeMutablePointer<AVIOContext>? {
        let size = 64 * 1024
        guard let buffer = sc_av_malloc(size) else { return nil }
        let opaque = Unmanaged.passUnretained(self).toOpaque()
        let context = sc_avio_alloc_context(buffer.assumingMemoryBound(to: UInt8.self), Int32(size), 0, opaque,
            { opaque, target, capacity in
                guard let opaque, let target else { return sc_averror_eof() }
                return Unmanaged<MemoryInput>.fromOpaque(opaque).takeUnretainedValue().read(into: target, capacity: Int(capacity))
            },
            nil,
            { opaque, offset, whence in
                guard let opaque else { return -1 }
                return Unmanaged<MemoryInput>.fromOpaque(opaque).takeUnretainedValue().seek(offset, whence: whence)
            })
        if context == nil { sc_av_free(buffer) }
        return context
    }

    private func read(into target: UnsafeMutablePointer<UInt8>, capacity: Int) -> Int32 {
        let count = min(capacity, data.count - position)
        guard count > 0 else { return sc_averror_eof() }
        data.withUnsafeBytes { raw in
            target.update(from: raw.bindMemory(to: UInt8.self).baseAddress! + position, count: count)
        }
        position += count
        return Int32(count)
    }

    private func seek(_ offset: Int64, whence: Int32) -> Int64 {
        if whence & AVSEEK_SIZE != 0 { return Int64(data.count) }
        let base: Int
        switch whence & ~AVSEEK_FORCE {
        case SEEK_SET: base = 0
        case SEEK_CUR: base = position
        case SEEK_END: base = data.count
        default: return -1
        }
        let target = base + Int(offset)
        guard target >= 0, target <= data.count else { return -1 }
        position = target
        return Int64(target)
    }

    /// Frees an AVIOContext made by `makeIOContext` (FFmpeg may have replaced its buffer).
    static func free(_ context: inout UnsafeMutablePointer<AVIOContext>?) {
        guard let io = context else { return }
        sc_av_freep(&io.pointee.buffer)
        sc_avio_context_free(&context)
    }
}
