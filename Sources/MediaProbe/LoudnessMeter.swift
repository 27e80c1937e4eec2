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
                    guard sc_avformat_find_stream_info(ctx, nil) >= 0 else { throw .notMedia(label, reason: "no stream information") }
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
    /// integrated value the filter attaches to its frames (`lavfi.r128.I`).
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

        var graph = sc_avfilter_graph_alloc()
        defer { sc_avfilter_graph_free(&graph) }
        var layout = codec.pointee.ch_layout
        var layoutText = [CChar](repeating: 0, count: 128)
        _ = layoutText.withUnsafeMutableBufferPointer { sc_av_channel_layout_describe(&layout, $0.baseAddress, $0.count) }
        let format = optionalString(sc_av_get_sample_fmt_name(codec.pointee.sample_fmt)) ?? "fltp"
        let rate = Int(codec.pointee.sample_rate)
        let args = "time_base=1/\(rate):sample_rate=\(rate):sample_fmt=\(format):channel_layout=\(decodeCString(layoutText))"
        var source: UnsafeMutablePointer<AVFilterContext>?, meter: UnsafeMutablePointer<AVFilterContext>?
        var sink: UnsafeMutablePointer<AVFilterContext>?
        guard let graph, rate > 0,
              sc_avfilter_graph_create_filter(&source, sc_avfilter_get_by_name("abuffer"), "in", args, nil, graph) >= 0,
              sc_avfilter_graph_create_filter(&meter, sc_avfilter_get_by_name("ebur128"), "r128", "metadata=1", nil, graph) >= 0,
              sc_avfilter_graph_create_filter(&sink, sc_avfilter_get_by_name("abuffersink"), "out", nil, nil, graph) >= 0,
              sc_avfilter_link(source, 0, meter, 0) >= 0, sc_avfilter_link(meter, 0, sink, 0) >= 0,
              sc_avfilter_graph_config(graph, nil) >= 0
        else { throw .notMedia(label, reason: "the ebur128 filter graph cannot be set up for \(args)") }

        var packet = sc_av_packet_alloc(), frame = sc_av_frame_alloc(), filtered = sc_av_frame_alloc()
        defer { sc_av_packet_free(&packet); sc_av_frame_free(&frame); sc_av_frame_free(&filtered) }
        guard let packet, let frame, let filtered else { throw .openFailed(label, reason: "out of memory") }
        var integrated: Double?
        var samples = 0

        func drainSink() {
            while sc_av_buffersink_get_frame(sink, filtered) >= 0 {
                if let entry = sc_av_dict_get(filtered.pointee.metadata, "lavfi.r128.I", nil, 0),
                   let text = optionalString(entry.pointee.value), let value = Double(text) {
                    integrated = value
                }
                sc_av_frame_unref(filtered)
            }
        }
        func drainDecoder() {
            while sc_avcodec_receive_frame(codec, frame) >= 0 {
                samples += Int(frame.pointee.nb_samples)
                _ = sc_av_buffersrc_add_frame_flags(source, frame, 0)
                sc_av_frame_unref(frame)
                drainSink()
            }
        }
        while sc_av_read_frame(ctx, packet) >= 0 {
            if interrupt.shouldStop { sc_av_packet_unref(packet); throw interrupt.error(for: label, timeout: timeout) }
            if packet.pointee.stream_index == Int32(index), sc_avcodec_send_packet(codec, packet) >= 0 { drainDecoder() }
            sc_av_packet_unref(packet)
        }
        _ = sc_avcodec_send_packet(codec, nil)
        drainDecoder()
        _ = sc_av_buffersrc_add_frame_flags(source, nil, 0)
        drainSink()
        // BS.1770 gates 400 ms blocks: shorter audio, or audio below the -70 LUFS gate, has no value.
        guard let integrated, integrated.isFinite, integrated > -70 else {
            throw .notMedia(label, reason: "no integrated loudness: under 400 ms of audio, or silence")
        }
        return LoudnessMeasurement(integrated: integrated, seconds: Double(samples) / Double(rate), bytesRead: 0, elapsed: 0)
    }
}
