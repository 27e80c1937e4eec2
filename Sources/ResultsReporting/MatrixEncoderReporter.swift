import Reporting
import Compatibility
import Foundation
import Matrix

/// The encoder compatibility view: the interstitial settings that make every transition of the
/// run seamless on every class, per group of primaries that agree.
public struct MatrixEncoderReporter: MatrixReporter {
    public init() {}

    public func render(_ report: MatrixReport) -> String {
        VisibleText.escape(lines: ["Encoder settings for interstitials (\(report.run.summary.matrixName), run \(report.run.summary.id))", ""]
            + Self.lines(report.encoder, markdown: false)).joined(separator: "\n") + "\n"
    }

    static func lines(_ view: EncoderCompatibility, markdown: Bool) -> [String] {
        var out: [String] = []
        func code(_ text: String) -> String { markdown ? "`\(text)`" : text }
        if view.groups.isEmpty {
            out.append("No case was audited: nothing to derive settings from.")
        } else if view.primariesAgree {
            out.append("Every primary asks for the same settings: one encoding of each interstitial plays seamlessly everywhere.")
        } else {
            out.append("The primaries disagree among themselves (\(view.differingParameters.joined(separator: ", "))): "
                + "no single encoding fits every case; settings per group of primaries follow.")
        }
        for (index, group) in view.groups.enumerated() {
            out.append("")
            let title = view.groups.count > 1 ? "Group \(index + 1): " : ""
            out.append((markdown ? "### " : "") + title + "\(group.cases.count) case(s), primaries "
                + group.primaries.map { code(shortName($0)) }.joined(separator: ", "))
            if markdown { out.append("") }
            out.append("Cases: " + group.cases.joined(separator: ", "))
            if markdown {
                out.append("")
                out.append("| parameter | value | required by | ffmpeg options |")
                out.append("|---|---|---|---|")
            }
            for setting in group.settings {
                let required = setting.requiredBy.isEmpty ? "free (info or off on every class)" : setting.requiredBy.joined(separator: ", ")
                if markdown {
                    out.append("| \(setting.parameter) | \(setting.value) | \(required) | \(setting.arguments.isEmpty ? "" : "`\(setting.arguments)`") |")
                } else {
                    out.append("  \(setting.parameter): \(setting.value)  [\(required)]" + (setting.arguments.isEmpty ? "" : "  \(setting.arguments)"))
                }
            }
            if markdown { out.append("") }
            out.append("Output options: " + code(group.arguments.isEmpty ? "(none needed)" : group.arguments))
            out.append("\(group.interstitialsAlreadyMatching) of \(group.interstitials) interstitial(s) in these cases already match.")
            for caveat in group.caveats { out.append("Caveat: \(caveat)") }
        }
        if !view.casesWithoutMedia.isEmpty {
            out.append("")
            out.append("Not included (could not be audited): " + view.casesWithoutMedia.joined(separator: ", "))
        }
        return out
    }
}
