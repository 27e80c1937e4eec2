import Foundation
import NIOCore
import NIOPosix

/// What the reverse connection delivers: an event the receiver sent (already answered 200), or a
/// finding about what it sent (a garbage or huge request ends the connection; an event whose plist
/// is unusable does not).
public enum ReverseItem: Sendable, Equatable {
    case event(ReverseEvent)
    case finding(PushFinding)
}

/// The reverse HTTP connection (PTTH/1.0): the sender opens it with `POST /reverse` and, once the
/// receiver answers 101, the roles swap: the receiver sends requests (`POST /event`) and the sender
/// answers them. UxPlay takes one such connection at a time (a second gets no 101), so a session
/// keeps one open and closes it at its end.
public final class ReverseConnection: Sendable {
    /// The events and findings in arrival order; ends when the connection closes.
    public let items: AsyncStream<ReverseItem>
    private let channel: any Channel

    private init(items: AsyncStream<ReverseItem>, channel: any Channel) {
        self.items = items
        self.channel = channel
    }

    public var isOpen: Bool { channel.isActive }

    public func close() async { try? await channel.close() }

    /// Connects to `endpoint`, sends `POST /reverse` (`Upgrade: PTTH/1.0`, the session's
    /// `X-Apple-Session-ID`) and returns once the receiver answered 101. Any other answer, or none
    /// within the request timeout, is an error naming `/reverse`.
    public static func open(_ endpoint: AirPlayEndpoint, sessionId: String, configuration: AirPlayConfiguration,
                            limits: ReverseLimits = .init()) async throws(AirPlayError) -> ReverseConnection {
        let (items, feed) = AsyncStream.makeStream(of: ReverseItem.self, bufferingPolicy: .bufferingOldest(max(limits.maxQueuedEvents, 1)))
        let handler = ReverseHandler(limits: limits, feed: feed)
        let bootstrap = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.milliseconds(Int64(max(configuration.connectTimeout, 0.001) * 1000)))
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(handler) }
            }
        let channel: any Channel
        do {
            channel = try await bootstrap.connect(host: endpoint.host, port: endpoint.port).get()
        } catch {
            feed.finish()
            throw .connect(endpoint: endpoint.description, reason: Connection.describe(error))
        }
        let authority = endpoint.host.contains(":") ? "[\(endpoint.host)]:\(endpoint.port)" : "\(endpoint.host):\(endpoint.port)"
        let request = HTTPRequest(method: "POST", path: "/reverse", headers: [
            ("Upgrade", "PTTH/1.0"), ("Connection", "Upgrade"), ("X-Apple-Purpose", "event"),
            ("User-Agent", configuration.userAgent), ("X-Apple-Session-ID", sessionId)])
        let upgraded = channel.eventLoop.makePromise(of: Void.self)
        let nanoseconds = Int64(max(configuration.requestTimeout, 0.001) * 1_000_000_000)
        channel.eventLoop.execute {
            handler.awaitUpgrade(upgraded, timeout: .nanoseconds(nanoseconds))
            channel.writeAndFlush(channel.allocator.buffer(bytes: request.serialized(host: authority)), promise: nil)
        }
        do {
            try await upgraded.futureResult.get()
        } catch {
            try? await channel.close()
            let name = endpoint.description
            switch error as? ReverseHandler.UpgradeFailure {
            case .timeout: throw .timeout(endpoint: name, path: "/reverse", seconds: configuration.requestTimeout)
            case .status(let status, let reason): throw .http(endpoint: name, path: "/reverse", status: status, reason: reason)
            case .malformed(let reason): throw .badResponse(endpoint: name, path: "/reverse", reason: reason)
            case .closed, nil: throw .connectionClosed(endpoint: name, path: "/reverse")
            }
        }
        return ReverseConnection(items: items, channel: channel)
    }
}

/// Waits for the 101, then answers every request of the receiver and feeds its events on.
/// Touched only on its channel's event loop (hence unchecked Sendable).
final class ReverseHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    enum UpgradeFailure: Error {
        case timeout, closed
        case status(Int, String)
        case malformed(String)
    }

    private let limits: ReverseLimits
    private let feed: AsyncStream<ReverseItem>.Continuation
    private var upgrade: EventLoopPromise<Void>?
    private var timer: Scheduled<Void>?
    private var head: [UInt8] = []
    private var parser: ReverseRequestParser
    private var context: ChannelHandlerContext?

    init(limits: ReverseLimits, feed: AsyncStream<ReverseItem>.Continuation) {
        self.limits = limits
        self.feed = feed
        parser = ReverseRequestParser(limits: limits)
    }

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }

    func awaitUpgrade(_ promise: EventLoopPromise<Void>, timeout: TimeAmount) {
        guard let context, context.channel.isActive else {
            promise.fail(UpgradeFailure.closed)
            return
        }
        upgrade = promise
        timer = context.eventLoop.scheduleTask(in: timeout) { [self] in
            finishUpgrade(.failure(UpgradeFailure.timeout))
            self.context?.close(promise: nil)
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let bytes = unwrapInboundIn(data).readableBytesView
        if upgrade != nil {
            head.append(contentsOf: bytes)
            guard let end = ReverseRequestParser.headEnd(head) else {
                if head.count > limits.maxHeadBytes {
                    finishUpgrade(.failure(UpgradeFailure.malformed("an answer head larger than \(limits.maxHeadBytes) bytes")))
                    context.close(promise: nil)
                }
                return
            }
            var status = HTTPResponseParser(maxBodyBytes: 0, bodyless: true)
            let answer: HTTPResponse?
            do { answer = try status.feed(head[..<end.body]) } catch {
                finishUpgrade(.failure(UpgradeFailure.malformed(error.description)))
                context.close(promise: nil)
                return
            }
            let rest = Array(head[end.body...])
            head = []
            guard let answer, answer.status == 101 else {
                finishUpgrade(.failure(UpgradeFailure.status(answer?.status ?? 0, answer?.reason ?? "")))
                context.close(promise: nil)
                return
            }
            finishUpgrade(.success(()))
            if !rest.isEmpty { take(rest, context: context) }
            return
        }
        take(Array(bytes), context: context)
    }

    private func take(_ bytes: [UInt8], context: ChannelHandlerContext) {
        switch parser.feed(bytes) {
        case .success(let requests):
            for request in requests {
                context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: request.answer)), promise: nil)
                let item: ReverseItem
                switch FCUPMessages.event(from: request.body) {
                case .success(let event): item = .event(event)
                case .failure(let finding): item = .finding(finding)
                }
                if case .dropped = feed.yield(item) {
                    context.close(promise: nil)  // the sender is not keeping up: a flood, not a session
                    return
                }
            }
        case .failure(let finding):
            feed.yield(.finding(finding))
            context.close(promise: nil)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        finishUpgrade(.failure(UpgradeFailure.closed))
        feed.finish()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        finishUpgrade(.failure(UpgradeFailure.closed))
        context.close(promise: nil)
    }

    private func finishUpgrade(_ result: Result<Void, any Error>) {
        timer?.cancel()
        timer = nil
        guard let upgrade else { return }
        self.upgrade = nil
        upgrade.completeWith(result)
    }
}
