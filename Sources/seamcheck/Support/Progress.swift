import Foundation

/// Progress lines on stderr, redrawn on each update and every second; nothing when stderr is
/// not a terminal. `render` turns the latest state and the seconds elapsed into the lines to show
/// (one for the matrix's bar, one per receiver for `lab run`); each is cut to the terminal width.
final class ProgressPrinter<State: Sendable>: @unchecked Sendable {
    private let enabled: Bool
    private let render: @Sendable (State, Double) -> [String]
    private let lock = NSLock()
    private var last: State?
    private var drawnLines = 0
    private let started = ContinuousClock.now
    private var ticker: Task<Void, Never>?
    private var done = false

    init(enabled: Bool, render: @escaping @Sendable (State, Double) -> [String]) {
        self.enabled = enabled
        self.render = render
        guard enabled else { return }
        ticker = Task { [weak self] in
            while (try? await Task.sleep(for: .seconds(1))) != nil {
                self?.draw()
            }
        }
    }

    func update(_ state: State) {
        guard enabled else { return }
        lock.withLock { last = state }
        draw()
    }

    /// Stops redrawing and ends the last line; lines written after this start on a fresh line.
    func finish() {
        ticker?.cancel()
        let drawn = lock.withLock { () -> Bool in
            defer { done = true }
            return drawnLines > 0 && !done
        }
        if enabled, drawn { Terminal.writeStderr("\n") }
    }

    private func draw() {
        guard let state = lock.withLock({ done ? nil : last }) else { return }
        let elapsed = ContinuousClock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        var width = Int.max
        var size = winsize()
        if ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 10 { width = Int(size.ws_col) - 1 }
        let lines = render(state, seconds).map { $0.count > width ? String($0.prefix(width)) : $0 }
        lock.withLock {
            guard !done else { return }
            // Back to the first line drawn last time, then each line cleared and redrawn.
            var text = drawnLines > 1 ? "\r\u{1B}[\(drawnLines - 1)A" : "\r"
            text += lines.map { "\u{1B}[2K" + $0 }.joined(separator: "\n")
            // Fewer lines than last time: clear what is left below.
            if drawnLines > lines.count { text += "\u{1B}[J" }
            Terminal.writeStderr(text)
            drawnLines = lines.count
        }
    }
}
