import ArgumentParser
import Compatibility
import Foundation
import HLS
import MediaProbe
import Matrix
import Store
import Reporting
import ResultsReporting

extension MatrixReportFormat: ExpressibleByArgument {}

struct MatrixCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "matrix",
        abstract: "Run a test matrix of cases x device classes, keep the results, compare runs.",
        discussion: "The matrix file format is documented in docs/matrix.md.",
        subcommands: [MatrixRunCommand.self, MatrixHistoryCommand.self, MatrixDiffCommand.self])
}

struct DatabaseOption: ParsableArguments {
    @Option(name: .customLong("db"), help: DatabaseText.help)
    var given: String?

    /// What to open: --db, else SEAMCHECK_DB, else Reports/seamcheck.sqlite (may hold a password: never print it).
    var path: String { DatabaseText.resolve(given) }
    /// The database as printed: a path, or a URL without its password.
    var shown: String { DatabaseText.shown(path) }

    func validate() throws { try DatabaseText.checkFolder(path) }
}

/// The `--db` option's words and default, for every command that takes it.
enum DatabaseText {
    static let fallback = "Reports/seamcheck.sqlite"
    static let help = ArgumentHelp(
        "The results database: a SQLite file, or postgres://USER[:PASSWORD]@HOST[:PORT]/DB[?sslmode=...&host=/socket/dir] "
            + "(default: $\(DatabaseLocation.environmentVariable), else \(fallback); docs/postgres.md).",
        valueName: "path|url")

    static func resolve(_ given: String?) -> String { DatabaseLocation.text(given, fallback: fallback) }

    /// A SQLite file's folder must exist: a mistyped `--db /nonexistent/dir/x.sqlite` is refused
    /// (exit 2), not made as a folder tree. The default's folder, `Reports/`, is made when missing.
    static func checkFolder(_ text: String) throws {
        guard case .sqlite(let path)? = try? DatabaseLocation(parsing: text) else { return }
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().standardizedFileURL.path
        let defaultFolder = URL(fileURLWithPath: fallback).deletingLastPathComponent().standardizedFileURL.path
        var isFolder: ObjCBool = false
        guard folder != defaultFolder, !(FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder) && isFolder.boolValue) else { return }
        throw ValidationError("--db \(path): the folder \(folder) does not exist; create it first (mkdir -p \(folder)) or give a path in a folder that does")
    }

    static func shown(_ text: String) -> String {
        (try? DatabaseLocation(parsing: text))?.description ?? PostgresURL.redact(text)
    }
}

struct MatrixRunCommand: AsyncParsableCommand {
    static let interruptedBySIGINT: Int32 = 130
    static let interruptedBySIGTERM: Int32 = 143

    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Audit every case of a matrix file on every device class it names.",
        discussion: """
        Cases run in parallel (--jobs); each distinct input is probed once for the whole run. Each finished case is \
        committed to the database at once, so a killed run keeps every finished case. Reports (report.json, report.md, \
        junit.xml, report.html, report.sarif) go to --output (default Reports/<run id>/); --format chooses what is printed on stdout. \
        Exit codes: 0 no fail cell; 1 a fail cell; 2 a bad matrix file (before the run) or error cells (inputs that \
        could not be audited); 3 avahi-daemon missing for `discovered`; 130 interrupted by SIGINT (Ctrl-C), 143 by \
        SIGTERM, with every finished case kept and the run marked interrupted. A second signal exits at once. \
        With --worker and --run-name, any number of workers on any machines drain one run through a PostgreSQL --db \
        (docs/postgres.md): each claims cases under a lease, and each prints the whole run's report once every case is \
        done; a database that cannot be reached is exit 3, a refused login or a newer schema exit 2.
        """)

    @Argument(help: "The matrix file (YAML).")
    var matrix: String

    @Option(help: "Cases audited (and inputs probed) at once (default: the file's defaults.jobs, else one per processor).")
    var jobs: Int?

    @Option(help: "What to print on stdout: table (default on a terminal), json (default when piped), markdown, junit, html, encoder or sarif.")
    var format: MatrixReportFormat?

    @Option(help: "The folder for the reports (default: Reports/<run id>).")
    var output: String?

    @Option(name: .customLong("fail-on"), help: "A cell fails at or above this severity: error, warning, info or never (default: the file's defaults.failOn, else error).")
    var failOn: FailThreshold?

    @Option(help: "Seconds one case may take, probes included (default: the file's defaults.timeout, else 120).")
    var timeout: Double?

    @Flag(name: .customLong("no-loudness"), help: "Do not measure integrated loudness (loudness-mismatch decodes each interstitial's audio whole, and a playlist's programme around each break).")
    var noLoudness = false

    @OptionGroup var database: DatabaseOption
    @OptionGroup var profilesDir: ProfilesDirOption
    @OptionGroup var config: ConfigOption

    @Flag(help: ArgumentHelp("Drain one run shared by many workers through the database (PostgreSQL): every worker runs the same "
                             + "matrix file with the same --run-name and claims cases from the run's queue (docs/postgres.md)."))
    var worker = false

    @Option(name: .customLong("run-name"), help: ArgumentHelp("With --worker: the shared run's name (such as a CI pipeline id); "
                                                             + "the first worker records the run, the others join it.", valueName: "name"))
    var runName: String?

    func validate() throws {
        if worker, (runName ?? "").isEmpty {
            throw ValidationError("--worker needs --run-name NAME: every worker of one run gives the same name (such as the CI pipeline's id)")
        }
        if runName != nil, !worker { throw ValidationError("--run-name is for --worker") }
        try OptionChecks.jobs(jobs)
        if let timeout, !(timeout > 0 && timeout <= ProbeOptions.maxTimeout) {
            throw ValidationError("--timeout must be a positive number of seconds (at most \(Int(ProbeOptions.maxTimeout)))")
        }
    }

    func run() async throws {
        // Everything that can be wrong with the matrix is found before the first probe.
        let allProfiles = try ProfileLocator.load(explicitDirectory: profilesDir.path, selecting: [])
        var spec = try MatrixSpecLoader.load(matrix, knownProfiles: allProfiles.map(\.id))
        // The project file adds rule settings and accepted findings; the matrix file's own
        // defaults (failOn, timeout, jobs) and device classes are the matrix's.
        let project = try ProjectFile.load(config, knownProfiles: allProfiles.map(\.id))
        spec.expectedIssues += project?.accepted ?? []
        let caseTimeout = timeout ?? spec.defaults.timeout
        // Loudness as `audit` measures it, so that a matrix cell and an audit of the same input agree.
        let auditors: [any CaseAuditor] = [
            ExplicitInputAuditor(loudnessTimeout: noLoudness ? nil : caseTimeout),
            // Playlist fetches within the case's time (not the loader's default 10 s / 30 s).
            PlaylistCaseAuditor(auditor: PlaylistAuditor(loader: PresentationLoader(options: .init(timeout: caseTimeout, fetchAssets: true)),
                                                         loudness: noLoudness ? nil : LoudnessOptions(fetchTimeout: caseTimeout))),
        ]
        try MatrixPlan.check(spec, auditors: auditors)
        let resolved = try await DeviceClassResolver.resolve(spec, profiles: allProfiles, discovery: AvahiClassDiscovery())
        let profiles = resolved.profiles.map { project?.rules.apply(to: $0) ?? $0 }
        for line in (resolved.discovered?.receivers ?? []) { Terminal.writeStderr("seamcheck: discovered \(VisibleText.escape(line))\n") }
        for line in (resolved.discovered?.unclassified ?? []) {
            Terminal.writeStderr("seamcheck: warning: not classified, not run: \(VisibleText.escape(line))\n")
        }
        // The report folder is checked before the run: a run is not recorded only to fail at the end.
        if let output { try Self.prepareFolder(output) }
        let store = try ResultStore(path: database.path)

        let jobs = self.jobs ?? spec.defaults.jobs ?? ProcessInfo.processInfo.activeProcessorCount
        let threshold = failOn ?? spec.defaults.failOn
        let lease = RunLease.fromEnvironment()
        let start = RunStart(matrixName: spec.name, matrixFile: URL(fileURLWithPath: spec.file).standardizedFileURL.path,
                             failOn: threshold, jobs: jobs,
                             caseTimeout: caseTimeout, profiles: profiles, plannedCases: spec.cases.map(\.id),
                             expectedIssues: spec.expectedIssues)
        let runner = MatrixRunner(cases: spec.cases, profiles: profiles, auditors: auditors, jobs: jobs, caseTimeout: caseTimeout,
                                  grader: CellGrader(expectedIssues: spec.expectedIssues, threshold: threshold.severity))
        let probes = SharedProbes(session: ProbeSession(options: ProbeOptions(timeout: caseTimeout), maxConcurrent: jobs))
        let progress = ProgressPrinter<MatrixProgress>(enabled: isatty(STDERR_FILENO) != 0) { progress, elapsed in
            [MatrixProgressLine.render(progress, elapsed: elapsed)]
        }
        let runId: Int64, totals: MatrixRunTotals, signal: Int32?
        if worker, let runName {
            (runId, totals, signal) = try await Self.runWorker(start, name: runName, matrix: matrix, store: store, runner: runner,
                                                               probes: probes, lease: lease, progress: progress)
        } else {
            runId = try store.beginRun(start, lease: lease)
            // While it runs, the run keeps its lease: killed, it reads as interrupted once the lease lapses.
            let heartbeat = store.heartbeat(runId, lease: lease) { error in Terminal.writeStderr("seamcheck: \(error.description)\n") }
            defer { heartbeat.stop() }
            let recorder = StoreRecorder(store: store, runId: runId)
            let task = Task { try await runner.run(probes: probes, recorder: recorder, progress: progress.update) }
            let trap = InterruptTrap { _ in task.cancel() }
            do { totals = try await task.value } catch {
                progress.finish()
                try? store.finishRun(runId, status: .interrupted, probesPerformed: await probes.probesPerformed, distinctInputs: await probes.distinctInputs)
                // The database gone for longer than the retries is a missing service (3), as at the start.
                throw CLIFailure(message: "run \(runId) stopped: \(error)", exitCode: (error as? any ExitCoded)?.exitCode ?? CLIFailure.usage)
            }
            progress.finish()
            signal = trap.received
            withExtendedLifetime(trap) {}
            try store.finishRun(runId, status: totals.interrupted || signal != nil ? .interrupted : .completed,
                                probesPerformed: totals.probesPerformed, distinctInputs: totals.distinctInputs)
        }
        let interrupted = totals.interrupted || signal != nil

        let report = try Self.report(store: store, runId: runId)
        let folder = output ?? "Reports/\(runId)"
        for format in MatrixReportFormat.fileFormats {
            try Output.write(format.reporter.render(report), to: PathText.appending(format.fileName!, to: folder))
        }
        let chosen = format ?? (Terminal.stdoutIsTerminal ? .table : .json)
        try Output.write(chosen.reporter.render(report), to: nil)
        Terminal.writeStderr("seamcheck: run \(runId)\(interrupted ? " interrupted" : ""): \(totals.finished) of \(totals.total) case(s)\(worker ? " by this worker" : ""), "
            + "\(totals.probesPerformed) probe(s) for \(totals.distinctInputs) distinct input(s); reports in \(folder)\n")
        if interrupted { throw ExitCode(signal == SIGTERM ? Self.interruptedBySIGTERM : Self.interruptedBySIGINT) }
        if report.hasErrors { throw ExitCode(CLIFailure.usage) }
        if report.hasFailures { throw ExitCode(CLIFailure.findings) }
    }

    /// One worker of the shared run `name`: joins it (or records it), drains its queue with the
    /// others, and adds its probe counts. A store failure after the retries gives back its cases
    /// and ends with the store's error (exit 3 when the server is gone).
    static func runWorker(_ start: RunStart, name: String, matrix: String, store: ResultStore, runner: MatrixRunner, probes: SharedProbes,
                          lease: RunLease, progress: ProgressPrinter<MatrixProgress>) async throws -> (Int64, MatrixRunTotals, Int32?) {
        let hash: String
        do { hash = MatrixFileHash.of(try Data(contentsOf: URL(fileURLWithPath: matrix))) } catch {
            throw CLIFailure.input("\(matrix): cannot read the matrix file (\(error.localizedDescription))")
        }
        let joined = try store.joinRun(start, name: name, matrixHash: hash, lease: lease)
        let worker = MatrixWorker(runner: runner, store: store, runId: joined.id, lease: lease)
        Terminal.writeStderr("seamcheck: worker \(worker.worker) \(joined.created ? "started" : "joined") run \(joined.id) (\(name))\n")
        let task = Task { try await worker.run(probes: probes, progress: progress.update) }
        let trap = InterruptTrap { _ in task.cancel() }
        let totals: MatrixRunTotals
        do { totals = try await task.value } catch {
            progress.finish()
            throw error
        }
        progress.finish()
        withExtendedLifetime(trap) {}
        try store.finishWorker(runId: joined.id, probesPerformed: totals.probesPerformed, distinctInputs: totals.distinctInputs)
        return (joined.id, totals, trap.received)
    }

    /// Creates the --output folder (and its parents) if needed; a file there is exit 2.
    static func prepareFolder(_ path: String) throws(CLIFailure) {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else {
                throw CLIFailure.input("--output \(path): not a folder; the run writes several reports into a folder")
            }
            return
        }
        do { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) } catch {
            throw CLIFailure.input("--output \(path): cannot create the folder (\(error.localizedDescription))")
        }
    }

    static func report(store: ResultStore, runId: Int64) throws(StoreError) -> MatrixReport {
        let record = try store.run(runId)
        var changes: RunDiff?
        if let previous = try store.previousRun(before: runId, matrixName: record.summary.matrixName) {
            changes = RunDiff(from: try store.run(previous), to: record)
        }
        return MatrixReport(run: record, changes: changes)
    }
}

/// A matrix file's identity for `--worker`: FNV-1a 64 of its bytes (workers with different files under one
/// --run-name are refused; not a security check).
enum MatrixFileHash {
    static func of(_ data: Data) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in data {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return String(hash, radix: 16)
    }
}

struct MatrixHistoryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history", abstract: "List recorded runs, newest first: id, start, matrix, status and cell counts.",
        discussion: "A run recorded as running whose process is gone is shown as abandoned (killed, or the machine stopped).")

    @OptionGroup var database: DatabaseOption

    @Option(help: "table (default on a terminal) or json.")
    var format: ListFormat?

    @Option(help: "Show at most this many runs.")
    var limit: Int?

    func validate() throws {
        try OptionChecks.count(limit, "--limit", in: 1...Int(Int32.max))
    }

    func run() async throws {
        let runs = try ResultStore(path: database.path, create: false).runs(limit: limit)
        switch ListFormat.resolve(format) {
        case .json: try Output.write(MatrixHistoryDocument(runs).json, to: nil)
        case .table: try Output.write(MatrixHistoryTable.render(runs), to: nil)
        }
    }
}

struct MatrixDiffCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diff", abstract: "Findings new and fixed between two runs, and cells whose status changed.",
        discussion: """
        With no run ids: the latest run against the previous run of the same matrix. With one: that run against the \
        latest run. Only cases finished in both runs are compared.
        """)

    @Argument(help: "The earlier run id.")
    var runA: Int64?

    @Argument(help: "The later run id.")
    var runB: Int64?

    @OptionGroup var database: DatabaseOption

    @Option(help: "table (default on a terminal) or json.")
    var format: ListFormat?

    func run() async throws {
        let store = try ResultStore(path: database.path, create: false)
        let pair: (Int64, Int64)
        switch (runA, runB) {
        case let (a?, b?): pair = (a, b)
        case let (a?, nil): pair = (a, try store.runs(limit: 1).first?.id ?? a)
        default: pair = try store.lastTwoRuns()
        }
        let diff = try store.diff(from: pair.0, to: pair.1)
        switch ListFormat.resolve(format) {
        case .json: try Output.write(MatrixDiffDocument(diff).json, to: nil)
        case .table: try Output.write(MatrixDiffTable.render(diff), to: nil)
        }
    }
}
