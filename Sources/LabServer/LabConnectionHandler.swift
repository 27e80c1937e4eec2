import Foundation
import LabCore
import NIOCore
import NIOHTTP1

/// The lab server's one handler of its own on every connection, right after NIO's HTTP/1 request
/// decoder (where the version is still known), doing three things in one pass of the pipeline:
///
/// - **HTTP/1.0 closes**: one request a connection for a client that asked for no more (HTTP/1.0
///   without `Connection: keep-alive`, RFC 9112 9.3, or any `Connection: close`). Hummingbird reads
///   only the HTTP types' headers, which carry no version, and ends a connection on
///   `Connection: close` alone, so the request head gets that header here.
/// - **Rejected requests logged**: a request the parser rejects (a malformed request line, an
///   oversized header, garbage) is answered 400 by Hummingbird before any middleware runs, so
///   RequestLogMiddleware never sees it. It is logged here: method `-` (the marker), path the last
///   request head of the connection or `-`, status the one sent after the error (0 when the
///   connection closed unanswered); at most `rejectedLimit` a connection.
/// - **Socket metering**: every response body part's write promise settles the connection's
///   `SocketMeter` (what the socket really took), which RequestLogMiddleware logs and waits on.
/// - **Requests handed on**: counts the request heads going to Hummingbird and the response ends
///   coming back (`ConnectionLedger`, which `PlaylistFastPath` reads to keep the answers' order).
///
/// Placed by `LabChildChannel`.
final class LabConnectionHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// Marks a rejected request in the log's method column.
    static let rejectedMethod = "-"
    static let rejectedLimit = 4

    let meter = SocketMeter()
    private let log: RequestLog
    private var rejectedCount = 0
    private var rejected: LabRequestRecord?
    private var rejectedAt = ContinuousClock.now
    private var channelId: ObjectIdentifier?
    private let ledger: ConnectionLedger

    init(log: RequestLog, ledger: ConnectionLedger = ConnectionLedger()) {
        self.log = log
        self.ledger = ledger
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let id = ObjectIdentifier(context.channel)
        channelId = id
        SocketMeter.register(meter, for: id)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        closeMeter()
        commitRejected()
    }

    func channelInactive(context: ChannelHandlerContext) {
        closeMeter()
        commitRejected()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(var head) = unwrapInboundIn(data) else {
            context.fireChannelRead(data)
            return
        }
        ledger.lastPath = head.uri
        ledger.handedOn += 1
        if !head.isKeepAlive {
            head.headers.replaceOrAdd(name: "connection", value: "close")
            context.fireChannelRead(wrapInboundOut(.head(head)))
            return
        }
        context.fireChannelRead(data)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if error is HTTPParserError, rejected == nil, rejectedCount < Self.rejectedLimit {
            let address = context.channel.remoteAddress
            rejectedAt = .now
            rejected = LabRequestRecord(
                at: Date(), client: address?.ipAddress ?? "unknown", clientPort: address?.port, method: Self.rejectedMethod,
                path: ledger.lastPath.map { String($0.prefix(2048)) } ?? "-", status: 0, bytes: 0, durationMs: 0, userAgent: nil, completed: true)
        }
        context.fireErrorCaught(error)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .body(let body):
            let count = body.readableBytes
            let settled = promise ?? context.eventLoop.makePromise()
            let meter = self.meter
            settled.futureResult.whenComplete { result in
                if case .success = result { meter.settle(count, taken: true) } else { meter.settle(count, taken: false) }
            }
            context.write(data, promise: settled)
        case .head(let head) where rejected != nil:
            rejected?.status = Int(head.status.code)
            commitRejected()
            context.write(data, promise: promise)
        case .end:
            ledger.handedOn = max(0, ledger.handedOn - 1)
            context.write(data, promise: promise)
        case .head:
            context.write(data, promise: promise)
        }
    }

    private func closeMeter() {
        meter.close()
        if let channelId { SocketMeter.unregister(channelId) }
        channelId = nil
    }

    private func commitRejected() {
        guard var record = rejected else { return }
        record.durationMs = RequestLogMiddleware.milliseconds(ContinuousClock.now - rejectedAt)
        rejected = nil
        rejectedCount += 1
        log.append(record)
    }
}
