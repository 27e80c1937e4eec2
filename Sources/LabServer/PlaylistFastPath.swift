import Foundation
import LabCore
import NIOCore

/// The hot path of a lab, answered from the connection's bytes before any HTTP parser: a GET or
/// HEAD of a playlist or asset list of the suite (a template with the origin filled in, or a live
/// case's window), which every receiver polls each target duration. NIO's HTTP codec, Hummingbird's
/// handlers, its async channel and request task cost several times the work itself
/// (docs/benchmarks.md, lab-serve); here `RawRequest` reads the head, the same
/// `LiveWindowMiddleware` and `TemplateMiddleware` make the reply, it goes out as one buffer (the
/// bytes Hummingbird sent for it: status line, `Content-Type`, `Cache-Control`, `Content-Length`,
/// `Date`, `Server`), flushed once per read, and the same record goes to the request log (its bytes
/// and completion from the write's promise: what the socket took).
///
/// Everything else is handed on unchanged, as bytes, to NIO's parser and Hummingbird: errors (404,
/// 403), media files and ranges of them, the lab page and its API, requests pushed on a receiver's
/// behalf (`LabAccess.pushedForHeader`). A pipelined connection keeps its order: while a request
/// handed on is unanswered (`ConnectionLedger`), the requests after it are handed on too. A head
/// `RawRequest` does not recognise (a body, a malformed line) hands on the rest of the connection.
///
/// First in the connection's pipeline after the write-idle closer (which so sees these writes too);
/// Hummingbird's connection state handler sees only what is handed on (graceful shutdown closes a
/// connection with nothing handed on unanswered at once, as before; the idle timeout is the
/// write-idle closer's: `LabChildChannel`).
final class PlaylistFastPath: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// What the fast path needs, shared by every connection.
    struct Responder: Sendable {
        let live: LiveWindowMiddleware<LabRequestContext>
        let templates: TemplateMiddleware<LabRequestContext>
        let log: RequestLog
        let knownCases: Set<String>
        let serverName: String
        let dates = HTTPDateCache()
        let targets: DecodedTargets

        init(live: LiveWindowMiddleware<LabRequestContext>, templates: TemplateMiddleware<LabRequestContext>, log: RequestLog,
             knownCases: Set<String>, serverName: String) {
            self.live = live
            self.templates = templates
            self.log = log
            self.knownCases = knownCases
            self.serverName = serverName
            targets = DecodedTargets(knownCases: knownCases)
        }
    }

    private let responder: Responder
    private let ledger: ConnectionLedger
    /// The start of a request still arriving.
    private var held: ByteBuffer?
    /// A head was not recognised: NIO's parser reads the rest of the connection.
    private var handingOn = false
    /// A request answered here asked for no more: the connection's output is closed, and what the
    /// client sends after it is dropped (Hummingbird does the same, ending its loop).
    private var closing = false
    private var wrote = false
    /// This connection's ends, made once.
    private var client = "unknown"
    private var clientPort: Int?
    private var localAuthority: String?

    init(responder: Responder, ledger: ConnectionLedger) {
        self.responder = responder
        self.ledger = ledger
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let remote = context.channel.remoteAddress
        client = remote?.ipAddress ?? "unknown"
        clientPort = remote?.port
        localAuthority = SuiteFiles.authority(context.channel.localAddress)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if handingOn {
            context.fireChannelRead(data)
            return
        }
        if closing { return }
        var bytes = unwrapInboundIn(data)
        if var start = held {
            held = nil
            start.writeBuffer(&bytes)
            bytes = start
        }
        // The requests handed on from this read, sent on together.
        var handOn: ByteBuffer?
        while bytes.readableBytes > 0, !closing {
            switch bytes.withUnsafeReadableBytes({ RawRequest.scan($0) }) {
            case .incomplete:
                held = bytes
                bytes.moveReaderIndex(forwardBy: bytes.readableBytes)
            case .unrecognised:
                handingOn = true
                append(&handOn, bytes.readSlice(length: bytes.readableBytes)!)
            case .request(let request, let length):
                let whole = bytes.readSlice(length: length)!
                // Nothing handed on may be unanswered, here or after Hummingbird.
                if handOn == nil, ledger.handedOn == 0, let answer = answer(request) {
                    send(answer, context: context)
                } else {
                    append(&handOn, whole)
                }
            }
        }
        if let handOn { context.fireChannelRead(wrapInboundOut(handOn)) }
    }

    /// The start of a request the client never finished goes on to NIO's parser when its input
    /// ends (half-closed, or the connection gone), which rejects it as it always did: Hummingbird
    /// answers 400 and `LabConnectionHandler` logs it.
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event as? ChannelEvent == .some(.inputClosed) { handOnHeld(context: context) }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        handOnHeld(context: context)
        context.fireChannelInactive()
    }

    private func handOnHeld(context: ChannelHandlerContext) {
        guard let start = held, !closing else { return }
        held = nil
        handingOn = true
        context.fireChannelRead(wrapInboundOut(start))
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if wrote {
            wrote = false
            context.flush()
        }
        context.fireChannelReadComplete()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if closing { return }
        context.fireErrorCaught(error)
    }

    private func append(_ handOn: inout ByteBuffer?, _ bytes: ByteBuffer) {
        if handOn == nil {
            handOn = bytes
        } else {
            var bytes = bytes
            handOn!.writeBuffer(&bytes)
        }
    }

    private struct Answer {
        var record: LabRequestRecord
        var started: ContinuousClock.Instant
        var reply: PlaylistReply
        var head: Bool
        var close: Bool
    }

    /// The reply to `request`, or nil when it is handed on.
    private func answer(_ request: RawRequest) -> Answer? {
        guard request.method != .other, !request.pushedFor else { return nil }
        let target = request.target
        guard target.utf8.first == UInt8(ascii: "/"), !target.utf8.contains(UInt8(ascii: "#")) else { return nil }
        let question = target.utf8.firstIndex(of: UInt8(ascii: "?"))
        let path = question.map { String(target[..<$0]) } ?? target
        let known = responder.targets.decode(path)
        guard let decoded = known.decoded else { return nil }
        guard let reply = responder.live.reply(decoded, client: client, authority: request.host, localAuthority: localAuthority)
                ?? responder.templates.reply(decoded, authority: request.host, localAuthority: localAuthority) else { return nil }
        ledger.lastPath = target
        let record = LabRequestRecord(
            at: Date(), client: client, clientPort: clientPort,
            method: request.methodName, path: String(path.prefix(2048)),
            query: question.map { String(target[target.utf8.index(after: $0)...].prefix(2048)) },
            range: request.range.map { String($0.prefix(256)) },
            status: 200, bytes: 0, durationMs: 0, userAgent: request.userAgent.map { String($0.prefix(512)) },
            caseId: known.caseId)
        return Answer(record: record, started: .now, reply: reply, head: request.method == .head, close: !request.keepAlive)
    }

    private func send(_ answer: Answer, context: ChannelHandlerContext) {
        let body = answer.reply.body
        // A large body goes out as the cached buffer itself (no copy per request, so a client that
        // pipelines without reading holds references, not copies); a small one in the head's buffer.
        let separate = !answer.head && body.readableBytes > Self.inlineBodyLimit
        let bytes = Self.encode(answer.reply, head: answer.head || separate, date: responder.dates.now(), server: responder.serverName,
                                allocator: context.channel.allocator)
        let log = responder.log
        var record = answer.record
        let started = answer.started
        record.expectedBytes = answer.head ? 0 : body.readableBytes
        if answer.head {
            record.completed = true
            record.durationMs = RequestLogMiddleware.milliseconds(ContinuousClock.now - started)
            log.append(record)
            context.write(wrapOutboundOut(bytes), promise: nil)
        } else {
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
            if separate {
                context.write(wrapOutboundOut(bytes), promise: nil)
                context.write(wrapOutboundOut(body), promise: written)
            } else {
                context.write(wrapOutboundOut(bytes), promise: written)
            }
        }
        wrote = true
        if answer.close {
            closing = true
            wrote = false
            held = nil
            context.flush()
            context.close(mode: .output, promise: nil)
        }
    }

    /// Bodies up to this size are copied after the head, into one buffer.
    static let inlineBodyLimit = 16 * 1024

    /// The response Hummingbird sent for a playlist, as bytes (`head`: without the body).
    static func encode(_ reply: PlaylistReply, head: Bool, date: String, server: String, allocator: ByteBufferAllocator) -> ByteBuffer {
        let length = reply.body.readableBytes
        var out = allocator.buffer(capacity: 160 + reply.contentType.utf8.count + server.utf8.count + (head ? 0 : length))
        out.writeStaticString("HTTP/1.1 200 OK\r\nContent-Type: ")
        out.writeString(reply.contentType)
        out.writeStaticString("\r\nCache-Control: no-cache\r\nContent-Length: ")
        out.writeString(String(length))
        out.writeStaticString("\r\nDate: ")
        out.writeString(date)
        out.writeStaticString("\r\nServer: ")
        out.writeString(server)
        out.writeStaticString("\r\n\r\n")
        if !head {
            var body = reply.body
            out.writeBuffer(&body)
        }
        return out
    }
}

/// What `PlaylistFastPath` and `LabConnectionHandler` share on one connection (confined to its
/// event loop).
final class ConnectionLedger {
    /// Requests handed on to Hummingbird and not yet answered (their response's end not yet
    /// written): counted by `LabConnectionHandler`, which sees both; the fast path answers nothing
    /// while any is open, so the answers keep the requests' order.
    var handedOn = 0
    /// The target of the connection's last request, whoever answered it (a rejected request's log
    /// row names it).
    var lastPath: String?
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
