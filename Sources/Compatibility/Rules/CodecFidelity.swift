import MediaProbe

/// What a CODECS entry promises beyond the codec and profile, checked against the probe: the
/// level and tier (AVC, HEVC), the AAC object type, the Dolby Vision profile and level, E-AC-3
/// JOC. RFC 6381: the string names the least decoder capability that plays the stream, and
/// players choose variants by it, so a promise below the stream sends a receiver media it
/// cannot decode.
enum CodecFidelity {
    /// One broken promise: the entry as written, what the stream is, and why it matters.
    struct Problem {
        var declared: String
        var probed: String
        var reason: String
    }

    static func level(_ value: Int, codec: String) -> String {
        String(format: "%.1f", codec == "hevc" ? Double(value) / 30 : Double(value) / 10)
    }

    static func video(_ entry: CodecString, _ track: VideoTrack) -> [Problem] {
        var problems: [Problem] = []
        if let declared = entry.level, let probed = track.level, declared < probed, ["h264", "hevc"].contains(track.codec) {
            problems.append(Problem(
                declared: entry.raw, probed: "\(track.codec) level \(level(probed, codec: track.codec))",
                reason: "level \(level(declared, codec: track.codec)) is declared for a level-\(level(probed, codec: track.codec)) stream: a level-\(level(declared, codec: track.codec)) decoder selects this variant and cannot decode it (RFC 6381: the string states the decoder level the stream needs)"))
        }
        if track.codec == "hevc", entry.tier == "Main", track.tier == "High" {
            problems.append(Problem(declared: entry.raw, probed: "hevc High tier",
                                    reason: "Main tier (L) is declared for a High-tier stream: Main-tier decoders select it and cannot decode it"))
        }
        if let profile = entry.dolbyVisionProfile {
            if let dovi = track.dolbyVision {
                if dovi.profile != profile {
                    problems.append(Problem(declared: entry.raw, probed: "Dolby Vision profile \(dovi.profile)",
                                            reason: "Dolby Vision profile \(profile) is declared for a profile-\(dovi.profile) stream"))
                } else if let declaredLevel = entry.dolbyVisionLevel, declaredLevel < dovi.level {
                    problems.append(Problem(declared: entry.raw, probed: "Dolby Vision level \(dovi.level)",
                                            reason: "Dolby Vision level \(declaredLevel) is declared for a level-\(dovi.level) stream: a receiver at that level selects a variant beyond it"))
                }
            } else {
                problems.append(Problem(declared: entry.raw, probed: "\(track.codec) without a Dolby Vision configuration",
                                        reason: "a Dolby Vision entry is declared but the stream has no dvcC/dvvC record: Dolby Vision TVs select it and get plain \(track.dynamicRange.rawValue)"))
            }
        }
        return problems
    }

    /// AAC object type (mp4a.40.2 LC, .5 HE-AAC, .29 HE-AACv2) and E-AC-3 JOC.
    static func audio(_ entries: [CodecString], _ track: AudioTrack, channels: String?) -> [Problem] {
        var problems: [Problem] = []
        let matching = entries.filter { $0.codec == track.codec }
        if track.codec == "aac", let probed = track.profile, !matching.isEmpty,
           !matching.contains(where: { $0.profile == nil || $0.profile == probed }) {
            let declared = matching.compactMap(\.profile).joined(separator: ", ")
            problems.append(Problem(
                declared: matching.map(\.raw).joined(separator: ","), probed: "aac \(probed)",
                reason: "AAC object type \(declared) is declared for \(probed) audio: a receiver that chooses by object type (HE-AAC for low bandwidth, LC where SBR is not decoded) gets another one (RFC 6381: mp4a.40.2 LC, .5 HE-AAC, .29 HE-AACv2)"))
        }
        let atmos = channels?.uppercased().hasSuffix("/JOC") ?? false
        if atmos || entries.contains(where: \.joc), track.codec != "eac3" {
            problems.append(Problem(declared: atmos ? "CHANNELS=\(channels ?? "")" : "ec+3", probed: track.codec,
                                    reason: "Dolby Atmos (E-AC-3 JOC) is declared but the audio is \(track.codec): JOC exists only in E-AC-3"))
        }
        return problems
    }
}
