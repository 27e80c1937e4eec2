import Foundation

/// What a receiver ran when a cell was played: its AirPlay and OS versions and firmware from the
/// TXT record, and what `/server-info` said. Stored with each cell (`labCell.software`), so that a
/// receiver whose firmware changed between two runs is shown as such and a regression can be put
/// beside the update that brought it.
public struct LabReceiverSoftware: Codable, Sendable, Equatable, Hashable {
    /// TXT `srcvers` (raop `vs`): the AirPlay version, such as `377.40.00`.
    public var sourceVersion: String?
    /// TXT `osvers` (raop `ov`).
    public var osVersion: String?
    /// TXT `fv` (raop `fv`): the firmware version some receivers (TVs, AirPlay SDK devices) announce.
    public var firmwareVersion: String?
    /// TXT `model` (raop `am`), else `/server-info`'s.
    public var model: String?
    /// `/server-info` `srcvers`/`sourceVersion` and `protocolVersion`, when the receiver answered it.
    public var serverSourceVersion: String?
    public var protocolVersion: String?

    public init(sourceVersion: String? = nil, osVersion: String? = nil, firmwareVersion: String? = nil, model: String? = nil,
                serverSourceVersion: String? = nil, protocolVersion: String? = nil) {
        self.sourceVersion = sourceVersion
        self.osVersion = osVersion
        self.firmwareVersion = firmwareVersion
        self.model = model
        self.serverSourceVersion = serverSourceVersion
        self.protocolVersion = protocolVersion
    }

    /// Nothing known.
    public var isEmpty: Bool { self == LabReceiverSoftware() }

    /// The fields that say which software ran (the model is the device, not its software).
    var versionFields: [(String, String?)] {
        [("srcvers", sourceVersion), ("osvers", osVersion), ("fv", firmwareVersion),
         ("server-info srcvers", serverSourceVersion), ("protocol", protocolVersion)]
    }

    /// "model AppleTV6,2; srcvers 377.40.00; osvers 17.1", or "unknown".
    public var summary: String {
        let parts = ([("model", model)] + versionFields).compactMap { name, value in value.map { "\(name) \($0)" } }
        return parts.isEmpty ? "unknown" : parts.joined(separator: "; ")
    }

    /// Whether `other` ran other software: a version field both sides know differs. A field one side
    /// does not know is not a change (an older cell recorded none).
    public func differs(from other: LabReceiverSoftware?) -> Bool {
        guard let other else { return false }
        return zip(versionFields, other.versionFields).contains { mine, theirs in
            if let a = mine.1, let b = theirs.1 { return a != b }
            return false
        }
    }

    /// What changed, field by field: "srcvers 377.40.00 -> 380.20.1".
    public func changes(to other: LabReceiverSoftware) -> [String] {
        zip(versionFields, other.versionFields).compactMap { mine, theirs in
            guard let a = mine.1, let b = theirs.1, a != b else { return nil }
            return "\(mine.0) \(a) -> \(b)"
        }
    }

    /// The first of the two that is known, per field (TXT and /server-info merged).
    public func merged(with other: LabReceiverSoftware?) -> LabReceiverSoftware {
        guard let other else { return self }
        return LabReceiverSoftware(sourceVersion: sourceVersion ?? other.sourceVersion, osVersion: osVersion ?? other.osVersion,
                                   firmwareVersion: firmwareVersion ?? other.firmwareVersion, model: model ?? other.model,
                                   serverSourceVersion: serverSourceVersion ?? other.serverSourceVersion,
                                   protocolVersion: protocolVersion ?? other.protocolVersion)
    }
}
