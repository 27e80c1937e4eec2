import CFFmpeg
import Foundation
import Synchronization

/// Process-wide FFmpeg set-up, done once: logging goes to a per-thread capture instead of stderr.
///
/// FFmpeg's log callback is global. A probe runs all its FFmpeg calls on one thread, so the
/// messages logged on that thread while a probe is active belong to that probe; they become the
/// "reason" in errors ("moov atom not found") instead of noise on the user's terminal.
enum FFmpegRuntime {
    static let configured: Bool = {
        sc_av_log_set_callback { _, level, format, arguments in
            // Errors, and the HTTP status FFmpeg's http protocol logs only as a warning ("HTTP error %d %s").
            guard let format, level <= AV_LOG_ERROR || (level <= AV_LOG_WARNING && strncmp(format, "HTTP error", 10) == 0),
                  let arguments, let raw = pthread_getspecific(logCaptureKey) else { return }
            var buffer = [CChar](repeating: 0, count: 512)
            let written = buffer.withUnsafeMutableBufferPointer { vsnprintf($0.baseAddress, $0.count, format, arguments) }
            guard written > 0 else { return }
            let capture = Unmanaged<LogCapture>.fromOpaque(raw).takeUnretainedValue()
            capture.append(decodeCString(buffer))
        }
        return true
    }()

    /// Loads FFmpeg's libraries (once per process) or says why they cannot be.
    /// Also installs the log callback: FFmpeg's default logger writes to stderr, and I/O outside a
    /// probe (a segment read) would otherwise print "[http @ 0x…] HTTP error 404" on the terminal.
    static func requireLibraries(for input: String) throws(ProbeError) {
        guard sc_ffmpeg_load() != 0 else {
            _ = configured
            return
        }
        throw .ffmpegUnavailable(input, reason: sc_ffmpeg_load_error().map { String(cString: $0) } ?? "unknown reason")
    }

    /// Runs `body` with FFmpeg's error messages of this thread collected into `capture`.
    static func capturingLog<T>(into capture: LogCapture, _ body: () throws -> T) rethrows -> T {
        _ = configured
        let previous = pthread_getspecific(logCaptureKey)
        pthread_setspecific(logCaptureKey, Unmanaged.passUnretained(capture).toOpaque())
        defer { pthread_setspecific(logCaptureKey, previous) }
        return try withExtendedLifetime(capture) { try body() }
    }

    /// FFmpeg's text for an error code ("Invalid data found when processing input").
    static func errorText(_ code: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: Int(AV_ERROR_MAX_STRING_SIZE))
        let rc = buffer.withUnsafeMutableBufferPointer { sc_av_strerror(code, $0.baseAddress, $0.count) }
        return rc == 0 ? decodeCString(buffer) : "FFmpeg error \(code)"
    }
}

private let logCaptureKey: pthread_key_t = {
    var key = pthread_key_t()
    pthread_key_create(&key, nil)
    return key
}()

/// FFmpeg error-level messages logged during one probe, in order, without duplicates.
final class LogCapture: @unchecked Sendable {
    private let lines = Mutex<[String]>([])

    func append(_ line: String) {
        let text = line.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { return }
        lines.withLock { if !$0.contains(text) && $0.count < 20 { $0.append(text) } }
    }

    var messages: [String] { lines.withLock { $0 } }
}

/// Decodes a NUL-terminated buffer (String(cString: [CChar]) is deprecated in Swift 6).
func decodeCString(_ buffer: [CChar]) -> String {
    buffer.withUnsafeBufferPointer { ptr in
        let length = ptr.firstIndex(of: 0) ?? ptr.count
        return String(decoding: UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(ptr)[0..<length]),
                      as: UTF8.self)
    }
}

func optionalString(_ pointer: UnsafePointer<CChar>?) -> String? {
    pointer.map { String(cString: $0) }
}

extension FFmpegRuntime {
    /// A new format context whose blocking calls give up when `interrupt` says so (deadline or
    /// cancellation). `interrupt` must outlive the context.
    static func formatContext(interruptedBy interrupt: InterruptState, label: String) throws(ProbeError) -> UnsafeMutablePointer<AVFormatContext> {
        guard let context = sc_avformat_alloc_context() else { throw .openFailed(label, reason: "out of memory") }
        context.pointee.interrupt_callback.callback = { opaque in
            guard let opaque else { return 0 }
            return Unmanaged<InterruptState>.fromOpaque(opaque).takeUnretainedValue().shouldStop ? 1 : 0
        }
        context.pointee.interrupt_callback.opaque = Unmanaged.passUnretained(interrupt).toOpaque()
        return context
    }
}

/// FFmpeg's libraries, loaded ahead of the first probe.
public enum MediaLibraries {
    /// Loads FFmpeg's libraries (and libavfilter with `filters`, for loudness) on a thread of
    /// their own and returns at once: their ~100 ms of dynamic loading then overlaps the first
    /// playlist fetches instead of delaying the first probe and the first measurement. A library
    /// that cannot be loaded is reported by the first probe or measurement, as before.
    public static func loadInBackground(filters: Bool) {
        Thread.detachNewThread {
            guard sc_ffmpeg_load() == 0 else { return }
            _ = FFmpegRuntime.configured
            if filters { _ = sc_avfilter_load() }
        }
    }
}
