import Foundation

/// How big the generated suite is: `full` for receivers, `small` for tests (seconds, not minutes, to make).
public enum LabScale: String, Sendable, CaseIterable, Codable {
    case full, small

    /// Picture height; widths follow the aspect ratio.
    var height: Int { self == .full ? 720 : 180 }

    /// The height of `video`'s picture: the scale's, times its fraction, rounded to even.
    func height(_ video: MediaSpec.Video) -> Int { Int((Double(height) * video.heightFraction / 2).rounded()) * 2 }
    var primaryDuration: Double { self == .full ? 60 : 12 }
    var segmentDuration: Double { self == .full ? 6 : 2 }
    var adDuration: Double { self == .full ? 12 : 4 }
    var capabilityDuration: Double { self == .full ? 30 : 4 }
    var videoBitrate: Int { self == .full ? 2_500_000 : 300_000 }

    func width(_ video: MediaSpec.Video) -> Int {
        let exact = Double(height(video) * video.aspectWidth) / Double(video.aspectHeight)
        return Int((exact / 2).rounded()) * 2
    }
}

/// Where the fonts and tools come from (Debian 12 packages that scripts/setup-deps.sh installs).
public enum LabTools {
    public static let fontPath = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"
    public static let fontPackage = "fonts-dejavu-core"
    public static let ffmpegPackage = "ffmpeg"
}

/// One ffmpeg run: what it makes (an HLS fMP4 rendition in `folder`) and the arguments that make it.
struct EncodeJob: Sendable, Hashable {
    /// The case it belongs to, for errors ("primary" for the shared primary).
    var caseId: String
    var step: String
    /// Folder relative to the suite root; ffmpeg writes `encoded.m3u8`, `init.mp4` and `seg_NNN.m4s` there.
    var folder: String
    var arguments: [String]
    /// The recipes of the encodes it reads (an encryption: its clear encode's), part of its own
    /// recipe: a changed input is made again without touching the folder first.
    var inputs: String = ""

    static let playlist = "encoded.m3u8"
}

/// What the picture says and what the tone sounds like.
struct Marking: Sendable {
    /// "PRIMARY", "AD" or a capability tier name.
    var role: String
    /// The case id, or "seamcheck lab" on the shared primary.
    var title: String
    /// A test pattern that moves (testsrc2) on the primary and the tiers, colour bars (smptehdbars) on ads.
    var pattern: String
    /// The stream id its frame code carries.
    var stream: Int
    var code: LabFrameCode = .current

    /// Sine frequency in Hz: the code's tone for the stream (440 on the primary).
    var tone: Int { code.tone(stream: stream) }

    static func primary() -> Marking { Marking(role: "PRIMARY", title: "seamcheck lab", pattern: "testsrc2", stream: 0) }
    static func ad(_ caseId: String, stream: Int) -> Marking { Marking(role: "AD", title: caseId, pattern: "smptehdbars", stream: stream) }
}

/// The ffmpeg arguments of each encode. They are the recipe: a change here re-encodes what it touches.
enum LabRecipes {
    static func arguments(_ spec: MediaSpec, marking: Marking, duration: Double, scale: LabScale) -> [String] {
        var args = ["-fflags", "+bitexact"]
        var maps: [String] = []
        if let video = spec.video {
            let label = drawtext("\(marking.title)  \(marking.role)  %{pts\\:hms}", role: marking.role, height: scale.height)
            let filter = marking.code.lavfiGraph(pattern: marking.pattern, width: scale.width(video), height: scale.height(video),
                                                 rate: video.rate, stream: marking.stream, after: label)
            args += ["-f", "lavfi", "-i", filter]
            maps += ["-map", "0:v"]
        }
        if let audio = spec.audio {
            if audio.delay > 0 { args += ["-itsoffset", String(audio.delay)] }
            let level = toneLevel(marking.tone)
            args += ["-f", "lavfi", "-i", "sine=frequency=\(marking.tone):sample_rate=\(audio.sampleRate)"
                     + (abs(level) < 0.005 ? "" : ",volume=\(String(format: "%.2f", level))dB")]
            maps += ["-map", spec.video == nil ? "0:a" : "1:a"]
        }
        args += maps + ["-t", String(duration)]
        if let video = spec.video { args += videoArguments(video, scale: scale) }
        if let audio = spec.audio { args += audioArguments(audio) }
        // A keyframe starts every segment: video cuts at each keyframe, audio-only at the segment length.
        let hlsTime = spec.video == nil ? scale.segmentDuration : scale.segmentDuration * 0.9
        args += ["-f", "hls", "-hls_time", String(hlsTime), "-hls_playlist_type", "vod"]
        switch spec.container {
        case .fmp4:
            args += ["-hls_segment_type", "fmp4", "-hls_fmp4_init_filename", "init.mp4", "-hls_segment_filename", "seg_%03d.m4s"]
        case .mpegts:
            args += ["-hls_segment_type", "mpegts", "-hls_segment_filename", "seg_%03d.ts"]
        }
        return args + [EncodeJob.playlist]
    }

    /// dB that give a sine of `frequency` Hz the loudness of the primary's 440 Hz (ITU-R BS.1770:
    /// its K-weighting lifts higher tones, up to +3 dB at 1.9 kHz, which would make every ad with a
    /// high stream id a loudness-mismatch case).
    static func toneLevel(_ frequency: Int) -> Double {
        func gain(_ f: Double) -> Double {
            let w = 2 * Double.pi * f / 48000
            func response(_ b: [Double], _ a: [Double]) -> Double {
                // |B(e^-jw)| / |A(e^-jw)| of a biquad.
                func magnitude(_ c: [Double]) -> Double {
                    let re = c[0] + c[1] * cos(w) + c[2] * cos(2 * w)
                    let im = -(c[1] * sin(w) + c[2] * sin(2 * w))
                    return (re * re + im * im).squareRoot()
                }
                return magnitude(b) / magnitude(a)
            }
            // BS.1770-4's pre-filter (high shelf) and RLB high-pass at 48 kHz.
            return response([1.53512485958697, -2.69169618940638, 1.19839281085285], [1, -1.69065929318241, 0.73248077421585])
                * response([1, -2, 1], [1, -1.99004745483398, 0.99007225036621])
        }
        return -20 * log10(gain(Double(frequency)) / gain(440))
    }

    static func drawtext(_ text: String, role: String, height: Int) -> String {
        let box = role == "PRIMARY" ? "0x1f4e99@0.85" : role == "AD" ? "0xc0501f@0.85" : "0x2e7d32@0.85"
        let size = max(12, height / 14)
        return "drawtext=fontfile=\(LabTools.fontPath):text='\(text)':fontcolor=white:fontsize=\(size)"
            + ":box=1:boxcolor=\(box):boxborderw=\(size / 3):x=(w-text_w)/2:y=h-text_h-\(size)"
    }

    static func gop(_ video: MediaSpec.Video, scale: LabScale) -> Int {
        Int((scale.segmentDuration * frameRate(video.rate)).rounded())
    }

    static func videoArguments(_ video: MediaSpec.Video, scale: LabScale) -> [String] {
        let rate = scale.videoBitrate
        let frames = String(gop(video, scale: scale))
        var args: [String]
        let colour: [String]
        switch video.range {
        case .sdr: colour = ["-color_primaries", "bt709", "-color_trc", "bt709", "-colorspace", "bt709"]
        case .hdr10: colour = ["-color_primaries", "bt2020", "-color_trc", "smpte2084", "-colorspace", "bt2020nc"]
        case .hlg: colour = ["-color_primaries", "bt2020", "-color_trc", "arib-std-b67", "-colorspace", "bt2020nc"]
        }
        switch video.codec {
        case .h264:
            args = ["-c:v", "libx264", "-preset", "veryfast", "-profile:v", "high", "-level:v", "4.0", "-pix_fmt", "yuv420p",
                    "-g", frames, "-keyint_min", frames, "-sc_threshold", "0"]
        case .hevc:
            let tenBit = video.range != .sdr
            var params = "log-level=error:level-idc=40:keyint=\(frames):min-keyint=\(frames):scenecut=0:open-gop=0"
            if video.range == .hdr10 {
                params += ":hdr10=1:master-display=G(13250,34500)B(7500,3000)R(34000,16000)WP(15635,16450)L(10000000,1):max-cll=1000,400"
            }
            args = ["-c:v", "libx265", "-preset", "ultrafast", "-tag:v", "hvc1", "-profile:v", tenBit ? "main10" : "main",
                    "-pix_fmt", tenBit ? "yuv420p10le" : "yuv420p", "-x265-params", params]
        }
        return args + colour + ["-b:v", String(rate), "-maxrate", String(rate), "-bufsize", String(rate * 2), "-flags:v", "+bitexact"]
    }

    static func audioArguments(_ audio: MediaSpec.Audio) -> [String] {
        let surround = audio.layout != "stereo"
        let bitrate: String
        switch audio.codec {
        case .aac: bitrate = surround ? "256k" : "128k"
        case .ac3: bitrate = surround ? "384k" : "192k"
        case .eac3: bitrate = surround ? "384k" : "128k"
        }
        return ["-c:a", audio.codec.rawValue, "-b:a", bitrate, "-ar", String(audio.sampleRate),
                "-af", "aformat=channel_layouts=\(audio.layout)", "-metadata:s:a:0", "language=\(audio.language)",
                "-flags:a", "+bitexact"]
    }

    // MARK: - What the playlists declare

    static func frameRate(_ rate: String) -> Double {
        let parts = rate.split(separator: "/").compactMap { Double($0) }
        return parts.count == 2 ? parts[0] / parts[1] : parts.first ?? 0
    }

    /// RFC 6381 codec of the video, matching the profile and level the arguments force.
    static func codecString(_ video: MediaSpec.Video) -> String {
        switch video.codec {
        case .h264: return "avc1.640028"
        case .hevc: return video.range == .sdr ? "hvc1.1.6.L120.B0" : "hvc1.2.4.L120.B0"
        }
    }

    static func codecString(_ audio: MediaSpec.Audio) -> String {
        switch audio.codec {
        case .aac: return "mp4a.40.2"
        case .ac3: return "ac-3"
        case .eac3: return "ec-3"
        }
    }

    static func channelCount(_ layout: String) -> Int { layout == "stereo" ? 2 : layout == "mono" ? 1 : 6 }

    /// VIDEO-RANGE value.
    static func videoRange(_ range: MediaSpec.Range) -> String {
        switch range {
        case .sdr: return "SDR"
        case .hdr10: return "PQ"
        case .hlg: return "HLG"
        }
    }

    /// The manifest's summary of a side.
    static func summary(_ spec: MediaSpec, duration: Double, scale: LabScale) -> LabMedia {
        var media = LabMedia(duration: duration)
        media.container = spec.container == .fmp4 ? "fMP4" : "MPEG-TS"
        media.encryption = spec.encrypted ? "AES-128" : nil
        if let v = spec.video {
            media.videoCodec = v.codec.rawValue
            media.videoProfile = v.codec == .h264 ? "High" : v.range == .sdr ? "Main" : "Main 10"
            media.width = scale.width(v)
            media.height = scale.height(v)
            media.frameRate = v.rate.contains("/") ? v.rate : v.rate + "/1"
            media.displayAspectRatio = "\(v.aspectWidth):\(v.aspectHeight)"
            media.dynamicRange = v.range.rawValue
            media.scanType = "progressive"
        }
        if let a = spec.audio {
            media.audioCodec = a.codec.rawValue
            media.sampleRate = a.sampleRate
            media.channels = channelCount(a.layout)
            media.channelLayout = a.layout
            media.language = a.language
            media.audioDelay = a.delay
        }
        return media
    }
}
