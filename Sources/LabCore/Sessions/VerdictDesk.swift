import Compatibility
import Discovery
import Foundation

/// A verdict that names something the lab does not know.
public enum LabInputError: Error, Sendable, Equatable, CustomStringConvertible {
    case unknownCase(String, hint: String, known: [String])
    case unknownVerdict(String, hint: String)
    case unknownReceiver(String, hint: String, known: [String])
    case badSeconds(Double)
    case noSuite(db: String)

    public var description: String {
        switch self {
        case .unknownCase(let id, let hint, let known):
            return "no lab case '\(id)'\(hint); cases: \(known.joined(separator: ", "))"
        case .unknownVerdict(let verdict, let hint):
            return "'\(verdict)' is not a verdict\(hint); verdicts: \(LabVerdict.allCases.map(\.rawValue).joined(separator: ", "))"
        case .unknownReceiver(let name, let hint, let known):
            let list = known.isEmpty ? "none yet (start `seamcheck lab serve` and let receivers fetch, or pin them in --inventory)"
                : known.joined(separator: ", ")
            return "no receiver '\(name)' in the lab\(hint); known receivers and clients: \(list)"
        case .badSeconds(let seconds):
            return "--seconds \(seconds): give how long the disruption lasted, 0 to 86400 seconds"
        case .noSuite(let db):
            return "\(db): no lab suite recorded; run `seamcheck lab serve --streams DIR --db \(db)` first, or pass --streams DIR"
        }
    }
}

/// Checks and records operators' verdicts, from the lab page and from `lab record` alike.
public struct VerdictDesk: Sendable {
    public let store: LabStore
    public let manifest: LabManifest

    public init(store: LabStore, manifest: LabManifest) {
        self.store = store
        self.manifest = manifest
    }

    /// Records an operator's verdict. `receiver` is a receiver's name or device id as the lab knows
    /// it, or a client address that fetched from the server; `source` says where it was given
    /// ("page", "cli": kept as `via`, the record's source is `operator`).
    public func record(receiver: String, caseId: String, verdict: String, seconds: Double?, note: String?,
                       source: String) throws -> LabVerdictRecord {
        guard manifest.case(caseId) != nil else {
            let ids = manifest.cases.map(\.id)
            throw LabInputError.unknownCase(caseId, hint: Suggestion.text(for: caseId, in: ids), known: ids)
        }
        guard let parsed = LabVerdict(rawValue: verdict.lowercased()) else {
            throw LabInputError.unknownVerdict(verdict, hint: Suggestion.text(for: verdict, in: LabVerdict.allCases.map(\.rawValue)))
        }
        if let seconds, !(seconds >= 0 && seconds <= 86_400) { throw LabInputError.badSeconds(seconds) }
        let who = try resolve(receiver)
        let record = LabVerdictRecord(receiver: who.name, deviceId: who.deviceId, deviceClass: who.deviceClass, client: who.address,
                                      caseId: caseId, verdict: parsed, seconds: seconds,
                                      note: note.flatMap { $0.isEmpty ? nil : String($0.prefix(4000)) }, source: .operator,
                                      via: source, station: store.station)
        var stored = record
        stored.id = try store.record(record)
        return stored
    }

    /// The receiver a name, device id or client address stands for at the store's station (another
    /// station's receivers and clients are not this operator's).
    func resolve(_ text: String) throws -> (name: String, deviceId: String?, deviceClass: String?, address: String?) {
        let wanted = text.trimmingCharacters(in: .whitespaces)
        let receivers = try store.receivers(station: store.station)
        let normalizedId = ReceiverDescription.normalizedDeviceId(wanted)
        if let found = receivers.first(where: { $0.name.caseInsensitiveCompare(wanted) == .orderedSame })
            ?? receivers.first(where: { normalizedId != nil && $0.deviceId == normalizedId })
            ?? receivers.first(where: { $0.address == wanted }) {
            return (found.name, found.deviceId, found.deviceClass, found.address)
        }
        let clients = Set(try store.requests(station: store.station).map(\.client))
        if clients.contains(wanted) { return (wanted, nil, nil, wanted) }
        let known = Array(Set(receivers.map(\.name))).sorted() + clients.subtracting(receivers.map(\.address)).sorted()
        throw LabInputError.unknownReceiver(wanted, hint: Suggestion.text(for: wanted, in: known), known: known)
    }
}

extension LabVerdictRecord {
    /// The automatic verdict of a measured cell (`source: measured`, via "lab run", with the run's
    /// id): the verdict from all the evidence (`CellMeasurement.labVerdict`), `seconds` the stall it
    /// names, `note` its reason. An operator's verdict for the same case and receiver still wins in
    /// `lab report`; both are kept.
    public static func measured(for cell: LabRunCell) -> LabVerdictRecord {
        LabVerdictRecord(recordedAt: cell.finishedAt, receiver: cell.receiver, deviceId: cell.deviceId,
                         deviceClass: cell.deviceClass, client: cell.address, caseId: cell.caseId,
                         verdict: cell.measurement.labVerdict,
                         seconds: cell.measurement.verdictStallMs.map { $0 / 1000 },
                         note: String(cell.measurement.verdict().reason.prefix(4000)), source: .measured, via: "lab run",
                         runId: cell.runId, station: cell.station)
    }
}

extension LabStore {
    /// Records a measured cell's automatic verdict on its own (`LabRunStore.record` writes it in the
    /// cell's transaction).
    @discardableResult
    public func recordMeasuredVerdict(for cell: LabRunCell) throws(LabStoreError) -> LabVerdictRecord {
        var record = LabVerdictRecord.measured(for: cell)
        record.id = try self.record(record)
        return record
    }
}
