/// One entry of an HLS CODECS or SUPPLEMENTAL-CODECS attribute (RFC 6381), in FFmpeg's terms so
/// that it compares directly with a probe.
public struct CodecString: Sendable, Equatable, Codable {
    public enum Kind: String, Sendable, Codable { case video, audio, text, unknown }

    /// The string as written: "avc1.640028", "mp4a.40.2", "dvh1.08.07/db1p".
    public var raw: String
    public var kind: Kind
    /// FFmpeg's codec name: h264, hevc, av1, vp9, aac, ac3, eac3, flac, alac, opus, mp3; nil when unknown.
    public var codec: String?
    /// The profile in FFmpeg's words where the string says it ("High", "Main 10", "LC", "HE-AAC").
    public var profile: String?
    /// H.264 level x 10 or HEVC level x 30, as FFmpeg reports levels.
    public var level: Int?
    /// HEVC tier: "Main" (L in the string) or "High" (H).
    public var tier: String?
    /// Dolby Vision profile when the entry is a Dolby Vision sample entry (dvh1, dvhe, dva1, dvav).
    public var dolbyVisionProfile: Int?
    /// Dolby Vision level (the third field: dvh1.08.07 is level 7).
    public var dolbyVisionLevel: Int?
    /// E-AC-3 with Joint Object Coding (Dolby Atmos), written `ec+3`.
    public var joc = false
    /// Compatibility brands after "/" in SUPPLEMENTAL-CODECS ("db1p" = HDR10 base, "db4h" = HLG base).
    public var brands: [String]

    public init(_ text: String) {
        raw = text.trimmingCharacters(in: .whitespaces)
        let slash = raw.split(separator: "/", omittingEmptySubsequences: false)
        brands = slash.dropFirst().map(String.init)
        let parts = slash.first.map { $0.split(separator: ".", omittingEmptySubsequences: false).map(String.init) } ?? []
        let fourcc = parts.first ?? ""
        kind = .unknown
        switch fourcc {
        case "avc1", "avc3":
            kind = .video
            codec = "h264"
            if parts.count > 1, parts[1].count == 6, let pp = Int(parts[1].prefix(2), radix: 16),
               let cc = Int(parts[1].dropFirst(2).prefix(2), radix: 16), let ll = Int(parts[1].suffix(2), radix: 16) {
                // constraint_set1 on Baseline is Constrained Baseline, as FFmpeg names it.
                profile = pp == 66 && cc & 0x40 != 0 ? "Constrained Baseline" : Self.avcProfiles[pp]
                level = ll
            }
        case "hvc1", "hev1":
            kind = .video
            codec = "hevc"
            if parts.count > 1 {
                let digits = parts[1].drop { $0.isLetter }
                profile = Self.hevcProfiles[Int(digits) ?? -1]
            }
            if parts.count > 3, let tierLevel = Int(parts[3].drop { $0.isLetter }) {
                level = tierLevel
                tier = parts[3].hasPrefix("H") ? "High" : parts[3].hasPrefix("L") ? "Main" : nil
            }
        case "dvh1", "dvhe", "dva1", "dvav":
            kind = .video
            codec = fourcc.hasPrefix("dvh") ? "hevc" : "h264"
            if parts.count > 1 { dolbyVisionProfile = Int(parts[1]) }
            if parts.count > 2 { dolbyVisionLevel = Int(parts[2]) }
        case "av01":
            kind = .video
            codec = "av1"
        case "vp09", "vp9":
            kind = .video
            codec = "vp9"
        case "mp4a":
            kind = .audio
            switch parts.dropFirst().joined(separator: ".") {
            case "40.2": codec = "aac"; profile = "LC"
            case "40.5": codec = "aac"; profile = "HE-AAC"
            case "40.29": codec = "aac"; profile = "HE-AACv2"
            case "40.34", "6B", "69": codec = "mp3"
            case "A5", "a5": codec = "ac3"
            case "A6", "a6": codec = "eac3"
            default: codec = parts.count > 1 && parts[1] == "40" ? "aac" : nil
            }
        case "ac-3": kind = .audio; codec = "ac3"
        case "ec-3": kind = .audio; codec = "eac3"
        case "ec+3": kind = .audio; codec = "eac3"; joc = true
        case "ac-4": kind = .audio; codec = "ac4"
        case "fLaC": kind = .audio; codec = "flac"
        case "alac": kind = .audio; codec = "alac"
        case "Opus", "opus": kind = .audio; codec = "opus"
        case "mhm1", "mha1": kind = .audio; codec = "mpegh_3d_audio"
        case "stpp", "wvtt": kind = .text
        default: break
        }
    }

    /// Parses a CODECS attribute value: comma separated, spaces tolerated.
    public static func list(_ value: String) -> [CodecString] {
        value.split(separator: ",").map { CodecString(String($0)) }.filter { !$0.raw.isEmpty }
    }

    static let avcProfiles = [66: "Baseline", 77: "Main", 88: "Extended", 100: "High", 110: "High 10", 122: "High 4:2:2", 244: "High 4:4:4 Predictive"]
    static let hevcProfiles = [1: "Main", 2: "Main 10", 3: "Main Still Picture", 4: "Rext"]
}
