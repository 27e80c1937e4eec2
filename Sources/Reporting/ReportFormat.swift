import Compatibility
import Foundation

/// Output formats of `seamcheck audit`; the raw values are the `--format` names.
public enum ReportFormat: String, CaseIterable, Sendable {
    case table, json, markdown, html, junit

    public var reporter: any AuditReporter {
        switch self {
        case .table: return TableReporter(color: false)
        case .json: return JSONReporter()
        case .markdown: return MarkdownReporter()
        case .html: return HTMLReporter()
        case .junit: return JUnitReporter()
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
func worstSeverity(for asset: AuditedAsset, deviceClass: String, in result: AuditResult) -> Severity? {
    findings(for: asset, in: result).filter { $0.deviceClass == deviceClass }.map(\.severity).max()
}

/// The remediation as a full ffmpeg command line for an interstitial. An HLS asset is read from
/// its playlist URL and written as an MP4 named after its DATERANGE ID, ready to re-package.
func remediationCommand(for asset: AuditedAsset) -> String? {
    guard let remediation = asset.remediation else { return nil }
    let name = (asset.input as NSString).lastPathComponent
    let ext = (name as NSString).pathExtension.lowercased()
    let isPlaylist = ext == "m3u8" || ext == "m3u"
    let input = isPlaylist ? asset.input : name
    let stem = asset.placement?.id ?? (name as NSString).deletingPathExtension
    let output = stem + "-matched." + (isPlaylist || ext.isEmpty ? "mp4" : ext)
    return "ffmpeg -i \(shellQuoted(input)) \(remediation.rendered) \(shellQuoted(output))"
}
