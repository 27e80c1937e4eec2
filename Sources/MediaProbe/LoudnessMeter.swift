import CFFmpeg
import Foundation

/// Integrated loudness of an input's first audio track and what measuring it cost.
public struct LoudnessMeasurement: Codable, Sendable, Equatable {
    /// LUFS (ITU-R BS.1770-4 / EBU R128 gating), as libavfilter's ebur128 reports it.
    public var integrated: Double
    /// Seconds of audio decoded and measured.
    public var seconds: Double
    public var bytesRead: Int64
    /// Wall-clock seconds the measurement took.
    public var elapsed: Double
}

/// Measures integrated loudness by decoding the first audio track with libavcodec and feeding
/// it through libavfilter's `ebur128` filter. Unlike a probe it reads the whole input: callers
/// decide how much (a file, or the segments around a break held in memory). Blocking.
public struct LoudnessMeter: Sendable {
    public var timeout: Double

    public init(timeout: Double = 60) {
        self.timeout = timeout
    }

    /// A local media file, read whole.
    public func measure(path: String) throws(ProbeError) -> LoudnessMeasurement {
        _ = try MediaProber.checkLocalFile(path)
        return try run(label: path) { context, dictionary in
            sc_av_dict_set(&dictionary, "protocol_whitelist", ProbeOptions.localProtocols, 0)
            return sc_avformat_open_input(&context, "file:" + path, nil, &dictionary)
        }
    }

    /// Bytes already fetched (an init section followed by segments); FFmpeg opens nothing itself.
    public func measure(bytes: Data, label: String) throws(ProbeError) -> LoudnessMeasurement {
        guard !bytes.isEmpty else { throw .emptyFile(label) }
        let input = MemoryInput(bytes)
        var io: UnsafeMutablePointer<AVIOContext>?
        defer { MemoryInput.free(&io) }
        return try withExtendedLifetime(input) { () throws(ProbeError) -> LoudnessMeasurement in
            try run(label: label) { context, dictionary in
                sc_av_dict_set(&dictionary, "protocol_whitelist", "none", 0)
                guard let made = input.makeIOContext() else { return sc_averror(ENOMEM) }
                io = made
                context?.pointee.pb = made
                context?.pointee.flags |= AVFMT_FLAG_CUSTOM_IO
                return sc_avformat_open_input(&context, "", nil, &dictionary)
            }
        }
    }

    private func run(label: String, open: (inout UnsafeMutablePointer<AVFormatContext>?, inout OpaquePointer?) -> Int32)
        throws(ProbeError) -> LoudnessMeasurement {
        try FFmpegRuntime.requireLibraries(for: label)
        guard sc_avfilter_load() == 0 else {
            throw .ffmpegUnavailable(label, reason: sc_avfilter_load_error().map { String(cString: $0) } ?? "libavfilter cannot be loaded")
        }
        let started = Date()
        let capture = LogCapture()
        let interrupt = InterruptState(deadline: started.addingTimeInterval(timeout), cancellation: ProbeCancellation())
        let result: Result<LoudnessMeasurement, ProbeError> = FFmpegRuntime.capturingLog(into: capture) {
            withExtendedLifetime(interrupt) {
                Result { () throws(ProbeError) -> LoudnessMeasurement in
                    var context: UnsafeMutablePointer<AVFormatContext>? = try FFmpegRuntime.formatContext(interruptedBy: interrupt, label: label)
                    var dictionary: OpaquePointer?
                    defer { sc_av_dict_free(&dictionary) }
                    sc_av_dict_set(&dictionary, "format_whitelist", ProbeOptions.allowedContainers, 0)
                    let status = open(&context, &dictionary)
                    guard status >= 0, let ctx = context else {
                        throw .notMedia(label, reason: ([FFmpegRuntime.errorText(status)] + capture.messages.prefix(2)).joined(separator: ": "))
                    }
                    defer { sc_avformat_close_input(&context) }
                    // fMP4 and MP4 describe every stream in their header: no need to read ahead and
                    // decode (the video too) to learn what the audio decoder learns from its first frame.
                    if !Self.headerDescribesStreams(ctx) {
                        guard sc_avformat_find_stream_info(ctx, nil) >= 0 else { throw .notMedia(label, reason: "no stream information") }
                    }
                    var measured = try decode(ctx, label: label, interrupt: interrupt)
                    measured.bytesRead = ctx.pointee.pb?.pointee.bytes_read ?? 0
                    measured.elapsed = Date().timeIntervalSince(started)
                    return measured
                }
            }
        }
        return try result.get()
    }

    /// Decodes the first audio stream into abuffer -> ebur128 -> abuffersink and keeps the last
    /// integrated value the filter attaches to its frames (`lavfi.r128.I`). Only the audio is
    /// decoded; the demuxer skips the other streams' packets.
    private func decode(_ ctx: UnsafeMutablePointer<AVFormatContext>, label: String, interrupt: InterruptState)
        throws(ProbeError) -> LoudnessMeasurement {
        guard let index = (0..<Int(ctx.pointee.nb_streams)).first(where: {
            ctx.pointee.streams[$0]?.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_AUDIO
        }), let stream = ctx.pointee.streams[index], let decoder = sc_avcodec_find_decoder(stream.pointee.codecpar.pointee.codec_id)
        else { throw .notMedia(label, reason: "no decodable audio stream to measure") }
        var codec = sc_avcodec_alloc_context3(decoder)
        defer { sc_avcodec_free_context(&codec) }
        guard let codec, sc_avcodec_parameters_to_context(codec, stream.pointee.codecpar) >= 0,
              sc_avcodec_open2(codec, decoder, nil) >= 0 else { throw .notMedia(label, reason: "the audio decoder cannot be opened") }

        // Video and other streams are skipped by the demuxer rather than read and dropped.
        for other in 0..<Int(ctx.pointee.nb_streams) where other != index { ctx.pointee.streams[other]?.pointee.discard = AVDISCARD_ALL }

        var packet = sc_av_packet_alloc(), frame = sc_av_frame_alloc()
        defer { sc_av_packet_free(&packet); sc_av_frame_free(&frame) }
        guard let packet, let frame else { throw .openFailed(label, reason: "out of memory") }
        // Set up on the first decoded frame, with that frame's format: what the decoder really gives.
        var meter: EBUR128Graph?
        var samples = 0
        var failure: ProbeError?

        func drainDecoder() {
            while failure == nil, sc_avcodec_receive_frame(codec, frame) >= 0 {
                if meter == nil {
                    do throws(ProbeError) { meter = try EBUR128Graph(format: frame, label: label) } catch { failure = error }
                }
                samples += Int(frame.pointee.nb_samples)
                meter?.add(frame)
                sc_av_frame_unref(frame)
            }
        }
        while sc_av_read_frame(ctx, packet) >= 0 {
            if interrupt.shouldStop { sc_av_packet_unref(packet); throw interrupt.error(for: label, timeout: timeout) }
            if packet.pointee.stream_index == Int32(index), sc_avcodec_send_packet(codec, packet) >= 0 { drainDecoder() }
            sc_av_packet_unref(packet)
            if let failure { throw failure }
        }
        _ = sc_avcodec_send_packet(codec, nil)
        drainDecoder()
        if let failure { throw failure }
        let integrated = meter?.finish()
        let rate = meter?.sampleRate ?? 1
        // BS.1770 gates 400 ms blocks: shorter audio, or audio below the -70 LUFS gate, has no value.
        guard let integrated, integrated.isFinite, integrated > -70 else {
            throw .notMedia(label, reason: "no integrated loudness: under 400 ms of audio, or silence")
        }
        return LoudnessMeasurement(integrated: integrated, seconds: Double(samples) / Double(rate), bytesRead: 0, elapsed: 0)
    }

    /// MP4 and fMP4 (the `mov` demuxer): every stream and its codec parameters are in the header
    /// (moov, the init section). MPEG-TS and the rest may add streams as packets come.
    static func headerDescribesStreams(_ ctx: UnsafeMutablePointer<AVFormatContext>) -> Bool {
        optionalString(ctx.pointee.iformat?.pointee.name)?.hasPrefix("mov,") ?? false
    }
}
