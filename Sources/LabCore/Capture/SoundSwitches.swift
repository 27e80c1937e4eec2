import Foundation

/// Reads the switches out of a `SoundTrack`'s tone runs: gaps, silence, clicks, levels, channels,
/// and the A/V offset against the picture's transitions.
struct SoundSwitches {
    static let adStart = "the ad's start"
    static let adReturn = "the return from the ad"
    /// The widest interval without a captured picture at a switch for which its A/V offset is still
    /// given: one frame at 30 fps (the offset's own tolerance).
    static let pictureBound = 1.0 / 30 + 0.001
    let track: SoundTrack
    let streams: CaptureStreams
    let origin: Double

    func transitions(_ tones: [ToneRun], picture: [CaptureTransition], drops: [SoundClock.SoundDrop], lag: SoundLag? = nil,
                     onPicture: (Double) -> Double) -> [SoundTransition] {
        var result: [SoundTransition] = []
        for (a, b) in zip(tones, tones.dropFirst()) where a.stream != b.stream {
            guard let from = a.stream, let to = b.stream else { continue }
            var notes: [String] = []
            let gap = max(0, b.start - a.end)
            let dropped = drops.filter { $0.at + $0.seconds >= a.end - 0.05 && $0.at <= b.start + 0.05 }
            if !dropped.isEmpty {
                notes.append(String(format: "the capture dropped %.0f ms of sound here: no gap given",
                                    dropped.map(\.seconds).reduce(0, +) * 1000))
            }
            let before = track.level(from: max(a.start, a.end - 1), to: a.end - 0.05, origin: origin)
            let after = track.level(from: b.start + 0.05, to: min(b.end, b.start + 1), origin: origin)
            let clicks = track.clicks.filter { $0 >= a.end - 0.1 && $0 <= b.start + 0.1 }.count
            let incoming = onPicture(b.start)
            let seen = picture.filter { $0.from.stream == from && $0.to.stream == to && abs($0.to.at - incoming) < 5 }
                .min { abs($0.to.at - incoming) < abs($1.to.at - incoming) }
            let hasChannels = (track.channels ?? 1) > 1
            // The clock around a drop mixes two offsets: no A/V offset within 1.5 s of one.
            let unsure = drops.contains { abs($0.at - b.start) < 1.5 }
            if unsure, seen != nil { notes.append("the capture dropped sound within 1.5 s of this switch: no A/V offset given") }
            var heard = SoundTransition(
                at: place(from: from, to: to), from: streams.label(from), to: streams.label(to), fromStream: from, toStream: to,
                outgoingEnd: Self.round(onPicture(a.end)), incomingStart: Self.round(incoming),
                gapMs: dropped.isEmpty ? (gap * 1000).rounded() : nil,
                silenceMs: dropped.isEmpty ? (min(gap, track.silence(from: a.end, to: b.start, origin: origin)) * 1000).rounded() : nil,
                clicks: clicks, levelBeforeDb: before?.db, levelAfterDb: after?.db,
                levelJumpDb: before.flatMap { x in after.map { (($0.db - x.db) * 10).rounded() / 10 } },
                expectedLevelJumpDb: expectedJump(from: from, to: to),
                channelsBefore: hasChannels ? before?.channels : nil, channelsAfter: hasChannels ? after?.channels : nil,
                avOffsetMs: unsure ? nil : seen.map { ((incoming - $0.to.at) * 1000).rounded() + 0 },  // + 0: no "-0"
                expectedAvOffsetMs: seen == nil || unsure ? nil : expectedOffset(to: to), notes: notes)
            if let behind = lag?.episode(from: a.end, to: b.start) {
                heard.refuse(String(format: "not measured: %@ at %.2f s", behind.words, onPicture(behind.from)))
            } else if let seen, let missed = seen.captureGapMs, missed > Self.pictureBound * 1000 {
                heard.avOffsetMs = nil
                heard.expectedAvOffsetMs = nil
                heard.notMeasured = String(format: "A/V offset not measured: the picture's capture missed %.0f ms of frames at %.2f s",
                                           missed, seen.to.at)
                heard.notes.append(heard.notMeasured!)
            }
            result.append(heard)
        }
        return result
    }

    /// Silences of 20 ms or more between two runs of one stream's tone.
    func dropouts(_ tones: [ToneRun], onPicture: (Double) -> Double) -> [SoundDropout] {
        var found: [SoundDropout] = []
        for (a, b) in zip(tones, tones.dropFirst()) where a.stream == b.stream && b.start - a.end >= 0.02 && found.count < 20 {
            found.append(SoundDropout(stream: streams.label(a.stream!), at: Self.round(onPicture(a.end)),
                                      ms: ((b.start - a.end) * 1000).rounded()))
        }
        return found
    }

    private func place(from: Int, to: Int) -> String {
        switch (streams.manifest?.stream(from)?.role, streams.manifest?.stream(to)?.role) {
        case (_, .ad?): return Self.adStart
        case (.ad?, .primary?): return Self.adReturn
        default: return "a switch"
        }
    }

    /// The RMS jump equal loudness gives: the lab levels each tone by its K-weighting (`LabRecipes.toneLevel`).
    private func expectedJump(from: Int, to: Int) -> Double? {
        guard let a = streams.manifest?.stream(from)?.tone, let b = streams.manifest?.stream(to)?.tone else { return nil }
        return ((LabRecipes.toneLevel(b) - LabRecipes.toneLevel(a)) * 10).rounded() / 10
    }

    /// The incoming stream's audio delay, in ms (0 when its media says none).
    private func expectedOffset(to: Int) -> Double? {
        guard let manifest = streams.manifest, let stream = manifest.stream(to) else { return nil }
        let media: LabMedia? = switch stream.role {
        case .ad: manifest.cases.first { $0.id == stream.caseId }?.interstitial
        case .primary: manifest.cases.first { $0.id == stream.caseId }?.primary ?? manifest.cases.first?.primary
        default: nil
        }
        return ((media?.audioDelay ?? 0) * 1000).rounded()
    }

    static func round(_ t: Double) -> Double { (t * 1000).rounded() / 1000 }
}
