import MediaProbe

/// Frame-rate families and scan type: the changes Apple's AirPlay 2 TV rules grade apart from
/// other frame-rate changes, and interlaced video, which no Apple device plays.
enum ScanRules {
    static let airPlayTVs = "Apple HLS Authoring Specification (2025-06-26), AirPlay 2 TV amendment 3.5: similar frame rates are x, 2x and x/2 (29.97 <-> 59.94 is similar, 29.97 <-> 25 is not)"
    static let progressiveOnly = "Apple HLS Authoring Specification: progressive video only (interlaced media is a capability problem on every Apple device); ffprobe field_order"

    /// True when `a` is twice or half `b`, within the frame-rate tolerance of each rate.
    static func isDoubleOrHalf(_ a: Double, _ b: Double) -> Bool {
        let tolerance = 2 * VideoTransitionRules.frameRateTolerance
        return abs(a - 2 * b) < tolerance || abs(2 * a - b) < tolerance
    }

    static let frameRateMultiple = TransitionRule.video(
        RuleDescription(
            id: "frame-rate-multiple", title: "Frame rate doubles or halves at the switch",
            rationale: "An interstitial at twice or half the primary's rate (59.94 in 29.97, 25 in 50) keeps the display's cadence: Apple's AirPlay 2 TV rules call x, 2x and x/2 similar, so TVs switch without a mode change, though a low-end receiver may still drop or repeat frames at the seam. Other rate changes are frame-rate-mismatch.",
            source: airPlayTVs, defaultSeverity: .warning, track: .video, inputs: "primary and interstitial video (probed)"),
        examples: [
            RuleExample(name: "29.97 primary, 59.94 fps ad", primary: Example.media(),
                        interstitial: Example.media(video: Example.video(rate: Rational(60000, 1001))), triggers: true),
            RuleExample(name: "50 primary, 25 fps ad", primary: Example.media(video: Example.video(rate: Rational(50, 1))),
                        interstitial: Example.media(video: Example.video(rate: Rational(25, 1))), triggers: true),
            RuleExample(name: "29.97 primary, 25 fps ad (frame-rate-mismatch covers it)", primary: Example.media(),
                        interstitial: Example.media(video: Example.video(rate: Rational(25, 1))), triggers: false),
            RuleExample(name: "29.97 primary, 60 fps ad (not exactly x2)", primary: Example.media(),
                        interstitial: Example.media(video: Example.video(rate: Rational(60, 1))), triggers: false),
        ]
    ) { primary, interstitial in
        guard let p = primary.frameRate, let i = interstitial.frameRate, isDoubleOrHalf(i, p) else { return nil }
        let target = primary.frameRateExact?.description ?? VideoTransitionRules.formatRate(p)
        let rates = "\(VideoTransitionRules.formatRate(p)) to \(VideoTransitionRules.formatRate(i)) fps"
        return Mismatch(
            expected: VideoTransitionRules.formatRate(p), actual: VideoTransitionRules.formatRate(i),
            message: "frame rate \(i > p ? "doubles" : "halves") from \(rates): similar for AirPlay 2 TVs (no display mode change), though a low-end receiver may drop or repeat frames at the seam",
            remediation: Remediation(arguments: VideoTransitionRules.videoEncoderArguments(for: primary) + ["-r", target]))
    }

    static func scanName(_ track: VideoTrack) -> String {
        guard let order = track.fieldOrder else { return "unknown" }
        switch order {
        case "progressive": return "progressive"
        case "tt", "tb": return "interlaced, top field first"
        default: return "interlaced, bottom field first"
        }
    }

    static func interlaced(_ order: String) -> VideoTrack {
        var track = Example.video()
        track.fieldOrder = order
        return track
    }

    static let scanType = TransitionRule.video(
        RuleDescription(
            id: "scan-type-mismatch", title: "Scan type changes at the switch (interlaced / progressive)",
            rationale: "Interlaced fields next to progressive frames switch the receiver's deinterlacer (and on TVs the output timing) at the seam. Streams that do not state their field order are not compared.",
            source: progressiveOnly, defaultSeverity: .warning, track: .video, inputs: "primary and interstitial video field order (probed)"),
        examples: [
            RuleExample(name: "progressive primary, 29.97i top-field-first ad", primary: Example.media(video: interlaced("progressive")),
                        interstitial: Example.media(video: interlaced("tt")), triggers: true),
            RuleExample(name: "both progressive", primary: Example.media(video: interlaced("progressive")),
                        interstitial: Example.media(video: interlaced("progressive")), triggers: false),
            RuleExample(name: "field order not stated on one side", primary: Example.media(),
                        interstitial: Example.media(video: interlaced("tt")), triggers: false),
        ]
    ) { primary, interstitial in
        guard primary.fieldOrder != nil, interstitial.fieldOrder != nil,
              primary.isInterlaced != interstitial.isInterlaced else { return nil }
        if interstitial.isInterlaced {
            return Mismatch(
                expected: scanName(primary), actual: scanName(interstitial),
                message: "the interstitial is \(scanName(interstitial)) in a progressive primary: the receiver switches its deinterlacer at the seam",
                remediation: Remediation(arguments: VideoTransitionRules.videoEncoderArguments(for: primary),
                                         videoFilters: ["bwdif=mode=send_frame"]))
        }
        return Mismatch(
            expected: scanName(primary), actual: scanName(interstitial),
            message: "the primary is \(scanName(primary)) and the interstitial progressive: deliver the primary progressive (no Apple device plays interlaced video) rather than interlacing the ad",
            remediation: nil)
    }

    static let interlacedVideo = CapabilityRule(
        RuleDescription(id: "interlaced-video", title: "Interlaced video",
                        rationale: "Apple devices play progressive video only: interlaced HLS media is shown with combing or not at all, and a sender mirroring it deinterlaces in software.",
                        source: progressiveOnly, defaultSeverity: .error, track: .video, inputs: "one asset's video field order (probed)"),
        examples: [
            CapabilityExample(name: "29.97i top field first", media: Example.media(video: interlaced("tt")),
                              plays: ExamplePlays.appleTV4K, triggers: true),
            CapabilityExample(name: "progressive", media: Example.media(video: interlaced("progressive")),
                              plays: ExamplePlays.lowEnd, triggers: false),
            CapabilityExample(name: "interlaced video on an audio-only receiver", media: Example.media(video: interlaced("bb")),
                              plays: { var plays = ExamplePlays.lowEnd; plays.video = false; return plays }(), triggers: false),
        ]
    ) { media, plays in
        guard plays.video, let video = media.primaryVideo, video.isInterlaced else { return nil }
        return Mismatch(expected: "progressive", actual: scanName(video),
                        message: "the video is \(scanName(video)): Apple devices play progressive video only",
                        remediation: Remediation(arguments: VideoTransitionRules.videoEncoderArguments(for: CapabilityRules.decodable(video, plays)),
                                                 videoFilters: ["bwdif=mode=send_frame"]))
    }
}
