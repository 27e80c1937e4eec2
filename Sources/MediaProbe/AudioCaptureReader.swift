import CFFmpeg
import Foundation

/// What to hear a receiver from (`--capture-audio`): a PulseAudio source, an ALSA device, a recording,
/// or the audio track of the picture's own capture (`same`).
public enum AudioInput: Sendable, Equatable, CustomStringConvertible {
    case device(CaptureInput)
    case sameAsPicture

    /// `same`, `pulse:SOURCE`, `alsa:DEVICE`, `FORMAT:TARGET` or a file; options after `?` as
    /// `KEY=VALUE&KEY=VALUE` (`pulse:seamcheck_null.monitor?server=unix:/run/kodi/pulse.sock`).
    /// `?` because ALSA names hold commas (`hw:1,0`) and Pulse source names hold dots.
    public static func parse(_ text: String) -> AudioInput {
        if text == "same" { return .sameAsPicture }
        var body = text, options: [String: String] = [:]
        if let mark = text.firstIndex(of: "?") {
            body = String(text[..<mark])
            for pair in text[text.index(after: mark)...].split(separator: "&") {
                let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
                options[parts[0]] = parts.count > 1 ? parts[1] : ""
            }
        }
        var input = CaptureInput.parse(body)
        input.options.merge(options) { _, new in new }
        return .device(input)
    }

    public var description: String {
        switch self {
        case .sameAsPicture: return "same"
        case .device(let input):
            let options = input.options.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "&")
            return input.description + (options.isEmpty ? "" : "?" + options)
        }
    }
}

/// A block of sound as the input delivered it.
public struct AudioBlock: Sendable {
    /// Seconds from the input's first sample, counted in samples.
    public var time: Double
    /// The first channel, floats in -1...1.
    public var samples: [Float]
    public var sampleRate: Int
    public var channels: Int
    /// Channels whose level is above -50 dBFS in this block.
    public var activeChannels: Int
}

/// Reads sound alone (a PulseAudio monitor, an ALSA capture, a recording's audio) with FFmpeg's
/// libraries. Blocking; use it from one thread. Every open and read gives up after its deadline
/// (`openTimeout`, `readTimeout`): a server that does not answer or a device that stops is an error.
public final class AudioCaptureReader {
    public let input: CaptureInput
    /// The first packet's timestamp in seconds as the input gives it: wall-clock seconds for
    /// pulse and alsa (libavdevice stamps them with the time of day, as x11grab does).
    public private(set) var originTimestamp: Double?
    /// The input's timestamps (from `originTimestamp`) against the samples counted, about ten a
    /// second: what places the sound on the wall clock, and shows samples the input dropped and
    /// its clock's drift (`SoundClock`). Bounded: thinned to one in two past 36,000. `read` is when
    /// the block was read (monotonic seconds from the first read) less its own length: against
    /// `sample` it shows how far the reader fell behind its input (`SoundLag`).
    public private(set) var clock: [(sample: Double, stamp: Double, read: Double)] = []
    public private(set) var sampleRate = 0
    public private(set) var channels = 0
    /// Decoded frames in a sample format this reader does not read (they are not counted as sound).
    public private(set) var unreadableFrames = 0

    private var format: UnsafeMutablePointer<AVFormatContext>?
    private var decoder: UnsafeMutablePointer<AVCodecContext>?
    private var index: Int32 = -1
    private var timeBase = AVRational(num: 1, den: 1)
    private var packet: UnsafeMutablePointer<AVPacket>?
    private var frame: UnsafeMutablePointer<AVFrame>?
    private let interrupt: RollingDeadline
    /// A FIFO input's descriptor, kept open while FFmpeg reads it.
    private let stream: StreamDescriptor?
    private let readTimeout: Double
    private var counted = 0.0
    private var clockStep = 0.1
    private var pending: [AudioBlock] = []
    private var drained = false
    private var firstRead: UInt64?
    private var readAt = 0.0
    /// The time of day of the first read: `clock`'s `read` from it is when each block came, on the wall clock.
    public private(set) var firstReadWall: Double?
    /// The latest a block came since the last clock point, against its samples: what `read` holds.
    private var latest = -Double.infinity
    /// Reads that waited 50 ms or more for the input (`read`: when the wait ended, as in `clock`;
    /// at most 10,000): a reader that is late while it waits is behind because the source sent
    /// nothing, not because it was not scheduled.
    public private(set) var waits: [(read: Double, seconds: Double)] = []

    public init(input: CaptureInput, openTimeout: Double = 10, readTimeout: Double = 5) throws(CaptureError) {
        self.input = input
        self.readTimeout = readTimeout
        // A FIFO is opened without blocking first, as the picture's reader does: one with no writer
        // ends after `openTimeout` instead of hanging.
        stream = try input.format == nil ? StreamDescriptor.openIfFIFO(input, waiting: openTimeout) : nil
        interrupt = RollingDeadline(seconds: openTimeout)
        let opened = try CaptureReader.openFormat(input, fifo: stream, interrupt: interrupt, openTimeout: openTimeout)
        format = opened
        for number in 0..<Int32(opened.pointee.nb_streams) {
            guard let stream = opened.pointee.streams[Int(number)],
                  stream.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_AUDIO,
                  let codec = sc_avcodec_find_decoder(stream.pointee.codecpar.pointee.codec_id) else { continue }
            var made = sc_avcodec_alloc_context3(codec)
            guard let made1 = made, sc_avcodec_parameters_to_context(made1, stream.pointee.codecpar) >= 0,
                  sc_avcodec_open2(made1, codec, nil) >= 0 else {
                sc_avcodec_free_context(&made)
                continue
            }
            decoder = made1
            index = number
            timeBase = stream.pointee.time_base
            sampleRate = Int(stream.pointee.codecpar.pointee.sample_rate)
            channels = Int(stream.pointee.codecpar.pointee.ch_layout.nb_channels)
            break
        }
        guard decoder != nil else {
            sc_avformat_close_input(&format)
            throw .noAudio(input)
        }
        packet = sc_av_packet_alloc()
        frame = sc_av_frame_alloc()
    }

    deinit {
        sc_avcodec_free_context(&decoder)
        sc_av_packet_free(&packet)
        sc_av_frame_free(&frame)
        sc_avformat_close_input(&format)
    }

    /// The next block of sound; nil at the end of a file.
    public func next() throws(CaptureError) -> AudioBlock? {
        while pending.isEmpty {
            if drained { return nil }
            try pump()
        }
        return pending.removeFirst()
    }

    private func pump() throws(CaptureError) {
        guard let format, let packet else { drained = true; return }
        interrupt.restart(seconds: readTimeout)
        let asked = DispatchTime.now().uptimeNanoseconds
        let status = sc_av_read_frame(format, packet)
        let now = DispatchTime.now().uptimeNanoseconds
        if firstRead == nil { firstRead = now; firstReadWall = Date().timeIntervalSince1970 }
        readAt = Double(now - firstRead!) / 1e9
        let waited = Double(now - asked) / 1e9
        if waited >= 0.05, waits.count < 10_000 { waits.append((readAt, waited)) }
        if status < 0 {
            if interrupt.passed && input.isDevice { throw .readFailed(input, reason: "no sound in \(Int(readTimeout)) s") }
            if status != sc_averror_eof() && status != sc_averror_exit() && !interrupt.passed {
                throw .readFailed(input, reason: FFmpegRuntime.errorText(status))
            }
            _ = sc_avcodec_send_packet(decoder, nil)
            receive()
            drained = true
            return
        }
        defer { sc_av_packet_unref(packet) }
        if packet.pointee.stream_index == index, sc_avcodec_send_packet(decoder, packet) >= 0 { receive() }
    }

    private func receive() {
        guard let frame else { return }
        while sc_avcodec_receive_frame(decoder, frame) >= 0 {
            defer { sc_av_frame_unref(frame) }
            let rate = Int(frame.pointee.sample_rate)
            guard rate > 0, let all = AudioSamples.channels(frame) else { unreadableFrames += 1; continue }
            var stamp = frame.pointee.best_effort_timestamp
            if stamp == sc_nopts_value() { stamp = frame.pointee.pts }
            if stamp != sc_nopts_value() {
                let seconds = Double(stamp) * Double(timeBase.num) / Double(timeBase.den)
                if originTimestamp == nil { originTimestamp = seconds }
                latest = max(latest, readAt - Double(frame.pointee.nb_samples) / Double(rate) - counted)
                if clock.last.map({ counted - $0.sample >= clockStep }) ?? true {
                    clock.append((counted, seconds - originTimestamp!, counted + latest))
                    latest = -.infinity
                    if clock.count > 36_000 {
                        clock = clock.enumerated().filter { $0.offset % 2 == 0 }.map(\.element)
                        clockStep *= 2
                    }
                }
            }
            pending.append(AudioBlock(time: counted, samples: all[0], sampleRate: rate, channels: all.count,
                                      activeChannels: AudioSamples.active(all)))
            counted += Double(all[0].count) / Double(rate)
        }
    }
}

/// Decoded audio frames as floats per channel.
enum AudioSamples {
    /// How many of `channels` are above -50 dBFS.
    static func active(_ channels: [[Float]]) -> Int {
        channels.filter { channel in
            var energy: Float = 0
            for sample in channel { energy += sample * sample }
            return energy / Float(max(1, channel.count)) > 1e-5
        }.count
    }

    /// Every channel of `frame` (at most 8) for the sample formats decoders and devices give; nil for others.
    static func channels(_ frame: UnsafeMutablePointer<AVFrame>) -> [[Float]]? {
        let count = Int(frame.pointee.nb_samples)
        let channels = min(8, Int(frame.pointee.ch_layout.nb_channels))
        guard count > 0, channels > 0, let planes = frame.pointee.extended_data else { return nil }
        let format = AVSampleFormat(frame.pointee.format)
        let planar = [AV_SAMPLE_FMT_FLTP, AV_SAMPLE_FMT_S16P, AV_SAMPLE_FMT_S32P, AV_SAMPLE_FMT_DBLP].contains(format)
        let step = planar ? 1 : Int(frame.pointee.ch_layout.nb_channels)
        var result: [[Float]] = []
        for channel in 0..<channels {
            guard let data = planar ? planes[channel] : planes[0] else { return nil }
            let first = planar ? 0 : channel
            switch format {
            case AV_SAMPLE_FMT_FLT, AV_SAMPLE_FMT_FLTP:
                result.append(data.withMemoryRebound(to: Float.self, capacity: count * step + first) { p in
                    (0..<count).map { p[$0 * step + first] } })
            case AV_SAMPLE_FMT_DBL, AV_SAMPLE_FMT_DBLP:
                result.append(data.withMemoryRebound(to: Double.self, capacity: count * step + first) { p in
                    (0..<count).map { Float(p[$0 * step + first]) } })
            case AV_SAMPLE_FMT_S16, AV_SAMPLE_FMT_S16P:
                result.append(data.withMemoryRebound(to: Int16.self, capacity: count * step + first) { p in
                    (0..<count).map { Float(p[$0 * step + first]) / 32768 } })
            case AV_SAMPLE_FMT_S32, AV_SAMPLE_FMT_S32P:
                result.append(data.withMemoryRebound(to: Int32.self, capacity: count * step + first) { p in
                    (0..<count).map { Float(Double(p[$0 * step + first]) / 2_147_483_648) } })
            default:
                return nil
            }
        }
        return result
    }
}
