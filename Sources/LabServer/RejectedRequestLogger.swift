import Foundation
import LabCore
import NIOCore
import NIOHTTP1
import NIOHTTPTypes

/// Logs the requests the HTTP parser rejects (a malformed request line, an oversized header,
/// garbage bytes): Hummingbird answers those 400 and closes before any middleware runs, so
/// RequestLogMiddleware never sees them. The record's method is `-` (the marker of a rejected
/// request), its path the last request head the parser produced on the connection or `-`, its
/// status the one Hummingbird sent after the error (0 when the connection closed unanswered).
/// One per connection (LabServer's `additionalChannelHandlers`), at most `limit` records each:
/// the parser stops at its first error, and a flood of garbage costs one record, not memory.
final class RejectedRequestLogger: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart

    /// Marks a rejected request in the log's method column.
    static let method = "-"
    static let limit = 4

    private let log: RequestLog
    private var lastPath: String?
    private var logged = 0
    private var rejected: LabRequestRecord?
    private var started = ContinuousClock.now

    init(log: RequestLog) {
        self.log = log
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head): lastPath = head.path.map { String($0.prefix(2048)) }
        case .body, .end: break
        }
        context.fireChannelRead(data)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if error is HTTPParserError, rejected == nil, logged < Self.limit {
            let address = context.channel.remoteAddress
            started = .now
            rejected = LabRequestRecord(
                at: Date(), client: address?.ipAddress ?? "unknown", clientPort: address?.port, method: Self.method,
                path: lastPath ?? "-", status: 0, bytes: 0, durationMs: 0, userAgent: nil, completed: true)
        }
        context.fireErrorCaught(error)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if rejected != nil, case .head(let head) = unwrapOutboundIn(data) {
            rejected?.status = head.status.code
            commit()
        }
        context.write(data, promise: promise)
    }

    func channelInactive(context: ChannelHandlerContext) {
        commit()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        commit()
    }

    private func commit() {
        guard var record = rejected else { return }
        record.durationMs = RequestLogMiddleware.milliseconds(ContinuousClock.now - started)
        rejected = nil
        logged += 1
        log.append(record)
    }
}
