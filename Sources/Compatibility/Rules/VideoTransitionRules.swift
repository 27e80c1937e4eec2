import Foundation
import MediaProbe

/// Video parameters that make a receiver reconfigure its decoder or display when they change
/// between primary and interstitial (WWDC23 "Explore AirPlay with interstitials").
enum VideoTransitionRules {
    static let all = [videoCodec, frameRate, ScanRules.frameRateMultiple, aspectRatio, dynamicRange, ScanRules.scanType]

    static let wwdc23 = "WWDC23 Explore AirPlay with interstitials (seeds/000): keep video codec, frame rate and aspect ratio matching"

    static let videoCodec = TransitionRule.video(
        RuleDescription(
            id: "video-codec-mismatch", title: "Video codec changes at the switch",
            rationale: "Switching between H.264 and HEVC makes the receiver tear down and re-create its video decoder; low-end AirPlay 2 TVs stall or show black for seconds.",
            source: wwdc23 + "; Apple HLS talk 2019: do not switch between HEVC and H.264 on AirPlay 2 TVs",
            defaultSeverity: .error, track: .video, inputs: "primary and interstitial video (probed)"),
        examples: [
            RuleExample(name: "H.264 primary, HEVC ad", primary: Example.media(),
                        interstitial: Example.media(video: Example.video(codec: "hevc")), triggers: true),
            RuleExample(name: "both H.264", primary: Example.media(), interstitial: Example.media(), triggers: false),
            RuleExample(name: "audio-only ad (track-set-mismatch covers it)", primary: Example.media(),
                        interstitial: Example.media(video: nil), triggers: false),
        ]
    ) { primary, interstitial in
        guard primary.codec != interstitial.codec else { return nil }
        return Mismatch(
            expected: primary.codec, actual: interstitial.codec,
            message: "video codec changes from \(codecName(primary.codec)) to \(codecName(interstitial.codec)): the receiver switches video decoders",
            remediation: Remediation(arguments: videoEncoderArguments(for: primary)))
    }

    /// Frame rates closer than this (in frames per second) are the same rate written differently (29.97 vs 30000/1001).
    static let frameRateTolerance = 0.01

    static let frameRate = TransitionRule.video(
        RuleDescription(
            id: "frame-rate-mismatch", title: "Frame rate changes at the switch",
            rationale: "A different frame rate (29.97 to 25, 30 to 24) makes TVs change display timing; low-end receivers re-sync and stall. Rates within 0.01 fps are treated as equal; twice or half the primary's rate is frame-rate-multiple.",
            source: wwdc23, defaultSeverity: .error, track: .video, inputs: "primary and interstitial video (probed)"),
        examples: [
            RuleExample(name: "29.97 primary, 25 fps ad", primary: Example.media(),
                        interstitial: Example.media(video: Example.video(rate: Rational(25, 1))), triggers: true),
            RuleExample(name: "29.97 written as 2997/100 and 30000/1001", primary: Example.media(),
                        interstitial: Example.media(video: Example.video(rate: Rational(2997, 100))), triggers: false),
            RuleExample(name: "29.97 and 30", primary: Example.media(),
                        interstitial: Example.media(video: Example.video(rate: Rational(30, 1))), triggers: true),
            RuleExample(name: "29.97 primary, 59.94 fps ad (frame-rate-multiple covers it)", primary: Example.media(),
                        interstitial: Example.media(video: Example.video(rate: Rational(60000, 1001))), triggers: false),
        ]
    ) { primary, interstitial in
        guard let p = primary.frameRate, let i = interstitial.frameRate, abs(p - i) >= frameRateTolerance,
              !ScanRules.isDoubleOrHalf(i, p) else { return nil }
        let target = primary.frameRateExact?.description ?? formatRate(p)
        return Mismatch(
            expected: formatRate(p), actual: formatRate(i),
            message: "frame rate changes from \(formatRate(p)) to \(formatRate(i)) fps",
            remediation: Remediation(arguments: videoEncoderArguments(for: primary) + ["-r", target]))
    }

    /// Display aspect ratios within this relative difference match (854x480 and 16:9 differ by 0.1 %).
    static let aspectTolerance = 0.01

    static let aspectRatio = TransitionRule.video(
        RuleDescription(
            id: "aspect-ratio-mismatch", title: "Display aspect ratio changes at the switch",
            rationale: "A different display aspect ratio (16:9 to 4:3) changes the output geometry; receivers rescale or re-sync. Compares the display aspect ratio (width x SAR / height), so anamorphic content that displays at the same ratio matches. Ratios within 1 % are equal.",
            source: wwdc23, defaultSeverity: .warning, track: .video, inputs: "primary and interstitial video (probed)"),
        examples: [
            RuleExample(name: "16:9 primary, 4:3 ad", primary: Example.media(),
                        interstitial: Example.media(video: Example.video(width: 640, height: 480)), triggers: true),
            RuleExample(name: "anamorphic 1440x1080 SAR 4:3 displays at 16:9", primary: Example.media(),
                        interstitial: Example.media(video: Example.video(width: 1440, height: 1080, sar: Ratio(4, 3))), triggers: false),
            RuleExample(name: "854x480 is 16:9 within 1 %", primary: Example.media(),
                        interstitial: Example.media(video: Example.video(width: 854, height: 480)), triggers: false),
        ]
    ) { primary, interstitial in
        guard let p = primary.displayAspectRatio.doubleValue, let i = interstitial.displayAspectRatio.doubleValue,
              abs(p - i) / p > aspectTolerance else { return nil }
        let width = evenDisplayWidth(primary), height = primary.height
        return Mismatch(
            expected: primary.displayAspectRatio.description, actual: interstitial.displayAspectRatio.description,
            message: "display aspect ratio changes from \(primary.displayAspectRatio) to \(interstitial.displayAspectRatio)",
            remediation: Remediation(arguments: videoEncoderArguments(for: primary), videoFilters: [
                "scale=iw*sar:ih", "setsar=1",
                "scale=\(width):\(height):force_original_aspect_ratio=decrease",
                "pad=\(width):\(height):(ow-iw)/2:(oh-ih)/2", "setsar=1",
            ]))
    }

    static let dynamicRange = TransitionRule.video(
        RuleDescription(
            id: "dynamic-range-mismatch", title: "Dynamic range changes at the switch (SDR / HDR)",
            rationale: "Switching between SDR and HDR (or between HDR formats) makes TVs re-negotiate the HDMI video mode: 1 to 2 seconds of black on most receivers.",
            source: "reference/interstitials.md: SDR <-> HDR switches stall real devices; Apple HLS authoring spec",
            defaultSeverity: .error, track: .video, inputs: "primary and interstitial video (probed)"),
        examples: [
            RuleExample(name: "SDR primary, HDR10 ad", primary: Example.media(),
                        interstitial: Example.media(video: Example.video(codec: "hevc", range: .hdr10)), triggers: true),
            RuleExample(name: "both HDR10", primary: Example.media(video: Example.video(codec: "hevc", range: .hdr10)),
                        interstitial: Example.media(video: Example.video(codec: "hevc", range: .hdr10)), triggers: false),
        ]
    ) { primary, interstitial in
        guard primary.dynamicRange != interstitial.dynamicRange else { return nil }
        let remediation = dynamicRangeRemediation(to: primary, from: interstitial)
        let words = remediation == nil
            ? ": no ffmpeg encode here makes \(primary.dynamicRange.rawValue) (deliver a \(primary.dynamicRange.rawValue) rendition of the ad from its master)" : ""
        return Mismatch(
            expected: primary.dynamicRange.rawValue, actual: interstitial.dynamicRange.rawValue,
            message: "dynamic range changes from \(primary.dynamicRange.rawValue) to \(interstitial.dynamicRange.rawValue): TVs switch HDMI mode" + words,
            remediation: remediation)
    }

    /// zscale's input options for a track's transfer, primaries and matrix, stated rather than
    /// read from the stream (untagged SDR is BT.709); nil when ffmpeg cannot read the picture as
    /// PQ, HLG or SDR (Dolby Vision without a compatible base layer).
    static func zscaleInput(_ track: VideoTrack) -> String? {
        let hdr = ":pin=bt2020:min=bt2020nc:rin=tv"
        switch track.dynamicRange {
        case .sdr: return "tin=bt709:pin=bt709:min=bt709:rin=tv"
        case .hdr10: return "tin=smpte2084" + hdr
        case .hlg: return "tin=arib-std-b67" + hdr
        case .dolbyVision:
            switch track.dolbyVision?.baseLayerCompatibilityId {
            case 1: return "tin=smpte2084" + hdr
            case 4: return "tin=arib-std-b67" + hdr
            case 2: return "tin=bt709:pin=bt709:min=bt709:rin=tv"
            default: return nil
            }
        }
    }

    /// A real conversion to the primary's dynamic range: tone mapping down to SDR, zscale's
    /// transfer conversion up to PQ or HLG, re-encoded with the primary's encoder and tags.
    /// Nil for a Dolby Vision target (no Dolby Vision encoder here) or an unreadable source.
    static func dynamicRangeRemediation(to primary: VideoTrack, from interstitial: VideoTrack) -> Remediation? {
        guard let input = zscaleInput(interstitial) else { return nil }
        let encoder = videoEncoderArguments(for: primary)
        switch primary.dynamicRange {
        case .sdr:
            return Remediation(
                arguments: encoder + ["-color_primaries", "bt709", "-color_trc", "bt709", "-colorspace", "bt709"],
                videoFilters: ["zscale=\(input):t=linear:npl=100", "format=gbrpf32le", "zscale=p=bt709", "tonemap=hable:desat=0",
                               "zscale=t=bt709:m=bt709:r=tv", "format=yuv420p"])
        case .hdr10, .hlg:
            let transfer = primary.dynamicRange == .hlg ? "arib-std-b67" : "smpte2084"
            let peak = interstitial.dynamicRange == .sdr ? 100 : 1000
            return Remediation(
                arguments: encoder + ["-color_primaries", "bt2020", "-color_trc", transfer, "-colorspace", "bt2020nc"],
                videoFilters: ["zscale=\(input):t=\(transfer):p=bt2020:m=bt2020nc:r=tv:npl=\(peak)", "format=yuv420p10le"])
        case .dolbyVision:
            return nil
        }
    }

    // MARK: - Helpers

    static func codecName(_ codec: String) -> String {
        switch codec {
        case "h264": return "H.264 (h264)"
        case "hevc": return "HEVC (hevc)"
        case "av1": return "AV1 (av1)"
        default: return codec
        }
    }

    /// The encoder that makes `track`'s codec and profile, with the pixel format the profile
    /// takes (x264 High refuses 10-bit input, x265 Main 10 wants it).
    static func videoEncoderArguments(for track: VideoTrack) -> [String] {
        let tenBit = (track.bitDepth ?? 8) > 8 || track.profile == "Main 10" || track.profile == "High 10"
        switch track.codec {
        case "h264":
            var args = ["-c:v", "libx264"]
            if let profile = x264Profile(track.profile) { args += ["-profile:v", profile] }
            return args + ["-pix_fmt", tenBit && track.profile == "High 10" ? "yuv420p10le" : "yuv420p"]
        case "hevc":
            var args = ["-c:v", "libx265", "-tag:v", "hvc1"]
            if tenBit { args += ["-profile:v", "main10"] } else if track.profile == "Main" { args += ["-profile:v", "main"] }
            return args + ["-pix_fmt", tenBit ? "yuv420p10le" : "yuv420p"]
        case "av1":
            return ["-c:v", "libaom-av1", "-pix_fmt", tenBit ? "yuv420p10le" : "yuv420p"]
        default:
            return ["-c:v", track.codec]
        }
    }

    static func x264Profile(_ profile: String?) -> String? {
        switch profile {
        case "High": return "high"
        case "Main": return "main"
        case "Baseline", "Constrained Baseline": return "baseline"
        case "High 10": return "high10"
        default: return nil
        }
    }

    static func formatRate(_ rate: Double) -> String {
        let rounded = (rate * 1000).rounded() / 1000
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }

    /// The primary's picture width in square pixels, rounded to even for 4:2:0 encoders.
    static func evenDisplayWidth(_ track: VideoTrack) -> Int {
        let sar = track.sampleAspectRatio
        let width = sar.height > 0 ? Double(track.width) * Double(sar.width) / Double(sar.height) : Double(track.width)
        return Int((width / 2).rounded()) * 2
    }
}
