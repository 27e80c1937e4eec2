import Compatibility
import Foundation

/// A project's `.seamcheck.yml`: defaults for lint, audit and matrix runs, per-rule severities
/// and accepted findings (format: docs/ci.md). Command-line options win over it.
public struct ProjectConfig: Sendable, Equatable {
    public static let defaultFileName = ".seamcheck.yml"

    /// The file it was read from, for messages.
    public var file: String
    /// Device classes `audit` uses when no `--profile` is given.
    public var profiles: [String]?
    public var failOn: FailThreshold?
    /// Seconds allowed to open and analyse one input (lint, audit).
    public var timeout: Double?
    public var rules: RuleOverrides
    /// `accepted` entries, as expected issues (case `*` unless the entry names one).
    public var accepted: [ExpectedIssue]

    public init(file: String, profiles: [String]? = nil, failOn: FailThreshold? = nil, timeout: Double? = nil,
                rules: RuleOverrides = RuleOverrides(), accepted: [ExpectedIssue] = []) {
        self.file = file
        self.profiles = profiles
        self.failOn = failOn
        self.timeout = timeout
        self.rules = rules
        self.accepted = accepted
    }

    /// Marks the findings an `accepted` entry covers with its reason; `input` is what was audited
    /// (`url` patterns of findings without a playlist location match it). Returns the findings
    /// and the entries that covered none.
    public func accept(_ findings: [Finding], input: String) -> (findings: [Finding], unused: [ExpectedIssue]) {
        var used = Set<Int>()
        let marked = findings.map { finding -> Finding in
            guard let index = accepted.firstIndex(where: {
                $0.matches(caseId: "*", finding: finding, deviceClass: finding.deviceClass, input: input)
            }) else { return finding }
            used.insert(index)
            var copy = finding
            copy.accepted = accepted[index].reason
            return copy
        }
        return (marked, accepted.enumerated().filter { !used.contains($0.offset) }.map(\.element))
    }
}

/// `rules:` of the project file: a setting for every class, or per class. Applied to profiles
/// (`DeviceProfile.rules`), so that grading stays in `DeviceProfile.severity`.
public struct RuleOverrides: Sendable, Equatable {
    public var everyClass: [String: RuleSetting]
    public var perClass: [String: [String: RuleSetting]]

    public init(everyClass: [String: RuleSetting] = [:], perClass: [String: [String: RuleSetting]] = [:]) {
        self.everyClass = everyClass
        self.perClass = perClass
    }

    public var isEmpty: Bool { everyClass.isEmpty && perClass.isEmpty }

    /// The profile with the project's settings on top of its own: per class wins over every class.
    public func apply(to profile: DeviceProfile) -> DeviceProfile {
        var copy = profile
        for (rule, setting) in everyClass { copy.rules[rule] = setting }
        for (rule, classes) in perClass { if let setting = classes[profile.id] { copy.rules[rule] = setting } }
        return copy
    }

    /// A profile for findings graded without a device class (`lint`): it plays everything, so
    /// only the every-class settings change a finding.
    public var classless: DeviceProfile {
        DeviceProfile(id: "project", name: "the project file's every-class settings",
                      plays: Capabilities(video: true, videoCodecs: [], maxWidth: nil, maxHeight: nil, maxFrameRate: nil,
                                          dynamicRanges: [], audioCodecs: [], maxChannels: 8, sampleRates: []),
                      rules: everyClass)
    }
}
