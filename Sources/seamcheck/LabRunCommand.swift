import AirPlay
import ArgumentParser
import Compatibility
import Discovery
import Foundation
import LabCore
import LabRun
import LabServer
import MediaProbe
import Logging

extension LabDelivery: ExpressibleByArgument {}
import Reporting
import ResultsReporting

/// How `lab run` and `airplay` find receivers: Avahi (as `discover` does) and inventory pins.
struct ReceiverLookupOptions: ParsableArguments {
    @Option(help: "A lab inventory YAML file: pins receivers to classes; pins with `addresses` are receivers even when not discovered.")
    var inventory: String?

    @Option(help: "Browse on this network interface only, such as eth0.")
    var interface: String?

    @Option(name: .customLong("discover-timeout"), help: "Seconds to wait for the initial Avahi browse (it usually completes in about 1 s).")
    var discoverTimeout: Double = 5

    @OptionGroup var profilesDir: ProfilesDirOption

    func validate() throws {
        // NaN or a huge value would trap turning it into milliseconds.
        try OptionChecks.number(discoverTimeout, "--discover-timeout", in: 0.1...3_600, unit: "s")
    }

    /// The runnable targets `wanted` names (all when empty) and the receivers left out with why.
    /// Exit 2 for an unknown receiver, 3 when Avahi is needed and missing.
    func resolve(_ wanted: [String]) async throws -> (targets: [RunTarget], skipped: [SkippedReceiver]) {
        let discover = ReceiverSelection.needsDiscovery(wanted)
        // Addresses alone need no profiles: `lab run --receiver 10.0.0.5` works from any folder.
        var profiles: [DeviceProfile] = []
        if discover || inventory != nil {
            profiles = try ProfileLocator.load(explicitDirectory: profilesDir.path, selecting: [])
        }
        var pins: LabInventory?
        if let inventory {
            pins = try LabInventory.load(inventory, knownClasses: profiles.map(\.id))
        }
        var candidates: [ReceiverCandidate] = []
        var discovered: [Receiver] = []
        if discover {
            do {
                discovered = try await AirPlayBrowser.discover(timeout: .milliseconds(Int64(discoverTimeout * 1000)), interface: interface).receivers
            } catch {
                let pinned = pins?.entries.contains { !$0.addresses.isEmpty } ?? false
                guard pinned, error.exitCode == CLIFailure.serviceMissing else { throw error }
                Terminal.writeStderr("seamcheck: warning: \(error.description) Running on the inventory's pinned addresses only.\n")
            }
            let classifier = ReceiverClassifier(profiles: profiles, inventory: pins)
            candidates = discovered.map { ReceiverCandidate(discovered: classifier.classified($0)) }
        }
        for entry in pins?.entries ?? [] where !entry.addresses.isEmpty {
            let found = discovered.contains { receiver in pins?.entry(for: receiver) == entry }
            if !found { candidates.append(ReceiverCandidate(pinned: entry)) }
        }
        return try ReceiverSelection.select(candidates, wanted: wanted)
    }
}

struct LabRunCommand: AsyncParsableCommand {
    /// No receiver could play anything: none found, none with AirPlay video, or every one refused or unreachable.
    static let noReceiverRan: Int32 = 4
    /// A played cell could not be stored (the database locked past the retries, damaged, read-only, full): the run is interrupted and resumable.
    static let notStored: Int32 = 5

    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Play every case on every receiver over AirPlay, poll its playback, and record measured verdicts.",
        discussion: """
        Receivers: every discovered receiver with AirPlay video plus inventory pins with addresses, or those named by \
        --receiver (a name, device id, or ADDR[:PORT], which needs no discovery). One worker per receiver; cases one \
        after another. Each cell is stored as it finishes, with its /playback-info series, the receiver's requests and \
        a `measured` verdict. A receiver that goes away has that cell failed and its remaining cells played once more \
        when it answers again. SIGINT/SIGTERM marks the run interrupted; `--resume [RUN-ID]` completes it. \
        Docs: docs/lab-run.md. Exit codes: 0 the run completed (verdicts are findings, not failures, unless --fail-on \
        failed|stall|regression asks: then 1 when one is found, docs/ci.md); 2 bad usage; \
        3 avahi-daemon needed and missing; 4 no receiver could be run; 5 a played cell could not be stored (the run is \
        interrupted: --resume completes it); 130/143 interrupted by SIGINT/SIGTERM.
        """)

    @Option(name: .customLong("receiver"), help: "A receiver to run on: name, device id, or ADDR[:PORT] (repeatable; default: all).")
    var receivers: [String] = []

    @Option(name: .customLong("case"), help: "A case id or * glob (repeatable; default: every case).")
    var cases: [String] = []

    @Option(help: "A running `lab serve` (http://HOST:PORT) to play from, sharing --db; default: serve the suite for the run.")
    var server: String?

    @Option(help: "The suite folder made by `seamcheck lab streams` (with --server: default the suite that server recorded).")
    var streams: String?

    @Option(help: "The address the run's own server listens on (default: the local address on the route toward the receivers, or 0.0.0.0 when they are reached through several; each receiver is given the address on its route).")
    var bind: String?

    @Option(help: "The run's own server's TCP port (0 picks a free one).")
    var port: Int = 0

    @Option(name: .customLong("poll-interval"), help: "Milliseconds between /playback-info polls.")
    var pollInterval: Double = 250

    @Option(name: .customLong("case-timeout"), help: "Seconds one case may run (default: its media duration + 15).")
    var caseTimeout: Double?

    @Option(name: .customLong("comeback-wait"), help: "Seconds to wait for a receiver that went away to answer again.")
    var comebackWait: Double = 60

    @Option(name: .customLong("write-patience"), help: "Seconds a played cell's write is tried again while another process holds the database; then the run stops, interrupted and resumable (exit 5).")
    var writePatience: Double = 120

    @Flag(help: "Complete an interrupted run: the latest, or RUN-ID. Cells already done are not played again.")
    var resume = false

    @Argument(help: "With --resume: the run to complete (`seamcheck lab runs` lists them).")
    var runId: String?

    @Option(help: "table (default on a terminal) or json.")
    var format: ListFormat?

    @Option(name: .customLong("log-level"), help: "The server's log level: trace, debug, info, notice, warning, error or critical.")
    var logLevel: String = "warning"

    @Option(name: .customLong("capture"), help: "Read a receiver's picture during each cell: [RECEIVER=]INPUT, INPUT a capture device (/dev/video0), an X display (:99) or FORMAT:TARGET (repeatable; docs/lab-measure.md).")
    var captures: [String] = []

    @Option(name: .customLong("capture-option"), help: "An option of the capture devices, KEY=VALUE (framerate=30, video_size=1920x1080); repeatable.")
    var captureOptions: [String] = []

    @Option(help: "How receivers get the case's playlists: [RECEIVER=]plain (they fetch the URL) or pushed (they ask the sender over the reverse connection, FCUP, as the YouTube app does with Apple TVs; docs/lab-run.md); repeatable, RECEIVER=... for one receiver.")
    var delivery: [String] = []

    @OptionGroup var lookup: ReceiverLookupOptions
    @OptionGroup var credentials: CredentialsOption
    @OptionGroup var database: LabDatabaseOption
    @OptionGroup var station: LabStationOption
    @OptionGroup var thresholds: ThresholdsOption
    @OptionGroup var gate: LabGateOptions

    func validate() throws {
        if runId != nil, !resume { throw ValidationError("a run id is given with --resume only: --resume \(runId!)") }
        guard pollInterval >= 20 && pollInterval <= 10_000 else { throw ValidationError("--poll-interval must be 20 to 10000 ms") }
        if let caseTimeout, !(caseTimeout >= 1 && caseTimeout <= 86_400) { throw ValidationError("--case-timeout must be 1 to 86400 seconds") }
        guard comebackWait >= 0 && comebackWait <= 86_400 else { throw ValidationError("--comeback-wait must be 0 to 86400 seconds") }
        guard writePatience >= 0 && writePatience <= 86_400 else { throw ValidationError("--write-patience must be 0 to 86400 seconds") }
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0 to 65535") }
        if let server, URL(string: server)?.scheme?.hasPrefix("http") != true { throw ValidationError("--server must be an http:// URL") }
        guard Logger.Level(rawValue: logLevel) != nil else { throw ValidationError("--log-level must be trace, debug, info, notice, warning, error or critical") }
        for text in delivery where LabDelivery(rawValue: String(text.split(separator: "=", omittingEmptySubsequences: false).last ?? "")) == nil {
            throw ValidationError("--delivery \(text): give plain or pushed, optionally for one receiver: --delivery RECEIVER=pushed")
        }
        for option in captureOptions where !option.contains("=") {
            throw ValidationError("--capture-option \(option): give KEY=VALUE, e.g. framerate=30")
        }
    }

    func run() async throws {
        let store = try database.open(create: true, station: try station.resolve())
        let previous = try resume ? Self.interruptedRun(runId, store: store) : nil
        let suite: LabSuite? = server == nil || streams != nil ? try LabSuite.load(streams ?? "Reports/lab") : nil
        guard let manifest = try suite?.manifest ?? store.latestManifest(station: store.station) ?? store.latestManifest() else {
            throw LabInputError.noSuite(db: database.shown)
        }
        // With --server, the cells' requests are those the station's own `lab serve` logged.
        if let server, !(try store.stationIsServing()) {
            Terminal.writeStderr("seamcheck: warning: no `lab serve` of station \(store.station) is running in \(store.path); lab run reads "
                                 + "the requests its station's server logged, so give the server at \(server) and this run the same --station\n")
        }
        // The baseline and the accepted issues are read before anything plays: a wrong id or file is exit 2 now.
        let baseline = try gate.resolveBaseline(store: store, excluding: previous?.id)
        let accepted = try gate.asked ? gate.accepted(profiles: ((try? ProfileLocator.load(explicitDirectory: lookup.profilesDir.path, selecting: [])) ?? []).map(\.id)) : []
        let chosenCases = try CaseSelection.select(cases.isEmpty ? (previous?.cases ?? []) : cases, from: manifest)
        let pairings = try credentials.load()
        let (targets, skipped) = try await lookup.resolve(receivers.isEmpty ? (previous?.receivers ?? []) : receivers)
        for receiver in skipped {
            Terminal.writeStderr("seamcheck: not runnable: \(VisibleText.escape(receiver.name)) (\(receiver.address ?? "no address")): \(receiver.reason)\n")
        }
        AirPlayCommand.reportAccess(targets, store: pairings)
        guard !targets.isEmpty else {
            throw CLIFailure(message: "no receiver to run on: " + (skipped.isEmpty
                ? "none found (check that receivers are on this network and avahi-daemon sees them: `seamcheck discover`), or name one with --receiver ADDR[:PORT]"
                : "none of the \(skipped.count) found has AirPlay video"), exitCode: Self.noReceiverRan)
        }

        let inputs = try CaptureAssignment.assign(captures, options: captureOptions, to: targets)
        // Each capture opened once before anything starts: one that cannot be is exit 2 now, not a failed picture per cell.
        for input in inputs.values { _ = try CaptureReader(input: input) }

        var options = LabRunner<ContinuousClock>.Options()
        options.pollInterval = .milliseconds(Int64(pollInterval))
        options.caseTimeout = caseTimeout.map { .milliseconds(Int64($0 * 1000)) }
        options.comebackWait = .milliseconds(Int64(comebackWait * 1000))
        options.writePatience = .milliseconds(Int64(writePatience * 1000))
        options.thresholds = try thresholds.load(profilesDir: lookup.profilesDir.path)
        // Behaviour cells are judged as they finish: the timeline maps segment requests to positions, a class
        // profile says whether the receiver can show video at all (no profiles found: every case applies).
        options.primaryTimeline = manifest.primaryTimeline
        options.profiles = (try? ProfileLocator.load(explicitDirectory: lookup.profilesDir.path, selecting: [])) ?? []
        options.askServerInfo = true
        if !inputs.isEmpty {
            let streams = CaptureStreams(manifest: manifest)
            options.capture = { target in
                inputs[target.name].map { CellCapture(input: $0, analyzer: CaptureAnalyzer(streams: streams)) }
            }
        }
        let origin: LabRunSession.Origin = if let server { .server(server) } else { .own(suite: suite!, bind: bind, port: port) }
        var plan = LabRunSession.Plan(targets: targets, cases: chosenCases, resuming: previous, origin: origin, options: options)
        var opener = AirPlayCommand.opener(for: targets, store: pairings)
        let pushed = try DeliveryAssignment.pushed(delivery, targets: targets)
        if !pushed.isEmpty {
            let token = try server == nil ? LabAccess.newToken() : Self.serverToken(database: database, store: store)
            plan.labToken = token
            let plain = opener, pushing = PushedPlayback.opener(wrapping: opener, token: token)
            opener = { endpoint throws(AirPlayError) in
                try await (pushed.contains(endpoint) ? pushing : plain)(endpoint)
            }
        }
        let session = try await LabRunSession.open(plan, store: store, logger: LabLogging.logger(level: logLevel),
                                                   opener: opener, probe: AirPlayCommand.answers)
        if let serving = session.serving { Terminal.writeStderr("seamcheck: lab run: serving \(serving.root) on port \(serving.port)\n") }
        Terminal.writeStderr("seamcheck: lab run \(session.summary.id): \(chosenCases.count) case(s) on \(targets.count) receiver(s)"
            + (session.done.isEmpty ? "" : ", \(session.done.count) cell(s) already done") + "\n")

        let progress = ProgressPrinter<[String: ReceiverProgress]>(enabled: isatty(STDERR_FILENO) != 0) { state, _ in
            targets.map { state[$0.name].map(LabRunTable.progressLine) ?? "\($0.name): waiting" }
        }
        let lines = ProgressState()
        let task = Task { await session.play(progress: { progress.update(lines.update($0)) }) }
        let trap = InterruptTrap(stopping: "the run (finished cells are kept)") { _ in task.cancel() }
        let outcome = await task.value
        progress.finish()
        let signal = trap.received
        let runId = session.summary.id
        let writeFailures = outcome.writeFailures
        if writeFailures.isEmpty {
            try await session.finish(interrupted: signal != nil)
        } else {
            // Cells were played and not stored: never `finished`, so that --resume plays them.
            do { try await session.finish(interrupted: true) } catch {
                Terminal.writeStderr("seamcheck: warning: could not record run \(runId) as interrupted (\(error)); it reads interrupted "
                                     + "once its \(Int(session.leaseSeconds)) s lease lapses\n")
            }
        }
        let stored = try? store.cells(runId: runId)
        var shown = (try? store.run(runId)) ?? session.summary
        if stored == nil || shown.state == .running, !writeFailures.isEmpty { shown.state = .interrupted }
        let document = LabRunDocument(run: shown, cells: stored ?? outcome.results.flatMap(\.cells), skipped: skipped,
                                      problems: outcome.results.compactMap { result in
                                          result.problem.map { LabRunDocument.Problem(receiver: result.target.name, problem: $0) }
                                      })
        switch ListFormat.resolve(format) {
        case .json: try Output.write(LabJSON.encode(document), to: nil)
        case .table: try Output.write(LabRunTable.render(document), to: nil)
        }
        withExtendedLifetime(trap) {}
        if let signal { throw ExitCode(signal == SIGTERM ? MatrixRunCommand.interruptedBySIGTERM : MatrixRunCommand.interruptedBySIGINT) }
        if !writeFailures.isEmpty {
            let kept = outcome.results.reduce(0) { $0 + $1.cells.count }
            throw CLIFailure(message: "lab run \(runId) is interrupted: " + writeFailures.joined(separator: "\n") + "\n"
                + "\(kept) cell(s) are stored; when the database is writable again, `seamcheck lab run --resume \(runId) --db \(database.shown)` "
                + "plays the rest", exitCode: Self.notStored)
        }
        if !outcome.anyPlayed {
            throw CLIFailure(message: "no receiver could be run: "
                + outcome.results.map { "\($0.target.name): \($0.problem ?? "nothing played")" }.joined(separator: "; "),
                             exitCode: Self.noReceiverRan)
        }
        if gate.asked, try gate.evaluate(runId: runId, baseline: baseline, store: store, accepted: accepted) {
            throw ExitCode(CLIFailure.findings)
        }
    }

    static func interruptedRun(_ id: String?, store: LabStore) throws -> LabRunSummary {
        if let id {
            guard let run = try store.run(id) else {
                let ids = try store.runs().map(\.id)
                throw CLIFailure.input("no lab run '\(id)'\(Suggestion.text(for: id, in: ids)); `seamcheck lab runs` lists them")
            }
            return run
        }
        guard let run = try store.latestInterruptedRun() else {
            throw CLIFailure.input("no interrupted lab run to resume in \(store.path); `seamcheck lab runs` lists the runs")
        }
        return run
    }
}

/// The latest progress of each receiver, for the progress lines.
final class ProgressState: @unchecked Sendable {
    private let lock = NSLock()
    private var state: [String: ReceiverProgress] = [:]

    func update(_ progress: ReceiverProgress) -> [String: ReceiverProgress] {
        lock.withLock {
            state[progress.receiver] = progress
            return state
        }
    }
}

extension LabRunCommand {
    /// The token of the running `lab serve` that pushed fetches must carry to be logged as the
    /// receiver's: SEAMCHECK_LAB_TOKEN, else the token file that server wrote beside --db.
    static func serverToken(database: LabDatabaseOption, store: LabStore) throws -> String {
        if let token = ProcessInfo.processInfo.environment[LabAccess.tokenVariable], !token.isEmpty { return token }
        let path = (store.executor.location.isPostgres ? "Reports/seamcheck" : database.path) + ".lab-token"
        guard let text = try? String(contentsOfFile: path, encoding: .utf8), !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw ValidationError("--delivery pushed with --server needs that server's lab token (to log the fetches it makes for each receiver as the receiver's): set \(LabAccess.tokenVariable), or give the --db whose \(path) the server wrote")
        }
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
