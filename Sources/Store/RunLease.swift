import Foundation

/// Whether a run recorded as running still runs, without trusting a PID: the running process
/// writes a heartbeat every `interval`, and a reader takes a heartbeat older than `seconds` (the
/// lease) as a dead holder. A PID says nothing from another PID namespace (a container, `unshare`)
/// and may be reused; a heartbeat cannot be kept fresh by a dead process. The lease is recorded with
/// the run, so readers judge each run by the lease its writer used.
public struct RunLease: Sendable, Equatable, Codable {
    /// A heartbeat older than this many seconds means the holder is gone.
    public var seconds: Double

    /// How often the holder beats: six beats a lease, so a few slow writes do not lose it.
    public var interval: Double { seconds / 6 }

    /// 30 s: a beat every 5 s.
    public static let standard = RunLease(seconds: 30)
    /// The environment variable that sets the lease of the runs this process starts (tests).
    public static let environmentVariable = "SEAMCHECK_RUN_LEASE_SECONDS"
    /// Leases outside this range are not used (a lease shorter than a slow disk write would lapse
    /// under a live run; a longer one leaves a dead run "running" for hours).
    public static let allowed: ClosedRange<Double> = 0.6...3600

    public init(seconds: Double) {
        self.seconds = seconds
    }

    /// `SEAMCHECK_RUN_LEASE_SECONDS` when it is a number in `allowed`, else `standard`.
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> RunLease {
        guard let text = environment[environmentVariable], let value = Double(text), allowed.contains(value) else { return .standard }
        return RunLease(seconds: value)
    }

    /// Whether the holder whose last heartbeat was at `heartbeat` still holds the lease at `now`.
    /// A heartbeat in the future (another host's clock ahead of ours) holds it.
    public func holds(heartbeat: Date, now: Date = Date()) -> Bool {
        now.timeIntervalSince(heartbeat) <= seconds
    }
}

/// Calls `beat` with the current time every `lease.interval` on a thread of its own (so that a
/// busy task pool cannot starve it), from `start()` until `stop()`. A failed beat is reported to
/// `failed` and tried again at the next interval; the lease lapses only if beats fail for all of it.
public final class RunHeartbeat: @unchecked Sendable {
    private let lease: RunLease
    private let beat: @Sendable (Date) throws -> Void
    private let failed: @Sendable (any Error) -> Void
    private let condition = NSCondition()
    private var stopped = false
    private var thread: Thread?

    public init(lease: RunLease, beat: @escaping @Sendable (Date) throws -> Void,
                failed: @escaping @Sendable (any Error) -> Void = { _ in }) {
        self.lease = lease
        self.beat = beat
        self.failed = failed
    }

    /// Starts beating (the first beat at once). Calling it twice does nothing more.
    public func start() {
        condition.lock()
        defer { condition.unlock() }
        guard thread == nil, !stopped else { return }
        let thread = Thread { [self] in loop() }
        thread.name = "seamcheck-heartbeat"
        self.thread = thread
        thread.start()
    }

    /// Stops beating; returns at once. No beat starts after it returns.
    public func stop() {
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
    }

    private func loop() {
        while true {
            condition.lock()
            if stopped { condition.unlock(); return }
            // Beat under the lock: stop() cannot return while a beat is in progress.
            do { try beat(Date()) } catch { failed(error) }
            let next = Date().addingTimeInterval(lease.interval)
            while !stopped, condition.wait(until: next) {}
            let done = stopped
            condition.unlock()
            if done { return }
        }
    }

    deinit { stop() }
}
