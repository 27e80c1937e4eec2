import ArgumentParser
import Compatibility
import Foundation
import HLS
import LabCore
import LabRun
import LabServer
import Reporting
import ResultsReporting

struct LabSessionsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sessions",
        abstract: "What each client fetched, per case: variant chosen, interstitial fetched, resume point.",
        discussion: """
        Rebuilds one session per (client address, case) from the request log: the primary variant it played, \
        whether it fetched the interstitial and which variant, where it came back to the primary, whether it sent \
        _HLS_primary_id / _HLS_start_offset. In capability cases, the variant chosen is what the receiver decodes, \
        compared with its class's profile. A pause of over 2 minutes starts a new session. Several stations \
        sharing one database: a session is one station's (the same address at two stations is two receivers), \
        every station's are listed unless --station names one.
        """)

    @OptionGroup var database: LabDatabaseOption

    @OptionGroup var station: LabStationFilter

    @Option(help: "The suite folder (default: the suite the latest `lab serve` recorded in the database).")
    var streams: String?

    @Option(help: "table (default on a terminal) or json.")
    var format: ListFormat?

    @OptionGroup var profilesDir: ProfilesDirOption

    func run() async throws {
        let store = try database.open(create: false)
        let only = try station.resolve(in: store)
        let manifest = try LabContext.manifest(store: store, streams: streams, db: database.shown, station: only)
        let profiles = try ProfileLocator.load(explicitDirectory: profilesDir.path, selecting: [])
        let sessions = try LabContext.sessions(store: store, manifest: manifest, profiles: profiles, station: only)
        switch ListFormat.resolve(format) {
        case .json:
            let data = try JSONDocument.encoder(dates: .iso8601Milliseconds).encode(SessionsDocument(sessions: sessions))
            try Output.write(String(decoding: data, as: UTF8.self) + "\n", to: nil)
        case .table:
            try Output.write(LabSessionsTable.render(sessions), to: nil)
        }
    }
}

struct LabRecordCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Record what the operator saw when a case played on a receiver.",
        discussion: "Verdicts: \(LabVerdict.allCases.map(\.rawValue).joined(separator: ", ")). Written at once; the lab page records the same.")

    @Option(help: "The receiver: its name or device id as the lab knows it, or the client address that fetched.")
    var receiver: String

    @Option(name: .customLong("case"), help: "The lab case id (lab.json).")
    var caseId: String

    @Option(help: "seamless, glitch, stall, black, skipped or failed.")
    var verdict: String

    @Option(help: "How long the disruption lasted, in seconds.")
    var seconds: Double?

    func validate() throws {
        try OptionChecks.number(seconds, "--seconds", in: 0...86_400, unit: "s")
    }

    @Option(help: "Free text.")
    var note: String?

    @OptionGroup var database: LabDatabaseOption

    @OptionGroup var station: LabStationOption

    @Option(help: "The suite folder (default: the suite the latest `lab serve` recorded in the database).")
    var streams: String?

    @Option(help: "table (default on a terminal) or json.")
    var format: ListFormat?

    func run() async throws {
        // Never created here: a verdict names a receiver or client that `lab serve` recorded, so a
        // new database (a typo in --db) could only fail, after leaving an empty file behind. The
        // receiver is looked up among the station's (--station, else SEAMCHECK_STATION, else this host's).
        let store = try database.open(create: false, station: try station.resolve())
        let manifest = try LabContext.manifest(store: store, streams: streams, db: database.shown)
        let recorded = try VerdictDesk(store: store, manifest: manifest)
            .record(receiver: receiver, caseId: caseId, verdict: verdict, seconds: seconds, note: note, source: "cli")
        switch ListFormat.resolve(format) {
        case .json:
            let data = try JSONDocument.encoder(dates: .iso8601Milliseconds).encode(recorded)
            try Output.write(String(decoding: data, as: UTF8.self) + "\n", to: nil)
        case .table:
            try Output.write("recorded \(recorded.verdict.rawValue) for \(recorded.caseId) on \(recorded.receiver)"
                             + (recorded.deviceClass.map { " (\($0))" } ?? " (no device class)") + "\n", to: nil)
        }
    }
}

/// What the lab commands after `serve` need from the database or a suite folder.
enum LabContext {
    /// The suite's manifest: from --streams, else the one the latest serve (of `station`, when given) recorded.
    static func manifest(store: LabStore, streams: String?, db: String, station: String? = nil) throws -> LabManifest {
        if let streams { return try LabSuite.load(streams).manifest }
        guard let manifest = try store.latestManifest(station: station) ?? store.latestManifest() else { throw LabInputError.noSuite(db: db) }
        return manifest
    }

    /// The sessions of `station`'s requests (every station's when nil), each with its station's receivers.
    static func sessions(store: LabStore, manifest: LabManifest, profiles: [DeviceProfile], station: String?) throws -> [LabSession] {
        SessionBuilder(manifest: manifest, receivers: try store.receivers(station: station),
                       history: try store.receiverHistory(station: station), profiles: profiles)
            .sessions(from: try store.requests(station: station))
    }
}
