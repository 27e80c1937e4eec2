import CFFmpeg
import Foundation
import HLS
import Synchronization

/// Settings for one probe.
public struct ProbeOptions: Sendable, Equatable {
    /// Wall-clock limit for opening and analysing one input, enforced through FFmpeg's interrupt callback.
    public var timeout: Double

    public init(timeout: Double = 15) {
        self.timeout = timeout
    }

    /// The longest timeout accepted anywhere (about 11.5 days): larger values would overflow
    /// FFmpeg's microsecond options.
    public static let maxTimeout: Double = 1_000_000

    /// Seconds as FFmpeg's microseconds, clamped so that no timeout overflows.
    static func microseconds(_ seconds: Double) -> Int64 {
        Int64(min(max(seconds, 0), maxTimeout) * 1_000_000)
    }

    /// Demuxers a probe may use. Random bytes can otherwise "open" as some text subtitle format.
    public static let allowedContainers = "mov,mp4,m4a,3gp,3g2,mj2,mpegts,matroska,webm,flac,wav,w64,aac,ac3,eac3,mp3,caf"
    /// A local input may only open files; a remote one only network protocols, never `file:`.
    static let localProtocols = "file"
    static let remoteProtocols = "http,https,tcp,tls,crypto"
}

/// Cooperative stop signal for a running probe, checked by FFmpeg's interrupt callback.
public final class ProbeCancellation: Sendable {
    private let flag = Atomic<Bool>(false)
    public init() {}
    public func cancel() { flag.store(true, ordering: .relaxed) }
    public var isCancelled: Bool { flag.load(ordering: .relaxed) }
}

/// What one probe cost: the bytes FFmpeg consumed from the input and the wall time.
public struct ProbeStatistics: Codable, Sendable, Equatable {
    public var bytesRead: Int64
    public var seconds: Double
}

/// Opens one input with libavformat and describes its tracks. Blocking: call it off Swift's
/// cooperative pool (``ProbeSession`` does).
public struct MediaProber: Sendable {
    public var options: ProbeOptions

    public init(options: ProbeOptions = ProbeOptions()) {
        self.options = options
    }

    public func probe(_ text: String) throws(ProbeError) -> MediaDescription {
        let location: InputLocation
        do { location = try InputLocation(parsing: text) } catch { throw .invalidInput(error) }
        return try probe(location)
    }

    public func probe(_ location: InputLocation, cancellation: ProbeCancellation = ProbeCancellation()) throws(ProbeError) -> MediaDescription {
        try probeWithStatistics(location, cancellation: cancellation).media
    }

    public func probeWithStatistics(_ location: InputLocation, cancellation: ProbeCancellation = ProbeCancellation())
        throws(ProbeError) -> (media: MediaDescription, statistics: ProbeStatistics) {
        let started = Date()
        let input = location.description
        var fileSize: Int64?
        if case .file(let path) = location {
            fileSize = try Self.checkLocalFile(path)
        }
        let capture = LogCapture()
        let interrupt = InterruptState(deadline: Date().addingTimeInterval(options.timeout), cancellation: cancellation)
        var bytesRead: Int64 = 0
        let result: Result<MediaDescription, ProbeError> = FFmpegRuntime.capturingLog(into: capture) {
            withExtendedLifetime(interrupt) {
                Result { () throws(ProbeError) -> MediaDescription in
                    try open(.location(location), input: input, fileSize: fileSize, interrupt: interrupt, log: capture, bytesRead: &bytesRead)
                }
            }
        }
        let media = try result.get()
        return (media, ProbeStatistics(bytesRead: bytesRead, seconds: Date().timeIntervalSince(started)))
    }

    static func checkLocalFile(_ path: String) throws(ProbeError) -> Int64 {
        var info = stat()
        guard stat(path, &info) == 0 else {
            if errno == ENOENT || errno == ENOTDIR { throw .fileNotFound(path) }
            throw .unreadable(path, reason: String(cString: strerror(errno)))
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw .notARegularFile(path) }
        guard info.st_size > 0 else { throw .emptyFile(path) }
        guard access(path, R_OK) == 0 else { throw .unreadable(path, reason: String(cString: strerror(errno))) }
        return Int64(info.st_size)
    }

    func open(_ source: ProbeSource, input: String, fileSize: Int64?, interrupt: InterruptState,
              log: LogCapture, bytesRead: inout Int64, encryptedSamples: String? = nil) throws(ProbeError) -> MediaDescription {
        try FFmpegRuntime.requireLibraries(for: input)
        var context: UnsafeMutablePointer<AVFormatContext>? = try FFmpegRuntime.formatContext(interruptedBy: interrupt, label: input)

        var dictionary: OpaquePointer?
        defer { sc_av_dict_free(&dictionary) }
        sc_av_dict_set(&dictionary, "format_whitelist", ProbeOptions.allowedContainers, 0)
        let url: String
        var memoryIO: UnsafeMutablePointer<AVIOContext>?
        switch source {
        case .location(.file(let path)):
            sc_av_dict_set(&dictionary, "protocol_whitelist", ProbeOptions.localProtocols, 0)
            url = "file:" + path
        case .location(.remote(let remote)):
            sc_av_dict_set(&dictionary, "protocol_whitelist", ProbeOptions.remoteProtocols, 0)
            sc_av_dict_set(&dictionary, "rw_timeout", String(ProbeOptions.microseconds(options.timeout)), 0)
            sc_av_dict_set(&dictionary, "reconnect", "0", 0)
            url = remote.absoluteString
        case .memory(let bytes):
            // Bytes already fetched: FFmpeg may open nothing else.
            sc_av_dict_set(&dictionary, "protocol_whitelist", "none", 0)
            guard let io = bytes.makeIOContext() else {
                sc_avformat_free_context(context)
                throw .openFailed(input, reason: "out of memory")
            }
            memoryIO = io
            context!.pointee.pb = io
            context!.pointee.flags |= AVFMT_FLAG_CUSTOM_IO
            url = ""
        }
        defer { MemoryInput.free(&memoryIO) }

        let openStatus = sc_avformat_open_input(&context, url, nil, &dictionary)
        guard openStatus >= 0, let ctx = context else {
            throw classify(openStatus, source: source, url: url, input: input, interrupt: interrupt, log: log, opening: true)
        }
        defer {
            bytesRead = ctx.pointee.pb?.pointee.bytes_read ?? 0
            sc_avformat_close_input(&context)
        }

        let infoStatus = sc_avformat_find_stream_info(ctx, nil)
        guard infoStatus >= 0 else {
            throw classify(infoStatus, source: source, url: url, input: input, interrupt: interrupt, log: log, opening: false)
        }
        if interrupt.shouldStop { throw interrupt.error(for: input, timeout: options.timeout) }

        var description = StreamReader.describe(ctx, input: input)
        if let method = encryptedSamples { description = EncryptedSamples.clearFacts(description, context: ctx, method: method) }
        // Bytes in memory are a deliberate prefix (an init section and a first segment): their
        // index may point further, which is not truncation.
        let isMemory: Bool
        if case .memory = source { isMemory = true } else { isMemory = false }
        try Self.validate(description, context: ctx, input: input, fileSize: fileSize, checkIndex: !isMemory)
        return description
    }

    private func classify(_ status: Int32, source: ProbeSource, url: String, input: String, interrupt: InterruptState, log: LogCapture,
                          opening: Bool) -> ProbeError {
        if status == sc_averror_exit() || interrupt.shouldStop {
            return interrupt.error(for: input, timeout: options.timeout)
        }
        var reason = FFmpegRuntime.errorText(status)
        let details = log.messages.filter { $0 != reason }
        if !details.isEmpty { reason += ": " + details.prefix(3).joined(separator: "; ") }
        if details.contains(where: { $0.contains("not on whitelist") }) {
            return .notMedia(input, reason: "its format is not an allowed media container")
        }
        if status == sc_averror_invaliddata() {
            if details.contains(where: { $0.contains("moov atom not found") }), startsWithISOBMFFBox(source, url: url, interrupt: interrupt) {
                return .truncated(input, reason: reason)
            }
            return .notMedia(input, reason: reason)
        }
        if status == sc_averror(ENOENT) { return .fileNotFound(input) }
        if status == sc_averror(EACCES) { return .unreadable(input, reason: reason) }
        if status == sc_averror_eof() { return .truncated(input, reason: "unexpected end of file") }
        if case .location(.remote) = source { return opening ? .openFailed(input, reason: reason) : .notMedia(input, reason: reason) }
        return .notMedia(input, reason: reason)
    }

    /// Whether the input starts like an MP4/MOV (a box header with a known type), which tells a
    /// truncated MP4 that lost its moov from random bytes the mov demuxer was tried on. Reads the
    /// first 8 bytes again: a file read, or one small extra request for http(s), on this error path only.
    private func startsWithISOBMFFBox(_ source: ProbeSource, url: String, interrupt: InterruptState) -> Bool {
        var header = [UInt8]()
        switch source {
        case .memory(let bytes):
            header = [UInt8](bytes.data.prefix(8))
        case .location(.file(let path)):
            guard let handle = FileHandle(forReadingAtPath: path) else { return false }
            defer { try? handle.close() }
            header = [UInt8](handle.readData(ofLength: 8))
        case .location(.remote):
            var io: UnsafeMutablePointer<AVIOContext>?
            var callback = AVIOInterruptCB(callback: { opaque in
                guard let opaque else { return 0 }
                return Unmanaged<InterruptState>.fromOpaque(opaque).takeUnretainedValue().shouldStop ? 1 : 0
            }, opaque: Unmanaged.passUnretained(interrupt).toOpaque())
            var dictionary: OpaquePointer?
            defer { sc_av_dict_free(&dictionary) }
            sc_av_dict_set(&dictionary, "protocol_whitelist", ProbeOptions.remoteProtocols, 0)
            sc_av_dict_set(&dictionary, "rw_timeout", String(ProbeOptions.microseconds(options.timeout)), 0)
            guard sc_avio_open2(&io, url, AVIO_FLAG_READ, &callback, &dictionary) >= 0, let opened = io else { return false }
            defer { sc_avio_closep(&io) }
            header = [UInt8](repeating: 0, count: 8)
            let count = sc_avio_read(opened, &header, 8)
            header = Array(header.prefix(max(0, Int(count))))
        }
        guard header.count == 8 else { return false }
        let type = String(decoding: header.suffix(4), as: UTF8.self)
        return ["ftyp", "moov", "mdat", "free", "skip", "wide", "styp", "pnot", "uuid"].contains(type)
    }

    /// Rejects results that would make rules compare garbage: no media streams, zero sizes or
    /// rates, and indexes that point past the end of a local file.
    static func validate(_ media: MediaDescription, context: UnsafeMutablePointer<AVFormatContext>,
                         input: String, fileSize: Int64?, checkIndex: Bool = true) throws(ProbeError) {
        guard !media.video.isEmpty || !media.audio.isEmpty else {
            throw .notMedia(input, reason: "no audio or video stream")
        }
        var missing: [String] = []
        // Fields that only decoding the first packets yields (pixel format, profile) are missing
        // when FFmpeg could not reach the media data, e.g. a moov-at-end MP4 from a server that
        // ignores Range requests: such a result would make rules compare garbage. Encrypted
        // samples cannot be decoded: those fields are then unknown, not missing.
        let decoded = media.encryption == nil
        for track in media.video {
            if track.width <= 0 || track.height <= 0 { missing.append("video #\(track.index) size") }
            if track.frameRate == nil { missing.append("video #\(track.index) frame rate") }
            if decoded, track.pixelFormat == nil { missing.append("video #\(track.index) pixel format") }
            if decoded, ["h264", "hevc"].contains(track.codec), track.profile == nil { missing.append("video #\(track.index) profile") }
        }
        for track in media.audio {
            if track.sampleRate <= 0 { missing.append("audio #\(track.index) sample rate") }
            if track.channels <= 0 { missing.append("audio #\(track.index) channels") }
            if decoded, track.codec == "aac", track.profile == nil { missing.append("audio #\(track.index) profile") }
        }
        guard missing.isEmpty else { throw .incomplete(input, missing: missing) }

        // The size is the file's, or the server's Content-Length for http(s).
        let size = context.pointee.pb.map { sc_avio_size($0) }.flatMap { $0 > 0 ? $0 : nil } ?? fileSize
        if checkIndex, let size {
            for i in 0..<Int(context.pointee.nb_streams) {
                guard let stream = context.pointee.streams[i] else { continue }
                let end = sc_index_max_end(stream)
                if end > size {
                    throw .truncated(input, reason: "stream \(i) has samples up to byte \(end) but the file has \(size) bytes")
                }
            }
        }
    }
}

/// Deadline and cancellation seen by FFmpeg's interrupt callback (called often during blocking I/O).
final class InterruptState: Sendable {
    let deadline: Date
    let cancellation: ProbeCancellation

    init(deadline: Date, cancellation: ProbeCancellation) {
        self.deadline = deadline
        self.cancellation = cancellation
    }

    var shouldStop: Bool { cancellation.isCancelled || Date() >= deadline }

    func error(for input: String, timeout: Double) -> ProbeError {
        cancellation.isCancelled ? .cancelled(input) : .timedOut(input, seconds: timeout)
    }
}
