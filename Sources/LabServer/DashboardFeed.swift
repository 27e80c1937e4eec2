import Foundation
import HLS
import LabCore
import Logging

/// The dashboard's live feed: one poller reads the cells stored since the last look (by any
/// process: `lab run` at this station or another writes them to the shared store) and hands each
/// viewer the same events. Each viewer has a bounded queue (`perViewerEvents`, newest kept): a
/// viewer that stops reading loses old events, never grows the server's memory; its socket's
/// backpressure (RequestLogMiddleware's meter) stops the writer, and the idle timeout closes it.
public final class DashboardFeed: @unchecked Sendable {
    /// Events queued for one viewer at most; older ones are dropped (the page re-reads the grid on a gap).
    public static let perViewerEvents = 64
    /// A comment line this often keeps a quiet feed's connection from the write idle timeout.
    static let keepAliveEvery: Duration = .seconds(15)

    private let store: LabStore
    private let logger: Logger
    private let interval: Duration
    private let lock = NSLock()
    private var viewers: [UUID: AsyncStream<String>.Continuation] = [:]
    private var lastCellId: Int64 = 0
    private var poller: Task<Void, Never>?
    private var dropped = 0

    public init(store: LabStore, logger: Logger, interval: Duration = .milliseconds(500)) {
        self.store = store
        self.logger = logger
        self.interval = interval
    }

    /// Starts polling from the newest cell stored now.
    public func start() {
        lastCellId = (try? store.newestCellId()) ?? 0
        poller = Task.detached { [weak self, interval] in
            var sinceKeepAlive: Duration = .zero
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                guard let self, !Task.isCancelled else { break }
                self.poll()
                sinceKeepAlive += interval
                if sinceKeepAlive >= Self.keepAliveEvery {
                    sinceKeepAlive = .zero
                    self.broadcast(": keep-alive\n\n")
                }
            }
        }
    }

    public func stop() {
        poller?.cancel()
        poller = nil
        let all = lock.withLock { () -> [AsyncStream<String>.Continuation] in
            defer { viewers.removeAll() }
            return Array(viewers.values)
        }
        all.forEach { $0.finish() }
    }

    /// A new viewer's events (SSE text, one event a string), ended when the feed stops.
    public func subscribe() -> AsyncStream<String> {
        let id = UUID()
        let (stream, continuation) = AsyncStream<String>.makeStream(bufferingPolicy: .bufferingNewest(Self.perViewerEvents))
        continuation.onTermination = { [weak self] _ in self?.lock.withLock { _ = self?.viewers.removeValue(forKey: id) } }
        lock.withLock { viewers[id] = continuation }
        continuation.yield("retry: 2000\n: seamcheck lab dashboard feed\n\n")
        return stream
    }

    public var viewerCount: Int { lock.withLock { viewers.count } }
    /// Events dropped from viewers' queues because they did not read them.
    public var droppedEvents: Int { lock.withLock { dropped } }

    /// Reads the cells stored since the last poll and sends a `cell` event for each, with its run's progress.
    func poll() {
        let since = lock.withLock { lastCellId }
        let cells: [LabCellBrief]
        do { cells = try store.briefCells(after: since) } catch {
            logger.warning("dashboard feed: \(error.description)")
            return
        }
        guard let last = cells.last else { return }
        lock.withLock { lastCellId = last.id }
        var progress: [String: [DashboardGrid.Progress]] = [:]
        for runId in Set(cells.map(\.runId)) {
            guard let run = try? store.run(runId), let runCells = try? store.briefCells(runId: runId) else { continue }
            progress[runId] = DashboardGridBuilder.progress(run: run, cells: runCells)
        }
        for cell in cells {
            let event = CellEvent(cell: cell, progress: progress[cell.runId] ?? [])
            guard let data = try? DashboardJSON.encode(event) else { continue }
            broadcast("id: \(cell.id)\nevent: cell\ndata: \(data)\n\n")
        }
    }

    /// Sends `text` to every viewer; counts what a full queue dropped.
    func broadcast(_ text: String) {
        let all = lock.withLock { Array(viewers.values) }
        var lost = 0
        for viewer in all {
            if case .dropped = viewer.yield(text) { lost += 1 }
        }
        if lost > 0 { lock.withLock { dropped += lost } }
    }

    struct CellEvent: Encodable {
        var cell: LabCellBrief
        var progress: [DashboardGrid.Progress]
    }
}

/// The dashboard's JSON: one line, dates ISO 8601 with milliseconds (as the lab's other documents).
enum DashboardJSON {
    static func encode(_ value: some Encodable) throws -> String {
        String(decoding: try JSONDocument.encoder(pretty: false, dates: .iso8601Milliseconds).encode(value), as: UTF8.self)
    }
}
