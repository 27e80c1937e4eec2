import AirPlayModel
import Foundation

// CONTRACT between the run loop (Sources/LabRun: plays, polls, stores) and the reports
// (Sources/LabCore/Report: reads cells back). Fields may be added; none renamed.

/// One unattended run (`seamcheck lab run`): its id, what it was asked to do, and how it ended.
public struct LabRunSummary: Codable, Sendable, Equatable {
    public enum State: String, Codable, Sendable {
        /// Still going: its owner holds the run's lease (a heartbeat newer than the lease).
        case running
        case finished
        /// Stopped by SIGINT/SIGTERM or found dead (lease expired); `--resume` completes it.
        case interrupted
    }

    public var id: String
    public var startedAt: Date
    public var finishedAt: Date?
    public var state: State
    /// The lab server URL the cases were played from.
    public var server: String
    public var receivers: [String]
    public var cases: [String]
    public var pollIntervalMs: Double
    public var cellsDone: Int
    public var cellsTotal: Int
    /// The station that ran it (`LabStation`; nil: unknown). Set by the store.
    public var station: String? = nil

    public init(id: String, startedAt: Date, finishedAt: Date? = nil, state: State, server: String, receivers: [String],
                cases: [String], pollIntervalMs: Double, cellsDone: Int = 0, cellsTotal: Int = 0) {
        self.id = id
        self.startedAt = startedAt
        self.finishedAt = finishedAt
        self.state = state
        self.server = server
        self.receivers = receivers
        self.cases = cases
        self.pollIntervalMs = pollIntervalMs
        self.cellsDone = cellsDone
        self.cellsTotal = cellsTotal
    }
}

/// One cell of a run: one case played on one receiver, with everything seen and what it measured.
public struct LabRunCell: Codable, Sendable, Equatable {
    public var runId: String
    /// The receiver's name (discovery or inventory), its device id and class at the time of the cell.
    public var receiver: String
    public var deviceId: String?
    public var deviceClass: String?
    /// The address the receiver fetched from (how its requests are found in the request log).
    public var address: String
    public var caseId: String
    /// 1 for the first try; 2 for the retry after the receiver came back.
    public var attempt: Int
    public var startedAt: Date
    public var finishedAt: Date
    /// The URL given to `/play`.
    public var url: String
    public var series: PlaybackSeries
    /// The lab server's records of this receiver's requests during the cell.
    public var requests: [LabRequestRecord]
    public var measurement: CellMeasurement
    /// The station that played it (`LabStation`; nil: unknown). Set by the store.
    public var station: String? = nil
    /// What the receiver ran at the time (TXT and `/server-info`); nil when not known (cells stored
    /// before it was recorded, receivers named by address that do not answer `/server-info`).
    public var software: LabReceiverSoftware? = nil

    /// The judgement of a behaviour cell: the cell's, beside its measurement (the store keeps it in
    /// the measurement's JSON at `behaviour`, as it always did).
    public var behaviour: BehaviourJudgement?

    public init(runId: String, receiver: String, deviceId: String?, deviceClass: String?, address: String, caseId: String,
                attempt: Int, startedAt: Date, finishedAt: Date, url: String, series: PlaybackSeries,
                requests: [LabRequestRecord], measurement: CellMeasurement, behaviour: BehaviourJudgement? = nil) {
        self.behaviour = behaviour
        self.runId = runId
        self.receiver = receiver
        self.deviceId = deviceId
        self.deviceClass = deviceClass
        self.address = address
        self.caseId = caseId
        self.attempt = attempt
        self.startedAt = startedAt
        self.finishedAt = finishedAt
        self.url = url
        self.series = series
        self.requests = requests
        self.measurement = measurement
    }
}

/// The `measurement` column: the cell's measurement with its behaviour judgement inside, as stored
/// since behaviour cells began.
struct StoredMeasurement: Codable {
    var measurement: CellMeasurement
    var behaviour: BehaviourJudgement?

    init(measurement: CellMeasurement, behaviour: BehaviourJudgement?) {
        self.measurement = measurement
        self.behaviour = behaviour
    }

    private enum CodingKeys: String, CodingKey { case behaviour }

    init(from decoder: any Decoder) throws {
        measurement = try CellMeasurement(from: decoder)
        behaviour = try decoder.container(keyedBy: CodingKeys.self).decodeIfPresent(BehaviourJudgement.self, forKey: .behaviour)
    }

    func encode(to encoder: any Encoder) throws { try measurement.encode(to: encoder, behaviour: behaviour) }
}
