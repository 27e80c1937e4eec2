import AirPlay
import Foundation
import LabCore
import LabServer
import Store
import Logging

/// One unattended run, from its chosen receivers and cases to its stored cells: it serves the suite
/// (or plays from a running `lab serve`), records the run and keeps its lease with a heartbeat,
/// plays every cell through `LabRunner`, and records how the run ended. What belongs to a terminal
/// (options, progress lines, signals, output, exit codes) stays with the command.
public final class LabRunSession: Sendable {
    /// Where receivers fetch the cases from.
    public enum Origin: Sendable {
        /// A running `lab serve` at this base URL (no trailing slash), sharing the database.
        case server(String)
        /// The run's own server for `suite` on `bind` (nil: the local address on the route toward
        /// the receivers, or every address when they are reached through several) and `port`.
        case own(suite: LabSuite, bind: String?, port: Int)
    }

    public struct Plan: Sendable {
        public var targets: [RunTarget]
        public var cases: [LabCase]
        /// The interrupted run this one completes (`--resume`), nil for a new run.
        public var resuming: LabRunSummary?
        public var origin: Origin
        public var options: LabRunner<ContinuousClock>.Options
        public var lease: RunLease
        /// The run's own server's lab token (pushed delivery sends it with the fetches it makes for
        /// receivers); nil: a new one.
        public var labToken: String?

        public init(targets: [RunTarget], cases: [LabCase], resuming: LabRunSummary?, origin: Origin,
                    options: LabRunner<ContinuousClock>.Options, lease: RunLease = .fromEnvironment()) {
            self.targets = targets
            self.cases = cases
            self.resuming = resuming
            self.origin = origin
            self.options = options
            self.lease = lease
        }
    }

    /// What the run did: the receivers' results and whether any cell was played (a resumed run
    /// with nothing left counts as played).
    public struct Outcome: Sendable {
        public var results: [ReceiverRunResult]
        public var anyPlayed: Bool
        /// Cells played but not stored: the run must end interrupted, and `--resume` completes it.
        public var writeFailures: [String] { results.compactMap(\.writeFailure) }
    }

    public let summary: LabRunSummary
    /// The cells a resumed run had already done, which this one does not play again.
    public let done: Set<LabRunCellKey>
    /// Where the run's own server serves the suite, for the operator (nil with `.server`).
    public let serving: (root: String, port: Int)?
    private let plan: Plan
    private let store: LabStore
    private let server: LabRunServer?
    private let base: @Sendable (RunTarget) -> String
    private let heartbeat: RunHeartbeat
    private let runner: LabRunner<ContinuousClock>

    /// Starts the server (for `.own`) and records the run as running (or takes over the
    /// interrupted one); the heartbeat beats from here until `finish`.
    public static func open(_ plan: Plan, store: LabStore, logger: Logger, opener: @escaping AirPlayOpener,
                            probe: @escaping @Sendable (AirPlayEndpoint) async -> Bool) async throws -> LabRunSession {
        var server: LabRunServer?
        let base: @Sendable (RunTarget) -> String
        let serverText: String
        switch plan.origin {
        case .server(let url):
            let trimmed = url.hasSuffix("/") ? String(url.dropLast()) : url
            base = { _ in trimmed }
            serverText = url
        case .own(let suite, let wanted, let port):
            let routes = Set(plan.targets.map { LocalRoute.source(toward: $0.address) ?? "0.0.0.0" })
            let bind = wanted ?? (routes.count == 1 ? routes.first! : "0.0.0.0")
            var options = LabServerOptions(bind: bind, port: port, suite: suite, profiles: [], inventory: nil, browse: false)
            if let token = plan.labToken { options.token = token }
            let started = try await LabRunServer.start(options, store: store, logger: logger)
            server = started
            let port = started.port
            serverText = "http://\(Self.host(bind)):\(port)"
            let wildcard = ["0.0.0.0", "::", "[::]"].contains(bind)
            // Each receiver is given the local address on its own route when the server listens on all.
            base = { target in "http://\(Self.host(wildcard ? (LocalRoute.source(toward: target.address) ?? "127.0.0.1") : bind)):\(port)" }
        }
        let summary: LabRunSummary
        let done: Set<LabRunCellKey>
        do {
            if let previous = plan.resuming {
                let (lease, id) = (plan.lease.seconds, previous.id)
                summary = try await StoreThreads.shared.call { () throws(StoreError) in
                    try store.resumeRun(id, server: serverText, leaseSeconds: lease)
                }
                done = try await StoreThreads.shared.call { [summary] () throws(StoreError) in try store.doneCells(runId: summary.id) }
            } else {
                summary = LabRunSummary(id: Self.newRunId(), startedAt: Date(), state: .running, server: serverText,
                                        receivers: plan.targets.map(\.name), cases: plan.cases.map(\.id),
                                        pollIntervalMs: CellMachine.ms(plan.options.pollInterval),
                                        cellsTotal: plan.targets.count * plan.cases.count)
                let lease = plan.lease.seconds
                try await StoreThreads.shared.call { [summary] () throws(StoreError) in try store.beginRun(summary, leaseSeconds: lease) }
                done = []
            }
        } catch {
            await server?.stop()
            throw error
        }
        let runner = LabRunner(clock: ContinuousClock(), options: plan.options, opener: opener, probe: probe, recorder: store)
        return LabRunSession(plan: plan, store: store, server: server, base: base, summary: summary, done: done, runner: runner,
                             serving: server.map { (Self.suiteRoot(plan.origin), $0.port) })
    }

    private init(plan: Plan, store: LabStore, server: LabRunServer?, base: @escaping @Sendable (RunTarget) -> String,
                 summary: LabRunSummary, done: Set<LabRunCellKey>, runner: LabRunner<ContinuousClock>, serving: (root: String, port: Int)?) {
        self.plan = plan
        self.store = store
        self.server = server
        self.base = base
        self.summary = summary
        self.done = done
        self.runner = runner
        self.serving = serving
        let runId = summary.id
        heartbeat = RunHeartbeat(lease: plan.lease, beat: { _ in try store.heartbeat(runId) })
        heartbeat.start()
    }

    /// Plays every cell not yet done. Cancelling the calling task stops the cell playing (`/stop`,
    /// not stored) and returns what was done by then.
    public func play(progress: @escaping @Sendable (ReceiverProgress) -> Void = { _ in }) async -> Outcome {
        let base = self.base
        let results = await runner.run(runId: summary.id, targets: plan.targets, cases: plan.cases, skipping: done,
                                       url: { labCase, target in Self.caseURL(base(target), labCase) }, progress: progress)
        let anyPlayed = results.contains { $0.played } || (!done.isEmpty && results.allSatisfy { $0.cells.isEmpty })
        return Outcome(results: results, anyPlayed: anyPlayed)
    }

    /// Stops the heartbeat and the server, and records the run finished or interrupted (tried
    /// again for `patience` while another writer holds the database). A run whose end cannot be
    /// recorded stays `running` with a stopped heartbeat: it reads `interrupted` once its lease lapses.
    public func finish(interrupted: Bool, patience: Duration = .seconds(60)) async throws {
        heartbeat.stop()
        await server?.stop()
        let (store, id) = (store, summary.id)
        try await StoreRetry(clock: ContinuousClock(), patience: patience).run { () async throws(StoreError) in
            try await StoreThreads.shared.call { () throws(StoreError) in try store.finishRun(id, state: interrupted ? .interrupted : .finished) }
        } failed: { error, _ in error }
    }

    /// How long the run's lease is: how long a run whose end could not be recorded still reads `running`.
    public var leaseSeconds: Double { plan.lease.seconds }

    /// The case's multivariant playlist on the server: the manifest's path percent-encoded, so that
    /// an edited or foreign manifest cannot make an invalid URL.
    public static func caseURL(_ base: String, _ labCase: LabCase) -> URL {
        let path = labCase.playlist.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? labCase.playlist
        return URL(string: base + "/" + path) ?? URL(string: base)!
    }

    /// `20261125-193000-1f2e`: sortable, and unique enough for one lab.
    public static func newRunId(now: Date = Date()) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd-HHmmss"
        return formatter.string(from: now) + "-" + String(UInt32.random(in: 0...0xFFFF), radix: 16)
    }

    private static func host(_ address: String) -> String {
        address.contains(":") && !address.hasPrefix("[") ? "[\(address)]" : address
    }

    private static func suiteRoot(_ origin: Origin) -> String {
        if case .own(let suite, _, _) = origin { return suite.root }
        return ""
    }
}
