import Compatibility
import Foundation

/// JUnit XML for CI: a testsuite per device class, a testcase per interstitial. Errors are
/// failures; warnings, info and accepted errors go to the testcase's system-out so CI shows them
/// without failing.
public struct JUnitReporter: AuditReporter {
    public init() {}

    public func render(_ result: AuditResult) -> String {
        var xml = ["<?xml version=\"1.0\" encoding=\"UTF-8\"?>"]
        let totalFailures = result.findings.filter { $0.severity == .error && $0.isOpen }
        let failingCases = Set(totalFailures.map { "\($0.deviceClass ?? "")|\($0.subject)" }).count
        xml.append("<testsuites name=\"seamcheck audit\" tests=\"\(result.interstitials.count * result.deviceClasses.count)\" failures=\"\(failingCases)\">")
        for deviceClass in result.deviceClasses {
            let cases = result.interstitials.map { asset in
                (asset, findings(for: asset, in: result).filter { $0.deviceClass == deviceClass })
            }
            let failures = cases.filter { $0.1.contains { $0.severity == .error && $0.isOpen } }.count
            xml.append("  <testsuite name=\"\(xmlEscape(deviceClass))\" tests=\"\(cases.count)\" failures=\"\(failures)\" errors=\"0\">")
            for (asset, found) in cases {
                let name = "\(asset.role): \(asset.input)"
                xml.append("    <testcase classname=\"\(xmlEscape(deviceClass))\" name=\"\(xmlEscape(name))\">")
                for finding in found where finding.severity == .error && finding.isOpen {
                    xml.append("      <failure type=\"\(xmlEscape(finding.rule))\" message=\"\(xmlEscape(finding.message))\">"
                        + xmlEscape("expected \(finding.expected ?? "-"), actual \(finding.actual ?? "-")"
                            + (finding.remediation.map { "; fix: \($0)" } ?? ""))
                        + "</failure>")
                }
                let notes = found.filter { $0.severity != .error || !$0.isOpen }
                if !notes.isEmpty {
                    let text = notes.map { "[\($0.severity.rawValue)] \($0.rule): \($0.message)" + ($0.accepted.map { " (accepted: \($0))" } ?? "") }
                        .joined(separator: "\n")
                    xml.append("      <system-out>\(xmlEscape(text))</system-out>")
                }
                xml.append("    </testcase>")
            }
            xml.append("  </testsuite>")
        }
        xml.append("</testsuites>")
        return xml.joined(separator: "\n") + "\n"
    }
}
