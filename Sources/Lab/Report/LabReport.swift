import Compatibility
import Foundation

/// A verdict read as a severity, so that it can be held against a profile's prediction:
/// seamless is a pass, a glitch a warning, a stall, black screen or failure an error. A skipped
/// interstitial says nothing about the switch, so it is not compared.
public enum ObservedLevel: String, Codable, Sendable, Comparable {
    case pass, warning, error

    public init?(_ verdict: LabVerdict) {
        switch verdict {
        case .seamless: self = .pass
        case .glitch: self = .warning
        case .stall, .black, .failed: self = .error
        case .skipped: return nil
        }
    }

    /// A profile severity on the same scale (info is a pass: nothing a viewer notices).
    public init(_ severity: Severity?) {
        switch severity {
        case .error: self = .error
        case .warning: self = .warning
        case .info, nil: self = .pass
        }
    }

    public static func < (lhs: ObservedLevel, rhs: ObservedLevel) -> Bool {
        let order: [ObservedLevel] = [.pass, .warning, .error]
        return order.firstIndex(of: lhs)! < order.firstIndex(of: rhs)!
    }
}

/// One case on one receiver (or, in `classes`, one case on one device class): the class's
/// prediction against what was observed (INTERFACE.md, "lab report").
public struct LabReportCell: Codable, Sendable, Equatable {
    public var `case`: String
    public var deviceClass: String?
    /// The receiver's name; nil in class cells.
    public var receiver: String?
    /// The class's severity for the case's rules ("error", "warning", "info"), or "pass"; nil when
    /// the receiver has no class.
    public var predicted: String?
    /// The verdict (the latest, when several were recorded), or nil.
    public var observed: String?
    /// Whether the prediction held; nil when there is nothing to compare.
    public var agrees: Bool?
    /// What the prediction and the observation rest on, in words.
    public var evidence: String
    public var rules: [String]
    /// Every verdict recorded for this cell, oldest first.
    public var verdicts: [String]

    private enum CodingKeys: String, CodingKey {
        case `case`, deviceClass, receiver, predicted, observed, agrees, evidence, rules, verdicts
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(`case`, forKey: .case)
        try c.encode(deviceClass, forKey: .deviceClass)
        try c.encode(receiver, forKey: .receiver)
        try c.encode(predicted, forKey: .predicted)
        try c.encode(observed, forKey: .observed)
        try c.encode(agrees, forKey: .agrees)
        try c.encode(evidence, forKey: .evidence)
        try c.encode(rules, forKey: .rules)
        try c.encode(verdicts, forKey: .verdicts)
    }
}

public struct LabReport: Codable, Sendable, Equatable {
    public struct Summary: Codable, Sendable, Equatable {
        public var cells: Int
        public var agree: Int
        public var disagree: Int
        public var unobserved: Int
    }

    public var schemaVersion = 1
    /// One cell per (case, receiver) that has a verdict or a session: disagreements first.
    public var cells: [LabReportCell]
    /// One cell per (case, device class) over the class's receivers; classes nobody tested keep observed null.
    public var classes: [LabReportCell]
    public var summary: Summary
}

/// Builds the lab report from the suite, the profiles, the verdicts and the sessions.
public struct LabReportBuilder: Sendable {
    public let manifest: LabManifest
    public let profiles: [DeviceProfile]

    public init(manifest: LabManifest, profiles: [DeviceProfile]) {
        self.manifest = manifest
        self.profiles = profiles
    }

    /// The class's severity for the case's rules: the highest, "pass" when no rule fires on it.
    public func predicted(_ labCase: LabCase, deviceClass: String?) -> String? {
        guard let deviceClass, let profile = profiles.first(where: { $0.id == deviceClass }) else { return nil }
        let severities = labCase.rules.compactMap { id in
            RuleCatalog.descriptions.first { $0.id == id }.flatMap { profile.severity(for: $0) }
        }
        return severities.max()?.rawValue ?? "pass"
    }

    public func report(verdicts: [LabVerdictRecord], sessions: [LabSession]) -> LabReport {
        struct Key: Hashable { var caseId: String; var receiver: String }
        var keys: [Key] = []
        var classOf: [Key: String] = [:]
        for verdict in verdicts where manifest.case(verdict.caseId) != nil {
            let key = Key(caseId: verdict.caseId, receiver: verdict.receiver)
            if !keys.contains(key) { keys.append(key) }
            if let c = verdict.deviceClass { classOf[key] = c }
        }
        for session in sessions {
            let key = Key(caseId: session.case, receiver: session.receiver ?? session.client)
            if !keys.contains(key) { keys.append(key) }
            if classOf[key] == nil, let c = session.deviceClass { classOf[key] = c }
        }
        var cells: [LabReportCell] = []
        for key in keys {
            guard let labCase = manifest.case(key.caseId) else { continue }
            let mine = verdicts.filter { $0.caseId == key.caseId && $0.receiver == key.receiver }
            let seen = sessions.filter { $0.case == key.caseId && ($0.receiver ?? $0.client) == key.receiver }
            cells.append(cell(labCase, receiver: key.receiver, deviceClass: classOf[key], verdicts: mine, sessions: seen))
        }
        cells.sort(by: Self.order)
        let classes = profiles.flatMap { profile in
            manifest.cases.map { labCase in classCell(labCase, deviceClass: profile.id, cells: cells) }
        }.sorted(by: Self.order)
        let summary = LabReport.Summary(cells: cells.count, agree: cells.filter { $0.agrees == true }.count,
                                        disagree: cells.filter { $0.agrees == false }.count,
                                        unobserved: cells.filter { $0.observed == nil }.count)
        return LabReport(cells: cells, classes: classes, summary: summary)
    }

    private func cell(_ labCase: LabCase, receiver: String, deviceClass: String?, verdicts: [LabVerdictRecord],
                      sessions: [LabSession]) -> LabReportCell {
        let predicted = predicted(labCase, deviceClass: deviceClass)
        let latest = verdicts.last
        var evidence: [String] = []
        if let predicted {
            evidence.append(labCase.rules.isEmpty ? "\(deviceClass ?? "?") predicts pass (the case changes nothing)"
                            : "\(deviceClass ?? "?") grades \(labCase.rules.joined(separator: ", ")) \(predicted)")
        } else {
            evidence.append("receiver has no device class: nothing predicted (classify it, or pin it in --inventory)")
        }
        if let latest {
            evidence.append("verdict \(latest.verdict.rawValue)" + (latest.seconds.map { " (\(Self.seconds($0)))" } ?? "")
                            + (latest.note.map { ": \($0)" } ?? "") + (verdicts.count > 1 ? "; \(verdicts.count) verdicts recorded" : ""))
        }
        if let session = sessions.last {
            evidence.append(Self.describe(session, labCase: labCase))
        }
        var agrees: Bool?
        if let predicted, let latest, let observed = ObservedLevel(latest.verdict) {
            agrees = observed == ObservedLevel(Severity(rawValue: predicted))
        }
        return LabReportCell(case: labCase.id, deviceClass: deviceClass, receiver: receiver, predicted: predicted,
                             observed: latest?.verdict.rawValue, agrees: agrees, evidence: evidence.joined(separator: "; "),
                             rules: labCase.rules, verdicts: verdicts.map(\.verdict.rawValue))
    }

    private func classCell(_ labCase: LabCase, deviceClass: String, cells: [LabReportCell]) -> LabReportCell {
        let members = cells.filter { $0.case == labCase.id && $0.deviceClass == deviceClass }
        let observed = members.compactMap(\.observed)
        let compared = members.compactMap(\.agrees)
        let predicted = predicted(labCase, deviceClass: deviceClass)
        var evidence = "\(members.count) receiver(s)"
        if !observed.isEmpty {
            let counts = Dictionary(observed.map { ($0, 1) }, uniquingKeysWith: +).sorted { ($1.value, $0.key) < ($0.value, $1.key) }
            evidence += ": " + counts.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
        } else {
            evidence += members.isEmpty ? "; not tested yet" : "; no verdict yet"
        }
        let worst = observed.compactMap { LabVerdict(rawValue: $0) }.max { (ObservedLevel($0) ?? .pass) < (ObservedLevel($1) ?? .pass) }
        return LabReportCell(case: labCase.id, deviceClass: deviceClass, receiver: nil, predicted: predicted,
                             observed: worst?.rawValue, agrees: compared.isEmpty ? nil : !compared.contains(false),
                             evidence: evidence, rules: labCase.rules, verdicts: observed)
    }

    /// Disagreements, then cells not yet compared, then agreements; by case and class within.
    static func order(_ a: LabReportCell, _ b: LabReportCell) -> Bool {
        func rank(_ cell: LabReportCell) -> Int { cell.agrees == false ? 0 : cell.agrees == nil ? 1 : 2 }
        return (rank(a), a.case, a.deviceClass ?? "~", a.receiver ?? "") < (rank(b), b.case, b.deviceClass ?? "~", b.receiver ?? "")
    }

    static func describe(_ session: LabSession, labCase: LabCase) -> String {
        var parts: [String] = []
        if let variant = session.variant { parts.append("played \(variant)") }
        if labCase.interstitialPrefix != nil {
            parts.append(session.interstitialRequested
                ? "fetched the interstitial (\(session.interstitialSegments) segments)"
                : "never fetched the interstitial")
        }
        if let resumed = session.resumedAt { parts.append("resumed at \(seconds(resumed))") }
        if let observed = session.observedCapability, !observed.againstProfile.isEmpty {
            parts.append(observed.againstProfile.joined(separator: "; "))
        }
        if session.failedRequests > 0 { parts.append("\(session.failedRequests) failed requests") }
        return "session: " + parts.joined(separator: ", ")
    }

    static func seconds(_ value: Double) -> String {
        String(format: "%.3f", value).replacingOccurrences(of: #"\.?0+$"#, with: "", options: .regularExpression) + " s"
    }
}
