import CFFmpeg
import Foundation

/// fMP4 whose samples are encrypted (HLS SAMPLE-AES, SAMPLE-AES-CTR; FairPlay `skd://` keys) is
/// probed as it is, never decrypted: the mov demuxer maps `encv`/`enca` to the original format
/// through `frma`, and the init section's avcC/hvcC/esds/dec3 and the moof/trun timing are in the
/// clear. Whatever FFmpeg learns only by decoding (pixel format, field order, H.264 and AAC
/// profiles) is taken from the clear boxes where they say it, else left unknown (nil), never read
/// from decoded garbage (HEVC parameter sets in the hvcC give FFmpeg the pixel format; avcC ones
/// do not).
enum EncryptedSamples {
    /// METHODs whose fMP4 media keeps its stream parameters in the clear.
    static let clearContainerMethods: Set<String> = ["SAMPLE-AES", "SAMPLE-AES-CTR"]

    /// `media` with what decoding encrypted samples cannot be trusted for replaced by what the
    /// clear boxes and the sample timing say.
    static func clearFacts(_ media: MediaDescription, context ctx: UnsafeMutablePointer<AVFormatContext>,
                           method: String) -> MediaDescription {
        var media = media
        media.encryption = method
        for (position, track) in media.video.enumerated() {
            guard let stream = ctx.pointee.streams[track.index], let par = stream.pointee.codecpar else { continue }
            var track = track
            let record = extradata(par)
            if let (profile, level) = videoProfile(codec: par.pointee.codec_id, record: record) {
                track.profile = profile ?? track.profile
                track.level = level ?? track.level
            }
            // An average over samples FFmpeg failed to decode is not the frame rate: the trun
            // durations are (they are in the clear).
            track.frameRateExact = sampleRate(stream)
            track.frameRate = track.frameRateExact?.doubleValue
            // "progressive" comes from the clear SPS (frame_mbs_only_flag); any other field order
            // would come from an encrypted slice header.
            if track.fieldOrder != "progressive" { track.fieldOrder = nil }
            media.video[position] = track
        }
        for (position, track) in media.audio.enumerated() where track.profile == nil {
            guard let stream = ctx.pointee.streams[track.index], let par = stream.pointee.codecpar,
                  par.pointee.codec_id == AV_CODEC_ID_AAC else { continue }
            media.audio[position].profile = aacProfile(extradata(par))
        }
        return media
    }

    private static func extradata(_ par: UnsafeMutablePointer<AVCodecParameters>) -> [UInt8] {
        guard let data = par.pointee.extradata, par.pointee.extradata_size > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: Int(par.pointee.extradata_size)))
    }

    /// Profile name and level from an avcC (ISO/IEC 14496-15 5.3.3.1) or hvcC (8.3.3.1) record,
    /// as FFmpeg names them when it decodes the SPS.
    static func videoProfile(codec: AVCodecID, record: [UInt8]) -> (String?, Int?)? {
        guard record.first == 1 else { return nil }
        if codec == AV_CODEC_ID_H264, record.count >= 4 {
            var profile = Int32(record[1])
            let constraints = record[2]
            if profile == 66, constraints & 0x40 != 0 { profile |= 1 << 9 }
            if [110, 122, 244].contains(profile), constraints & 0x10 != 0 { profile |= 1 << 11 }
            return (optionalString(sc_avcodec_profile_name(codec, profile)), record[3] > 0 ? Int(record[3]) : nil)
        }
        if codec == AV_CODEC_ID_HEVC, record.count >= 13 {
            let profile = Int32(record[1] & 0x1F)
            return (optionalString(sc_avcodec_profile_name(codec, profile)), record[12] > 0 ? Int(record[12]) : nil)
        }
        return nil
    }

    /// The AAC profile from the AudioSpecificConfig's audioObjectType (ISO/IEC 14496-3 1.6.2.1):
    /// FFmpeg's profile is the object type minus one. Implicitly signalled SBR (HE-AAC whose
    /// config says LC) is visible only to a decoder.
    static func aacProfile(_ config: [UInt8]) -> String? {
        guard let first = config.first else { return nil }
        var objectType = Int32(first >> 3)
        if objectType == 31 {
            guard config.count >= 2 else { return nil }
            objectType = 32 + Int32((first & 0x07) << 3 | config[1] >> 5)
        }
        guard objectType > 0 else { return nil }
        return optionalString(sc_avcodec_profile_name(AV_CODEC_ID_AAC, objectType - 1))
    }

    /// The frame rate the sample timing states: the most common step between consecutive
    /// samples' decode times in the demuxer's index (built from the moof/trun boxes); nil with
    /// fewer than two samples.
    static func sampleRate(_ stream: UnsafeMutablePointer<AVStream>) -> Rational? {
        let count = Int(sc_avformat_index_get_entries_count(stream))
        guard count >= 2 else { return nil }
        var steps: [Int64: Int] = [:]
        var previous: Int64?
        for i in 0..<count {
            guard let entry = sc_avformat_index_get_entry(stream, Int32(i)) else { continue }
            let time = entry.pointee.timestamp
            if let previous, time > previous { steps[time - previous, default: 0] += 1 }
            previous = time
        }
        guard let step = steps.max(by: { $0.value < $1.value || ($0.value == $1.value && $0.key > $1.key) })?.key else { return nil }
        let base = stream.pointee.time_base
        guard base.num > 0, base.den > 0 else { return nil }
        return Rational(Int(base.den), Int(step) * Int(base.num))
    }
}
