import Foundation

/// When a cell's change between two runs counts: the rules are data (`lab report --compare
/// --threshold-stall-ms`), their examples run as tests (RunComparisonTests).
public struct ComparisonThresholds: Codable, Sendable, Equatable {
    /// A stall this much longer (ms) on the same verdict is worse; this much shorter is better.
    public var stallChangeMs: Double

    public init(stallChangeMs: Double = 200) { self.stallChangeMs = stallChangeMs }
    public static let defaults = ComparisonThresholds()
}

/// Two runs side by side, per station x receiver x case: what got worse (seamless -> stall,
/// conforms -> deviates, a stall longer by the threshold), what got better, what is new, what is
/// gone, with the receiver's software on each side. `lab report --compare A B` and the dashboard.
public struct RunComparison: Codable, Sendable, Equatable {
    public enum Change: String, Codable, Sendable, CaseIterable {
        case worse, better, new, gone, same
    }

    /// One side of an entry: the cell as it was in that run.
    public struct Side: Codable, Sendable, Equatable {
        public var runId: String
        public var verdict: String
        public var stallMs: Double?
        public var behaviour: String?
        public var reason: String
        public var software: LabReceiverSoftware?

        public init(_ cell: LabCellBrief) {
            runId = cell.runId
            verdict = cell.verdict
            stallMs = cell.stallMs
            behaviour = cell.behaviour
            reason = cell.reason
            software = cell.software
        }
    }

    public struct Entry: Codable, Sendable, Equatable {
        public var station: String?
        public var receiver: String
        public var deviceClass: String?
        public var caseId: String
        public var change: Change
        /// In words: "seamless -> stall 1200 ms", "conforms -> deviates", "stall 300 -> 900 ms".
        public var what: String
        public var before: Side?
        public var after: Side?
        /// The receiver ran other software in the two runs (a version both sides know differs).
        public var firmwareChanged: Bool
    }

    /// A receiver whose software differs between the two runs.
    public struct FirmwareChange: Codable, Sendable, Equatable {
        public var station: String?
        public var receiver: String
        public var before: LabReceiverSoftware
        public var after: LabReceiverSoftware
        /// "srcvers 377.40.00 -> 380.20.1".
        public var changes: [String]
    }

    public var schemaVersion = 1
    public var before: String
    public var after: String
    public var thresholds: ComparisonThresholds
    /// Worse first, then better, new, gone; `same` entries are left out.
    public var entries: [Entry]
    public var firmware: [FirmwareChange]
    public var counts: [String: Int]

    public var regressions: [Entry] { entries.filter { $0.change == .worse } }
}

/// Compares the cells of two runs (`before`, then `after`).
public struct RunComparer: Sendable {
    public var thresholds: ComparisonThresholds

    public init(thresholds: ComparisonThresholds = .defaults) { self.thresholds = thresholds }

    public func compare(before beforeRun: String, _ beforeCells: [LabCellBrief], after afterRun: String,
                        _ afterCells: [LabCellBrief]) -> RunComparison {
        struct Key: Hashable { var station: String?; var receiver: String; var caseId: String }
        func index(_ cells: [LabCellBrief]) -> [Key: LabCellBrief] {
            // The last stored attempt of each cell counts; a cell stored as not run is not an observation.
            var result: [Key: LabCellBrief] = [:]
            for cell in cells where cell.done { result[Key(station: cell.station, receiver: cell.receiver, caseId: cell.caseId)] = cell }
            return result
        }
        let a = index(beforeCells), b = index(afterCells)
        var entries: [RunComparison.Entry] = []
        for key in Set(a.keys).union(b.keys) {
            let old = a[key], new = b[key]
            let (change, what) = judge(old, new)
            guard change != .same else { continue }
            let firmwareChanged = new?.software.map { $0.differs(from: old?.software) } ?? false
            entries.append(RunComparison.Entry(station: key.station, receiver: key.receiver, deviceClass: new?.deviceClass ?? old?.deviceClass,
                                               caseId: key.caseId, change: change, what: what, before: old.map(RunComparison.Side.init),
                                               after: new.map(RunComparison.Side.init), firmwareChanged: firmwareChanged))
        }
        let order = RunComparison.Change.allCases
        entries.sort {
            (order.firstIndex(of: $0.change)!, $0.receiver, $0.station ?? "", $0.caseId)
                < (order.firstIndex(of: $1.change)!, $1.receiver, $1.station ?? "", $1.caseId)
        }
        var firmware: [RunComparison.FirmwareChange] = []
        struct Receiver: Hashable { var station: String?; var receiver: String }
        func software(_ cells: [LabCellBrief]) -> [Receiver: LabReceiverSoftware] {
            var result: [Receiver: LabReceiverSoftware] = [:]
            for cell in cells { if let s = cell.software { result[Receiver(station: cell.station, receiver: cell.receiver)] = s } }
            return result
        }
        let oldSoftware = software(beforeCells), newSoftware = software(afterCells)
        for (receiver, now) in newSoftware.sorted(by: { ($0.key.receiver, $0.key.station ?? "") < ($1.key.receiver, $1.key.station ?? "") }) {
            if let was = oldSoftware[receiver], now.differs(from: was) {
                firmware.append(.init(station: receiver.station, receiver: receiver.receiver, before: was, after: now, changes: was.changes(to: now)))
            }
        }
        var counts: [String: Int] = [:]
        for change in order where change != .same { counts[change.rawValue] = entries.filter { $0.change == change }.count }
        return RunComparison(before: beforeRun, after: afterRun, thresholds: thresholds, entries: entries, firmware: firmware, counts: counts)
    }

    /// One cell's change. Behaviour outcomes first (conforms -> deviates or ignores is worse), then
    /// the verdict's level (seamless pass, glitch warning, stall/black/failed error; skipped is not
    /// compared), then, on the same verdict, the stall's length against the threshold.
    public func judge(_ old: LabCellBrief?, _ new: LabCellBrief?) -> (RunComparison.Change, String) {
        guard let new else { return (.gone, "not in the later run") }
        guard let old else { return (.new, "new: \(Self.describe(new))") }
        if let was = old.behaviour.flatMap(BehaviourOutcome.init(rawValue:)), let now = new.behaviour.flatMap(BehaviourOutcome.init(rawValue:)),
           was != now, Self.judged(was), Self.judged(now) {
            return (now < was ? .worse : .better, "\(was.rawValue) -> \(now.rawValue)")
        }
        let wasLevel = LabVerdict(rawValue: old.verdict).flatMap { ObservedLevel($0) }
        let nowLevel = LabVerdict(rawValue: new.verdict).flatMap { ObservedLevel($0) }
        guard let wasLevel, let nowLevel else {
            return old.verdict == new.verdict ? (.same, "") : (.new, "\(Self.describe(old)) -> \(Self.describe(new))")
        }
        if nowLevel != wasLevel {
            return (nowLevel > wasLevel ? .worse : .better, "\(Self.describe(old)) -> \(Self.describe(new))")
        }
        if let was = old.stallMs, let now = new.stallMs, abs(now - was) >= thresholds.stallChangeMs {
            return (now > was ? .worse : .better,
                    "\(new.verdict) \(String(format: "%.0f", was)) -> \(String(format: "%.0f", now)) ms (threshold \(String(format: "%.0f", thresholds.stallChangeMs)) ms)")
        }
        return (.same, "")
    }

    /// Conforms, ignores and deviates say something; not judged and not applicable do not.
    static func judged(_ outcome: BehaviourOutcome) -> Bool { [.conforms, .ignores, .deviates].contains(outcome) }

    /// "stall 1200 ms", "seamless", "deviates".
    public static func describe(_ cell: LabCellBrief) -> String {
        if let behaviour = cell.behaviour { return behaviour }
        if let ms = cell.stallMs { return "\(cell.verdict) \(String(format: "%.0f", ms)) ms" }
        return cell.verdict
    }
}
