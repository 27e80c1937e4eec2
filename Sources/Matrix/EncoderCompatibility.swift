import Compatibility
import Foundation
import MediaProbe

/// The interstitial encoding settings that make every transition of a run seamless on every
/// device class of the run, derived from the primaries.
///
/// Each setting comes from the transition rules themselves: for each parameter a primary has,
/// a copy of the primary differing in that parameter only is checked against every rule, and
/// the rule's own fix is taken. So the advice cannot disagree with the findings. A parameter
/// is required when some class of the run rates its rule at warning or above.
///
/// Cannot help where a class cannot play the primary itself: such classes are listed as caveats.
public struct EncoderCompatibility: Codable, Sendable, Equatable {
    /// One setting: a parameter, the value it must have, who needs it, and the ffmpeg options.
    public struct Setting: Codable, Sendable, Equatable {
        public var parameter: String
        public var rule: String
        public var value: String
        /// Classes of the run that rate this rule at warning or above; empty: free to differ.
        public var requiredBy: [String]
        public var arguments: String
    }

    /// Cases whose primaries ask for the same settings.
    public struct Group: Codable, Sendable, Equatable {
        public var cases: [String]
        public var primaries: [String]
        public var settings: [Setting]
        /// The required settings merged as ffmpeg output options (streams nothing touches are copied).
        public var arguments: String
        public var remediation: Remediation
        public var interstitials: Int
        /// Interstitials of these cases with no transition finding at warning or above on any class.
        public var interstitialsAlreadyMatching: Int
        /// "smart-tv-low-end cannot play the primary itself: unsupported-video-codec".
        public var caveats: [String]
    }

    public var groups: [Group]
    /// True when every primary asks for the same required settings (zero or one group).
    public var primariesAgree: Bool
    /// Parameters whose required value differs between groups.
    public var differingParameters: [String]
    /// Cases left out: they could not be audited.
    public var casesWithoutMedia: [String]

    public init(cases: [CaseResult], profiles: [DeviceProfile]) {
        var groups: [Group] = []
        var keys: [[String]] = []
        var without: [String] = []
        for result in cases {
            guard let primary = result.assets.first?.media else { without.append(result.caseId); continue }
            let settings = Self.settings(for: primary, profiles: profiles)
            let key = settings.filter { !$0.requiredBy.isEmpty }.map { "\($0.rule)=\($0.value)" }
            let interstitials = Array(result.assets.dropFirst())
            let matching = interstitials.filter { asset in
                !result.cells.flatMap(\.findings).contains {
                    $0.finding.subject.hasPrefix(asset.role + " (") && $0.finding.severity >= .warning
                        && RuleIdentifiers.transition.contains($0.finding.rule)
                }
            }.count
            if let index = keys.firstIndex(of: key) {
                groups[index].cases.append(result.caseId)
                if !groups[index].primaries.contains(result.primary) { groups[index].primaries.append(result.primary) }
                groups[index].interstitials += interstitials.count
                groups[index].interstitialsAlreadyMatching += matching
                continue
            }
            keys.append(key)
            let remediation = Remediation.merge(settings.filter { !$0.requiredBy.isEmpty }.compactMap(\.remediation))
            groups.append(Group(cases: [result.caseId], primaries: [result.primary], settings: settings.map(\.setting),
                                arguments: remediation.rendered, remediation: remediation, interstitials: interstitials.count,
                                interstitialsAlreadyMatching: matching, caveats: Self.caveats(primary, profiles: profiles)))
        }
        self.groups = groups
        primariesAgree = groups.count <= 1
        casesWithoutMedia = without
        var differing: [String] = []
        for group in groups {
            for setting in group.settings where !setting.requiredBy.isEmpty && !differing.contains(setting.parameter) {
                let values = Set(groups.map { $0.settings.first { $0.rule == setting.rule && !$0.requiredBy.isEmpty }?.value ?? "(free)" })
                if values.count > 1 { differing.append(setting.parameter) }
            }
        }
        differingParameters = differing
    }

    static let parameters: [String: String] = [
        "video-codec-mismatch": "video codec", "frame-rate-mismatch": "frame rate",
        "aspect-ratio-mismatch": "display aspect ratio", "dynamic-range-mismatch": "dynamic range",
        "audio-codec-mismatch": "audio codec", "sample-rate-mismatch": "audio sample rate",
        "audio-bit-depth-mismatch": "audio bit depth", "channel-layout-mismatch": "audio channel layout",
        "track-set-mismatch": "tracks", "av-start-misaligned": "audio/video start",
        "rendition-language-mismatch": "audio language", "frame-rate-multiple": "frame rate",
        "scan-type-mismatch": "scan type", "resolution-change": "resolution", "container-change": "container",
    ]

    private struct Derived {
        var setting: Setting
        var remediation: Remediation?
        var requiredBy: [String] { setting.requiredBy }
        var rule: String { setting.rule }
        var value: String { setting.value }
    }

    /// Every rule's expected value and fix for `primary`, found by varying one parameter at a time.
    private static func settings(for primary: MediaDescription, profiles: [DeviceProfile]) -> [Derived] {
        var derived: [Derived] = []
        for foil in Foils.of(primary) {
            for rule in RuleCatalog.transitionRules where !derived.contains(where: { $0.rule == rule.id }) {
                let anyVideo = profiles.contains { $0.plays.video }
                guard let mismatch = rule.evaluate(TransitionContext(primary: primary, interstitial: foil, rendersVideo: anyVideo))
                else { continue }
                let requiredBy = profiles.filter { ($0.severity(for: rule.description) ?? .info) >= .warning }.map(\.id)
                var remediation = mismatch.remediation
                // Generated tracks and dropped streams fix one asset; they are no encoder setting.
                if !(remediation?.inputs.isEmpty ?? true) || rule.id == "track-set-mismatch" { remediation = nil }
                // Tone-mapping filters convert one HDR source; the target itself is SDR with BT.709 tags.
                if rule.id == "dynamic-range-mismatch", primary.primaryVideo?.dynamicRange == .sdr, let tags = remediation?.arguments {
                    remediation = Remediation(arguments: ["-pix_fmt", "yuv420p"] + tags)
                }
                derived.append(Derived(setting: Setting(parameter: parameters[rule.id] ?? rule.id, rule: rule.id, value: mismatch.expected,
                                                        requiredBy: requiredBy, arguments: remediation.map(options) ?? ""),
                                       remediation: remediation))
            }
        }
        let order = RuleCatalog.transitionRules.map(\.id)
        return derived.sorted { (order.firstIndex(of: $0.rule) ?? 99) < (order.firstIndex(of: $1.rule) ?? 99) }
    }

    /// The options a setting adds, without the `-c:v copy` / `-c:a copy` of a whole command.
    private static func options(_ remediation: Remediation) -> String {
        var parts = remediation.arguments
        if !remediation.videoFilters.isEmpty { parts += ["-vf", remediation.videoFilters.joined(separator: ",")] }
        if !remediation.audioFilters.isEmpty { parts += ["-af", remediation.audioFilters.joined(separator: ",")] }
        return parts.map(shellQuoted).joined(separator: " ")
    }

    private static func caveats(_ primary: MediaDescription, profiles: [DeviceProfile]) -> [String] {
        profiles.compactMap { profile in
            let rules = RuleCatalog.capabilityRules.filter {
                ($0.description.track != .video || profile.plays.video) && $0.evaluate(primary, on: profile.plays) != nil
                    && (profile.severity(for: $0.description) ?? .info) >= .warning
            }
            guard !rules.isEmpty else { return nil }
            return "\(profile.id) cannot play the primary itself (\(rules.map(\.id).joined(separator: ", "))): no interstitial setting fixes that"
        }
    }
}

/// Copies of a primary that differ from it in one parameter each.
enum Foils {
    static func of(_ primary: MediaDescription) -> [MediaDescription] {
        var foils: [MediaDescription] = []
        func vary(_ change: (inout MediaDescription) -> Void) {
            var copy = primary
            change(&copy)
            foils.append(copy)
        }
        if let video = primary.primaryVideo {
            vary { $0.video[0].codec = video.codec == "h264" ? "hevc" : "h264" }
            if let rate = video.frameRateExact {
                // x5/6 (29.97 to 24.975) for frame-rate-mismatch, x2 for frame-rate-multiple.
                for (times, over) in [(5, 6), (2, 1)] {
                    vary {
                        $0.video[0].frameRateExact = Rational(rate.numerator * times, rate.denominator * over)
                        $0.video[0].frameRate = (video.frameRate ?? 30) * Double(times) / Double(over)
                    }
                }
            }
            vary { $0.video[0].displayAspectRatio = video.displayAspectRatio == Ratio(1, 1) ? Ratio(16, 9) : Ratio(1, 1) }
            vary { $0.video[0].dynamicRange = video.dynamicRange == .sdr ? .hdr10 : .sdr }
            // 2/3 of the coded size, the display aspect ratio kept (resolution-change).
            vary {
                $0.video[0].width = max(2, video.width * 2 / 3 / 2 * 2)
                $0.video[0].height = max(2, video.height * 2 / 3 / 2 * 2)
            }
        }
        // The other container family (container-change).
        vary { $0.container = $0.container == "mpegts" ? "mov,mp4,m4a,3gp,3g2,mj2" : "mpegts" }
        if let audio = primary.primaryAudio {
            vary { $0.audio[0].codec = audio.codec == "aac" ? "ac3" : "aac" }
            vary { $0.audio[0].sampleRate = audio.sampleRate == 48000 ? 44100 : 48000 }
            if let depth = audio.bitDepth { vary { $0.audio[0].bitDepth = depth == 16 ? 24 : 16 } }
            vary {
                $0.audio[0].channels = audio.channels == 2 ? 6 : 2
                $0.audio[0].channelLayout = audio.channels == 2 ? "5.1" : "stereo"
            }
            if let start = audio.startTime { vary { $0.audio[0].startTime = start + 1 } }
            if audio.language != nil { vary { $0.audio[0].language = audio.language == "zxx" ? "und" : "zxx" } }
        }
        // A different track set: the primary's tracks are what track-set-mismatch expects.
        vary { foil in
            if primary.video.isEmpty || primary.audio.isEmpty {
                if foil.video.isEmpty { foil.video = [VideoTrack(codec: "h264", width: 16, height: 9, frameRate: nil)] }
                if foil.audio.isEmpty { foil.audio = [AudioTrack(codec: "aac", sampleRate: 48000, channels: 2)] }
            } else {
                foil.audio = []
            }
        }
        return foils
    }
}
