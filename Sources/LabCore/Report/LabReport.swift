import Compatibility
import Foundation

/// One case on one receiver (or, in `classes`, one case on one device class): the class's
/// prediction against what was observed (docs/interface.md, "lab report").
public struct LabReportCell: Codable, Sendable, Equatable {
    public var `case`: String
    public var deviceClass: String?
    /// The receiver's name; nil in class cells.
    public var receiver: String?
    /// The station the receiver is at (one name at two stations is two receivers); nil in class
    /// cells and for the unknown station.
    public var station: String? = nil
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
    /// Whose verdict `observed` is: "operator" (wins when there is one) or "measured"; nil without one.
    public var source: String?
    /// The latest operator's verdict and the measured one, side by side (both are shown).
    public var operatorVerdict: String?
    public var measuredVerdict: String?
    /// What `lab run` measured (first frame, stall per transition...), or nil when the cell was not run.
    public var measured: MeasuredColumns?
    /// The latest measured cell's picture, for the HTML report (not in the JSON: the series is long).
    public var timeline: LabTimeline? = nil

    private enum CodingKeys: String, CodingKey {
        case `case`, deviceClass, receiver, station, predicted, observed, agrees, evidence, rules, verdicts
        case source, operatorVerdict, measuredVerdict, measured
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(`case`, forKey: .case)
        try c.encode(deviceClass, forKey: .deviceClass)
        try c.encode(receiver, forKey: .receiver)
        try c.encode(station, forKey: .station)
        try c.encode(predicted, forKey: .predicted)
        try c.encode(observed, forKey: .observed)
        try c.encode(agrees, forKey: .agrees)
        try c.encode(evidence, forKey: .evidence)
        try c.encode(rules, forKey: .rules)
        try c.encode(verdicts, forKey: .verdicts)
        try c.encode(source, forKey: .source)
        try c.encode(operatorVerdict, forKey: .operatorVerdict)
        try c.encode(measuredVerdict, forKey: .measuredVerdict)
        try c.encode(measured, forKey: .measured)
    }
}

public struct LabReport: Codable, Sendable, Equatable {
    public struct Summary: Codable, Sendable, Equatable {
        public var cells: Int
        public var agree: Int
        public var disagree: Int
        public var unobserved: Int
        /// Receiver cells with a measurement from `lab run`.
        public var measured: Int = 0
    }

    public var schemaVersion = 1
    /// One cell per (case, receiver) that has a verdict or a session: disagreements first.
    public var cells: [LabReportCell]
    /// One cell per (case, device class) over the class's receivers; classes nobody tested keep observed null.
    public var classes: [LabReportCell]
    public var summary: Summary
    /// The thresholds measured stalls were graded with.
    public var thresholds: MeasurementThresholds = .defaults
}

extension LabReport {
    /// Whether the receiver cells come from more than one station (then reports name the station).
    public var spansStations: Bool { Set(cells.map(\.station)).count > 1 }

    /// A cell's receiver as reports show it: "Den TV", or "Den TV @ room-a" when the report spans stations.
    public func receiverLabel(_ cell: LabReportCell) -> String {
        guard let receiver = cell.receiver else { return "-" }
        return spansStations ? "\(receiver) @ \(cell.station ?? "unknown station")" : receiver
    }
}

/// Builds the lab report from the suite, the profiles, the verdicts and the sessions.
public struct LabReportBuilder: Sendable {
    public let manifest: LabManifest
    public let profiles: [DeviceProfile]
    public let thresholds: MeasurementThresholds

    public init(manifest: LabManifest, profiles: [DeviceProfile], thresholds: MeasurementThresholds = .defaults) {
        self.manifest = manifest
        self.profiles = profiles
        self.thresholds = thresholds
    }

    /// The class's severity for the case's rules: the highest, "pass" when no rule fires on it.
    public func predicted(_ labCase: LabCase, deviceClass: String?) -> String? {
        guard let deviceClass, let profile = profiles.first(where: { $0.id == deviceClass }) else { return nil }
        let severities = labCase.rules.compactMap { id in
            RuleCatalog.descriptions.first { $0.id == id }.flatMap { profile.severity(for: $0) }
        }
        return severities.max()?.rawValue ?? "pass"
    }

    /// `cells` are `lab run`'s measured cells (the latest per receiver x case is used).
    public func report(verdicts: [LabVerdictRecord], sessions: [LabSession], cells runCells: [LabRunCell] = []) -> LabReport {
        // A receiver is a name at a station: the same name in two rooms is two receivers.
        struct Key: Hashable { var caseId: String; var receiver: String; var station: String? }
        var keys: [Key] = []
        var classOf: [Key: String] = [:]
        // Behaviour cases are judged, not graded: `lab report --behaviour` shows them, these tables do not.
        func graded(_ id: String) -> Bool { manifest.case(id).map { $0.kind != .behaviour } ?? false }
        for verdict in verdicts where graded(verdict.caseId) {
            let key = Key(caseId: verdict.caseId, receiver: verdict.receiver, station: verdict.station)
            if !keys.contains(key) { keys.append(key) }
            if let c = verdict.deviceClass { classOf[key] = c }
        }
        // A receiver `lab run` reached by address (no name from discovery or the inventory) is named
        // so in its cells; its sessions, keyed by client address, join those cells.
        let runNames = Dictionary(runCells.map { (SessionBuilder.key($0.station, $0.address), $0.receiver) },
                                  uniquingKeysWith: { first, _ in first })
        func name(_ session: LabSession) -> String {
            session.receiver ?? runNames[SessionBuilder.key(session.station, session.client)] ?? session.client
        }
        for session in sessions where graded(session.case) {
            let key = Key(caseId: session.case, receiver: name(session), station: session.station)
            if !keys.contains(key) { keys.append(key) }
            if classOf[key] == nil, let c = session.deviceClass { classOf[key] = c }
        }
        var latestRun: [Key: LabRunCell] = [:]
        for cell in runCells.sorted(by: { $0.finishedAt < $1.finishedAt }) where graded(cell.caseId) {
            let key = Key(caseId: cell.caseId, receiver: cell.receiver, station: cell.station)
            if !keys.contains(key) { keys.append(key) }
            if classOf[key] == nil, let c = cell.deviceClass { classOf[key] = c }
            latestRun[key] = cell
        }
        var cells: [LabReportCell] = []
        for key in keys {
            guard let labCase = manifest.case(key.caseId) else { continue }
            let mine = verdicts.filter { $0.caseId == key.caseId && $0.receiver == key.receiver && $0.station == key.station }
            let seen = sessions.filter { $0.case == key.caseId && name($0) == key.receiver && $0.station == key.station }
            var made = cell(labCase, receiver: key.receiver, deviceClass: classOf[key], verdicts: mine, sessions: seen,
                            run: latestRun[key])
            made.station = key.station
            cells.append(made)
        }
        cells.sort(by: Self.order)
        let classes = profiles.flatMap { profile in
            manifest.cases.filter { $0.kind != .behaviour }.map { labCase in classCell(labCase, deviceClass: profile.id, cells: cells) }
        }.sorted(by: Self.order)
        let summary = LabReport.Summary(cells: cells.count, agree: cells.filter { $0.agrees == true }.count,
                                        disagree: cells.filter { $0.agrees == false }.count,
                                        unobserved: cells.filter { $0.observed == nil }.count,
                                        measured: cells.filter { $0.measured != nil }.count)
        return LabReport(cells: cells, classes: classes, summary: summary, thresholds: thresholds)
    }

    private func cell(_ labCase: LabCase, receiver: String, deviceClass: String?, verdicts: [LabVerdictRecord],
                      sessions: [LabSession], run: LabRunCell?) -> LabReportCell {
        let predicted = predicted(labCase, deviceClass: deviceClass)
        let operators = verdicts.filter { $0.source == .operator }
        let latest = operators.last
        let measuredRecord = verdicts.last { $0.source == .measured }
        let measured = run.map { MeasuredColumns($0, labCase: labCase, thresholds: thresholds) }
            ?? measuredRecord.map { MeasuredColumns(recorded: $0, thresholds: thresholds) }
        var evidence: [String] = []
        if let predicted {
            evidence.append(labCase.rules.isEmpty ? "\(deviceClass ?? "?") predicts pass (the case changes nothing)"
                            : "\(deviceClass ?? "?") grades \(labCase.rules.joined(separator: ", ")) \(predicted)")
        } else {
            evidence.append("receiver has no device class: nothing predicted (classify it, or pin it in --inventory)")
        }
        if let latest {
            evidence.append("verdict \(latest.verdict.rawValue)" + (latest.seconds.map { " (\(Self.seconds($0)))" } ?? "")
                            + (latest.note.map { ": \($0)" } ?? "") + (operators.count > 1 ? "; \(operators.count) verdicts recorded" : ""))
        }
        if let measured {
            evidence.append("measured \(measured.verdict)" + (measured.stallMs.map { " \(String(format: "%.0f", $0)) ms" } ?? "")
                            + ": \(measured.reason)" + (latest != nil ? " (the operator's verdict wins)" : ""))
        }
        if let session = sessions.last {
            evidence.append(Self.describe(session, labCase: labCase))
        }
        var agrees: Bool?
        let predictedLevel = predicted.map { ObservedLevel(Severity(rawValue: $0)) }
        if let predictedLevel, let latest, let observed = ObservedLevel(latest.verdict) {
            agrees = observed == predictedLevel
        } else if let predictedLevel, latest == nil, let level = measured?.level.flatMap(ObservedLevel.init(rawValue:)) {
            agrees = level == predictedLevel
        }
        let observed = latest?.verdict.rawValue ?? measured?.verdict
        var result = LabReportCell(case: labCase.id, deviceClass: deviceClass, receiver: receiver, predicted: predicted,
                                   observed: observed, agrees: agrees, evidence: evidence.joined(separator: "; "),
                                   rules: labCase.rules, verdicts: verdicts.map(\.verdict.rawValue),
                                   source: latest != nil ? LabVerdictSource.operator.rawValue : measured != nil ? LabVerdictSource.measured.rawValue : nil,
                                   operatorVerdict: latest?.verdict.rawValue, measuredVerdict: measured?.verdict, measured: measured)
        if let run {
            result.timeline = LabTimeline(run, labCase: labCase, verdict: Self.verdictText(result))
        }
        return result
    }

    /// "stall 1200 ms (measured)", "seamless (operator; measured stall 1200 ms)".
    public static func verdictText(_ cell: LabReportCell) -> String {
        guard let observed = cell.observed else { return "no verdict" }
        let measuredText = cell.measured.map { $0.verdict + ($0.stallMs.map { " \(String(format: "%.0f", $0)) ms" } ?? "") }
        if cell.source == LabVerdictSource.measured.rawValue { return "\(measuredText ?? observed) (measured)" }
        return "\(observed) (operator" + (measuredText.map { "; measured \($0)" } ?? "") + ")"
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
        let measured = MeasuredColumns.rollUp(members.compactMap(\.measured))
        if let measured { evidence += "; " + measured.reason }
        return LabReportCell(case: labCase.id, deviceClass: deviceClass, receiver: nil, predicted: predicted,
                             observed: worst?.rawValue, agrees: compared.isEmpty ? nil : !compared.contains(false),
                             evidence: evidence, rules: labCase.rules, verdicts: observed,
                             source: nil, operatorVerdict: nil, measuredVerdict: measured?.verdict, measured: measured)
    }

    /// Disagreements, then cells not yet compared, then agreements; by case and class within.
    static func order(_ a: LabReportCell, _ b: LabReportCell) -> Bool {
        func rank(_ cell: LabReportCell) -> Int { cell.agrees == false ? 0 : cell.agrees == nil ? 1 : 2 }
        return (rank(a), a.case, a.deviceClass ?? "~", a.receiver ?? "", a.station ?? "")
            < (rank(b), b.case, b.deviceClass ?? "~", b.receiver ?? "", b.station ?? "")
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
