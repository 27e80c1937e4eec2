import Compatibility
import Foundation

/// A severity the lab's observations say a class should give a rule.
public struct CalibrationProposal: Codable, Sendable, Equatable {
    public var deviceClass: String
    public var rule: String
    /// The profile's severity now ("off" when it turns the rule off).
    public var current: String
    public var proposed: String
    public var observations: Int
    /// "3 stall, 1 glitch on video-codec-hevc (Living Room TV, Den TV); measured transition stalls 1240, 300 ms".
    public var evidence: String
    /// How many of the observations are operators' verdicts, and how many measured cells.
    public var operatorVerdicts: Int = 0
    public var measuredCells: Int = 0
}

/// Turns the lab's verdicts into proposed profile severities: per class and rule, the verdicts of
/// the transition cases that exercise that rule alone (a case changing two things blames neither),
/// read as levels (seamless info, glitch warning, stall/black/failed error). A cell with no
/// operator's verdict counts by its measured stall, graded through the report's thresholds
/// (`MeasuredColumns.level`: 1000 ms an error, 200 ms a warning by default). Where at least
/// `minObservations` agree on a level (the most common one; ties go to the worse) that differs
/// from the profile's, a new severity is proposed.
public struct ProfileCalibration: Sendable {
    public let manifest: LabManifest
    public let profiles: [DeviceProfile]
    public let minObservations: Int

    public init(manifest: LabManifest, profiles: [DeviceProfile], minObservations: Int) {
        self.manifest = manifest
        self.profiles = profiles
        self.minObservations = minObservations
    }

    public func proposals(from cells: [LabReportCell]) -> [CalibrationProposal] {
        var result: [CalibrationProposal] = []
        for profile in profiles {
            let rules = Set(manifest.cases.filter { $0.kind == .transition && $0.rules.count == 1 }.flatMap(\.rules))
            for rule in rules.sorted() {
                guard let description = RuleCatalog.descriptions.first(where: { $0.id == rule }) else { continue }
                if description.track == .video && !profile.plays.video { continue }
                let observed = cells.filter { cell in
                    cell.deviceClass == profile.id && cell.receiver != nil && cell.rules == [rule]
                }
                let levels = observed.compactMap(Self.level)
                guard levels.count >= minObservations, !levels.isEmpty else { continue }
                let counts = Dictionary(levels.map { ($0, 1) }, uniquingKeysWith: +)
                let top = counts.max { ($0.value, $0.key) < ($1.value, $1.key) }!.key
                let current = profile.severity(for: description)
                guard ObservedLevel(current) != top else { continue }
                let proposed: Severity = switch top {
                case .pass: .info
                case .warning: .warning
                case .error: .error
                }
                let verdicts = Dictionary(observed.compactMap(\.observed).map { ($0, 1) }, uniquingKeysWith: +)
                    .sorted { ($1.value, $0.key) < ($0.value, $1.key) }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
                // Receivers at several stations are named with their station ("Den TV @ room-a").
                let stations = Set(observed.map(\.station))
                let receivers = Set(observed.compactMap { cell in
                    cell.receiver.map { stations.count > 1 ? "\($0) @ \(cell.station ?? "unknown station")" : $0 }
                }).sorted().joined(separator: ", ")
                let cases = Set(observed.map(\.case)).sorted().joined(separator: ", ")
                let stalls = observed.filter { $0.source == LabVerdictSource.measured.rawValue }
                    .compactMap { $0.measured?.transitionStallMs ?? $0.measured?.stallMs }.sorted(by: >)
                let measured = stalls.isEmpty ? "" : "; measured transition stalls "
                    + stalls.map { "\(String(format: "%.0f", $0))" }.joined(separator: ", ") + " ms"
                result.append(CalibrationProposal(deviceClass: profile.id, rule: rule, current: current?.rawValue ?? "off",
                                                  proposed: proposed.rawValue, observations: levels.count,
                                                  evidence: "\(verdicts) on \(cases) (\(receivers))\(measured)",
                                                  operatorVerdicts: observed.filter { $0.source == LabVerdictSource.operator.rawValue }.count,
                                                  measuredCells: observed.filter { $0.source == LabVerdictSource.measured.rawValue }.count))
            }
        }
        return result
    }

    /// A receiver cell as a level: the operator's verdict when there is one, else the measured stall
    /// through the thresholds; nil when neither says anything about the switch.
    static func level(_ cell: LabReportCell) -> ObservedLevel? {
        if cell.source == LabVerdictSource.measured.rawValue {
            return cell.measured?.level.flatMap(ObservedLevel.init(rawValue:))
        }
        return cell.observed.flatMap(LabVerdict.init(rawValue:)).flatMap(ObservedLevel.init)
    }
}

/// Edits a profile's YAML text to give rules new severities, keeping every other line as written.
public enum ProfileYAMLEdit {
    /// The text with `rules.<rule>: <severity>` set for each pair; the `rules:` mapping is added
    /// at the end when the profile has none.
    public static func apply(_ changes: [(rule: String, severity: String)], to text: String) -> String {
        var lines = text.components(separatedBy: "\n")
        for change in changes {
            let entry = "  \(change.rule): \(change.severity)"
            if let rulesLine = lines.firstIndex(where: { $0.hasPrefix("rules:") }) {
                var index = rulesLine + 1, insertAt = rulesLine + 1, replaced = false
                while index < lines.count, lines[index].hasPrefix(" ") || lines[index].isEmpty {
                    let trimmed = lines[index].trimmingCharacters(in: .whitespaces)
                    if trimmed.hasPrefix(change.rule + ":") {
                        lines[index] = entry
                        replaced = true
                        break
                    }
                    if !trimmed.isEmpty { insertAt = index + 1 }
                    index += 1
                }
                if !replaced { lines.insert(entry, at: insertAt) }
            } else {
                let end = lines.last == "" ? lines.count - 1 : lines.count
                lines.insert(contentsOf: ["rules:", entry], at: end)
            }
        }
        return lines.joined(separator: "\n")
    }

    /// A unified diff of two texts (for review before `--write`).
    public static func diff(_ old: String, _ new: String, path: String, context: Int = 2) -> String {
        let a = old.components(separatedBy: "\n"), b = new.components(separatedBy: "\n")
        // Longest common subsequence table: profiles are tens of lines.
        var lcs = Array(repeating: Array(repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in stride(from: a.count - 1, through: 0, by: -1) {
            for j in stride(from: b.count - 1, through: 0, by: -1) {
                lcs[i][j] = a[i] == b[j] ? lcs[i + 1][j + 1] + 1 : max(lcs[i + 1][j], lcs[i][j + 1])
            }
        }
        enum Op { case same(String), del(String), add(String) }
        var ops: [Op] = [], i = 0, j = 0
        while i < a.count || j < b.count {
            if i < a.count, j < b.count, a[i] == b[j] { ops.append(.same(a[i])); i += 1; j += 1 }
            else if i < a.count, j == b.count || lcs[i + 1][j] >= lcs[i][j + 1] { ops.append(.del(a[i])); i += 1 }
            else { ops.append(.add(b[j])); j += 1 }
        }
        let changed = ops.indices.filter { if case .same = ops[$0] { return false } else { return true } }
        guard !changed.isEmpty else { return "" }
        var out = ["--- \(path)", "+++ \(path) (proposed)"]
        var start = 0
        while start < changed.count {
            var end = start
            while end + 1 < changed.count, changed[end + 1] - changed[end] <= 2 * context + 1 { end += 1 }
            let low = max(0, changed[start] - context), high = min(ops.count - 1, changed[end] + context)
            let oldStart = ops[..<low].filter { if case .add = $0 { return false } else { return true } }.count + 1
            let newStart = ops[..<low].filter { if case .del = $0 { return false } else { return true } }.count + 1
            let hunk = ops[low...high]
            let oldCount = hunk.filter { if case .add = $0 { return false } else { return true } }.count
            let newCount = hunk.filter { if case .del = $0 { return false } else { return true } }.count
            out.append("@@ -\(oldStart),\(oldCount) +\(newStart),\(newCount) @@")
            for op in hunk {
                switch op {
                case .same(let line): out.append(" " + line)
                case .del(let line): out.append("-" + line)
                case .add(let line): out.append("+" + line)
                }
            }
            start = end + 1
        }
        return out.joined(separator: "\n") + "\n"
    }
}
