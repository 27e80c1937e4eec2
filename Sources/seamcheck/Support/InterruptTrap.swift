import Foundation

/// SIGINT and SIGTERM: the first cancels the run (which then stops cleanly), a second exits at once.
final class InterruptTrap: @unchecked Sendable {
    private let lock = NSLock()
    private var first: Int32?
    private var trap: SignalTrap?

    /// `what` names what the first signal stops, for its message ("running cases").
    init(stopping what: String = "running cases", _ onFirst: @escaping @Sendable (Int32) -> Void) {
        trap = SignalTrap { [weak self] signalNumber in
            guard let self else { return }
            if let earlier = self.lock.withLock({ () -> Int32? in
                defer { if self.first == nil { self.first = signalNumber } }
                return self.first
            }) {
                Terminal.writeStderr("\nseamcheck: stopping now\n")
                _exit(128 + earlier)
            }
            Terminal.writeStderr("\nseamcheck: interrupted; stopping \(what) (again to exit at once)\n")
            onFirst(signalNumber)
        }
    }

    var received: Int32? { lock.withLock { first } }
}
