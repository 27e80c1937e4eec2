import CFFmpeg
import Foundation

/// Turns an opened AVFormatContext into Swift values. C types stay in this file.
enum StreamReader {
    static func describe(_ ctx: UnsafeMutablePointer<AVFormatContext>, input: String) -> MediaDescription {
        let container = optionalString(ctx.pointee.iformat?.pointee.name) ?? "unknown"
        let rawDuration = ctx.pointee.duration
        let duration = rawDuration != sc_nopts_value() && rawDuration > 0 ? Double(rawDuration) / Double(AV_TIME_BASE) : nil
        var media = MediaDescription(input: input, container: container, duration: duration)

        for i in 0..<Int(ctx.pointee.nb_streams) {
            guard let stream = ctx.pointee.streams[i], let par = stream.pointee.codecpar else { continue }
            switch par.pointee.codec_type {
            case AVMEDIA_TYPE_VIDEO:
                // Cover art in MP4/MKV is a one-picture "video" stream; it is not a track a player switches.
                if stream.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC != 0 { continue }
                media.video.append(video(stream, par: par, ctx: ctx, index: i))
            case AVMEDIA_TYPE_AUDIO:
                media.audio.append(audio(stream, par: par, index: i))
            case AVMEDIA_TYPE_SUBTITLE:
                media.subtitles.append(SubtitleTrack(index: i, codec: codecName(par), language: language(stream),
                                                     startTime: startTime(stream)))
            default:
                continue
            }
        }
        return media
    }

    private static func video(_ stream: UnsafeMutablePointer<AVStream>, par: UnsafeMutablePointer<AVCodecParameters>,
                              ctx: UnsafeMutablePointer<AVFormatContext>, index: Int) -> VideoTrack {
        let p = par.pointee
        let pixelFormat = AVPixelFormat(rawValue: p.format)
        let descriptor = p.format >= 0 ? sc_av_pix_fmt_desc_get(pixelFormat) : nil
        let sar = sc_av_guess_sample_aspect_ratio(ctx, stream, nil)
        let dovi = sc_dovi_config(stream).map { record in
            DolbyVisionConfiguration(
                profile: Int(record.pointee.dv_profile), level: Int(record.pointee.dv_level),
                rpuPresent: record.pointee.rpu_present_flag != 0,
                enhancementLayerPresent: record.pointee.el_present_flag != 0,
                baseLayerPresent: record.pointee.bl_present_flag != 0,
                baseLayerCompatibilityId: Int(record.pointee.dv_bl_signal_compatibility_id))
        }
        return VideoTrack(
            index: index,
            codec: codecName(par),
            codecTag: fourCC(p.codec_tag),
            profile: profileName(par),
            level: p.level > 0 ? Int(p.level) : nil,
            width: Int(p.width),
            height: Int(p.height),
            frameRate: frameRate(stream, ctx: ctx),
            sampleAspectRatio: sar.num > 0 && sar.den > 0 ? Ratio(Int(sar.num), Int(sar.den)) : Ratio(1, 1),
            bitDepth: descriptor.map { Int($0.pointee.comp.0.depth) },
            pixelFormat: p.format >= 0 ? optionalString(sc_av_get_pix_fmt_name(pixelFormat)) : nil,
            dynamicRange: dynamicRange(transfer: p.color_trc, dolbyVision: dovi != nil),
            dolbyVision: dovi,
            startTime: startTime(stream),
            fieldOrder: fieldOrder(p.field_order),
            tier: hevcTier(p))
    }

    private static func audio(_ stream: UnsafeMutablePointer<AVStream>, par: UnsafeMutablePointer<AVCodecParameters>,
                              index: Int) -> AudioTrack {
        let p = par.pointee
        var layout = p.ch_layout
        return AudioTrack(
            index: index,
            codec: codecName(par),
            codecTag: fourCC(p.codec_tag),
            profile: profileName(par),
            sampleRate: Int(p.sample_rate),
            bitDepth: audioBitDepth(p),
            channels: Int(layout.nb_channels),
            channelLayout: describe(&layout),
            language: language(stream),
            startTime: startTime(stream))
    }

    /// Sample resolution where the codec has one: the raw sample size of lossless codecs (24 for
    /// 24-bit FLAC even when decoded to s32), the sample size of PCM; none for lossy codecs.
    private static func audioBitDepth(_ p: AVCodecParameters) -> Int? {
        if p.bits_per_raw_sample > 0 { return Int(p.bits_per_raw_sample) }
        let pcmBits = sc_av_get_bits_per_sample(p.codec_id)
        if pcmBits > 0, let descriptor = sc_avcodec_descriptor_get(p.codec_id),
           descriptor.pointee.props & AV_CODEC_PROP_LOSSLESS != 0 {
            return Int(pcmBits)
        }
        if p.codec_id == AV_CODEC_ID_ALAC, p.bits_per_coded_sample > 0 { return Int(p.bits_per_coded_sample) }
        return nil
    }

    /// avg_frame_rate, or FFmpeg's guess where the container leaves it 0/0 (MPEG-TS with a small probe).
    private static func frameRate(_ stream: UnsafeMutablePointer<AVStream>, ctx: UnsafeMutablePointer<AVFormatContext>) -> Rational? {
        let average = stream.pointee.avg_frame_rate
        if average.num > 0 && average.den > 0 { return Rational(Int(average.num), Int(average.den)) }
        let guessed = sc_av_guess_frame_rate(ctx, stream, nil)
        if guessed.num > 0 && guessed.den > 0 { return Rational(Int(guessed.num), Int(guessed.den)) }
        let real = stream.pointee.r_frame_rate
        if real.num > 0 && real.den > 0 { return Rational(Int(real.num), Int(real.den)) }
        return nil
    }

    /// general_tier_flag of an hvcC record (configurationVersion 1, then profile space, tier,
    /// profile); nil for Annex B extradata (MPEG-TS) and other codecs.
    private static func hevcTier(_ p: AVCodecParameters) -> String? {
        guard p.codec_id == AV_CODEC_ID_HEVC, p.extradata_size >= 2, let data = p.extradata, data[0] == 1 else { return nil }
        return data[1] & 0x20 != 0 ? "High" : "Main"
    }

    /// ffprobe's names for AVFieldOrder; nil for AV_FIELD_UNKNOWN.
    static func fieldOrder(_ order: AVFieldOrder) -> String? {
        switch order {
        case AV_FIELD_PROGRESSIVE: return "progressive"
        case AV_FIELD_TT: return "tt"
        case AV_FIELD_BB: return "bb"
        case AV_FIELD_TB: return "tb"
        case AV_FIELD_BT: return "bt"
        default: return nil
        }
    }

    static func dynamicRange(transfer: AVColorTransferCharacteristic, dolbyVision: Bool) -> DynamicRange {
        if dolbyVision { return .dolbyVision }
        switch transfer {
        case AVCOL_TRC_SMPTE2084: return .hdr10
        case AVCOL_TRC_ARIB_STD_B67: return .hlg
        default: return .sdr
        }
    }

    private static func codecName(_ par: UnsafeMutablePointer<AVCodecParameters>) -> String {
        optionalString(sc_avcodec_get_name(par.pointee.codec_id)) ?? "unknown"
    }

    private static func profileName(_ par: UnsafeMutablePointer<AVCodecParameters>) -> String? {
        guard par.pointee.profile != FF_PROFILE_UNKNOWN else { return nil }
        return optionalString(sc_avcodec_profile_name(par.pointee.codec_id, par.pointee.profile))
    }

    /// The codec tag as text when it is a printable fourcc (avc1, hvc1, mp4a, ac-3); MPEG-TS stores
    /// a stream type number there instead, which is not reported.
    static func fourCC(_ tag: UInt32) -> String? {
        guard tag != 0 else { return nil }
        let bytes = (0..<4).map { UInt8((tag >> (8 * $0)) & 0xFF) }
        guard bytes.allSatisfy({ (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0)
            || $0 == 0x2D || $0 == 0x20 || $0 == 0x2E })
        else { return nil }
        return String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespaces)
    }

    private static func describe(_ layout: inout AVChannelLayout) -> String? {
        guard layout.nb_channels > 0 else { return nil }
        var buffer = [CChar](repeating: 0, count: 128)
        let written = buffer.withUnsafeMutableBufferPointer { sc_av_channel_layout_describe(&layout, $0.baseAddress, $0.count) }
        guard written > 0, Int(written) < buffer.count else { return nil }
        return decodeCString(buffer)
    }

    private static func language(_ stream: UnsafeMutablePointer<AVStream>) -> String? {
        guard let entry = sc_av_dict_get(stream.pointee.metadata, "language", nil, 0),
              let value = optionalString(entry.pointee.value), value != "und", !value.isEmpty
        else { return nil }
        return value
    }

    private static func startTime(_ stream: UnsafeMutablePointer<AVStream>) -> Double? {
        let start = stream.pointee.start_time
        guard start != sc_nopts_value() else { return nil }
        return Double(start) * av_q2d(stream.pointee.time_base)
    }
}
