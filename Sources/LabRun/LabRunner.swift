import AirPlay
import Compatibility
import Discovery
import Foundation
import LabCore
import LabServer
import Store

/// A receiver a run plays on: its AirPlay endpoint and what the lab calls it.
public struct RunTarget: Sendable, Equatable, Codable {
    public var name: String
    public var deviceId: String?
    public var deviceClass: String?
    public var endpoint: AirPlayEndpoint
    /// What its TXT record says it wants before playing; nil when not discovered (an address).
    public var pairing: PairingRequirement?
    /// What it runs, from its TXT record (nil when not discovered); `/server-info` is added per run.
    public var software: LabReceiverSoftware? = nil

    public init(name: String, deviceId: String? = nil, deviceClass: String? = nil, endpoint: AirPlayEndpoint,
                pairing: PairingRequirement? = nil) {
        self.name = name
        self.deviceId = deviceId
        self.deviceClass = deviceClass
        self.endpoint = endpoint
        self.pairing = pairing
    }

    /// The address its requests come from in the lab server's log.
    public var address: String { endpoint.host }
}

/// Where the runner writes cells and reads the server's requests: `LabStore`, or a double in tests.
public protocol LabRunRecording: Sendable {
    func record(_ cell: LabRunCell, done: Bool) throws(LabStoreError)
    func requests(client: String, from: Date, to: Date) throws(LabStoreError) -> [LabRequestRecord]
}

extension LabStore: LabRunRecording {}

/// One receiver's line of progress.
public struct ReceiverProgress: Sendable, Equatable {
    public enum Phase: Sendable, Equatable {
        case starting
        case playing(caseId: String, position: Double?, duration: Double?)
        case waitingForReturn
        case finished
    }

    public var receiver: String
    public var done: Int
    public var total: Int
    public var phase: Phase
    /// The latest cell's case and verdict ("control: seamless").
    public var last: String?
}

/// What one receiver did in a run.
public struct ReceiverRunResult: Sendable, Equatable {
    public var target: RunTarget
    public var cells: [LabRunCell]
    /// Why it did not run (all) its cases: a refusal (pairing wanted), gone for good, a store failure.
    public var problem: String?
    /// A cell it played could not be stored (after `writePatience` of tries): it stopped there, and
    /// the run is to end `interrupted` so that `--resume` plays that cell and the rest.
    public var writeFailure: String?
    /// True when at least one of its cells was played.
    public var played: Bool { cells.contains { $0.measurement.outcome != .skipped } }
}

/// The unattended run: one worker per receiver in parallel, the cases one after another on each.
/// Every cell is stored as it finishes. A receiver that goes away mid-case has that cell
/// `failed: receiver went away`; once it answers again (probed every `comebackProbeEvery`, for at
/// most `comebackWait`) that cell and the ones it missed are played once more (attempt 2), else
/// recorded as not run. A refusal (pairing, password, no URL playback) skips its remaining cells
/// with the receiver's words. Cancellation (SIGINT) ends every worker after its current request;
/// the cell being played is not stored, and `--resume` plays it. A cell already finished (its
/// `/stop` answered) is still stored; no further case is opened and no further cell stored.
/// A cell whose write fails while another writer holds the database is written again with backoff
/// for `writePatience`; a write that still fails (or fails otherwise: a damaged or read-only file)
/// stops that receiver's worker with `writeFailure`, and the run is to end interrupted, not finished.
public struct LabRunner<C: Clock>: Sendable where C.Duration == Duration {
    public struct Options: Sendable {
        public var pollInterval: Duration = .milliseconds(250)
        /// Added to a case's media duration for its timeout.
        public var timeoutMargin: Duration = .seconds(15)
        /// Overrides every case's timeout.
        public var caseTimeout: Duration?
        public var goneAfter: Duration = .seconds(3)
        public var comebackProbeEvery: Duration = .seconds(3)
        public var comebackWait: Duration = .seconds(60)
        /// After `/stop`, time for the server's request log to reach the database (it commits every 25 ms).
        public var requestSettle: Duration = .milliseconds(150)
        /// How long a cell's write is tried again while another writer holds the database (each try
        /// waits the store's own busy timeout, then a backoff of 0.5 s doubling to 8 s).
        public var writePatience: Duration = .seconds(120)
        /// What counts as a stall and how it is graded (`--thresholds`, `--threshold`).
        public var thresholds: MeasurementThresholds = .defaults
        /// Starts reading a capture of the target's output for one cell (`--capture`), or nil for
        /// none: the picture's measurement goes into the cell beside the protocol's.
        public var capture: (@Sendable (RunTarget) -> CellCapture?)?
        /// The suite's primary timeline and the device classes: what a behaviour cell is judged with.
        public var primaryTimeline: [LabSegment] = []
        public var profiles: [DeviceProfile] = []
        /// Ask each receiver `GET /server-info` once before its first case; what it says goes into
        /// every cell's `software` beside the TXT record's versions.
        public var askServerInfo = false

        public init() {}
    }

    public let clock: C
    public let options: Options
    public let opener: AirPlayOpener
    /// True when the receiver answers again (after it went away).
    public let probe: @Sendable (AirPlayEndpoint) async -> Bool
    public let recorder: any LabRunRecording

    public init(clock: C, options: Options, opener: @escaping AirPlayOpener,
                probe: @escaping @Sendable (AirPlayEndpoint) async -> Bool, recorder: any LabRunRecording) {
        self.clock = clock
        self.options = options
        self.opener = opener
        self.probe = probe
        self.recorder = recorder
    }

    /// The seconds a case runs at most: its media (primary and interstitial) plus the margin.
    public func timeout(for labCase: LabCase) -> Duration {
        if let fixed = options.caseTimeout { return fixed }
        let breaks = labCase.behaviour?.interstitials.reduce(0) { $0 + $1.duration } ?? 0
        let media = labCase.primary.duration + (labCase.interstitialDuration ?? 0) + breaks
        return .milliseconds(Int64(media * 1000)) + options.timeoutMargin
    }

    /// Plays `cases` on every target, skipping the receiver x case cells in `done`. Returns what
    /// each receiver did; after cancellation, what each had done by then.
    public func run(runId: String, targets: [RunTarget], cases: [LabCase], skipping done: Set<LabRunCellKey> = [],
                    url: @escaping @Sendable (LabCase, RunTarget) -> URL,
                    progress: @escaping @Sendable (ReceiverProgress) -> Void = { _ in }) async -> [ReceiverRunResult] {
        await withTaskGroup(of: (Int, ReceiverRunResult).self) { group in
            for (index, target) in targets.enumerated() {
                let todo = cases.filter { !done.contains(LabRunCellKey(receiver: target.name, caseId: $0.id)) }
                group.addTask {
                    var worker = Worker(runner: self, runId: runId, target: target, total: todo.count, url: url, progress: progress)
                    return (index, await worker.run(todo))
                }
            }
            var results: [(Int, ReceiverRunResult)] = []
            for await result in group { results.append(result) }
            return results.sorted { $0.0 < $1.0 }.map(\.1)
        }
    }

    /// One receiver's cases, one after another.
    struct Worker {
        let runner: LabRunner
        let runId: String
        let target: RunTarget
        let total: Int
        let url: @Sendable (LabCase, RunTarget) -> URL
        let progress: @Sendable (ReceiverProgress) -> Void
        var result: ReceiverRunResult
        var last: String?
        /// What the receiver runs (TXT, and `/server-info` when asked), stored with each cell.
        var software: LabReceiverSoftware?

        init(runner: LabRunner, runId: String, target: RunTarget, total: Int, url: @escaping @Sendable (LabCase, RunTarget) -> URL,
             progress: @escaping @Sendable (ReceiverProgress) -> Void) {
            self.runner = runner
            self.runId = runId
            self.target = target
            self.total = total
            self.url = url
            self.progress = progress
            result = ReceiverRunResult(target: target, cells: [])
            software = target.software
        }

        /// The TXT record's versions with `/server-info`'s (a receiver that does not answer keeps the TXT's).
        static func software(of target: RunTarget, opener: AirPlayOpener) async -> LabReceiverSoftware? {
            guard let session = try? await opener(target.endpoint) else { return target.software }
            defer { Task { await session.close() } }
            guard let info = try? await session.serverInfo() else { return target.software }
            let served = LabReceiverSoftware(model: info.model, serverSourceVersion: info.sourceVersion, protocolVersion: info.protocolVersion)
            let merged = (target.software ?? LabReceiverSoftware()).merged(with: served)
            return merged.isEmpty ? nil : merged
        }

        mutating func run(_ cases: [LabCase]) async -> ReceiverRunResult {
            report(.starting)
            if runner.options.askServerInfo, !cases.isEmpty { software = await Self.software(of: target, opener: runner.opener) }
            var missed: [LabCase] = []
            var failedOnce: Set<String> = []
            var refusal: String?
            do {
                for labCase in cases {
                    try Task.checkCancellation()  // SIGINT between cells: no further case opened or stored
                    if let refusal {
                        try await store(notPlayed(labCase, attempt: 1, measurement: Self.refused(refusal)), done: true)
                    } else if !missed.isEmpty {
                        missed.append(labCase)
                    } else {
                        let (cell, end) = try await play(labCase, attempt: 1)
                        try await store(cell, done: true)
                        if end.kind == .refused {
                            refusal = end.failure
                            result.problem = end.failure
                        } else if end.kind == .receiverGone {
                            failedOnce.insert(labCase.id)
                            missed.append(labCase)
                        }
                    }
                }
                if !missed.isEmpty { try await retry(missed, failedOnce: failedOnce) }
            } catch is CancellationError {
            } catch let failure as CellWriteFailure {
                result.problem = failure.description
                result.writeFailure = failure.description
            } catch {
                result.problem = "\(error)"
            }
            report(.finished)
            return result
        }

        /// Waits for the receiver to answer again, then plays `missed` once more.
        private mutating func retry(_ missed: [LabCase], failedOnce: Set<String>) async throws {
            report(.waitingForReturn)
            let wait = runner.options.comebackWait
            guard try await waitForReturn() else {
                let reason = "the receiver went away and did not answer again within \(CellMachine.seconds(wait)) s"
                result.problem = "not run: " + reason
                for labCase in missed where !failedOnce.contains(labCase.id) {
                    try Task.checkCancellation()
                    try await store(notPlayed(labCase, attempt: 1, measurement: .notRun(reason)), done: false)
                }
                return
            }
            for (index, labCase) in missed.enumerated() {
                try Task.checkCancellation()
                let (cell, end) = try await play(labCase, attempt: failedOnce.contains(labCase.id) ? 2 : 1)
                try await store(cell, done: true)
                if end.kind == .receiverGone || end.kind == .refused {
                    let reason = "the receiver \(end.kind == .refused ? "refused" : "went away") again during \(labCase.id)"
                    result.problem = "not run: " + reason
                    for rest in missed[(index + 1)...] where !failedOnce.contains(rest.id) {
                        try Task.checkCancellation()
                        try await store(notPlayed(rest, attempt: 1, measurement: .notRun(reason)), done: false)
                    }
                    return
                }
            }
        }

        private func waitForReturn() async throws -> Bool {
            let start = runner.clock.now
            while start.duration(to: runner.clock.now) < runner.options.comebackWait {
                try await runner.clock.sleep(for: runner.options.comebackProbeEvery)
                if await runner.probe(target.endpoint) { return true }
            }
            return false
        }

        private mutating func play(_ labCase: LabCase, attempt: Int) async throws -> (LabRunCell, CellEnd) {
            // A post-roll plays after the primary's end: such a cell waits for the receiver to drop the item.
            let postRoll = labCase.behaviour?.interstitials.contains { $0.cue.contains("POST") } ?? false
            let limits = CellLimits(pollInterval: runner.options.pollInterval, caseTimeout: runner.timeout(for: labCase),
                                    goneAfter: runner.options.goneAfter, stopAtEnd: !postRoll,
                                    live: labCase.behaviour?.live != nil)
            let caseURL = url(labCase, target)
            let reporter = progress, name = target.name, done = result.cells.count, total = total, last = last
            let driver = CellDriver(clock: runner.clock, limits: limits, opener: runner.opener) { sample in
                reporter(ReceiverProgress(receiver: name, done: done, total: total,
                                          phase: .playing(caseId: labCase.id, position: sample.info?.position,
                                                          duration: sample.info?.duration), last: last))
            }
            report(.playing(caseId: labCase.id, position: nil, duration: nil))
            let capture = runner.options.capture?(target)
            // The sound heard before /play, 3 s at most: an idle null sink's first sound comes up to 2 s late.
            for _ in 0..<60 where capture?.soundHeard == false { try? await Task.sleep(for: .milliseconds(50)) }
            let recording: CellRecording
            do { recording = try await driver.run(target.endpoint, url: caseURL, script: labCase.behaviour?.commands ?? []) } catch {
                _ = capture?.finishBoth(playSentAt: Date())
                throw error
            }
            let (picture, sound) = capture?.finishBoth(playSentAt: recording.series.playSentAt) ?? (nil, nil)
            try? await runner.clock.sleep(for: runner.options.requestSettle)  // a finished cell is stored even when interrupted now
            let requests = (try? runner.recorder.requests(client: target.address, from: recording.series.playSentAt.addingTimeInterval(-1),
                                                          to: Date())) ?? []
            var measurement = recording.end.kind == .refused
                ? Self.refused(recording.end.failure ?? "refused")
                : CellMeasurer(thresholds: runner.options.thresholds).measure(series: recording.series, requests: requests, labCase: labCase, failure: recording.end.failure)
            measurement.picture = picture
            measurement.sound = sound
            if let adEnd = labCase.interstitialStart.map({ $0 + (labCase.interstitialDuration ?? 0) }) {
                let adMet = Self.adExpectedOnScreen(labCase, requests: requests)
                measurement.picture?.noteAdNeverShown(playedThroughAd: adMet && (measurement.lastPosition ?? 0) > adEnd)
            }
            measurement.picture?.markSwitchFreezes(labCase: labCase, windowSeconds: runner.options.thresholds.transitionWindowSeconds,
                                                   minimumMs: runner.options.thresholds.stallMinimumMs)
            if !recording.unsent.isEmpty, recording.end.kind != .refused {
                measurement.reason += "; " + Self.unsentNote(recording.unsent)
            }
            var behaviour: BehaviourJudgement?
            if labCase.behaviour != nil, recording.end.kind != .refused {
                behaviour = BehaviourJudge.judge(case: labCase, primaryTimeline: runner.options.primaryTimeline, requests: requests,
                                                             series: recording.series, deviceClass: target.deviceClass,
                                                             profile: runner.options.profiles.first { $0.id == target.deviceClass })
            }
            var cell = LabRunCell(runId: runId, receiver: target.name, deviceId: target.deviceId, deviceClass: target.deviceClass,
                                  address: target.address, caseId: labCase.id, attempt: attempt, startedAt: recording.startedAt,
                                  finishedAt: recording.finishedAt, url: caseURL.absoluteString, series: recording.series,
                                  requests: requests, measurement: measurement, behaviour: behaviour)
            cell.software = software
            return (cell, Self.retryable(recording.end, measurement: measurement))
        }

        /// The end the worker acts on. A receiver that came back without the item within the run's
        /// failed polls (`goneAfter`: UxPlay restarts in about 1 s) ended the cell as `finished`,
        /// and the measurer calls it "receiver went away ... came back without the item": that is
        /// retried like a receiver that stayed away longer.
        static func retryable(_ end: CellEnd, measurement: CellMeasurement) -> CellEnd {
            guard measurement.failure == .receiverWentAway, end.kind != .receiverGone, end.kind != .refused else { return end }
            return CellEnd(kind: .receiverGone, failure: measurement.reason)
        }

        /// Whether a frame of the ad was due on screen: a stitched ad always (it is in the primary's
        /// stream); an interstitial only once the receiver fetched it; never an ad without video
        /// (track-set-audio-only), nor one with no single asset to fetch (an empty or failing asset
        /// list: behaviour-asset-list-empty, -failed; UxPlay, which fetched none of either, was
        /// called "no frame of the ad was seen on screen" there).
        static func adExpectedOnScreen(_ labCase: LabCase, requests: [LabRequestRecord]) -> Bool {
            guard labCase.interstitial?.videoCodec != nil else { return false }
            if labCase.delivery == .stitched { return true }
            return TransitionPoint.interstitialFetched(labCase, requests: requests) == true
        }

        /// "2 scripted commands not sent (scrub to 2.0 s at 10.0 s, rate 2 at 12.0 s): the cell ended first".
        static func unsentNote(_ commands: [LabScriptedCommand]) -> String {
            let list = commands.map { command in
                (command.kind == .scrub ? String(format: "scrub to %.1f s", command.value) : String(format: "rate %g", command.value))
                    + (command.atPosition.map { String(format: " at position %.1f s", $0) } ?? String(format: " at %.1f s", command.after))
            }
            return "\(commands.count) scripted command\(commands.count == 1 ? "" : "s") not sent (\(list.joined(separator: ", "))): the cell ended first"
        }

        /// A receiver that wants pairing, a password or has no URL playback: skipped, in its words.
        static func refused(_ reason: String) -> CellMeasurement {
            CellMeasurement(outcome: .skipped, reason: reason, failure: .runFailed)
        }

        private func notPlayed(_ labCase: LabCase, attempt: Int, measurement: CellMeasurement) -> LabRunCell {
            let now = Date()
            var cell = LabRunCell(runId: runId, receiver: target.name, deviceId: target.deviceId, deviceClass: target.deviceClass,
                                  address: target.address, caseId: labCase.id, attempt: attempt, startedAt: now, finishedAt: now,
                                  url: url(labCase, target).absoluteString,
                                  series: PlaybackSeries(playSentAt: now, pollIntervalMs: CellMachine.ms(runner.options.pollInterval)),
                                  requests: [], measurement: measurement)
            cell.software = software
            return cell
        }

        private mutating func store(_ cell: LabRunCell, done: Bool) async throws {
            let recorder = runner.recorder
            try await StoreRetry(clock: runner.clock, patience: runner.options.writePatience).run { () async throws(StoreError) in
                try await StoreThreads.shared.call { () throws(StoreError) in try recorder.record(cell, done: done) }
            } failed: { error, tried in
                CellWriteFailure(receiver: cell.receiver, caseId: cell.caseId, error: error, tried: tried)
            }
            result.cells.append(cell)
            last = "\(cell.caseId): \(cell.measurement.labVerdict.rawValue)"
            report(.starting)
        }

        private func report(_ phase: ReceiverProgress.Phase) {
            progress(ReceiverProgress(receiver: target.name, done: result.cells.count, total: total, phase: phase, last: last))
        }
    }
}
