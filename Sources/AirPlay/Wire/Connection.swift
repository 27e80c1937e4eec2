import Foundation
import NIOCore
import NIOPosix

/// Why an exchange failed below HTTP status codes; the session turns it into an `AirPlayError`
/// naming the path.
enum ConnectionFailure: Error, Equatable {
    case connect(String)
    case timeout
    /// Closed before a complete answer; `answerStarted` false means no byte of it came.
    case closed(answerStarted: Bool)
    case malformed(HTTPParseError)
    case io(String)
    /// The encrypted channel's bytes did not decrypt (after pair-verify).
    case encryption(String)
}

/// One kept-alive TCP connection to one receiver, on swift-nio. Requests go one at a time (the
/// actor serialises them). The connection is opened on first use and reopened when the receiver
/// closed it; a request that met a close before any byte of its answer on a reused connection
/// (the receiver dropped an idle keep-alive as we wrote) is sent once more on a new one.
actor Connection {
    let host: String
    let port: Int
    let connectTimeout: Double
    let maxBodyBytes: Int
    private var channel: Channel?
    private var handler: ResponseHandler?
    /// TCP connections opened so far (the tests and the report of reconnects read it).
    private(set) var opened = 0
    /// True once `encrypt(with:)` ran: a closed connection is then never reopened in plain text.
    private(set) var encrypted = false

    /// An answer without `Content-Length` (and not chunked) has no body, instead of one read to
    /// the close: UxPlay answers `/stop`, `/rate` and an idle `/playback-info` so on a kept-alive
    /// connection (it sends `Content-Length` whenever there is a body).
    let lengthlessIsEmpty: Bool

    /// Whether a request that met a close before its answer on a reused connection is sent again
    /// on a new one. Off for pairing: its messages belong to the connection they started on (a
    /// pair-setup M3 on a new connection means nothing to the receiver).
    let resendsAfterStaleClose: Bool

    init(host: String, port: Int, connectTimeout: Double, maxBodyBytes: Int, lengthlessIsEmpty: Bool = false,
         resendsAfterStaleClose: Bool = true) {
        self.host = host
        self.port = port
        self.connectTimeout = connectTimeout
        self.maxBodyBytes = maxBodyBytes
        self.lengthlessIsEmpty = lengthlessIsEmpty
        self.resendsAfterStaleClose = resendsAfterStaleClose
    }

    /// The local IP address of the connection (AirPlay 2's RTSP URI names it); nil when closed.
    var localHost: String? { channel?.localAddress?.ipAddress }

    /// Connects now if not connected (so `open` reports an unreachable receiver at once).
    func connectIfNeeded() async throws(ConnectionFailure) {
        if let channel, channel.isActive { return }
        try await connect()
    }

    /// Sends `request` and reads its answer within `timeout` seconds. Calls from several tasks
    /// wait their turn (an actor alone would interleave them at its suspension points).
    func send(_ request: HTTPRequest, timeout: Double) async throws(ConnectionFailure) -> HTTPResponse {
        await acquire()
        defer { release() }
        return try await sendAlone(request, timeout: timeout)
    }

    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    private func acquire() async {
        guard busy else {
            busy = true
            return
        }
        await withCheckedContinuation { waiting.append($0) }  // `busy` stays true: handed over
    }

    private func release() {
        if waiting.isEmpty {
            busy = false
        } else {
            waiting.removeFirst().resume()
        }
    }

    private func sendAlone(_ request: HTTPRequest, timeout: Double) async throws(ConnectionFailure) -> HTTPResponse {
        var reused = true
        if encrypted, channel?.isActive != true { throw .closed(answerStarted: false) }
        if channel?.isActive != true {
            try await connect()
            reused = false
        }
        do {
            return try await exchange(request, timeout: timeout)
        } catch .closed(answerStarted: false) where reused && !encrypted && resendsAfterStaleClose && !Task.isCancelled {
            try await connect()
            return try await exchange(request, timeout: timeout)
        }
    }

    /// From now on every byte is framed and encrypted with `keys` (HAP after pair-verify): a
    /// handler in front of the HTTP one, so HTTP never knows. A close after this ends the session.
    func encrypt(with keys: HAPChannelKeys) async throws(ConnectionFailure) {
        guard let channel, channel.isActive else { throw .closed(answerStarted: false) }
        do {
            try await channel.pipeline.addHandler(HAPFramingHandler(keys: keys), position: .first).get()
        } catch {
            await close()
            throw .io(Self.describe(error))
        }
        encrypted = true
    }

    /// Closes the connection for good: a request in flight ends with `closed`, and no request
    /// opens a new connection after this.
    func shutDown() async {
        isShutDown = true
        await close()
    }

    private var isShutDown = false

    /// Closes the connection (a later request opens a new one); harmless when already closed.
    func close() async {
        guard let channel else { return }
        self.channel = nil
        handler = nil
        try? await channel.close()
    }

    private func connect() async throws(ConnectionFailure) {
        await close()
        guard !isShutDown else { throw .closed(answerStarted: false) }
        let limit = maxBodyBytes
        let bootstrap = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.milliseconds(Int64(max(connectTimeout, 0.001) * 1000)))
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(ResponseHandler(maxBodyBytes: limit))
                }
            }
        let newChannel: Channel
        do {
            newChannel = try await bootstrap.connect(host: host, port: port).get()
        } catch {
            if case ChannelError.connectTimeout = error {
                throw .connect("no answer within \(connectTimeout.formatted()) s")
            }
            throw .connect(Self.describe(error))
        }
        do {
            handler = try await newChannel.pipeline.handler(type: ResponseHandler.self).get()
        } catch {
            try? await newChannel.close()
            throw .io(Self.describe(error))
        }
        channel = newChannel
        opened += 1
    }

    private func exchange(_ request: HTTPRequest, timeout: Double) async throws(ConnectionFailure) -> HTTPResponse {
        guard let channel, let handler else { throw .closed(answerStarted: false) }
        let promise = channel.eventLoop.makePromise(of: HTTPResponse.self)
        let bytes = request.serialized(host: host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)")
        let bodyless = request.method == "HEAD"
        let limit = maxBodyBytes
        let lengthlessIsEmpty = lengthlessIsEmpty
        let nanoseconds = Int64(max(timeout, 0.001) * 1_000_000_000)
        channel.eventLoop.execute {
            handler.expect(promise, parser: HTTPResponseParser(maxBodyBytes: limit, bodyless: bodyless, lengthlessIsEmpty: lengthlessIsEmpty),
                           timeout: .nanoseconds(nanoseconds))
            channel.writeAndFlush(channel.allocator.buffer(bytes: bytes), promise: nil)
        }
        let response: HTTPResponse
        do {
            response = try await withTaskCancellationHandler {
                try await promise.futureResult.get()
            } onCancel: {
                channel.close(promise: nil)
            }
        } catch let failure as ConnectionFailure {
            if case .closed = failure {} else { await close() }
            throw failure
        } catch {
            await close()
            throw .io(Self.describe(error))
        }
        if response.closesConnection { await close() }
        return response
    }

    static func describe(_ error: any Error) -> String {
        if let error = error as? IOError { return String(cString: strerror(error.errnoCode)) }
        if let error = error as? NIOConnectionError {
            return error.connectionErrors.first.map { describe($0.error) } ?? "\(error)"
        }
        return "\(error)"
    }
}

/// Feeds a channel's bytes to the parser of the request in flight and completes its promise.
/// Touched only on its channel's event loop (hence unchecked Sendable).
final class ResponseHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = ByteBuffer

    private let maxBodyBytes: Int
    private var promise: EventLoopPromise<HTTPResponse>?
    private var parser: HTTPResponseParser?
    private var timer: Scheduled<Void>?
    private var context: ChannelHandlerContext?

    init(maxBodyBytes: Int) { self.maxBodyBytes = maxBodyBytes }

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }
    func handlerRemoved(context: ChannelHandlerContext) { self.context = nil }

    /// Arms the handler for one answer; on its event loop.
    func expect(_ promise: EventLoopPromise<HTTPResponse>, parser: HTTPResponseParser, timeout: TimeAmount) {
        guard let context, context.channel.isActive else {
            promise.fail(ConnectionFailure.closed(answerStarted: false))
            return
        }
        guard self.promise == nil else {  // the connection serialises requests; never two in flight
            promise.fail(ConnectionFailure.io("a request is already waiting for its answer"))
            return
        }
        self.promise = promise
        self.parser = parser
        timer = context.eventLoop.scheduleTask(in: timeout) { [self] in
            finish(.failure(ConnectionFailure.timeout))
            self.context?.close(promise: nil)
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        guard parser != nil else { return }  // nothing asked: unsolicited bytes are dropped
        do {
            if let response = try parser?.feed(buffer.readableBytesView) {
                finish(.success(response))
            }
        } catch {
            finish(.failure(ConnectionFailure.malformed(error)))
            context.close(promise: nil)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        if parser != nil {
            if let response = parser?.finish() {
                finish(.success(response))
            } else {
                finish(.failure(ConnectionFailure.closed(answerStarted: parser?.receivedAny ?? false)))
            }
        }
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let error = error as? HAPFramingError {
            finish(.failure(ConnectionFailure.encryption(error.description)))
        } else {
            finish(.failure(ConnectionFailure.io(Connection.describe(error))))
        }
        context.close(promise: nil)
    }

    private func finish(_ result: Result<HTTPResponse, any Error>) {
        timer?.cancel()
        timer = nil
        parser = nil
        guard let promise else { return }
        self.promise = nil
        promise.completeWith(result)
    }
}
