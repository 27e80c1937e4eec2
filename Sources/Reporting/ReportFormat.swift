import Compatibility
import Foundation
import HLS

/// Output formats of `seamcheck audit`; the raw values are the `--format` names.
public enum ReportFormat: String, CaseIterable, Sendable {
    case table, json, markdown, html, junit, sarif

    public var reporter: any AuditReporter {
        switch self {
        case .table: return TableReporter(color: false)
        case .json: return JSONReporter()
        case .markdown: return MarkdownReporter()
        case .html: return HTMLReporter()
        case .junit: return JUnitReporter()
        case .sarif: return SARIFReporter()
        }
    }
}

/// Renders an audit result as one document.
public protocol AuditReporter: Sendable {
    func render(_ result: AuditResult) -> String
}

/// Text for a severity in tables and lists.
extension Severity {
    var label: String { rawValue }
}

/// The findings about one asset, in audit order.
func findings(for asset: AuditedAsset, in result: AuditResult) -> [Finding] {
    result.findings(for: asset)
}

/// The highest severity per device class for one interstitial; nil where nothing fired.
/// Whether a class's cell of a playlist audit was not audited (what it plays of the asset or of
/// the primary could not be probed): shown as "not audited", never as a pass.
func notAudited(_ asset: AuditedAsset, deviceClass: String, in result: AuditResult) -> Bool {
    let plays = { (a: AuditedAsset) in a.selections.contains { $0.deviceClasses.contains(deviceClass) } }
    guard !plays(asset) || !plays(result.primary) else { return false }
    return findings(for: asset, in: result).contains { $0.rule == "media-not-probed" && $0.deviceClass == deviceClass }
}

func worstSeverity(for asset: AuditedAsset, deviceClass: String, in result: AuditResult) -> Severity? {
    findings(for: asset, in: result).filter { $0.deviceClass == deviceClass }.map(\.severity).max()
}

/// One ffmpeg command that re-encodes an interstitial for a group of device classes.
public struct RemediationCommand: Sendable, Equatable {
    /// The classes whose findings it fixes (empty: not known, every class).
    public var deviceClasses: [String]
    /// True when other classes need another encode: each output is a variant of its own.
    public var isVariant: Bool
    /// True when it serves every class that has a finding about the asset.
    public var servesEveryClass: Bool
    /// The command as printed, quoted for a POSIX shell.
    public var text: String

    /// How reports introduce it: every class, some classes, or a variant of its own.
    public var label: String {
        if isVariant {
            return "fix for \(deviceClasses.joined(separator: ", ")) (no single encode serves every class: add this output as a variant of its own)"
        }
        return servesEveryClass || deviceClasses.isEmpty ? "fix" : "fix for \(deviceClasses.joined(separator: ", ")) only"
    }
}

/// The remediation as full ffmpeg command lines for an interstitial: the input as given (a
/// path, or a URL ffmpeg reads, an HLS playlist included), the output an MP4 or the input's own
/// container, named after the DATERANGE ID or the file in the current directory. One command
/// when one encode serves every class, else one per group of classes, each with its own name;
/// assets that would share a name (the assets of one asset list) get their role's number.
///
/// Names come from remote playlists, so the output name keeps only [A-Za-z0-9._-] and starts
/// with "./": it can neither leave the directory nor pass for an ffmpeg option.
public func remediationCommands(for asset: AuditedAsset, in result: AuditResult? = nil) -> [RemediationCommand] {
    let groups = asset.remediations.isEmpty ? asset.remediation.map { [ClassRemediation(deviceClasses: [], remediation: $0)] } ?? []
        : asset.remediations
    guard !groups.isEmpty else { return [] }
    let (stem, ext) = outputName(for: asset)
    var uniqueStem = stem
    if let result, result.interstitials.contains(where: { $0.role != asset.role && outputName(for: $0).stem == stem }) {
        uniqueStem += "-" + safeFileStem(asset.role.split(separator: " ").last.map(String.init) ?? asset.role)
    }
    let concerned = Set(result.map { $0.findings(for: asset).compactMap(\.deviceClass) } ?? [])
    return groups.map { group in
        let suffix = groups.count > 1 ? group.deviceClasses.first.map { "-" + safeFileStem($0) } ?? "" : ""
        let output = "./" + uniqueStem + suffix + "-matched." + (muxerExtension(group.remediation) ?? ext)
        let text = group.remediation.command(input: fixInput(for: asset, classes: group.deviceClasses), output: output)
            .map(shellQuoted).joined(separator: " ")
        return RemediationCommand(deviceClasses: group.deviceClasses, isVariant: groups.count > 1,
                                  servesEveryClass: concerned.isSubset(of: group.deviceClasses), text: text)
    }
}

/// What a fix reads: the rendition the group's classes were audited on when it is one media
/// playlist with its audio muxed in (given a multivariant playlist, ffmpeg fetches every variant,
/// broken ones included, and encodes a stream of its own choosing); else the asset as given.
private func fixInput(for asset: AuditedAsset, classes: [String]) -> String {
    let audited = asset.selections.filter { !Set($0.deviceClasses).isDisjoint(with: classes) }
    guard !classes.isEmpty, let only = audited.first, audited.allSatisfy({ $0.rendition == only.rendition }),
          only.audioRendition == nil, !only.rendition.isEmpty else { return asset.input }
    return only.rendition
}

/// The single command of an asset (the first when classes need different encodes).
func remediationCommand(for asset: AuditedAsset) -> String? {
    remediationCommands(for: asset).first?.text
}

private func outputName(for asset: AuditedAsset) -> (stem: String, ext: String) {
    // PathText, not Foundation's path APIs: inputs come from the network (they trap on /a///b//).
    let fileName = PathText.fileName(ofInput: asset.input)
    let ext = PathText.fileExtension(fileName).lowercased()
    let keepsContainer = ["mp4", "m4v", "mov", "mkv", "ts"].contains(ext)
    return (safeFileStem(asset.placement?.id ?? PathText.deletingExtension(fileName)), keepsContainer ? ext : "mp4")
}

/// The file extension of the container a fix's `-f` writes (container-change), so that the
/// output's name says what it holds; nil without `-f`.
private func muxerExtension(_ remediation: Remediation) -> String? {
    guard let index = remediation.arguments.firstIndex(of: "-f"), index + 1 < remediation.arguments.count else { return nil }
    switch remediation.arguments[index + 1] {
    case "mpegts": return "ts"
    case "adts": return "aac"
    case "hls": return "m3u8"
    case let format: return format
    }
}

/// A file name stem made of [A-Za-z0-9._-] only, without leading dots.
func safeFileStem(_ text: String) -> String {
    let mapped = String(text.map { $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) ? $0 : "_" })
    let trimmed = mapped.drop { $0 == "." }
    return trimmed.isEmpty ? "interstitial" : String(trimmed)
}
