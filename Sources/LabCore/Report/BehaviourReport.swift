import Compatibility
import Foundation

/// One receiver x feature of the conformance table: the newest judgement, and how many of the
/// receiver's judgements of that feature came to the same outcome.
public struct BehaviourReportCell: Codable, Sendable, Equatable {
    public var receiver: String
    public var deviceClass: String?
    public var feature: String
    public var `case`: String
    public var outcome: BehaviourOutcome
    public var why: String?
    /// "run" (a `lab run` cell, with its playback series) or "session" (played from the lab page).
    public var source: String
    /// When the newest judgement's session ended.
    public var judgedAt: Date
    /// Judgements of this receiver x feature, and how many came to `outcome`.
    public var judgements: Int
    public var agreeing: Int
    public var checks: [BehaviourCheck]
    /// The deciding requests, one line each ("4.2 s /cases/.../ad-1/seg_000.m4s 200").
    public var evidence: [String]
    /// The `lab run` that judged it, when `source` is "run".
    public var runId: String?
}

/// One device class x feature: how its receivers' newest judgements fall ("3 conforms, 1 deviates").
public struct BehaviourClassCell: Codable, Sendable, Equatable {
    public var deviceClass: String
    public var feature: String
    /// Receivers per outcome (JSON keys are the outcomes' spellings).
    public var counts: [String: Int]
    public var summary: String
}

/// A column of the table.
public struct BehaviourFeature: Codable, Sendable, Equatable {
    public var feature: String
    public var `case`: String
    public var title: String
}

/// A row of the table.
public struct BehaviourReceiverRow: Codable, Sendable, Equatable {
    public var receiver: String
    public var deviceClass: String?
}

/// `seamcheck lab report --behaviour` (docs/interface.md): receivers as rows, features as columns.
public struct BehaviourReport: Codable, Sendable, Equatable {
    public var schemaVersion = 1
    public var features: [BehaviourFeature]
    public var receivers: [BehaviourReceiverRow]
    public var cells: [BehaviourReportCell]
    public var classes: [BehaviourClassCell]
    /// Cells per outcome.
    public var summary: [String: Int]

    public func cell(_ receiver: String, _ feature: String) -> BehaviourReportCell? {
        cells.first { $0.receiver == receiver && $0.feature == feature }
    }
}

/// Judges every behaviour session the lab has seen, `lab run` cells (with their series) and
/// sessions a person played from the lab page (their requests alone), and keeps the newest per
/// receiver x feature.
public struct BehaviourReportBuilder: Sendable {
    public let manifest: LabManifest
    public let profiles: [DeviceProfile]

    public init(manifest: LabManifest, profiles: [DeviceProfile]) {
        self.manifest = manifest
        self.profiles = profiles
    }

    struct Judged {
        var receiver: String
        var deviceClass: String?
        var judgement: BehaviourJudgement
        var at: Date
        var source: String
        var runId: String?
    }

    /// `requests`: the request log (the sessions' requests are found in it by client, case and time);
    /// `sessions`: `SessionBuilder`'s sessions of that log; `cells`: `lab run`'s stored cells.
    public func report(sessions: [LabSession], requests: [LabRequestRecord], cells: [LabRunCell]) -> BehaviourReport {
        let behaviourCases = manifest.cases.filter { $0.behaviour != nil }
        let runNames = Dictionary(cells.map { ($0.address, $0.receiver) }, uniquingKeysWith: { first, _ in first })
        var judged: [Judged] = []
        for cell in cells {
            guard let labCase = manifest.case(cell.caseId), labCase.behaviour != nil, cell.measurement.outcome != .skipped else { continue }
            let judgement = cell.behaviour ?? judge(labCase, requests: cell.requests, series: cell.series, deviceClass: cell.deviceClass)
            if let judgement {
                judged.append(Judged(receiver: cell.receiver, deviceClass: cell.deviceClass, judgement: judgement, at: cell.finishedAt,
                                     source: "run", runId: cell.runId))
            }
        }
        let byClient = Dictionary(grouping: requests, by: { SessionBuilder.key($0.station, $0.client) })
        for session in sessions {
            guard let labCase = manifest.case(session.case), labCase.behaviour != nil else { continue }
            // A `lab run` cell's requests are in the log too: that session is the cell, judged with its series.
            let isCell = cells.contains { $0.address == session.client && $0.station == session.station && $0.caseId == session.case
                && session.started >= $0.startedAt.addingTimeInterval(-2) && session.started <= $0.finishedAt }
            if isCell { continue }
            let mine = (byClient[SessionBuilder.key(session.station, session.client)] ?? []).filter { $0.caseId == session.case && $0.at >= session.started && $0.at <= session.ended }
            guard let judgement = judge(labCase, requests: mine, series: nil, deviceClass: session.deviceClass) else { continue }
            judged.append(Judged(receiver: session.receiver ?? runNames[session.client] ?? session.client, deviceClass: session.deviceClass,
                                 judgement: judgement, at: session.ended, source: "session", runId: nil))
        }
        var cellsOut: [BehaviourReportCell] = []
        var rows: [BehaviourReceiverRow] = []
        for group in Dictionary(grouping: judged, by: { "\($0.receiver)\u{0}\($0.judgement.feature)" }).values {
            let sorted = group.sorted { $0.at < $1.at }
            let newest = sorted.last!
            // An inconclusive newest session does not hide a conclusive one before it.
            let decisive = sorted.last { ![.notJudged].contains($0.judgement.outcome) } ?? newest
            let j = decisive.judgement
            cellsOut.append(BehaviourReportCell(
                receiver: decisive.receiver, deviceClass: newest.deviceClass ?? decisive.deviceClass, feature: j.feature, case: j.caseId,
                outcome: j.outcome, why: j.why, source: decisive.source, judgedAt: decisive.at, judgements: group.count,
                agreeing: group.filter { $0.judgement.outcome == j.outcome }.count, checks: j.checks, evidence: j.evidence.map(\.line),
                runId: decisive.runId))
        }
        for cell in cellsOut where !rows.contains(where: { $0.receiver == cell.receiver }) {
            rows.append(BehaviourReceiverRow(receiver: cell.receiver, deviceClass: cell.deviceClass))
        }
        rows.sort { ($0.deviceClass ?? "~", $0.receiver) < ($1.deviceClass ?? "~", $1.receiver) }
        let order = Dictionary(behaviourCases.enumerated().map { ($0.element.behaviour!.feature, $0.offset) }, uniquingKeysWith: { a, _ in a })
        cellsOut.sort { ($0.receiver, order[$0.feature] ?? .max) < ($1.receiver, order[$1.feature] ?? .max) }
        let features = behaviourCases.map { BehaviourFeature(feature: $0.behaviour!.feature, case: $0.id, title: $0.behaviour!.title) }
        let classes = Set(rows.compactMap(\.deviceClass)).sorted().flatMap { deviceClass in
            features.compactMap { feature -> BehaviourClassCell? in
                let members = cellsOut.filter { $0.deviceClass == deviceClass && $0.feature == feature.feature }
                guard !members.isEmpty else { return nil }
                let counts = Dictionary(members.map { ($0.outcome.rawValue, 1) }, uniquingKeysWith: +)
                return BehaviourClassCell(deviceClass: deviceClass, feature: feature.feature, counts: counts, summary: Self.summary(counts))
            }
        }
        let summary = Dictionary(cellsOut.map { ($0.outcome.rawValue, 1) }, uniquingKeysWith: +)
        return BehaviourReport(features: features, receivers: rows, cells: cellsOut, classes: classes, summary: summary)
    }

    private func judge(_ labCase: LabCase, requests: [LabRequestRecord], series: PlaybackSeries?, deviceClass: String?) -> BehaviourJudgement? {
        BehaviourJudge.judge(case: labCase, primaryTimeline: manifest.primaryTimeline, requests: requests, series: series,
                             deviceClass: deviceClass, profile: profiles.first { $0.id == deviceClass })
    }

    /// "3 conforms, 1 deviates": outcomes in table order (deviates first).
    public static func summary(_ counts: [String: Int]) -> String {
        BehaviourOutcome.allCases.sorted().compactMap { outcome in counts[outcome.rawValue].map { "\($0) \(outcome.rawValue)" } }
            .joined(separator: ", ")
    }
}
