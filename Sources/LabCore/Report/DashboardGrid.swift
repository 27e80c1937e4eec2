import Foundation

/// What the dashboard draws: receivers x cases, the newest verdict per cell (measured and the
/// operator's), a per class x case roll-up, and for a run in progress each receiver's progress and ETA.
public struct DashboardGrid: Codable, Sendable, Equatable {
    public struct Receiver: Codable, Sendable, Equatable {
        public var station: String?
        public var receiver: String
        public var deviceClass: String?
        /// What it ran in its newest cell shown.
        public var software: LabReceiverSoftware?
        /// Its software differs between the cells shown, or from its previous run: "srcvers 1 -> 2".
        public var firmwareChanges: [String]
    }

    public struct Cell: Codable, Sendable, Equatable {
        public var measured: LabCellBrief
        /// The newest operator verdict for this receiver and case, when one was given.
        public var operatorVerdict: String?
        public var operatorNote: String?
    }

    /// The worst of a class's receivers on one case.
    public struct ClassCell: Codable, Sendable, Equatable {
        public var deviceClass: String
        public var caseId: String
        public var worst: String
        public var receivers: Int
        public var counts: [String: Int]
    }

    /// One receiver's progress in a run: cells stored of those asked, and the time left at its pace so far.
    public struct Progress: Codable, Sendable, Equatable {
        public var station: String?
        public var receiver: String
        public var done: Int
        public var total: Int
        /// Mean seconds a cell took on this receiver, and the seconds left at that pace (nil before its first cell).
        public var secondsPerCell: Double?
        public var etaSeconds: Double?
        /// The case it played last.
        public var lastCase: String?
    }

    public var schemaVersion = 1
    /// The run shown, or nil for "latest" (the newest cell per receiver x case across runs).
    public var run: LabRunSummary?
    public var receivers: [Receiver]
    public var cases: [String]
    public var cells: [Cell]
    public var classes: [ClassCell]
    public var progress: [Progress]
}

public enum DashboardGridBuilder {
    /// The grid over `cells` (a run's, or the newest per receiver x case); `previousSoftware` is what
    /// each receiver ran before (its previous run), for the firmware-changed mark.
    public static func build(run: LabRunSummary?, cells: [LabCellBrief], operatorVerdicts: [LabVerdictRecord], caseOrder: [String],
                             previousSoftware: [String: LabReceiverSoftware] = [:]) -> DashboardGrid {
        struct Key: Hashable { var station: String?; var receiver: String; var caseId: String }
        var newest: [Key: LabCellBrief] = [:]
        for cell in cells { newest[Key(station: cell.station, receiver: cell.receiver, caseId: cell.caseId)] = cell }
        var verdicts: [Key: LabVerdictRecord] = [:]
        for verdict in operatorVerdicts { verdicts[Key(station: verdict.station, receiver: verdict.receiver, caseId: verdict.caseId)] = verdict }
        let shown = newest.values.sorted { ($0.finishedAt, $0.id) < ($1.finishedAt, $1.id) }
        let gridCells = shown.map { cell in
            let verdict = verdicts[Key(station: cell.station, receiver: cell.receiver, caseId: cell.caseId)]
            return DashboardGrid.Cell(measured: cell, operatorVerdict: verdict?.verdict.rawValue, operatorNote: verdict?.note)
        }
        let known = Set(shown.map(\.caseId))
        var cases = caseOrder.filter(known.contains)
        cases += known.subtracting(cases).sorted()
        return DashboardGrid(run: run, receivers: receivers(shown, previousSoftware: previousSoftware), cases: cases, cells: gridCells,
                             classes: classes(shown), progress: run.map { progress(run: $0, cells: cells) } ?? [])
    }

    static func receivers(_ cells: [LabCellBrief], previousSoftware: [String: LabReceiverSoftware]) -> [DashboardGrid.Receiver] {
        struct Key: Hashable { var station: String?; var receiver: String }
        let grouped = Dictionary(grouping: cells) { Key(station: $0.station, receiver: $0.receiver) }
        return grouped.map { key, cells in
            let ordered = cells.sorted { ($0.finishedAt, $0.id) < ($1.finishedAt, $1.id) }
            let latest = ordered.last { $0.software != nil }?.software
            var changes: [String] = []
            var seen = ordered.first { $0.software != nil }?.software
            if let before = previousSoftware[DashboardGridBuilder.receiverKey(key.station, key.receiver)], let first = seen, first.differs(from: before) {
                changes += before.changes(to: first)
            }
            for cell in ordered {
                guard let software = cell.software else { continue }
                if let was = seen, software.differs(from: was) { changes += was.changes(to: software) }
                seen = software
            }
            return DashboardGrid.Receiver(station: key.station, receiver: key.receiver, deviceClass: ordered.last?.deviceClass,
                                          software: latest, firmwareChanges: changes)
        }.sorted { ($0.receiver, $0.station ?? "") < ($1.receiver, $1.station ?? "") }
    }

    /// "station\u{1}receiver": the key `previousSoftware` is given by.
    public static func receiverKey(_ station: String?, _ receiver: String) -> String { (station ?? "") + "\u{1}" + receiver }

    static func classes(_ cells: [LabCellBrief]) -> [DashboardGrid.ClassCell] {
        struct Key: Hashable { var deviceClass: String; var caseId: String }
        let grouped = Dictionary(grouping: cells.filter { $0.deviceClass != nil }) { Key(deviceClass: $0.deviceClass!, caseId: $0.caseId) }
        return grouped.map { key, members in
            var counts: [String: Int] = [:]
            for member in members { counts[member.verdict, default: 0] += 1 }
            let worst = members.map(\.verdict).max { rank($0) < rank($1) } ?? "skipped"
            return DashboardGrid.ClassCell(deviceClass: key.deviceClass, caseId: key.caseId, worst: worst, receivers: members.count, counts: counts)
        }.sorted { ($0.deviceClass, $0.caseId) < ($1.deviceClass, $1.caseId) }
    }

    /// Worse verdicts rank higher; skipped (nothing said) lowest.
    static func rank(_ verdict: String) -> Int {
        switch LabVerdict(rawValue: verdict) {
        case .seamless: 1
        case .glitch: 2
        case .stall: 3
        case .black: 4
        case .failed: 5
        case .skipped, nil: 0
        }
    }

    /// Each receiver's cells done of the run's cases, with its pace and the time left.
    public static func progress(run: LabRunSummary, cells: [LabCellBrief]) -> [DashboardGrid.Progress] {
        struct Key: Hashable { var station: String?; var receiver: String }
        let grouped = Dictionary(grouping: cells) { Key(station: $0.station, receiver: $0.receiver) }
        let total = max(run.cases.count, 1)
        var rows = grouped.map { key, cells -> DashboardGrid.Progress in
            let done = Set(cells.filter(\.done).map(\.caseId)).count
            let walls = cells.filter(\.done).map { $0.finishedAt.timeIntervalSince($0.startedAt) }.filter { $0 >= 0 }
            let pace = walls.isEmpty ? nil : walls.reduce(0, +) / Double(walls.count)
            let left = max(total - done, 0)
            return DashboardGrid.Progress(station: key.station, receiver: key.receiver, done: done, total: total, secondsPerCell: pace,
                                          etaSeconds: run.state == .running ? pace.map { $0 * Double(left) } : (left == 0 ? 0 : nil),
                                          lastCase: cells.max { $0.id < $1.id }?.caseId)
        }
        // Receivers the run named that have no cell yet.
        let named = Set(rows.map(\.receiver))
        for receiver in run.receivers where !named.contains(receiver) {
            rows.append(DashboardGrid.Progress(station: run.station, receiver: receiver, done: 0, total: total, secondsPerCell: nil,
                                               etaSeconds: nil, lastCase: nil))
        }
        return rows.sorted { ($0.receiver, $0.station ?? "") < ($1.receiver, $1.station ?? "") }
    }
}
