import Foundation

/// A lab station: one lab server with its receivers (a rack, a room, a site). Several stations may
/// share one database; every lab row carries the station that wrote it, and a client address
/// means a receiver only within its station (10.0.0.5 in room A is not 10.0.0.5 in room B).
/// Rows written before stations existed read as the station their serve or run's host named
/// (a station's default name is its host name), or as the unknown station, stored as ''.
public enum LabStation {
    /// The environment variable naming this process's station (`--station` wins).
    public static let variable = "SEAMCHECK_STATION"
    /// How the unknown station is stored.
    public static let unknown = ""
    public static let maxLength = 64

    /// The station a process is when nothing names one: the host name.
    public static var hostDefault: String {
        let host = ProcessInfo.processInfo.hostName
        return (try? validated(host)) ?? "localhost"
    }

    /// `--station`, else `SEAMCHECK_STATION`, else the host name.
    public static func resolve(_ given: String?, environment: [String: String] = ProcessInfo.processInfo.environment) throws(LabStationError) -> String {
        if let given { return try validated(given) }
        if let named = environment[variable], !named.isEmpty { return try validated(named, from: variable) }
        return hostDefault
    }

    /// A station name: 1 to 64 characters, none of them a control character.
    public static func validated(_ name: String, from option: String = "--station") throws(LabStationError) -> String {
        let trimmed = name.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, trimmed.count <= maxLength,
              !trimmed.unicodeScalars.contains(where: { CharacterSet.controlCharacters.contains($0) }) else {
            throw .invalid(name: name, option: option)
        }
        return trimmed
    }

    /// The stored text as a record's station: nil for the unknown station.
    static func read(_ stored: String?) -> String? {
        guard let stored, !stored.isEmpty else { return nil }
        return stored
    }
}

public enum LabStationError: Error, Sendable, Equatable, CustomStringConvertible {
    case invalid(name: String, option: String)

    public var description: String {
        switch self {
        case .invalid(let name, let option):
            return "\(option) '\(name)' is not a station name: give 1 to \(LabStation.maxLength) printable characters, such as room-a"
        }
    }
}

extension LabStore {
    /// Every station the database has rows of (serves, runs, verdicts), sorted; '' is the unknown station.
    public func stations() throws(LabStoreError) -> [String] {
        try read("read the stations") { db in
            try db.query("SELECT station FROM labServe UNION SELECT station FROM labRun UNION SELECT station FROM labVerdict")
                .map { $0[0] as String }.sorted()
        }
    }

    /// Whether a serve of this store's station is running now (recorded started and not stopped):
    /// `lab run --server URL` reads the requests its station's server logged.
    public func stationIsServing() throws(LabStoreError) -> Bool {
        try read("read the serve runs") { db in
            (try db.scalar("SELECT count(*) FROM labServe WHERE station = ? AND stoppedAt IS NULL", [station]) as Int? ?? 0) > 0
        }
    }
}
