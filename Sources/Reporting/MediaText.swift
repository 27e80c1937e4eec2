import Compatibility
import Foundation
import HLS
import MediaProbe

/// One-line descriptions of probed media for people: "h264 High 1920x1080 29.97 fps 16:9 SDR".
public enum MediaText {
    public static func video(_ track: VideoTrack) -> String {
        var parts = [track.codec]
        if let profile = track.profile { parts.append(profile) }
        parts.append("\(track.width)x\(track.height)")
        if let rate = track.frameRate { parts.append("\(formatNumber(rate)) fps") }
        if track.sampleAspectRatio != Ratio(1, 1) { parts.append("SAR \(track.sampleAspectRatio)") }
        parts.append("DAR \(track.displayAspectRatio)")
        parts.append(track.dynamicRange.rawValue)
        if let depth = track.bitDepth { parts.append("\(depth)-bit") }
        return parts.joined(separator: " ")
    }

    public static func audio(_ track: AudioTrack) -> String {
        var parts = [track.codec]
        if let profile = track.profile { parts.append(profile) }
        parts.append(formatNumber(Double(track.sampleRate) / 1000) + " kHz")
        if let depth = track.bitDepth { parts.append("\(depth)-bit") }
        parts.append(track.channelLayout ?? "\(track.channels) ch")
        if let language = track.language { parts.append(language) }
        return parts.joined(separator: " ")
    }

    /// Video and audio of the default tracks, joined by " | ".
    public static func summary(_ media: MediaDescription) -> String {
        var parts: [String] = []
        if let v = media.primaryVideo { parts.append(video(v)) }
        if let a = media.primaryAudio { parts.append(audio(a)) }
        if parts.isEmpty { return "no audio or video" }
        let encryption = media.encryption.map { " (samples encrypted, \($0): container facts only)" } ?? ""
        return parts.joined(separator: " | ") + encryption
    }

    /// Header text for an asset: its role, the schedule placement (playlist audits) and input.
    public static func heading(_ asset: AuditedAsset) -> String {
        var parts = [asset.role.capitalized]
        if let placement = asset.placement {
            var position = placement.kind
            if let offset = placement.offset { position += " " + InterstitialSchedule.position(offset: offset) }
            parts.append((placement.id.map { "ID=\"\($0)\" " } ?? "") + position + (placement.line.map { ", line \($0)" } ?? ""))
        }
        parts.append(asset.input)
        return parts.joined(separator: "  ")
    }

    /// A short name for grids: the DATERANGE ID in playlist audits, else the file name.
    public static func shortName(_ asset: AuditedAsset) -> String {
        asset.placement?.id ?? PathText.fileName(ofInput: asset.input)
    }

    /// What is known of an asset's media, one line each: per selection in playlist audits, the
    /// problem when it could not be described, or the media summary.
    public static func mediaLines(_ asset: AuditedAsset) -> [String] {
        if let problem = asset.problem, asset.selections.isEmpty { return ["problem: " + problem] }
        guard !asset.selections.isEmpty else { return [summary(asset.media)] }
        return asset.selections.map { selection in
            selection.deviceClasses.joined(separator: ", ") + ": " + selection.rendition
                + (selection.audioRendition.map { " + " + $0 } ?? "") + " -> " + summary(selection.media)
        }
    }

    /// Playlist audits: the interstitial's loudness against the programme around its break, one
    /// line per group of classes (named when there are several groups), or why it was not measured.
    public static func loudnessLines(_ asset: AuditedAsset) -> [String] {
        asset.loudness.map { entry in
            let who = asset.loudness.count > 1 ? " (\(entry.deviceClasses.joined(separator: ", ")))" : ""
            var text = "loudness\(who): "
            if let difference = entry.difference, let level = entry.interstitial?.integrated, let programme = entry.programme {
                text += "\(String(format: "%.1f", level)) LUFS against the programme's \(String(format: "%.1f", programme)) LUFS "
                    + "(\(entry.sides.joined(separator: " and ")) the break): \(String(format: "%+.1f", abs(difference) < 0.05 ? 0 : difference)) LU"
            } else {
                text += entry.problem ?? "not measured"
            }
            let skipped = [entry.interstitial, entry.before, entry.after].compactMap { $0 }.flatMap(\.skipped)
            if !skipped.isEmpty { text += "; left out: " + skipped.joined(separator: ", ") }
            return text
        }
    }

    public static func formatNumber(_ value: Double) -> String { HLSNumber.format(value) }
}
