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

/// The remediation as a full ffmpeg command line for an interstitial: the input as given (a
/// path, or a URL ffmpeg reads, an HLS playlist included), the output an MP4 or the input's own
/// container, named after the DATERANGE ID or the file in the current directory.
///
/// Names come from remote playlists, so the output name keeps only [A-Za-z0-9._-] and starts
/// with "./": it can neither leave the directory nor pass for an ffmpeg option.
func remediationCommand(for asset: AuditedAsset) -> String? {
    guard let remediation = asset.remediation else { return nil }
    let fileName = PathText.fileName(ofInput: asset.input)
    let ext = PathText.fileExtension(fileName).lowercased()
    let keepsContainer = ["mp4", "m4v", "mov", "mkv", "ts"].contains(ext)
    let stem = safeFileStem(asset.placement?.id ?? PathText.deletingExtension(fileName))
    let output = "./" + stem + "-matched." + (keepsContainer ? ext : "mp4")
    return "ffmpeg -i \(shellQuoted(asset.input)) \(remediation.rendered) \(shellQuoted(output))"
}

/// A file name stem made of [A-Za-z0-9._-] only, without leading dots.
func safeFileStem(_ text: String) -> String {
    let mapped = String(text.map { $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) ? $0 : "_" })
    let trimmed = mapped.drop { $0 == "." }
    return trimmed.isEmpty ? "interstitial" : String(trimmed)
}
