import CFFmpeg
import Foundation

/// What to read a capture from: a recorded file, or an FFmpeg input device.
public struct CaptureInput: Sendable, Equatable, CustomStringConvertible {
    /// The path, device node or display ("/dev/video0", ":99.0").
    public var target: String
    /// An FFmpeg input format ("x11grab", "v4l2"); nil: a file, whose format FFmpeg finds.
    public var format: String?
    /// Options of the input device ("framerate": "30", "video_size": "1280x720").
    public var options: [String: String]

    public init(target: String, format: String? = nil, options: [String: String] = [:]) {
        self.target = target
        self.format = format
        self.options = options
    }

    /// `FORMAT:TARGET` ("x11grab::99", "v4l2:/dev/video0"), a `/dev/video*` node (v4l2), an X
    /// display (":99", ":99.0": x11grab), else a file path.
    public static func parse(_ text: String) -> CaptureInput {
        if text.hasPrefix("/dev/video") { return CaptureInput(target: text, format: "v4l2") }
        if text.range(of: "^:[0-9]+(\\.[0-9]+)?$", options: .regularExpression) != nil {
            return CaptureInput(target: text, format: "x11grab")
        }
        for device in ["x11grab", "v4l2", "lavfi", "alsa", "pulse", "fbdev", "kmsgrab"] where text.hasPrefix(device + ":") {
            return CaptureInput(target: String(text.dropFirst(device.count + 1)), format: device)
        }
        return CaptureInput(target: text)
    }

    /// A live device: it never ends by itself and delivers frames in real time.
    public var isDevice: Bool { format != nil && format != "lavfi" }

    public var description: String { format.map { "\($0):\(target)" } ?? target }

    /// What to check when it cannot be opened.
    var hint: String {
        switch format {
        case "x11grab": return "check that the X display is running and that this user may open it (DISPLAY, XAUTHORITY)"
        case "pulse": return "check that the PulseAudio server answers (the option server=unix:/path/pulse.sock, or PULSE_SERVER) and that the source exists (`pactl list short sources`; a sink's sound is SINK.monitor)"
        case "alsa": return "check the device (`arecord -l`: hw:CARD,DEVICE), that this user may open it (the 'audio' group) and that no other program holds it"
        case "v4l2": return "check that the device node exists, that this user may read it (the 'video' group), that no other program holds it, and that the card has a signal"
        case nil: return "check the path and that the file is a recording FFmpeg can read"
        default: return "check that the device exists and FFmpeg's libavdevice knows '\(format ?? "")'"
        }
    }
}

/// Why a capture cannot be read.
public enum CaptureError: Error, Sendable, Equatable, CustomStringConvertible {
    case ffmpegUnavailable(reason: String)
    case unknownDevice(CaptureInput)
    case cannotOpen(CaptureInput, reason: String)
    case noVideo(CaptureInput)
    case noAudio(CaptureInput)
    case readFailed(CaptureInput, reason: String)

    public var description: String {
        switch self {
        case .ffmpegUnavailable(let reason):
            return "FFmpeg's libraries cannot be loaded (\(reason)); install Debian's libavformat59, libavcodec59, libswscale6 and libavdevice59"
        case .unknownDevice(let input):
            return "\(input): FFmpeg has no input device '\(input.format ?? "")' here (libavdevice59 missing?); install Debian's libavdevice59"
        case .cannotOpen(let input, let reason):
            return "cannot open capture \(input): \(reason); \(input.hint)"
        case .noVideo(let input):
            return "\(input): no video stream to read frame codes from; give the capture of the receiver's picture"
        case .noAudio(let input):
            return "\(input): no audio stream to hear the receiver from; give its sound (pulse:SOURCE, alsa:DEVICE) or a recording with sound"
        case .readFailed(let input, let reason):
            return "capture \(input) stopped: \(reason); \(input.hint)"
        }
    }
}

/// One thing a capture delivered, in the order FFmpeg demuxed it.
public enum CaptureEvent: Sendable {
    /// A picture, scaled to grey at most `analysisWidth` wide; `time` in seconds from the capture's first packet.
    case video(time: Double, image: GrayImage)
    /// Decoded audio of the first channel as floats in -1...1; `activeChannels` of `channels` had sound.
    case audio(time: Double, samples: [Float], sampleRate: Int, channels: Int, activeChannels: Int)
}

/// Decodes a capture (a file or a live device) with FFmpeg's libraries, frame by frame: the first
/// video stream to small grey pictures, the first audio stream to mono samples. Blocking; use it
/// from one thread. Every read gives up after `readTimeout` seconds without data (a device that
/// stopped delivering), so nothing waits forever.
public final class CaptureReader {
    public let input: CaptureInput
    /// The capture's own frame rate as its stream declares it (a device's configured rate), if any.
    public private(set) var nominalFrameRate: Double?
    public private(set) var sourceWidth = 0
    public private(set) var sourceHeight = 0
    /// The duration a recording's container declares (nil for devices, FIFOs and files without one):
    /// a capture that ends well before it was cut short.
    public private(set) var declaredDuration: Double?
    public var hasAudio: Bool { audio != nil }
    /// The first picture's timestamp in seconds as the input gives it (wall-clock seconds for x11grab).
    public var originTimestamp: Double? { origin }

    private var format: UnsafeMutablePointer<AVFormatContext>?
    private var video: Decoder
    private var audio: Decoder?
    private var packet: UnsafeMutablePointer<AVPacket>?
    private var frame: UnsafeMutablePointer<AVFrame>?
    private var scaler: OpaquePointer?
    private var scalerKey: (Int32, Int32, Int32) = (0, 0, -1)
    private let analysisWidth: Int
    private let readTimeout: Double
    private let interrupt: RollingDeadline
    /// A FIFO's descriptor, opened here without blocking (FFmpeg's own open would wait for a writer forever).
    private let stream: StreamDescriptor?
    /// A device or a FIFO: data comes in real time, so a read deadline passing is a failure, not the end.
    private let live: Bool
    /// The first picture's time: times count from it.
    private var origin: Double?
    private var early: [(time: Double, samples: [Float], rate: Int, channels: Int, active: Int)] = []
    private var pending: [CaptureEvent] = []
    private var drained = false

    private struct Decoder {
        var index: Int32
        var context: UnsafeMutablePointer<AVCodecContext>?
        var timeBase: AVRational
    }

    public init(input: CaptureInput, analysisWidth: Int = 480, openTimeout: Double = 10, readTimeout: Double = 5) throws(CaptureError) {
        self.input = input
        self.analysisWidth = analysisWidth
        self.readTimeout = readTimeout
        let fifo = try input.format == nil ? StreamDescriptor.openIfFIFO(input, waiting: openTimeout) : nil
        let isLive = input.isDevice || fifo != nil
        stream = fifo
        live = isLive
        interrupt = RollingDeadline(seconds: openTimeout)
        let opened = try Self.openFormat(input, fifo: fifo, interrupt: interrupt, openTimeout: openTimeout)
        format = opened
        var videoDecoder: Decoder?
        for index in 0..<Int32(opened.pointee.nb_streams) {
            guard let stream = opened.pointee.streams[Int(index)] else { continue }
            let type = stream.pointee.codecpar.pointee.codec_type
            if type == AVMEDIA_TYPE_VIDEO, videoDecoder == nil {
                videoDecoder = Self.openDecoder(stream, index: index, threads: true)
                let rate = sc_av_guess_frame_rate(opened, stream, nil)
                if rate.num > 0, rate.den > 0 { nominalFrameRate = Double(rate.num) / Double(rate.den) }
                sourceWidth = Int(stream.pointee.codecpar.pointee.width)
                sourceHeight = Int(stream.pointee.codecpar.pointee.height)
            } else if type == AVMEDIA_TYPE_AUDIO, audio == nil {
                audio = Self.openDecoder(stream, index: index, threads: false)
            }
        }
        if !isLive, opened.pointee.duration > 0, opened.pointee.duration != sc_nopts_value() {
            declaredDuration = Double(opened.pointee.duration) / 1_000_000  // AV_TIME_BASE
        }
        guard let videoDecoder else {
            if var decoder = audio { sc_avcodec_free_context(&decoder.context) }
            sc_avformat_close_input(&format)
            throw .noVideo(input)
        }
        video = videoDecoder
        packet = sc_av_packet_alloc()
        frame = sc_av_frame_alloc()
    }

    deinit {
        sc_avcodec_free_context(&video.context)
        if audio != nil { sc_avcodec_free_context(&audio!.context) }
        sc_av_packet_free(&packet)
        sc_av_frame_free(&frame)
        if let scaler { sc_sws_freeContext(scaler) }
        sc_avformat_close_input(&format)
    }

    /// A decoder for `stream`, or nil when FFmpeg has none that opens (that stream is then not read).
    private static func openDecoder(_ stream: UnsafeMutablePointer<AVStream>, index: Int32, threads: Bool) -> Decoder? {
        guard let codec = sc_avcodec_find_decoder(stream.pointee.codecpar.pointee.codec_id) else { return nil }
        var context = sc_avcodec_alloc_context3(codec)
        guard let opened = context, sc_avcodec_parameters_to_context(opened, stream.pointee.codecpar) >= 0 else {
            sc_avcodec_free_context(&context)
            return nil
        }
        if threads {
            opened.pointee.thread_count = 0  // one per core
            opened.pointee.thread_type = FF_THREAD_FRAME | FF_THREAD_SLICE
        }
        guard sc_avcodec_open2(opened, codec, nil) >= 0 else {
            sc_avcodec_free_context(&context)
            return nil
        }
        return Decoder(index: index, context: opened, timeBase: stream.pointee.time_base)
    }

    /// The next picture or audio block; nil at the end of a file.
    public func next() throws(CaptureError) -> CaptureEvent? {
        while pending.isEmpty {
            if drained { return nil }
            try pump()
        }
        return pending.removeFirst()
    }

    private func pump() throws(CaptureError) {
        guard let format, let packet else { drained = true; return }
        interrupt.restart(seconds: readTimeout)
        let status = sc_av_read_frame(format, packet)
        if status < 0 {
            if status != sc_averror_eof() && status != sc_averror_exit() && !interrupt.passed {
                throw .readFailed(input, reason: FFmpegRuntime.errorText(status))
            }
            if interrupt.passed && live { throw .readFailed(input, reason: "no frame in \(Int(readTimeout)) s") }
            _ = sc_avcodec_send_packet(video.context, nil)
            receive(video, isVideo: true)
            if let audio { _ = sc_avcodec_send_packet(audio.context, nil); receive(audio, isVideo: false) }
            drained = true
            return
        }
        defer { sc_av_packet_unref(packet) }
        if packet.pointee.stream_index == video.index {
            if sc_avcodec_send_packet(video.context, packet) >= 0 { receive(video, isVideo: true) }
        } else if let audio, packet.pointee.stream_index == audio.index {
            if sc_avcodec_send_packet(audio.context, packet) >= 0 { receive(audio, isVideo: false) }
        }
    }

    private func receive(_ decoder: Decoder, isVideo: Bool) {
        guard let frame else { return }
        while sc_avcodec_receive_frame(decoder.context, frame) >= 0 {
            defer { sc_av_frame_unref(frame) }
            var stamp = frame.pointee.best_effort_timestamp
            if stamp == sc_nopts_value() { stamp = frame.pointee.pts }
            guard stamp != sc_nopts_value() else { continue }
            let seconds = Double(stamp) * Double(decoder.timeBase.num) / Double(decoder.timeBase.den)
            if isVideo {
                guard let image = gray(frame) else { continue }
                if origin == nil {
                    origin = seconds
                    // Audio decoded before the first picture, now that times have their origin.
                    pending += early.map { .audio(time: $0.time - seconds, samples: $0.samples, sampleRate: $0.rate, channels: $0.channels,
                                                  activeChannels: $0.active) }
                    early = []
                }
                pending.append(.video(time: seconds - (origin ?? 0), image: image))
            } else if let all = AudioSamples.channels(frame) {
                let rate = Int(frame.pointee.sample_rate), active = AudioSamples.active(all)
                if let origin {
                    pending.append(.audio(time: seconds - origin, samples: all[0], sampleRate: rate, channels: all.count,
                                          activeChannels: active))
                } else if early.count < 4096 {
                    early.append((seconds, all[0], rate, all.count, active))
                }
            }
        }
    }

    private func gray(_ frame: UnsafeMutablePointer<AVFrame>) -> GrayImage? {
        let width = frame.pointee.width, height = frame.pointee.height, pixelFormat = frame.pointee.format
        guard width > 0, height > 0 else { return nil }
        let outWidth = min(Int(width), analysisWidth)
        let outHeight = max(2, Int((Double(height) * Double(outWidth) / Double(width)).rounded()))
        if scaler == nil || scalerKey != (width, height, pixelFormat) {
            if let scaler { sc_sws_freeContext(scaler) }
            scaler = sc_sws_getContext(width, height, AVPixelFormat(pixelFormat), Int32(outWidth), Int32(outHeight),
                                       AV_PIX_FMT_GRAY8, SWS_AREA)
            scalerKey = (width, height, pixelFormat)
        }
        guard let scaler else { return nil }
        var pixels = [UInt8](repeating: 0, count: outWidth * outHeight)
        let scaled = pixels.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var destination: [UnsafeMutablePointer<UInt8>?] = [buffer.baseAddress, nil, nil, nil]
            var strides: [Int32] = [Int32(outWidth), 0, 0, 0]
            return withUnsafePointer(to: &frame.pointee.data) { data in
                withUnsafePointer(to: &frame.pointee.linesize) { lines in
                    data.withMemoryRebound(to: UnsafePointer<UInt8>?.self, capacity: 8) { planes in
                        lines.withMemoryRebound(to: Int32.self, capacity: 8) { lineSizes in
                            sc_sws_scale(scaler, planes, lineSizes, 0, height, &destination, &strides)
                        }
                    }
                }
            }
        }
        return scaled > 0 ? GrayImage(width: outWidth, height: outHeight, pixels: pixels) : nil
    }
}

extension CaptureReader {
    /// Opens `input` with FFmpeg (a device by its format, a file, or a FIFO already opened without
    /// blocking) under `interrupt`, so that an input that never answers ends after `openTimeout`;
    /// reads its stream information. The picture's and the sound's readers both open through it.
    static func openFormat(_ input: CaptureInput, fifo: StreamDescriptor?, interrupt: RollingDeadline,
                       openTimeout: Double) throws(CaptureError) -> UnsafeMutablePointer<AVFormatContext> {
        guard sc_capture_load() == 0 else {
            throw .ffmpegUnavailable(reason: sc_capture_load_error().map { String(cString: $0) } ?? "unknown reason")
        }
        _ = FFmpegRuntime.configured
        var device: UnsafePointer<AVInputFormat>?
        if let name = input.format {
            guard let found = sc_av_find_input_format(name) else { throw .unknownDevice(input) }
            device = found
        }
        guard let context = sc_avformat_alloc_context() else { throw .cannotOpen(input, reason: "out of memory") }
        context.pointee.interrupt_callback.callback = { opaque in
            guard let opaque else { return 0 }
            return Unmanaged<RollingDeadline>.fromOpaque(opaque).takeUnretainedValue().passed ? 1 : 0
        }
        context.pointee.interrupt_callback.opaque = Unmanaged.passUnretained(interrupt).toOpaque()
        var dictionary: OpaquePointer?
        defer { sc_av_dict_free(&dictionary) }
        for (key, value) in input.options { sc_av_dict_set(&dictionary, key, value, 0) }
        if input.format == nil { sc_av_dict_set(&dictionary, "protocol_whitelist", "file,pipe", 0) }
        var opened: UnsafeMutablePointer<AVFormatContext>? = context
        let capture = LogCapture()
        let url = fifo.map { "pipe:\($0.descriptor)" }
            ?? (input.format == nil && !input.target.hasPrefix("file:") && input.target != "-" ? "file:" + input.target : input.target)
        let status = FFmpegRuntime.capturingLog(into: capture) {
            sc_avformat_open_input(&opened, url, device, &dictionary)
        }
        guard status >= 0, let opened else {
            let reason = ([FFmpegRuntime.errorText(status)] + capture.messages.prefix(2)).joined(separator: ": ")
            throw .cannotOpen(input, reason: interrupt.passed ? "no answer in \(Int(openTimeout)) s" : reason)
        }
        var format: UnsafeMutablePointer<AVFormatContext>? = opened
        if let unused = sc_av_dict_get(dictionary, "", nil, AV_DICT_IGNORE_SUFFIX) {
            let name = String(cString: unused.pointee.key)
            sc_avformat_close_input(&format)
            throw .cannotOpen(input, reason: "the input has no option '\(name)'")
        }
        guard sc_avformat_find_stream_info(opened, nil) >= 0 else {
            sc_avformat_close_input(&format)
            throw .cannotOpen(input, reason: "no stream information")
        }
        return opened
    }
}

/// A deadline that each blocking call restarts: FFmpeg's interrupt callback reads it. Unlocked:
/// the reader's thread sets it and FFmpeg calls back on that same thread.
final class RollingDeadline: @unchecked Sendable {
    private var deadline: Date

    init(seconds: Double) { deadline = Date().addingTimeInterval(seconds) }

    func restart(seconds: Double) { deadline = Date().addingTimeInterval(seconds) }

    var passed: Bool { Date() >= deadline }
}

/// A FIFO opened for reading without waiting for its writer: `open(2)` of a FIFO blocks until a
/// program opens it for writing, where no FFmpeg deadline reaches. Opened non-blocking, it is
/// polled for data until the open deadline, and stays non-blocking so that FFmpeg's reads return
/// EAGAIN and its interrupt callback (the read deadline) is consulted while nothing comes.
final class StreamDescriptor {
    let descriptor: Int32

    private init(_ descriptor: Int32) { self.descriptor = descriptor }

    deinit { close(descriptor) }

    /// The FIFO at `input.target` once a writer has written to it; nil when it is not a FIFO.
    static func openIfFIFO(_ input: CaptureInput, waiting seconds: Double) throws(CaptureError) -> StreamDescriptor? {
        var info = stat()
        guard stat(input.target, &info) == 0, info.st_mode & mode_t(S_IFMT) == mode_t(S_IFIFO) else { return nil }
        let descriptor = open(input.target, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { throw .cannotOpen(input, reason: String(cString: strerror(errno))) }
        let stream = StreamDescriptor(descriptor)
        let deadline = Date().addingTimeInterval(seconds)
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        while true {
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else {
                throw .cannotOpen(input, reason: "a FIFO nothing was written to within \(Int(seconds)) s; start the program that "
                                  + "writes the capture into it first (ffmpeg ... -f nut \(input.target)), or give a file or device")
            }
            entry.revents = 0
            let ready = poll(&entry, 1, Int32(min(left, 0.5) * 1000) + 1)
            if ready < 0, errno != EINTR { throw .cannotOpen(input, reason: String(cString: strerror(errno))) }
            if ready > 0, entry.revents & Int16(POLLIN) != 0 { return stream }
            if ready > 0, entry.revents & Int16(POLLHUP | POLLERR) != 0 {
                throw .cannotOpen(input, reason: "the FIFO's writer closed it without writing anything")
            }
        }
    }
}
