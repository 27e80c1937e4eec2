import Compatibility
import Foundation
import HLS

/// A test matrix: cases run against device classes, with the issues the team has accepted.
///
/// Read from YAML by `MatrixSpecLoader` (format: docs/matrix.md). Relative input paths are
/// already resolved against the matrix file's directory.
public struct MatrixSpec: Sendable, Equatable {
    public var name: String
    /// The file it was read from, for messages and the results database.
    public var file: String
    public var defaults: MatrixDefaults
    /// In the order the file lists them; `discovered` is expanded by `DeviceClassResolver`.
    public var deviceClasses: [DeviceClassSelector]
    /// How `discovered` browses; nil when the file has no `discovery` section.
    public var discovery: DiscoverySettings?
    public var cases: [MatrixCase]
    public var expectedIssues: [ExpectedIssue]

    public init(name: String, file: String, defaults: MatrixDefaults = MatrixDefaults(),
                deviceClasses: [DeviceClassSelector], discovery: DiscoverySettings? = nil,
                cases: [MatrixCase], expectedIssues: [ExpectedIssue] = []) {
        self.name = name
        self.file = file
        self.defaults = defaults
        self.deviceClasses = deviceClasses
        self.discovery = discovery
        self.cases = cases
        self.expectedIssues = expectedIssues
    }

    /// Every input of every case, each once, in first-seen order.
    public var distinctInputs: [InputLocation] {
        var seen = Set<InputLocation>()
        return cases.flatMap(\.inputs).filter { seen.insert($0).inserted }
    }
}

/// Run settings a matrix file gives; command-line options override them.
public struct MatrixDefaults: Sendable, Equatable {
    public var failOn: FailThreshold
    /// Seconds one case may take, probes included.
    public var timeout: Double
    /// Cases audited at once; nil: one per processor.
    public var jobs: Int?

    public init(failOn: FailThreshold = .error, timeout: Double = 120, jobs: Int? = nil) {
        self.failOn = failOn
        self.timeout = timeout
        self.jobs = jobs
    }
}

/// A `deviceClasses` entry: a profile id, or the classes of the receivers on the LAN now.
public enum DeviceClassSelector: Sendable, Equatable, CustomStringConvertible {
    case profile(String)
    case discovered

    public var description: String {
        switch self {
        case .profile(let id): return id
        case .discovered: return "discovered"
        }
    }
}

/// The `discovery` section: how `discovered` finds and classifies receivers.
public struct DiscoverySettings: Sendable, Equatable {
    /// A lab inventory file (schema: DeviceProfiles/README.md), resolved like case inputs.
    public var inventory: String?
    public var timeout: Double
    public var interface: String?

    public init(inventory: String? = nil, timeout: Double = 10, interface: String? = nil) {
        self.inventory = inventory
        self.timeout = timeout
        self.interface = interface
    }
}

/// One case: a primary with its interstitials, or a primary playlist.
public struct MatrixCase: Sendable, Equatable, Identifiable {
    public var id: String
    public var source: CaseSource
    public var tags: [String]
    /// Where it is in the file (`cases[3]`), for messages.
    public var field: String

    public init(id: String, source: CaseSource, tags: [String] = [], field: String = "") {
        self.id = id
        self.source = source
        self.tags = tags
        self.field = field
    }

    public var inputs: [InputLocation] {
        switch source {
        case .explicit(let primary, let interstitials): return [primary] + interstitials
        case .playlist(let playlist): return [playlist]
        }
    }
}

public enum CaseSource: Sendable, Equatable {
    case explicit(primary: InputLocation, interstitials: [InputLocation])
    case playlist(InputLocation)

    /// "explicit" or "playlist", as stored and reported.
    public var kind: String {
        switch self {
        case .explicit: return "explicit"
        case .playlist: return "playlist"
        }
    }
}

/// An issue the team accepts: findings it matches are reported as `known` (in a matrix) or
/// `accepted` (lint and audit), not as failures.
///
/// Each of `case`, `rule`, `deviceClass`, `subject` and `url` is an exact name or a pattern where
/// `*` stands for any run of characters (`*` alone matches everything). `subject` and `url` come
/// from `.seamcheck.yml`; nil matches any finding.
public struct ExpectedIssue: Sendable, Equatable, Codable {
    public var caseId: String
    public var rule: String
    public var deviceClass: String
    public var reason: String
    /// A pattern for the finding's subject (`EXT-X-DATERANGE ID="ad1"*`).
    public var subject: String?
    /// A pattern for the playlist the finding points into, or, for findings about media, the
    /// audited input.
    public var url: String?
    /// Where it was written (`.seamcheck.yml: accepted[2]`), for "matched nothing" notes; nil in matrix files.
    public var origin: String?

    public init(caseId: String, rule: String, deviceClass: String, reason: String,
                subject: String? = nil, url: String? = nil, origin: String? = nil) {
        self.caseId = caseId
        self.rule = rule
        self.deviceClass = deviceClass
        self.reason = reason
        self.subject = subject
        self.url = url
        self.origin = origin
    }

    /// Whether this issue covers a finding of `rule` in case `caseId` on `deviceClass`. The
    /// grader passes a class-independent finding with the class of the cell it is graded in;
    /// with no class at all, only `*` covers it.
    public func matches(caseId: String, rule: String, deviceClass: String?) -> Bool {
        Glob.matches(self.caseId, caseId) && Glob.matches(self.rule, rule)
            && (deviceClass.map { Glob.matches(self.deviceClass, $0) } ?? (self.deviceClass == "*"))
    }

    /// The same, also checking `subject` and `url` against the finding; `input` is what was audited.
    public func matches(caseId: String, finding: Finding, deviceClass: String?, input: String) -> Bool {
        matches(caseId: caseId, rule: finding.rule, deviceClass: deviceClass)
            && (subject.map { Glob.matches($0, finding.subject) } ?? true)
            && (url.map { Glob.matches($0, finding.location?.uri ?? input) } ?? true)
    }
}
