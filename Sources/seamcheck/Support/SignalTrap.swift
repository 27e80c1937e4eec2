import Foundation

/// SIGINT and SIGTERM delivered to `handler` (on a dispatch queue) instead of killing the
/// process, for as long as the trap lives.
///
/// The signals are also unblocked for this thread: a process started from an async context
/// can inherit a mask that blocks them.
final class SignalTrap: @unchecked Sendable {
    private var sources: [any DispatchSourceSignal] = []

    init(_ handler: @escaping @Sendable (Int32) -> Void) {
        var unblock = sigset_t()
        sigemptyset(&unblock)
        for signalNumber in [SIGINT, SIGTERM] {
            sigaddset(&unblock, signalNumber)
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler { handler(signalNumber) }
            source.resume()
            sources.append(source)
        }
        pthread_sigmask(SIG_UNBLOCK, &unblock, nil)
    }

    deinit {
        sources.forEach { $0.cancel() }
    }
}
