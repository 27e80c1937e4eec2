import ArgumentParser
import Compatibility
import Foundation
import Matrix
import Reporting
import ResultsReporting

struct ConfigOption: ParsableArguments {
    @Option(name: .customLong("config"), help: "The project file (default: ./.seamcheck.yml when there is one).")
    var path: String?
}

/// The project file of a run (`--config`, else `./.seamcheck.yml`), and what commands do with it.
enum ProjectFile {
    /// nil when no project file is given and none is in the working folder.
    static func load(_ option: ConfigOption, knownProfiles: [String]?) throws(ProjectConfigError) -> ProjectConfig? {
        try load(option, knownProfiles: { knownProfiles })
    }

    /// As above, `knownProfiles` asked for only when there is a project file (reading every device
    /// profile is most of a small `lint`'s time).
    static func load(_ option: ConfigOption, knownProfiles: () -> [String]?) throws(ProjectConfigError) -> ProjectConfig? {
        guard let path = ProjectConfigLoader.locate(explicit: option.path) else { return nil }
        return try ProjectConfigLoader.load(path, knownProfiles: knownProfiles())
    }

    /// Accepted entries no finding matched: said on stderr (like a matrix's unused expected
    /// issues), never a failure, so that fixing a finding does not break the build.
    static func noteUnused(_ unused: [ExpectedIssue]) {
        for entry in unused {
            Terminal.writeStderr("seamcheck: note: \(VisibleText.escape(entry.origin ?? "accepted")) matched no finding "
                + "(rule \(entry.rule), class \(entry.deviceClass)); remove it if the issue is fixed\n")
        }
    }

    /// `--write-accepted`: every open finding becomes an `accepted` entry of the project file
    /// (created when missing), to be given reasons. Returns the findings, now all accepted.
    ///
    /// The entries are appended to the file's text, so its comments stay; a file that already has
    /// `accepted` must have it as its last key (its list is extended), else this is refused.
    static func writeAccepted(_ findings: [Finding], option: ConfigOption) throws -> [Finding] {
        let path = option.path ?? ProjectConfig.defaultFileName
        let open = findings.filter(\.isOpen)
        var seen = Set<String>()
        var block = ""
        for finding in open {
            let subject = finding.subject.replacingOccurrences(of: #"line [0-9]+"#, with: "line *", options: .regularExpression)
            let key = [finding.rule, finding.deviceClass ?? "*", subject].joined(separator: "\u{1}")
            guard seen.insert(key).inserted else { continue }
            block += "  - rule: \(finding.rule)\n"
            if let deviceClass = finding.deviceClass { block += "    class: \(deviceClass)\n" }
            block += "    subject: \(yamlQuoted(subject))\n"
            block += "    reason: \(yamlQuoted("TODO: say why (written by --write-accepted on \(today()))"))\n"
        }
        var text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        let lines = text.components(separatedBy: "\n")
        let keys = lines.filter { line in
            guard let first = line.first else { return false }
            return first != " " && first != "#" && first != "-" && line.contains(":")
        }
        let hasAccepted = keys.contains { $0.hasPrefix("accepted:") }
        if hasAccepted, !(keys.last ?? "").hasPrefix("accepted:") {
            throw CLIFailure.input("\(path): accepted: --write-accepted extends the list only when accepted is the file's last key; move it to the end")
        }
        if !text.isEmpty, !text.hasSuffix("\n") { text += "\n" }
        if !hasAccepted { text += "accepted:\n" }
        text += block
        try Output.write(text, to: path)
        Terminal.writeStderr("seamcheck: wrote \(seen.count) accepted entr\(seen.count == 1 ? "y" : "ies") to \(path); give each a reason\n")
        return findings.map { finding in
            var copy = finding
            if copy.isOpen { copy.accepted = "written by --write-accepted" }
            return copy
        }
    }

    private static func yamlQuoted(_ text: String) -> String {
        "\"" + text.unicodeScalars.map { scalar -> String in
            switch scalar {
            case "\"": return "\\\""
            case "\\": return "\\\\"
            default: return scalar.value < 0x20 || scalar.value == 0x7F ? String(format: "\\x%02X", scalar.value) : String(scalar)
            }
        }.joined() + "\""
    }

    private static func today() -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd"
        return formatter.string(from: Date())
    }
}
