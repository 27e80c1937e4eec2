import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import LabCore
import NIOCore
import NIOHTTPTypes

/// The hot path of a lab, answered on the connection's event loop: a GET or HEAD of a playlist or
/// asset list of the suite (a template with the origin filled in, or a live case's window), which
/// every receiver polls each target duration. Hummingbird's router, middleware chain and per-request
/// task cost several times the work itself (docs/benchmarks.md, lab-serve); here the same
/// `LiveWindowMiddleware` and `TemplateMiddleware` make the reply, the same record goes to the
/// request log (its bytes and completion from the body's write promise: what the socket took), and
/// the response carries Hummingbird's `Date` and `Server` headers. Everything else, and a request
/// that arrives while one passed on is still being answered (pipelining keeps its order), passes on
/// to Hummingbird untouched: errors (404, 403), ranges of media files, the lab page and its API,
/// and requests pushed on a receiver's behalf (`LabAccess.pushedForHeader`).
///
/// Sits after Hummingbird's connection state handler (which so sees every request and response:
/// idle timeout, `Connection: close`, graceful shutdown) and before the request task's channel.
final class PlaylistFastPath: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    /// What the fast path needs, shared by every connection.
    struct Responder: Sendable {
        let live: LiveWindowMiddleware<LabRequestContext>
        let templates: TemplateMiddleware<LabRequestContext>
        let log: RequestLog
        let knownCases: Set<String>
        let serverName: String
        let dates = HTTPDateCache()
        static let pushedFor = HTTPField.Name(LabAccess.pushedForHeader)!
    }

    private struct Answer {
        var record: LabRequestRecord
        var started: ContinuousClock.Instant
        var reply: PlaylistReply
        var head: Bool
        /// The client asked for no more (`Connection: close`, or HTTP/1.0 as LabConnectionHandler marks it).
        var close: Bool
    }

    private let responder: Responder
    /// Requests passed on to Hummingbird whose response has not ended yet.
    private var passedOn = 0
    /// The parts of the current request go on to Hummingbird.
    private var passing = false
    private var answer: Answer?
    /// A request answered here asked for no more: its connection's output is closed, and what the
    /// client sends after it is dropped (Hummingbird does the same, ending its loop).
    private var closing = false
    /// The connection's SocketMeter (LabConnectionHandler's).
    private var meter: SocketMeter?

    init(responder: Responder) {
        self.responder = responder
    }

    func handlerAdded(context: ChannelHandlerContext) {
        meter = SocketMeter.meter(of: context.channel)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if closing { return }
        switch unwrapInboundIn(data) {
        case .head(let request):
            if passedOn == 0, let answer = answer(request, channel: context.channel) {
                self.answer = answer
                passing = false
                return
            }
            passedOn += 1
            passing = true
            context.fireChannelRead(data)
        case .body:
            if passing { context.fireChannelRead(data) }
        case .end:
            if passing {
                context.fireChannelRead(data)
            } else if let answer {
                self.answer = nil
                send(answer, context: context)
            }
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if closing { return }
        context.fireErrorCaught(error)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data), passedOn > 0 { passedOn -= 1 }
        context.write(data, promise: promise)
    }

    /// The reply to `request`, or nil when it passes on.
    private func answer(_ request: HTTPRequest, channel: any Channel) -> Answer? {
        guard request.method == .get || request.method == .head, let target = request.path,
              target.utf8.first == UInt8(ascii: "/"), !target.utf8.contains(UInt8(ascii: "#")),
              request.headerFields[Responder.pushedFor] == nil else { return nil }
        let question = target.utf8.firstIndex(of: UInt8(ascii: "?"))
        let path = question.map { String(target[..<$0]) } ?? target
        guard let decoded = SuiteFiles.requestPath(path) else { return nil }
        let address = channel.remoteAddress
        let client = address?.ipAddress ?? "unknown"
        let local = channel.localAddress
        guard let reply = responder.live.reply(decoded, client: client, authority: request.authority, local: local)
                ?? responder.templates.reply(decoded, authority: request.authority, local: local) else { return nil }
        let caseId = SuiteFiles.caseId(of: path).flatMap { responder.knownCases.contains($0) ? $0 : nil }
        let record = LabRequestRecord(
            at: Date(), client: client, clientPort: address?.port,
            method: request.method.rawValue, path: String(path.prefix(2048)),
            query: question.map { String(target[target.utf8.index(after: $0)...].prefix(2048)) },
            range: request.headerFields[.range].map { String($0.prefix(256)) },
            status: 200, bytes: 0, durationMs: 0, userAgent: request.headerFields[.userAgent].map { String($0.prefix(512)) },
            caseId: caseId)
        return Answer(record: record, started: .now, reply: reply, head: request.method == .head,
                      close: request.headerFields[.connection] == "close")
    }

    private func send(_ answer: Answer, context: ChannelHandlerContext) {
        var headers = answer.reply.headers
        headers[.date] = responder.dates.now()
        headers[.server] = responder.serverName
        context.write(wrapOutboundOut(.head(HTTPResponse(status: .ok, headerFields: headers))), promise: nil)
        let log = responder.log
        var record = answer.record
        let started = answer.started
        record.expectedBytes = answer.head ? 0 : answer.reply.body.readableBytes
        if answer.head {
            record.completed = true
            record.durationMs = RequestLogMiddleware.milliseconds(ContinuousClock.now - started)
            log.append(record)
        } else {
            let body = answer.reply.body
            let written = context.eventLoop.makePromise(of: Void.self)
            let pending = record
            written.futureResult.whenComplete { result in
                var done = pending
                if case .success = result {
                    done.bytes = body.readableBytes
                    done.completed = true
                } else {
                    done.completed = false
                }
                done.durationMs = RequestLogMiddleware.milliseconds(ContinuousClock.now - started)
                log.append(done)
            }
            // The connection's meter settles every body write: what it settles must be handed first,
            // or a body RequestLogMiddleware writes next on this connection would read as settled early.
            meter?.hand(body.readableBytes)
            context.write(wrapOutboundOut(.body(body)), promise: written)
        }
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        if answer.close {
            closing = true
            context.close(mode: .output, promise: nil)
        }
    }

    /// Puts a `PlaylistFastPath` right after Hummingbird's connection state handler at the
    /// connection's first read (the pipeline is complete by then), then leaves.
    final class Installer: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = NIOAny
        let responder: Responder

        init(responder: Responder) {
            self.responder = responder
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let pipeline = context.pipeline.syncOperations
            if let state = try? pipeline.handler(type: HTTPConnectionStateHandler.self) {
                try? pipeline.addHandler(PlaylistFastPath(responder: responder), position: .after(state))
            }
            context.fireChannelRead(data)
            pipeline.removeHandler(context: context, promise: nil)
        }
    }
}

/// The `Date` header's value (RFC 9110 5.6.7), made once a second.
final class HTTPDateCache: @unchecked Sendable {
    private let lock = NSLock()
    private var second = 0
    private var text = ""

    func now() -> String {
        var clock = time(nil)
        if let known = lock.withLock({ second == clock ? text : nil }) { return known }
        var parts = tm()
        gmtime_r(&clock, &parts)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let made = "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
        lock.withLock { second = clock; text = made }
        return made
    }
}
