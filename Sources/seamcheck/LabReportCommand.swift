import ArgumentParser
import Compatibility
import Foundation
import LabCore
import LabRun
import LabServer
import Reporting
import ResultsReporting

extension LabReportFormat: ExpressibleByArgument {}

struct LabReportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Predicted (each class's profile) against observed (verdicts, measured cells and sessions), per case and receiver.",
        discussion: """
        A verdict is read as a level (seamless pass, glitch warning, stall/black/failed error; skipped is not \
        compared) and held against the highest severity the receiver's class gives the case's rules. A cell \
        `lab run` measured shows its first frame and the stall at each transition; its stall is graded through \
        the thresholds (DeviceProfiles/lab/measurement.yaml: 200 ms a warning, 1000 ms an error). An operator's \
        verdict wins over the measured one; both are shown. The HTML report draws a timeline per measured cell. \
        Disagreements come first. Exit 1 when any cell disagrees and --fail-on-disagreement is given. Stations \
        sharing the database are all read (--station NAME reads one); a receiver is a name at a station \
        (docs/lab-stations.md).
        """)

    @OptionGroup var database: LabDatabaseOption

    @OptionGroup var station: LabStationFilter

    @Option(help: "The suite folder (default: the suite the latest `lab serve` recorded in the database).")
    var streams: String?

    @Option(help: "table (default on a terminal), json, markdown, html or junit.")
    var format: LabReportFormat?

    @Option(help: "Write the report to this file instead of standard output.")
    var output: String?

    @Flag(name: .customLong("fail-on-disagreement"), help: "Exit 1 when an observation disagrees with its prediction.")
    var failOnDisagreement = false

    @Flag(help: ArgumentHelp("The behaviour conformance table instead: receivers x interstitial features, each conforms, ignores, "
                             + "deviates, not judged or not applicable, with its evidence (docs/lab-behaviour.md). "
                             + "Formats table, json, markdown, html."))
    var behaviour = false

    @Option(name: .customLong("compare"), parsing: .upToNextOption,
            help: ArgumentHelp("Compare two runs instead: RUN_A RUN_B (older first; `latest` is the newest run, `previous` the one before): per receiver and case what got "
                               + "worse, better, new or gone, with the receiver's software on each side (docs/lab-dashboard.md). Formats table, json, markdown, html.",
                               valueName: "RUN"))
    var compare: [String] = []

    @Option(name: .customLong("stall-change-ms"), help: "With --compare: a stall this many ms longer on the same verdict is worse (shorter: better).")
    var stallChangeMs: Double = ComparisonThresholds.defaults.stallChangeMs

    @OptionGroup var profilesDir: ProfilesDirOption

    @OptionGroup var thresholds: ThresholdsOption

    func validate() throws {
        if !compare.isEmpty {
            guard compare.count == 2 else { throw ValidationError("--compare takes two run ids, the older first: --compare RUN_A RUN_B") }
            if behaviour { throw ValidationError("--compare and --behaviour are two different reports: give one") }
            if format == .junit { throw ValidationError("--compare has no junit form: use table, json, markdown or html (`lab run --fail-on regression --junit` gates)") }
        }
        try OptionChecks.number(stallChangeMs, "--stall-change-ms", in: 0...600_000, unit: "ms")
        if behaviour, format == .junit { throw ValidationError("--behaviour has no junit form: use table, json, markdown or html") }
        if behaviour, failOnDisagreement { throw ValidationError("--fail-on-disagreement compares predictions; it has no meaning with --behaviour") }
    }

    func run() async throws {
        if !compare.isEmpty {
            let store = try database.open(create: false)
            let before = try LabRunGate.run(compare[0], store: store), after = try LabRunGate.run(compare[1], store: store)
            let comparison = RunComparer(thresholds: ComparisonThresholds(stallChangeMs: stallChangeMs))
                .compare(before: before.id, try store.briefCells(runId: before.id), after: after.id, try store.briefCells(runId: after.id))
            let chosen = format ?? (Terminal.stdoutIsTerminal && output == nil ? .table : .json)
            try Output.write(RunComparisonText.render(comparison, format: chosen), to: output)
            return
        }
        if behaviour {
            let report = try LabReporting.buildBehaviour(database: database, station: station, streams: streams, profilesDir: profilesDir.path)
            let chosen = format.flatMap { BehaviourReportFormat(rawValue: $0.rawValue) }
                ?? (Terminal.stdoutIsTerminal && output == nil ? .table : .json)
            try Output.write(chosen.render(report), to: output)
            return
        }
        let report = try LabReporting.build(database: database, station: station, streams: streams, profilesDir: profilesDir.path,
                                            thresholds: try thresholds.load(profilesDir: profilesDir.path))
        let chosen = format ?? (Terminal.stdoutIsTerminal && output == nil ? .table : .json)
        try Output.write(chosen.render(report), to: output)
        if failOnDisagreement && report.summary.disagree > 0 { throw ExitCode(CLIFailure.findings) }
    }
}

/// `--thresholds FILE` and `--threshold KEY=VALUE`: how measured stalls are graded.
struct ThresholdsOption: ParsableArguments {
    @Option(help: "Measurement thresholds YAML (default: lab/measurement.yaml beside the profiles, else built-in defaults).")
    var thresholds: String?

    @Option(name: .customLong("threshold"), help: ArgumentHelp("Override one threshold, e.g. grades.errorMs=800 (repeatable).",
                                                              valueName: "KEY=VALUE"))
    var overrides: [String] = []

    func load(profilesDir: String?) throws(MeasurementThresholdsError) -> MeasurementThresholds {
        let base: MeasurementThresholds
        if let thresholds {
            base = try MeasurementThresholdsLoader.load(file: thresholds)
        } else if let directory = try? ProfileLocator.directory(explicit: profilesDir) {
            base = try MeasurementThresholdsLoader.load(besideProfiles: directory)
        } else {
            base = .defaults
        }
        return try base.overriding(overrides)
    }
}

enum LabReporting {
    /// The report over every station's evidence, or one station's (`--station`).
    static func build(database: LabDatabaseOption, station: LabStationFilter, streams: String?, profilesDir: String?,
                      thresholds: MeasurementThresholds = .defaults) throws -> LabReport {
        let store = try database.open(create: false)
        let only = try station.resolve(in: store)
        let manifest = try LabContext.manifest(store: store, streams: streams, db: database.shown, station: only)
        let profiles = try ProfileLocator.load(explicitDirectory: profilesDir, selecting: [])
        let sessions = try LabContext.sessions(store: store, manifest: manifest, profiles: profiles, station: only)
        return LabReportBuilder(manifest: manifest, profiles: profiles, thresholds: thresholds)
            .report(verdicts: try store.verdicts(station: only), sessions: sessions, cells: try store.latestCells(station: only))
    }

    /// The behaviour conformance table: `lab run`'s cells (judged as they were played) and every
    /// session of a behaviour case in the request log (a person at the lab page), judged now.
    static func buildBehaviour(database: LabDatabaseOption, station: LabStationFilter, streams: String?,
                               profilesDir: String?) throws -> BehaviourReport {
        let store = try database.open(create: false)
        let only = try station.resolve(in: store)
        let manifest = try LabContext.manifest(store: store, streams: streams, db: database.shown, station: only)
        let profiles = (try? ProfileLocator.load(explicitDirectory: profilesDir, selecting: [])) ?? []
        let requests = try store.requests(station: only)
        let sessions = SessionBuilder(manifest: manifest, receivers: try store.receivers(station: only),
                                      history: try store.receiverHistory(station: only), profiles: profiles).sessions(from: requests)
        // Every run's cells, not only the newest per receiver x case: each is a judgement (agreement counts
        // them), and an older run's requests must not come back as a lab-page session.
        let cells = try store.runs(station: only).flatMap { run throws(LabStoreError) in try store.cells(runId: run.id) }
            .filter { only == nil || $0.station == only }
        return BehaviourReportBuilder(manifest: manifest, profiles: profiles).report(sessions: sessions, requests: requests, cells: cells)
    }
}

extension ProfilesCommand {
    struct Calibrate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Propose new rule severities from the lab's verdicts and measured stalls, as a diff of the profile YAML.",
            discussion: """
            For each class and rule, the lab cases that vary that rule alone are read as levels: an operator's \
            verdict (seamless info, glitch warning, stall/black/failed error), or else the stall `lab run` \
            measured at the transition, graded through the thresholds (DeviceProfiles/lab/measurement.yaml: \
            1000 ms or more an error, 200 ms a warning; --thresholds FILE, --threshold grades.errorMs=800). \
            Where at least --min-observations of them give a most common level that differs from the profile's \
            severity, the profile's `rules` entry is changed. Prints the diff; --write changes the files (and \
            checks they still load). Every station's evidence counts unless --station NAME names one.
            """)

        @OptionGroup var database: LabDatabaseOption

        @OptionGroup var station: LabStationFilter

        @Option(help: "The suite folder (default: the suite the latest `lab serve` recorded in the database).")
        var streams: String?

        @Option(name: .customLong("min-observations"), help: "Verdicts needed before a severity is proposed.")
        var minObservations = 3

        @Flag(help: "Write the proposed severities into the profile files.")
        var write = false

        @Option(help: "table (default on a terminal) or json.")
        var format: ListFormat?

        @OptionGroup var profilesDir: ProfilesDirOption

        @OptionGroup var thresholds: ThresholdsOption

        func validate() throws {
            guard minObservations >= 1 else { throw ValidationError("--min-observations must be at least 1") }
        }

        func run() async throws {
            let report = try LabReporting.build(database: database, station: station, streams: streams, profilesDir: profilesDir.path,
                                                thresholds: try thresholds.load(profilesDir: profilesDir.path))
            let store = try database.open(create: false)
            let manifest = try LabContext.manifest(store: store, streams: streams, db: database.shown, station: station.name)
            let directory = try ProfileLocator.directory(explicit: profilesDir.path)
            let profiles = try ProfileLocator.load(explicitDirectory: profilesDir.path, selecting: [])
            let proposals = ProfileCalibration(manifest: manifest, profiles: profiles, minObservations: minObservations)
                .proposals(from: report.cells)
            var diffs: [(path: String, old: String, new: String)] = []
            for (deviceClass, changes) in Dictionary(grouping: proposals, by: \.deviceClass).sorted(by: { $0.key < $1.key }) {
                let path = directory + "/" + deviceClass + ".yaml"
                guard let old = try? String(contentsOfFile: path, encoding: .utf8) else {
                    throw CLIFailure.input("\(path): cannot read the profile of \(deviceClass); check --profiles-dir")
                }
                diffs.append((path, old, ProfileYAMLEdit.apply(changes.map { ($0.rule, $0.proposed) }, to: old)))
            }
            if write { try Self.write(diffs, directory: directory) }
            switch ListFormat.resolve(format) {
            case .json:
                try Output.write(JSONOutput.encode(CalibrationDocument(minObservations: minObservations, proposals: proposals,
                                                                       written: write && !proposals.isEmpty,
                                                                       thresholds: report.thresholds)), to: nil)
            case .table:
                var text = proposals.isEmpty
                    ? "no change proposed: no class has \(minObservations)+ verdicts or measured cells that disagree with its profile\n" : ""
                for p in proposals {
                    text += "\(p.deviceClass): \(p.rule) \(p.current) -> \(p.proposed) (\(p.observations) observations: \(p.evidence))\n"
                }
                for diff in diffs { text += "\n" + ProfileYAMLEdit.diff(diff.old, diff.new, path: diff.path) }
                if !proposals.isEmpty { text += write ? "\nwritten.\n" : "\nnot written: rerun with --write to change the profiles.\n" }
                try Output.write(VisibleText.escape(lines: text.components(separatedBy: "\n")).joined(separator: "\n"), to: nil)
            }
        }

        /// Writes each file, then loads the directory again; on failure every file is put back.
        static func write(_ diffs: [(path: String, old: String, new: String)], directory: String) throws {
            do {
                for diff in diffs { try Output.write(diff.new, to: diff.path) }
                _ = try ProfileLoader.loadDirectory(directory)
            } catch {
                for diff in diffs { try? Output.write(diff.old, to: diff.path) }
                throw CLIFailure.input("the calibrated profiles did not load (\(error)); nothing was changed")
            }
        }
    }
}

struct CalibrationDocument: Encodable {
    var schemaVersion = 1
    var minObservations: Int
    var proposals: [CalibrationProposal]
    var written: Bool
    /// The thresholds measured stalls were graded with.
    var thresholds: MeasurementThresholds
}
